//! `ets info FILE... [--format text|json]`: what each game of an archive holds — the decoded
//! root properties, moves and variations, the charset and how it was chosen, and the warnings.
//! The first command to try on an unknown archive; files, `FILE:N`, collections and directories.

use clap::Args;
use rayon::prelude::*;
use serde::Serialize;
use std::path::PathBuf;
use std::process::ExitCode;

use ets::go::game::Replay;
use ets::go::sgf::CharsetSource;

use super::go_cmds::{Format, first_line, sgf_files};
use super::input::{Loaded, Progress, Warn, reading_warnings, split_game};

#[derive(Args)]
pub struct InfoArgs {
    /// SGF files (`FILE:N`: its N-th game only) or directories (every `.sgf` file below them).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Decode text with this charset (a WHATWG label), whatever `CA` says or detection finds.
    #[arg(long)]
    pub charset: Option<String>,
    /// Count a game with warnings as failed (exit code 1).
    #[arg(long)]
    pub strict: bool,
}

#[derive(Serialize, Default)]
struct GameInfoOut {
    file: String,
    game: usize,
    games_in_file: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
    black: Option<String>,
    black_rank: Option<String>,
    white: Option<String>,
    white_rank: Option<String>,
    result: Option<String>,
    date: Option<String>,
    event: Option<String>,
    round: Option<String>,
    place: Option<String>,
    size: Option<[u8; 2]>,
    komi: Option<f64>,
    handicap: Option<u32>,
    rules: Option<String>,
    moves: Option<usize>,
    variations: Option<usize>,
    charset: Option<String>,
    charset_source: Option<CharsetSource>,
    charset_declared: Option<String>,
    warnings: Vec<Warn>,
}

fn file_infos(f: &std::path::Path, only: Option<usize>, charset: &Option<String>) -> Vec<GameInfoOut> {
    let name = f.display().to_string();
    let sgf = match super::input::parse_file(f, charset) {
        Ok(s) => s,
        Err(e) => {
            return vec![GameInfoOut {
                file: name,
                game: only.unwrap_or(1),
                error: Some(first_line(&e)),
                ..Default::default()
            }];
        }
    };
    let n = sgf.games().len();
    let games: Vec<usize> = match only {
        Some(g) if g > n => {
            return vec![GameInfoOut {
                file: name.clone(),
                game: g,
                games_in_file: n,
                error: Some(format!("{name}: the file holds {n} game(s); game {g} was asked for")),
                ..Default::default()
            }];
        }
        Some(g) => vec![g - 1],
        None => (0..n).collect(),
    };
    let cs = sgf.charset();
    games
        .into_iter()
        .map(|g| {
            let mut out = GameInfoOut {
                file: name.clone(),
                game: g + 1,
                games_in_file: n,
                variations: Some(sgf.line_count(g).saturating_sub(1)),
                charset: Some(cs.name().to_string()),
                charset_source: Some(cs.source),
                charset_declared: cs.declared.clone(),
                ..Default::default()
            };
            match Replay::from_sgf(&sgf, g, &[]) {
                Err(e) => {
                    let at = sgf.node(sgf.games()[g]).at as usize;
                    let (l, c) = sgf.line_col(at);
                    out.error = Some(format!("{name}:{l}:{c}: {e}"));
                    out.warnings = reading_warnings(&name, &sgf, g);
                }
                Ok(replay) => {
                    let i = &replay.info;
                    out.black = i.black.clone();
                    out.black_rank = i.black_rank.clone();
                    out.white = i.white.clone();
                    out.white_rank = i.white_rank.clone();
                    out.result = i.result.clone();
                    out.date = i.date.clone();
                    out.event = i.event.clone();
                    out.round = i.round.clone();
                    out.place = i.place.clone();
                    out.size = Some([i.size.0, i.size.1]);
                    out.komi = i.komi;
                    out.handicap = i.handicap;
                    out.rules = i.rules.clone();
                    out.moves = Some(replay.len());
                    let l = Loaded {
                        name: name.clone(),
                        sgf: sgf.clone(),
                        game: g,
                        replay,
                    };
                    out.warnings = l.warnings(l.replay.len());
                }
            }
            out
        })
        .collect()
}

