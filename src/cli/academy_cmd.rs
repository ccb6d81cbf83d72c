//! `ets academy post|show|query|stats|export|learn` and `ets evaluate`: the ACADEMY (a shared
//! pattern database) and Gomi's position evaluation by sample games.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::{Args, Subcommand, ValueEnum};
use serde::Serialize;

use ets::go::board::{Color, Point};
use ets::go::fastboard::{FastBoard, Rules};
use ets::go::game::Replay;
use ets::go::sgf::Sgf;
use ets::knowledge::academy::db::{Settings, Shared};
use ets::knowledge::academy::games::{Post, RecordSettings, record_posts};
use ets::knowledge::academy::library::{Caps, Library};
use ets::knowledge::academy::notation::{Game, parse};
use ets::knowledge::gomi::play::{Formula, Gomi, Settings as GomiSettings, forme_k_chi};

use super::go_cmds::{GameSel, load, sgf_files};

/// The ACADEMY's commands.
#[derive(Args)]
pub struct AcademyArgs {
    #[command(subcommand)]
    cmd: AcademyCmd,
}

#[derive(Subcommand)]
enum AcademyCmd {
    /// Post patterns in the seed's text form (area lines, then `< N; E; V; P >`, blank lines
    /// between patterns).
    Post(PostArgs),
    /// Every pattern with its area, N, E, V, P and library, and the Fuseki tree.
    Show(ShowArgs),
    /// Run an SQL query on the store and print the rows.
    Query(QueryArgs),
    /// Counts per library, posts, games, average game length.
    Stats(StoreArg),
    /// Print every pattern in the seed's text form (posting the output to an empty ACADEMY gives
    /// the same libraries).
    Export(StoreArg),
    /// Post the games of collections (each record's players are posting players).
    Learn(LearnArgs),
}

#[derive(Args)]
struct StoreArg {
    /// The store: an SQLite file, or a `postgres://` URL.
    #[arg(long)]
    store: String,
}

#[derive(Args)]
struct CapArgs {
    /// Fuseki nodes (when the store is created).
    #[arg(long, default_value_t = 1000)]
    fuseki_cap: usize,
    /// Fuseki depth (0: a third of the average game length).
    #[arg(long, default_value_t = 0)]
    fuseki_depth: usize,
    /// Chuban patterns.
    #[arg(long, default_value_t = 1000)]
    chuban_cap: usize,
    /// Yose patterns.
    #[arg(long, default_value_t = 5000)]
    yose_cap: usize,
}

impl CapArgs {
    fn settings(&self) -> Settings {
        Settings {
            caps: Caps {
                fuseki_cap: self.fuseki_cap,
                fuseki_depth: self.fuseki_depth,
                chuban_cap: self.chuban_cap,
                yose_cap: self.yose_cap,
                ..Caps::default()
            },
            ..Settings::default()
        }
    }
}

