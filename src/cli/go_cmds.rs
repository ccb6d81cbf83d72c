//! `ets board`, `ets replay`, `ets bench`: positions, structs and throughput of game records
//! (the sensor of thesis §4.4).

use clap::{Args, ValueEnum};
use rayon::prelude::*;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use ets::go::board::{Board, Color, Point};
use ets::go::game::Replay;
use ets::go::record::{Attention, GoAlphabet, RecordOptions, record};
use ets::go::sgf::Sgf;

pub use super::input::GameSel;
use super::input::{Loaded, Progress, Warn, json_with_warnings, positive, report_warnings, usage};

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum BoardFormat {
    Ascii,
    Text,
    Json,
}

/// Output format of commands that print a result.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
}

#[derive(Args)]
pub struct BoardArgs {
    /// An SGF file (`FILE:N`: its N-th game).
    pub file: PathBuf,
    #[command(flatten)]
    pub sel: GameSel,
    /// Output format (`ascii` and `text` are the same).
    #[arg(long, value_enum, default_value_t = BoardFormat::Ascii)]
    pub format: BoardFormat,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum AttentionArg {
    Full,
    Focus,
    Sweep,
}

/// Recording options.
#[derive(Args, Clone)]
pub struct RecordArgs {
    /// Attention policy (§4.4.1–4.4.2, §5.1.4).
    #[arg(long, value_enum, default_value_t = AttentionArg::Full)]
    pub attention: AttentionArg,
    /// Refresh layers per position (default: 1; 3 with --attention focus, as the thesis suggests).
    #[arg(long, value_parser = positive)]
    pub layers: Option<usize>,
    /// Focus radius (Manhattan distance from the last move).
    #[arg(long, default_value_t = 2)]
    pub radius: u8,
    /// Focus cap on local space awareness processes (at least 4: one vertex).
    #[arg(long, default_value_t = 50, value_parser = cap)]
    pub cap: usize,
    /// Sweep window width in columns.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u8).range(1..))]
    pub width: u8,
}

fn cap(s: &str) -> Result<usize, String> {
    match positive(s)? {
        n if n >= 4 => Ok(n),
        _ => Err("the cap counts four processes per vertex: at least 4".into()),
    }
}

impl RecordArgs {
    pub fn options(&self) -> RecordOptions {
        let attention = match self.attention {
            AttentionArg::Full => Attention::Full,
            AttentionArg::Focus => Attention::Focus {
                radius: self.radius,
                cap: self.cap,
            },
            AttentionArg::Sweep => Attention::Sweep { width: self.width },
        };
        let layers = self
            .layers
            .unwrap_or(if self.attention == AttentionArg::Focus { 3 } else { 1 });
        RecordOptions {
            attention,
            layers: layers.max(1),
        }
    }
}

#[derive(Args)]
pub struct ReplayArgs {
    /// An SGF file (`FILE:N`: its N-th game), or a directory: every game of every file in it.
    pub file: PathBuf,
    #[command(flatten)]
    pub sel: GameSel,
    #[command(flatten)]
    pub rec: RecordArgs,
    /// Write the struct as JSON (docs/formats.md).
    #[arg(short = 'o', long)]
    pub output: Option<PathBuf>,
    /// Output format of the summary.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

#[derive(Args)]
pub struct BenchArgs {
    /// A directory of SGF files.
    #[arg(default_value = "../shared/data/games/tom-9d")]
    pub dir: PathBuf,
    /// Use at most this many files.
    #[arg(long, default_value_t = 2000, value_parser = positive)]
    pub limit: usize,
    /// Repetitions (the median is reported).
    #[arg(long, default_value_t = 3, value_parser = positive)]
    pub reps: usize,
    /// Instead: classify every position of this game at levels 0–2 (full attention), beside GNU Go
    /// reporting its worms at every position when `gnugo` is installed; then the Game API's live
    /// loop at a middle-game position (a move tried and taken back, a fork), beside GNU Go
    /// playing the same move, listing its worms and taking it back.
    #[arg(long)]
    pub classify: Option<PathBuf>,
    /// With `--classify`: the move N at which `--move N` is compared with `--timeline` up to N
    /// (default: the last move).
    #[arg(long = "move", value_name = "N")]
    pub mv: Option<usize>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// Loads one game and reports failures located in the file (compatibility shim for the
/// commands that want only the collection and the replay; see [`super::input::load`], which
/// also gives the warnings).
#[allow(dead_code)]
pub fn load(file: &Path, sel: &GameSel) -> miette::Result<(Sgf, Replay)> {
    let l = super::input::load(file, sel)?;
    Ok((l.sgf, l.replay))
}

#[derive(Serialize)]
struct BoardJson {
    size: [u8; 2],
    #[serde(rename = "move")]
    mv: usize,
    moves: usize,
    black: Vec<String>,
    white: Vec<String>,
    to_move: &'static str,
    captures: Captures,
}

#[derive(Serialize)]
struct Captures {
    black: u32,
    white: u32,
}

fn names(b: &Board, c: Color) -> Vec<String> {
    let mut v: Vec<Point> = b.stones(c);
    v.sort_by_key(|p| (p.col, std::cmp::Reverse(p.row)));
    v.into_iter().map(|p| p.gtp(b.rows())).collect()
}

pub fn board(a: BoardArgs) -> miette::Result<ExitCode> {
    let l = super::input::load(&a.file, &a.sel)?;
    let n = l.upto(a.sel.mv)?;
    let json = a.format == BoardFormat::Json;
    let warnings = report_warnings(l.warnings(n), a.sel.strict, json)?;
    let replay = &l.replay;
    let b = &replay.positions[n];
    if json {
        let j = BoardJson {
            size: [b.cols(), b.rows()],
            mv: n,
            moves: replay.len(),
            black: names(b, Color::Black),
            white: names(b, Color::White),
            to_move: replay.to_move[n].letter(),
            captures: Captures {
                black: b.captured_by_black,
                white: b.captured_by_white,
            },
        };
        println!("{}", json_with_warnings(&j, &warnings));
    } else {
        print!("{}", b.ascii());
        println!(
            "after move {n} of {}; {} to move; captures: black {}, white {}",
            replay.len(),
            replay.to_move[n].letter(),
            b.captured_by_black,
            b.captured_by_white
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Every `.sgf` file below `dir`, sorted.
pub fn sgf_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else { continue };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x.eq_ignore_ascii_case("sgf")) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

pub fn last_moves(replay: &Replay, n: usize) -> Vec<Option<Point>> {
    let mut v = vec![None];
    v.extend(replay.moves[..n].iter().map(|m| m.point));
    v
}

#[derive(Serialize)]
struct ReplayJson {
    file: String,
    game: usize,
    positions: usize,
    layers: u32,
    primitives: usize,
    processes: usize,
    bytes_per_primitive: f64,
}

#[derive(Serialize)]
struct GameOutcome {
    file: String,
    game: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    primitives: Option<usize>,
    warnings: Vec<Warn>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error: Option<String>,
}

#[derive(Serialize)]
struct CorpusJson {
    games: usize,
    ok: usize,
    with_warnings: usize,
    failed: usize,
    primitives: usize,
    outcomes: Vec<GameOutcome>,
}

/// The first line of a rendered report, without miette's decoration.
pub fn first_line(e: &miette::Report) -> String {
    e.to_string().lines().next().unwrap_or("").to_string()
}

/// Every game of every file: read, replay, record (with the options), each game's outcome.
fn replay_corpus(a: &ReplayArgs) -> miette::Result<ExitCode> {
    let kinds = GoAlphabet::new();
    let opts = a.rec.options();
    let files = sgf_files(&a.file);
    if files.is_empty() {
        return Err(miette::miette!("{}: no .sgf file in this directory", a.file.display()));
    }
    let pb = Progress::new(files.len());
    let json = a.format == Format::Json;
    let results: Vec<Vec<GameOutcome>> = files
        .par_iter()
        .map(|f| {
            let name = f.display().to_string();
            let out = match super::input::parse_file(f, &a.sel.charset) {
                Err(e) => vec![GameOutcome {
                    file: name,
                    game: 1,
                    primitives: None,
                    warnings: vec![],
                    error: Some(first_line(&e)),
                }],
                Ok(sgf) => (0..sgf.games().len())
                    .map(|g| {
                        let sel = GameSel {
                            game: Some(g + 1),
                            ..a.sel.clone()
                        };
                        let r = (|| -> miette::Result<(usize, Vec<Warn>)> {
                            let replay = Replay::from_sgf(&sgf, g, &sel.path).map_err(|e| miette::miette!("{e}"))?;
                            let l = Loaded {
                                name: name.clone(),
                                sgf: sgf.clone(),
                                game: g,
                                replay,
                            };
                            let n = l.replay.len();
                            let w = l.warnings(n);
                            if a.sel.strict && !w.is_empty() {
                                return Err(miette::miette!("{} [--strict]", w[0].text));
                            }
                            super::input::check_recording(&l, n, opts)?;
                            let rec = record(&kinds, &l.replay.positions, &last_moves(&l.replay, n), opts)
                                .map_err(|e| miette::miette!("{e}"))?;
                            Ok((rec.strukt.len(), w))
                        })();
                        match r {
                            Ok((p, w)) => GameOutcome {
                                file: name.clone(),
                                game: g + 1,
                                primitives: Some(p),
                                warnings: w,
                                error: None,
                            },
                            Err(e) => GameOutcome {
                                file: name.clone(),
                                game: g + 1,
                                primitives: None,
                                warnings: vec![],
                                error: Some(first_line(&e)),
                            },
                        }
                    })
                    .collect(),
            };
            pb.inc();
            out
        })
        .collect();
    pb.finish();
    let outcomes: Vec<GameOutcome> = results.into_iter().flatten().collect();
    let failed = outcomes.iter().filter(|o| o.error.is_some()).count();
    let warned = outcomes
        .iter()
        .filter(|o| o.error.is_none() && !o.warnings.is_empty())
        .count();
    let prims: usize = outcomes.iter().filter_map(|o| o.primitives).sum();
    let games = outcomes.len();
    if json {
        let j = CorpusJson {
            games,
            ok: games - failed - warned,
            with_warnings: warned,
            failed,
            primitives: prims,
            outcomes,
        };
        println!("{}", serde_json::to_string_pretty(&j).expect("serialisable"));
    } else {
        for o in &outcomes {
            match &o.error {
                Some(e) => eprintln!("error: {}: game {}: {e}", o.file, o.game),
                None => {
                    for w in &o.warnings {
                        eprintln!("warning: {}", w.text);
                    }
                }
            }
        }
        println!(
            "{games} games: {} ok, {warned} with warnings, {failed} failed; {prims} primitives recorded",
            games - failed - warned
        );
    }
    Ok(if failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

pub fn replay(a: ReplayArgs) -> miette::Result<ExitCode> {
    if a.file.is_dir() {
        if a.output.is_some() {
            return Err(usage("-o writes one struct: name a file, not a directory"));
        }
        return replay_corpus(&a);
    }
    let kinds = GoAlphabet::new();
    let opts = a.rec.options();
    let l = super::input::load(&a.file, &a.sel)?;
    let n = l.upto(a.sel.mv)?;
    let json = a.format == Format::Json;
    let warnings = report_warnings(l.warnings(n), a.sel.strict, json)?;
    super::input::check_recording(&l, n, opts)?;
    let rec = record(&kinds, &l.replay.positions[..=n], &last_moves(&l.replay, n), opts)
        .map_err(|e| miette::miette!("{}: {e}", l.name))?;
    let s = &rec.strukt;
    if let Some(out) = &a.output {
        std::fs::write(out, ets::ets::json::write_struct(s))
            .map_err(|e| miette::miette!("cannot write {}: {e}", out.display()))?;
    }
    let bpp = s.heap_bytes() as f64 / s.len().max(1) as f64;
    if json {
        let j = ReplayJson {
            file: l.name.clone(),
            game: l.game + 1,
            positions: n + 1,
            layers: rec.layer_count as u32,
            primitives: s.len(),
            processes: s.process_count(),
            bytes_per_primitive: (bpp * 10.0).round() / 10.0,
        };
        println!("{}", json_with_warnings(&j, &warnings));
    } else {
        println!(
            "{}: {} positions, {} layers, {} primitives, {} processes ({:.1} bytes/primitive)",
            l.name,
            n + 1,
            rec.layer_count,
            s.len(),
            s.process_count(),
            bpp
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn bench_classify(a: &BenchArgs, file: &Path) -> miette::Result<ExitCode> {
    let (sources, st) = ets::go::classify::embedded_setting();
    let st = std::sync::Arc::new(st.map_err(|e| miette::miette!("{}", crate::cli::dsl_cmds::render(&sources, &e)))?);
    let l = super::input::load(file, &GameSel::default())?;
    let json = a.format == Format::Json;
    let n = l.replay.len();
    let warnings = report_warnings(l.warnings(n), false, json)?;
    super::input::check_recording(&l, n, RecordOptions::default())?;
    if let Some(m) = a.mv.filter(|&m| m > n) {
        return Err(usage(format!("--move {m}: the record has {n} moves")));
    }
    let peer = ets::go::bench::gnugo();
    let b = ets::go::bench::classify(st, &l.replay, file, &l.name, a.reps, a.mv, peer.as_deref())
        .map_err(|e| miette::miette!("{}: {e}", l.name))?;
    if json {
        println!("{}", json_with_warnings(&b, &warnings));
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "{}: {} moves, {} positions; medians of {} runs; a {} build",
        b.file, b.moves, b.positions, b.reps, b.build
    );
    println!(
        "  ets classify, every position, levels 0-2, full attention: {:.0} ms/game, {:.2} ms/position ({}CPU {:.0} ms; on one thread {:.0} ms/game); {} primitives, {:.1} bytes/primitive in the struct, {:.1} in the whole timeline; peak memory {}",
        b.ets_ms_per_game,
        b.ets_ms_per_position,
        if b.pipelined {
            "levels 1-2 on a second thread; "
        } else {
            ""
        },
        b.ets_cpu_ms_per_game,
        b.ets_one_thread_ms_per_game,
        b.primitives,
        b.bytes_per_primitive,
        b.timeline_bytes_per_primitive,
        b.peak_memory_bytes
            .map(|x| format!("{:.0} MiB", x as f64 / 1048576.0))
            .unwrap_or_else(|| "unknown".into())
    );
    println!(
        "  a position changes {:.2} of the {} vertices on average (changed or beside a change, {:.2}%); full attention perceives the rest again as it was",
        b.dirty_vertices_per_position,
        b.vertices,
        100.0 * b.dirty_vertices_per_position / b.vertices.max(1) as f64
    );
    println!(
        "  level 0 took the matches of {:.2}% of the primitives as images of the previous position's (clean: they and their neighbourhood repeat it, or, for {:.2}%, they and their matches do), some of the matches of {:.2}% more (partial), and {} element steps as images of the element's last one",
        100.0 * b.clean_share,
        100.0 * b.calm_share,
        100.0 * b.partial_share,
        b.quiet_element_steps
    );
    println!(
        "  levels 1-2 made {} stillborn elements by trial derivations (not written out; {} starts not tried, as they could only give up) and {} from the memo of stillborn derivations (not derived), and {} late forks",
        b.stillborn_by_trials, b.trials_skipped, b.stillborn_from_memo, b.late_forks_made
    );
    let per = |x: usize| x as f64 / b.primitives.max(1) as f64;
    let mut parts = format!(
        "struct {:.1}, level 0's anchors {:.1}",
        per(b.memory.strukt),
        per(b.memory.anchors)
    );
    for (n, lv) in b.memory.levels.iter().enumerate() {
        parts += &format!("; level {n} {:.1}:", per(lv.total()));
        for (name, x) in lv.parts().into_iter().filter(|&(_, x)| per(x) >= 0.05) {
            parts += &format!(" {name} {:.1},", per(x));
        }
        parts.pop();
    }
    parts += &format!("; compiled from the setting {:.1}", per(b.memory.compiled));
    println!(
        "  the whole timeline's bytes per primitive, part by part: {parts}; beside it, the sensor's record of each primitive {:.1}",
        b.front_end_bytes_per_primitive
    );
    match (
        b.gnugo_ms_per_game,
        b.ratio,
        b.median_ratio_of_repetitions,
        b.one_thread_ratio,
    ) {
        (Some(p), Some(r), Some(pairs), Some(r1)) => println!(
            "  {}: {:.0} ms/game, {:.2} ms/position; ratio ets/GNU Go {:.2} (median of the repetitions' ratios {:.2}; on one thread {:.2})",
            b.peer,
            p,
            p / b.moves.max(1) as f64,
            r,
            pairs,
            r1
        ),
        _ => println!("  {}", b.peer),
    }
    println!(
        "  --move {m}: {:.0} ms; --timeline up to {m}: {:.0} ms; --move / --timeline {:.2} (median over the repetitions)",
        b.move_n_ms,
        b.timeline_to_n_ms,
        b.move_n_over_timeline,
        m = b.move_n
    );
    println!(
        "    the same classification of positions 0..={m}; their outputs: the position's JSON {:.1} ms, the timeline's JSON {:.1} ms",
        b.move_n_output_ms,
        b.timeline_output_ms,
        m = b.move_n
    );
    if let Some(l) = &b.live {
        println!(
            "  live loop (the Game API) after move {}, trying {} (the legal move nearest the last), {} tries per run:",
            l.at, l.tried, l.tries
        );
        for m in &l.modes {
            println!(
                "    {}: play + delta at levels 0-2 + undo {:.0} µs; fork {:.1} µs",
                m.attention, m.play_delta_undo_us, m.fork_us
            );
        }
        match l.gnugo_us {
            Some(g) => println!("    {}: {:.0} µs a try", l.peer, g),
            None => println!("    {}", l.peer),
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn bench(a: BenchArgs) -> miette::Result<ExitCode> {
    if a.mv.is_some() && a.classify.is_none() {
        return Err(usage(
            "--move N compares `classify --move N` with `--timeline` up to N: it needs --classify GAME",
        ));
    }
    if let Some(f) = &a.classify {
        return bench_classify(&a, f);
    }
    if !a.dir.is_dir() {
        return Err(miette::miette!("{}: not a directory of SGF files", a.dir.display()));
    }
    let files: Vec<PathBuf> = sgf_files(&a.dir).into_iter().take(a.limit).collect();
    if files.is_empty() {
        return Err(miette::miette!("no SGF files under {}", a.dir.display()));
    }
    let data: Vec<Vec<u8>> = files.iter().filter_map(|f| super::input::read_input(f).ok()).collect();
    let pb = Progress::new(a.reps);
    let b = ets::go::bench::record_corpus(&data, a.reps, || pb.inc()).map_err(|e| miette::miette!("{e}"))?;
    pb.finish();
    let (mb, games, reps) = (b.megabytes, b.games, b.reps);
    let (o, p, r, c) = (b.parse_s, b.parse_sgf_parse_s, b.replay_s, b.record_s);
    if a.format == Format::Json {
        println!("{}", serde_json::to_string_pretty(&b).expect("serialisable"));
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "{} files, {:.1} MB, {} games; medians of {} runs, one thread:",
        b.files, mb, games, reps
    );
    println!(
        "  parse (ets)        {:>8.3} s  {:>9.1} MB/s  {:>9.0} games/s",
        o,
        mb / o,
        games as f64 / o
    );
    println!(
        "  parse (sgf-parse)  {:>8.3} s  {:>9.1} MB/s  {:>9.0} games/s   ratio {:.1}x",
        p,
        mb / p,
        games as f64 / p,
        p / o
    );
    println!("  replay             {:>8.3} s  {:>9.0} games/s", r, games as f64 / r);
    println!(
        "  record (full, 1 layer) {:>4.3} s  {:>9.1} games/s  {} primitives, {:.1} bytes/primitive",
        c,
        games as f64 / c,
        b.primitives,
        b.bytes_per_primitive
    );
    Ok(ExitCode::SUCCESS)
}