fn print_text(o: &GameInfoOut) {
    let opt = |v: &Option<String>| v.clone().unwrap_or_else(|| "-".into());
    let player = |n: &Option<String>, r: &Option<String>| match (n, r) {
        (Some(n), Some(r)) => format!("{n} ({r})"),
        (n, _) => opt(n),
    };
    println!("{} (game {} of {})", o.file, o.game, o.games_in_file.max(1));
    if o.moves.is_some() {
        println!("  black:    {}", player(&o.black, &o.black_rank));
        println!("  white:    {}", player(&o.white, &o.white_rank));
        println!("  result:   {}   date: {}", opt(&o.result), opt(&o.date));
        println!(
            "  event:    {}   round: {}   place: {}",
            opt(&o.event),
            opt(&o.round),
            opt(&o.place)
        );
        let size = o.size.map(|[c, r]| format!("{c}x{r}")).unwrap_or_default();
        println!(
            "  board:    {size}   komi: {}   handicap: {}   rules: {}",
            o.komi.map(|k| k.to_string()).unwrap_or_else(|| "-".into()),
            o.handicap.map(|h| h.to_string()).unwrap_or_else(|| "-".into()),
            opt(&o.rules)
        );
        println!(
            "  moves:    {} on the main line; {} variation(s)",
            o.moves.unwrap_or(0),
            o.variations.unwrap_or(0)
        );
    }
    if let (Some(c), Some(src)) = (&o.charset, o.charset_source) {
        let cs = ets::go::sgf::Charset {
            encoding: encoding_rs::Encoding::for_label(c.as_bytes()).unwrap_or(encoding_rs::UTF_8),
            source: src,
            declared: o.charset_declared.clone(),
        };
        println!("  charset:  {}", cs.describe());
    }
    match o.warnings.len() {
        0 => println!("  warnings: none"),
        n => println!("  warnings: {n} (on stderr)"),
    }
}

pub fn run(a: InfoArgs) -> miette::Result<ExitCode> {
    super::input::charset_arg(&a.charset)?;
    // (file, the one game asked for)
    let mut jobs: Vec<(PathBuf, Option<usize>)> = Vec::new();
    for f in &a.files {
        let (file, game) = split_game(f)?;
        if file.is_dir() && game.is_none() {
            let found = sgf_files(&file);
            if found.is_empty() {
                return Err(miette::miette!("{}: no .sgf file in this directory", file.display()));
            }
            jobs.extend(found.into_iter().map(|p| (p, None)));
        } else {
            jobs.push((file, game));
        }
    }
    let pb = Progress::new(jobs.len());
    let outs: Vec<GameInfoOut> = jobs
        .par_iter()
        .map(|(f, g)| {
            let r = file_infos(f, *g, &a.charset);
            pb.inc();
            r
        })
        .collect::<Vec<_>>()
        .into_iter()
        .flatten()
        .collect();
    pb.finish();
    let failed = outs
        .iter()
        .filter(|o| o.error.is_some() || (a.strict && !o.warnings.is_empty()))
        .count();
    // Errors and warnings go to stderr (JSON: in each game's entry too); a game that could not
    // be read prints nothing on stdout in text, and nothing at all when no game could be read.
    let json = a.format == Format::Json;
    for o in &outs {
        if let Some(e) = &o.error {
            eprintln!("error: {e}");
        }
        if !json {
            for w in &o.warnings {
                eprintln!("warning: {}", w.text);
            }
        }
    }
    if outs.iter().all(|o| o.error.is_some()) {
        return Ok(ExitCode::from(1));
    }
    match a.format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&outs).expect("serialisable")),
        Format::Text => {
            for o in outs.iter().filter(|o| o.error.is_none()) {
                print_text(o);
            }
            if outs.len() > 1 {
                let warned = outs
                    .iter()
                    .filter(|o| o.error.is_none() && !o.warnings.is_empty())
                    .count();
                println!(
                    "{} game(s): {} with warnings, {} failed",
                    outs.len(),
                    warned,
                    outs.iter().filter(|o| o.error.is_some()).count()
                );
            }
        }
    }
    Ok(if failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