#[derive(Args)]
struct PostArgs {
    /// Pattern files.
    files: Vec<PathBuf>,
    /// The store: an SQLite file, or a `postgres://` URL.
    #[arg(long)]
    store: String,
    /// The library of patterns that name none (`chuban` or `yose`).
    #[arg(long, default_value = "chuban")]
    library: String,
    /// Posts per transaction (1: every post committed on its own).
    #[arg(long, default_value_t = 1)]
    batch: usize,
    /// Print what became of each post.
    #[arg(long)]
    verbose: bool,
    #[command(flatten)]
    caps: CapArgs,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum Format {
    Text,
    Json,
}

#[derive(Args)]
struct ShowArgs {
    /// The store.
    #[arg(long)]
    store: String,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Only this library.
    #[arg(long)]
    library: Option<String>,
}

#[derive(Args)]
struct QueryArgs {
    /// The store.
    #[arg(long)]
    store: String,
    /// The SQL (e.g. `SELECT library, COUNT(*) FROM academy_patterns GROUP BY library`).
    sql: String,
}

#[derive(Args)]
struct LearnArgs {
    /// SGF files or directories (collections are read game by game).
    paths: Vec<PathBuf>,
    /// The store.
    #[arg(long)]
    store: String,
    /// At most this many games.
    #[arg(long)]
    games: Option<usize>,
    /// ELO of a player without a readable rank.
    #[arg(long, default_value_t = 2000.0)]
    default_elo: f64,
    /// Radius of the Yose areas (2: 5x5).
    #[arg(long, default_value_t = 2)]
    radius: usize,
    #[command(flatten)]
    caps: CapArgs,
}

fn open(store: &str, s: Settings) -> miette::Result<Shared> {
    Shared::open(store, s).map_err(|e| miette::miette!("{e}"))
}

/// Runs `ets academy …`.
pub fn run(a: AcademyArgs) -> miette::Result<ExitCode> {
    match a.cmd {
        AcademyCmd::Post(p) => post(p),
        AcademyCmd::Show(s) => show(s),
        AcademyCmd::Query(q) => query(q),
        AcademyCmd::Stats(s) => stats(s),
        AcademyCmd::Export(s) => export(s),
        AcademyCmd::Learn(l) => learn(l),
    }
}

fn post(a: PostArgs) -> miette::Result<ExitCode> {
    let default = Library::from_name(&a.library)
        .filter(|l| *l != Library::Fuseki)
        .ok_or_else(|| miette::miette!("`{}` is not a pattern library (chuban, yose)", a.library))?;
    let mut posts = Vec::new();
    for f in &a.files {
        let name = f.display().to_string();
        let text = std::fs::read_to_string(f).map_err(|e| miette::miette!("cannot read {name}: {e}"))?;
        let ps = parse(&text, Game::Go).map_err(|e| miette::miette!("{name}:{e}"))?;
        for p in ps {
            let lib = match &p.library {
                Some(l) => Library::from_name(l)
                    .filter(|l| *l != Library::Fuseki)
                    .ok_or_else(|| miette::miette!("{name}: `{l}` is not a pattern library (chuban, yose)"))?,
                None => default,
            };
            posts.push(Post::pattern(&p, lib));
        }
    }
    let mut s = open(&a.store, a.caps.settings())?;
    let t = Instant::now();
    let mut counts = std::collections::BTreeMap::new();
    for chunk in posts.chunks(a.batch.max(1)) {
        let r = s.post(chunk).map_err(|e| miette::miette!("{e}"))?;
        for p in r.into_iter().flatten() {
            *counts.entry(p.name()).or_insert(0usize) += 1;
            if a.verbose {
                println!("{} {}", p.name(), p.id());
            }
        }
    }
    let secs = t.elapsed().as_secs_f64();
    let summary: Vec<String> = counts.iter().map(|(k, v)| format!("{v} {k}")).collect();
    eprintln!(
        "posted {} patterns to {} in {secs:.2} s ({:.0} posts/s): {}",
        posts.len(),
        a.store,
        posts.len() as f64 / secs.max(1e-9),
        summary.join(", ")
    );
    Ok(ExitCode::SUCCESS)
}

#[derive(Serialize)]
struct PatternJson {
    id: u64,
    library: &'static str,
    area: Vec<String>,
    n: u32,
    e: f64,
    v: f64,
    p: u8,
    strength: f64,
}

#[derive(Serialize)]
struct NodeJson {
    id: u64,
    parent: Option<u64>,
    line: Vec<String>,
    n: u32,
    e: f64,
    v: f64,
    wins: u32,
    losses: u32,
    draws: u32,
}

fn line_of(a: &ets::knowledge::academy::library::Academy, mut id: u64) -> Vec<String> {
    let mut v = Vec::new();
    while let Some(n) = a.nodes.get(&id) {
        v.push(n.mv.clone());
        match n.parent {
            Some(p) => id = p,
            None => break,
        }
    }
    v.reverse();
    v
}

fn show(a: ShowArgs) -> miette::Result<ExitCode> {
    let mut s = open(&a.store, Settings::default())?;
    let ac = s.refresh().map_err(|e| miette::miette!("{e}"))?.clone();
    let only = match &a.library {
        Some(l) => Some(Library::from_name(l).ok_or_else(|| miette::miette!("`{l}` is not a library"))?),
        None => None,
    };
    let pats: Vec<PatternJson> = ac
        .entries
        .values()
        .filter(|e| only.is_none_or(|l| l == e.library))
        .map(|e| PatternJson {
            id: e.id,
            library: e.library.name(),
            area: e.area.text().lines().map(str::to_string).collect(),
            n: e.sig.n,
            e: e.sig.e,
            v: e.sig.v,
            p: e.sig.p,
            strength: ets::knowledge::academy::library::strength(&e.sig),
        })
        .collect();
    let nodes: Vec<NodeJson> = if only.is_none_or(|l| l == Library::Fuseki) {
        ac.nodes
            .values()
            .map(|n| NodeJson {
                id: n.id,
                parent: n.parent,
                line: line_of(&ac, n.id),
                n: n.sig.n,
                e: n.sig.e,
                v: n.sig.v,
                wins: n.wld[0],
                losses: n.wld[1],
                draws: n.wld[2],
            })
            .collect()
    } else {
        Vec::new()
    };
    match a.format {
        Format::Json => {
            let j = serde_json::json!({ "patterns": pats, "fuseki": nodes });
            println!("{}", serde_json::to_string_pretty(&j).expect("serialisable"));
        }
        Format::Text => {
            for p in &pats {
                println!("#{} {}", p.id, p.library);
                for l in &p.area {
                    println!("{l}");
                }
                println!("< {}; {}; {}; {} >  strength {:.1}\n", p.n, p.e, p.v, p.p, p.strength);
            }
            for n in &nodes {
                println!(
                    "fuseki #{} {}  < {}; {:.0}; {:.3}; 1 >  W/L/D {}/{}/{}",
                    n.id,
                    n.line.join(" "),
                    n.n,
                    n.e,
                    n.v,
                    n.wins,
                    n.losses,
                    n.draws
                );
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn query(a: QueryArgs) -> miette::Result<ExitCode> {
    let mut s = open(&a.store, Settings::default())?;
    for r in s.query(&a.sql).map_err(|e| miette::miette!("{e}"))? {
        let cells: Vec<String> = r.iter().map(|v| v.display()).collect();
        println!("{}", cells.join("\t"));
    }
    Ok(ExitCode::SUCCESS)
}

fn stats(a: StoreArg) -> miette::Result<ExitCode> {
    let mut s = open(&a.store, Settings::default())?;
    let posts = s.posts().map_err(|e| miette::miette!("{e}"))?;
    let ac = s.refresh().map_err(|e| miette::miette!("{e}"))?;
    let c = ac.caps;
    println!("store       {}", a.store);
    println!("posts       {posts}");
    println!(
        "games       {} (average length {:.1})",
        ac.games.0,
        ac.average_length().unwrap_or(0.0)
    );
    println!(
        "fuseki      {} nodes (cap {}, depth {})",
        ac.nodes.values().filter(|n| n.parent.is_some()).count(),
        c.fuseki_cap,
        if c.fuseki_depth == 0 {
            format!("{} derived", ac.fuseki_depth(0))
        } else {
            c.fuseki_depth.to_string()
        }
    );
    println!(
        "chuban      {} patterns (cap {})",
        ac.library(Library::Chuban).count(),
        c.chuban_cap
    );
    println!(
        "yose        {} patterns (cap {})",
        ac.library(Library::Yose).count(),
        c.yose_cap
    );
    Ok(ExitCode::SUCCESS)
}

fn export(a: StoreArg) -> miette::Result<ExitCode> {
    let mut s = open(&a.store, Settings::default())?;
    let ac = s.refresh().map_err(|e| miette::miette!("{e}"))?;
    let mut first = true;
    for e in ac.entries.values() {
        if !first {
            println!();
        }
        first = false;
        print!("{}", e.area.text());
        println!("{} {}", e.sig, e.library.name());
    }
    Ok(ExitCode::SUCCESS)
}

/// `ets academy learn`.
fn learn(a: LearnArgs) -> miette::Result<ExitCode> {
    let rs = RecordSettings {
        default_elo: a.default_elo,
        radius: a.radius,
    };
    learn_collections(&a.paths, &a.store, a.games, rs, a.caps.settings())
}

/// Posts the games of collections to the ACADEMY at `store` (each record's players are posting
/// players, one transaction per game): `ets academy learn` and `ets learn --system academy`.
pub fn learn_collections(
    paths: &[PathBuf],
    store: &str,
    games_limit: Option<usize>,
    rs: RecordSettings,
    settings: Settings,
) -> miette::Result<ExitCode> {
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            files.extend(sgf_files(p));
        } else if p.exists() {
            files.push(p.clone());
        } else {
            return Err(miette::miette!("{}: no such file or directory", p.display()));
        }
    }
    if files.is_empty() {
        return Err(miette::miette!("no .sgf file in {paths:?}"));
    }
    let mut s = open(store, settings)?;
    let t = Instant::now();
    let (mut games, mut broken, mut posts) = (0usize, 0usize, 0usize);
    let limit = games_limit.unwrap_or(usize::MAX);
    let mut last = Instant::now();
    'files: for f in &files {
        let Ok(bytes) = std::fs::read(f) else {
            eprintln!("skipped {}: not readable", f.display());
            broken += 1;
            continue;
        };
        let Ok(sgf) = Sgf::parse_bytes(bytes) else {
            eprintln!("skipped {}: not readable SGF", f.display());
            broken += 1;
            continue;
        };
        for g in 0..sgf.games().len() {
            if games >= limit {
                break 'files;
            }
            let r = match Replay::from_sgf(&sgf, g, &[]) {
                Ok(r) if !r.moves.is_empty() => r,
                _ => {
                    broken += 1;
                    continue;
                }
            };
            let p = record_posts(s.academy(), &r, &rs);
            posts += p.len();
            s.post(&p)
                .map_err(|e| miette::miette!("{}: game {}: {e}", f.display(), g + 1))?;
            games += 1;
            if last.elapsed().as_secs() >= 30 {
                last = Instant::now();
                let secs = t.elapsed().as_secs_f64();
                eprintln!(
                    "{games} games, {posts} posts in {secs:.0} s ({:.1} games/s)",
                    games as f64 / secs
                );
            }
        }
    }
    let secs = t.elapsed().as_secs_f64();
    eprintln!(
        "{games} games ({broken} skipped), {posts} posts in {secs:.1} s ({:.0} games/s, {:.0} posts/s) into {store}",
        games as f64 / secs.max(1e-9),
        posts as f64 / secs.max(1e-9),
    );
    Ok(ExitCode::SUCCESS)
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum EvalFormat {
    Text,
    Json,
    Svg,
}

/// `ets evaluate`.
#[derive(Args)]
pub struct EvaluateArgs {
    /// An SGF file.
    pub file: PathBuf,
    #[command(flatten)]
    pub sel: GameSel,
    /// Sample games.
    #[arg(long, default_value_t = 200)]
    pub games: usize,
    /// Output format (`svg`: the ownership map).
    #[arg(long, value_enum, default_value_t = EvalFormat::Text)]
    pub format: EvalFormat,
    /// Gomi's store (SQLite file): entries read before and the sample games' updates saved after.
    #[arg(long)]
    pub store: Option<String>,
    /// Seed of the sample games.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Komi (default: the record's, else 7).
    #[arg(long)]
    pub komi: Option<f32>,
    /// Do not make class-element patterns (skips the ETS classification of the position).
    #[arg(long)]
    pub no_classes: bool,
    /// A Forme_K store (from `ets learn`): the deepest Forme_K pattern around each legal move of
    /// the position becomes that move's pattern χ (learned from the sample games' first moves).
    #[arg(long)]
    pub patterns: Option<String>,
}

/// The Forme_K pattern of each legal move of `to_move` (the deepest matching in the store at
/// `path`), by point.
fn forme_k_patterns(
    path: &str,
    board: &ets::go::board::Board,
    fb: &FastBoard,
    to_move: Color,
) -> miette::Result<Vec<(ets::go::fastboard::Vtx, u32)>> {
    use ets::knowledge::{forme_k, pattern_store};
    if !std::path::Path::new(path).exists() {
        return Err(miette::miette!(
            "{path}: no such Forme_K store (make one with `ets learn`)"
        ));
    }
    let mut st = ets::store::Store::open(path).map_err(|e| miette::miette!("{path}: {e}"))?;
    let set = pattern_store::settings(&mut st)
        .ok()
        .flatten()
        .ok_or_else(|| miette::miette!("{path}: no Forme_K patterns (make them with `ets learn`)"))?;
    let (tree, _) = pattern_store::load(&mut st).map_err(|e| miette::miette!("{path}: {e}"))?;
    let grid = forme_k::Grid::new(board, to_move);
    let mut out = Vec::new();
    for v in fb.empty_points() {
        if fb.is_eye(to_move, v) || !fb.is_legal(to_move, v) {
            continue;
        }
        let Some(p) = fb.point(v) else { continue };
        let mut w = forme_k::Walk::new(&grid, p.col as i32, p.row as i32);
        let id = tree.deepest(&mut w, set.kmax);
        if id != 0 {
            out.push((v, id));
        }
    }
    Ok(out)
}

/// The class elements present in a position (class name, points), from the ETS classification.
fn elements(board: &ets::go::board::Board) -> Vec<(String, Vec<Point>)> {
    let (_, setting) = ets::go::classify::embedded_setting();
    let Ok(setting) = setting else { return Vec::new() };
    let Ok(c) = ets::go::classify::classify(
        &setting,
        std::slice::from_ref(board),
        &[None],
        Default::default(),
        Some(2),
    ) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (lv, level) in c.hierarchy.levels.iter().enumerate() {
        if lv == 0 {
            continue;
        }
        for (i, e) in level.elements.iter().enumerate() {
            let name = ets::go::classify::class_name(&setting, e).to_string();
            out.push((name, c.named[lv][i].vertices.clone()));
        }
    }
    out
}

fn rows_of(b: &FastBoard) -> u8 {
    b.rows() as u8
}

/// Runs `ets evaluate`.
pub fn evaluate(a: EvaluateArgs) -> miette::Result<ExitCode> {
    let name = a.file.display().to_string();
    let (_, replay) = load(&a.file, &a.sel)?;
    let n = a.sel.mv.unwrap_or(replay.len());
    if n > replay.len() {
        return Err(miette::miette!(
            "{name}: move {n} asked for, but the line has {} moves",
            replay.len()
        ));
    }
    let board = &replay.positions[n];
    let fb = FastBoard::from_board(board, Rules::default()).map_err(|e| miette::miette!("{name}: {e:?}"))?;
    let to_move = replay.to_move[n];
    let komi = a.komi.or(replay.info.komi.map(|k| k as f32)).unwrap_or(7.0);
    let settings = GomiSettings {
        komi,
        ..GomiSettings::default()
    };
    let mut loaded = match &a.store {
        Some(s) => {
            Some(ets::knowledge::gomi::store::load(s, Gomi::new(settings)).map_err(|e| miette::miette!("{s}: {e}"))?)
        }
        None => None,
    };
    let mut local = Gomi::new(settings);
    let gomi = loaded.as_mut().map_or(&mut local, |l| &mut l.gomi);
    let els = if a.no_classes { Vec::new() } else { elements(board) };
    let fk = match &a.patterns {
        Some(p) => forme_k_patterns(p, board, &fb, to_move)?,
        None => Vec::new(),
    };
    for &(v, id) in &fk {
        gomi.root_patterns.insert(v, forme_k_chi(id));
    }
    let t = Instant::now();
    let e = gomi.evaluate(&fb, to_move, a.games, a.seed, true, &els);
    let secs = t.elapsed().as_secs_f64();
    let class_est: Vec<(String, u64, u64, f64)> = {
        let mut seen = std::collections::BTreeSet::new();
        els.iter()
            .filter(|(n, _)| seen.insert(n.clone()))
            .map(|(n, _)| {
                let c = gomi.counts(ets::knowledge::gomi::play::class_chi(n), Formula::BlackWins);
                (n.clone(), c.n, c.r, c.mean())
            })
            .collect()
    };
    // the root moves' Forme_K entries after the sample games, the most matched first
    let mut fk_est: Vec<(String, u32, u64, u64, f64)> = fk
        .iter()
        .map(|&(v, id)| {
            let c = gomi.counts(forme_k_chi(id), Formula::MoverWins);
            let p = fb.point(v).expect("a point");
            (p.gtp(rows_of(&fb)), id, c.n, c.r, c.mean())
        })
        .collect();
    fk_est.sort_by(|a, b| b.2.cmp(&a.2).then(a.0.cmp(&b.0)));
    if let (Some(l), Some(s)) = (loaded.as_mut(), &a.store) {
        l.save(s).map_err(|e| miette::miette!("{s}: {e}"))?;
    }
    let (cols, rows) = e.size;
    match a.format {
        EvalFormat::Json => {
            let j = serde_json::json!({
                "file": name, "move": n, "to_move": to_move.letter(), "komi": komi,
                "games": e.games, "p_black_wins": e.p_black_wins(), "mean_score": e.mean_score,
                "score_now": e.score_now, "seki_points": e.seki_points,
                "dead": e.dead.iter().map(|p| p.gtp(rows as u8)).collect::<Vec<_>>(),
                "size": [cols, rows],
                "black_owns": e.black_owns, "seki": e.seki,
                "classes": class_est.iter().map(|(n, k, r, m)| serde_json::json!({"class": n, "n": k, "r": r, "mean": m})).collect::<Vec<_>>(),
                "forme_k": fk_est.iter().map(|(mv, id, k, r, m)| serde_json::json!({"move": mv, "pattern": id, "n": k, "r": r, "mean": m})).collect::<Vec<_>>(),
                "seconds": secs,
            });
            println!("{}", serde_json::to_string_pretty(&j).expect("serialisable"));
        }
        EvalFormat::Text => {
            println!(
                "{name}, after move {n}, {} to move, komi {komi}: P(black wins) = {:.3} from {} sample games ({:.0} games/s)",
                if to_move == Color::Black { "black" } else { "white" },
                e.p_black_wins(),
                e.games,
                e.games as f64 / secs.max(1e-9)
            );
            println!(
                "mean final score {:+.1}; area score now with the dead stones removed {:+.1}; seki points {:.2}",
                e.mean_score, e.score_now, e.seki_points
            );
            println!("ownership (B ≥ 0.8, b ≥ 0.6, W ≤ 0.2, w ≤ 0.4, . otherwise):");
            for r in 0..rows {
                let line: String = (0..cols)
                    .map(|c| {
                        let o = e.black_owns[r * cols + c];
                        if o >= 0.8 {
                            'B'
                        } else if o >= 0.6 {
                            'b'
                        } else if o <= 0.2 {
                            'W'
                        } else if o <= 0.4 {
                            'w'
                        } else {
                            '.'
                        }
                    })
                    .flat_map(|ch| [ch, ' '])
                    .collect();
                println!("  {}", line.trim_end());
            }
            if !e.dead.is_empty() {
                let d: Vec<String> = e.dead.iter().map(|p| p.gtp(rows as u8)).collect();
                println!("dead: {}", d.join(" "));
            }
            for (n, k, r, m) in &class_est {
                println!("class {n}: BlackWins {r}/{k}, mean {m:.3}");
            }
            if !fk_est.is_empty() {
                println!(
                    "Forme_K patterns of {} legal moves (MoverWins; the 10 most matched):",
                    fk_est.len()
                );
                for (mv, id, k, r, m) in fk_est.iter().take(10) {
                    println!("  {mv} pattern #{id}: {r}/{k}, mean {m:.3}");
                }
            }
        }
        EvalFormat::Svg => print!("{}", ownership_svg(board, &e.black_owns, &e.dead)),
    }
    Ok(ExitCode::SUCCESS)
}

/// The ownership map as SVG: each point shaded from white (white owns) to black (black owns),
/// the stones drawn, dead stones crossed.
fn ownership_svg(b: &ets::go::board::Board, owns: &[f64], dead: &[Point]) -> String {
    let (cols, rows) = (b.cols() as usize, b.rows() as usize);
    let s = 30.0;
    let (w, h) = (s * (cols as f64 + 1.0), s * (rows as f64 + 1.0));
    let mut o = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\">\n<rect width=\"{w}\" height=\"{h}\" fill=\"#dcb35c\"/>\n"
    );
    for r in 0..rows {
        for c in 0..cols {
            let g = (255.0 * (1.0 - owns[r * cols + c])).round() as u8;
            o += &format!(
                "<rect x=\"{}\" y=\"{}\" width=\"{s}\" height=\"{s}\" fill=\"rgb({g},{g},{g})\" fill-opacity=\"0.55\"/>\n",
                s * (c as f64 + 0.5),
                s * (r as f64 + 0.5)
            );
        }
    }
    for i in 0..cols {
        let x = s * (i as f64 + 1.0);
        o += &format!(
            "<line x1=\"{x}\" y1=\"{s}\" x2=\"{x}\" y2=\"{}\" stroke=\"#333\"/>\n",
            h - s
        );
    }
    for j in 0..rows {
        let y = s * (j as f64 + 1.0);
        o += &format!(
            "<line x1=\"{s}\" y1=\"{y}\" x2=\"{}\" y2=\"{y}\" stroke=\"#333\"/>\n",
            w - s
        );
    }
    for p in b.points() {
        if let ets::go::board::Cell::Stone(c) = b.get(p) {
            let (x, y) = (s * (p.col as f64 + 1.0), s * (p.row as f64 + 1.0));
            let fill = if c == Color::Black { "#111" } else { "#f4f4f4" };
            o += &format!(
                "<circle cx=\"{x}\" cy=\"{y}\" r=\"{}\" fill=\"{fill}\" stroke=\"#000\"/>\n",
                s * 0.45
            );
            if dead.contains(&p) {
                let d = s * 0.25;
                o += &format!(
                    "<path d=\"M{} {} L{} {} M{} {} L{} {}\" stroke=\"#d00\" stroke-width=\"3\"/>\n",
                    x - d,
                    y - d,
                    x + d,
                    y + d,
                    x - d,
                    y + d,
                    x + d,
                    y - d
                );
            }
        }
    }
    o += "</svg>\n";
    o
}
