//! `ets eval predict` (move prediction on games never seen, beside GNU Go) and `ets predict`
//! (the ranked moves of one position, with reasons, as text, JSON or an SVG heat map).

use clap::{Args, Subcommand, ValueEnum};
use serde::Serialize;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::Instant;

use ets::go::board::{Color, Point};
use ets::knowledge::corpus::{Streamed, sgf_files, stream_batched};
use ets::knowledge::eval::{PHASES, Record, Summary, phase_of, rank_of, summarize};
use ets::knowledge::peer::{GnuGo, gnugo, gnugo_version};
use ets::knowledge::predict::{Model, Sampling};
use ets::knowledge::rank_store::load_model;
use ets::store::Store;

use super::knowledge_cmds::{Progress, set_threads};

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum PeerName {
    Gnugo,
}

#[derive(Subcommand)]
pub enum EvalCmd {
    /// Move prediction on games never used for training: top-1/5/10 and mean log-probability of
    /// the move played, per game phase, with 95% intervals; GNU Go beside it with `--peer gnugo`.
    Predict(EvalPredictArgs),
}

#[derive(Args)]
pub struct EvalArgs {
    #[command(subcommand)]
    pub cmd: EvalCmd,
}

#[derive(Args)]
pub struct EvalPredictArgs {
    /// Directories or SGF files of the games to predict (never used for training).
    #[arg(required = true)]
    pub dirs: Vec<PathBuf>,
    /// The store `ets learn` wrote.
    #[arg(long)]
    pub model: String,
    /// Ask a peer for its move at the same positions.
    #[arg(long, value_enum)]
    pub peer: Option<PeerName>,
    /// The peer is asked at every n-th evaluated position (GNU Go takes about a second a move).
    #[arg(long, default_value_t = 1)]
    pub peer_every: usize,
    /// GNU Go's level.
    #[arg(long, default_value_t = 10)]
    pub peer_level: u32,
    /// Evaluate the first N games only.
    #[arg(long)]
    pub games: Option<usize>,
    /// Evaluate every n-th position of each game.
    #[arg(long, default_value_t = 1)]
    pub every: usize,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Worker threads (default: every core).
    #[arg(long)]
    pub threads: Option<usize>,
}

#[derive(Serialize)]
struct Phase {
    phase: &'static str,
    #[serde(flatten)]
    summary: Summary,
}

#[derive(Serialize)]
struct PeerReport {
    peer: String,
    every: usize,
    ours: Summary,
    theirs: Summary,
    failures: usize,
    peer_secs: f64,
}

#[derive(Serialize)]
struct EvalReport {
    model: String,
    kmax: usize,
    patterns: usize,
    features: usize,
    dim: usize,
    families: String,
    /// The attention of the classification the class features read (`null`: no class features).
    class_attention: Option<&'static str>,
    broken: usize,
    all: Summary,
    phases: Vec<Phase>,
    peer: Option<PeerReport>,
    threads: usize,
    model_cpu_secs: f64,
    positions_per_cpu_sec: f64,
    wall_secs: f64,
}

fn cpu_now() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes the timespec it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

struct GameResult {
    ours: Vec<Record>,
    /// (position index into `ours`, agreed) for the positions the peer was asked at.
    peer: Vec<(usize, bool)>,
    peer_failures: usize,
    cpu: f64,
    peer_secs: f64,
}

pub fn eval_cmd(a: EvalArgs) -> miette::Result<ExitCode> {
    match a.cmd {
        EvalCmd::Predict(p) => eval_predict(p),
    }
}

fn open_model(path: &str) -> miette::Result<Model> {
    if !path.contains("://") && !std::path::Path::new(path.trim_start_matches("sqlite:")).exists() {
        return Err(miette::miette!("{path}: no such store"));
    }
    let mut store = Store::open(path).map_err(|e| miette::miette!("{e}"))?;
    load_model(&mut store).map_err(|e| miette::miette!("{e}"))
}

fn eval_predict(a: EvalPredictArgs) -> miette::Result<ExitCode> {
    set_threads(a.threads);
    let model = open_model(&a.model)?;
    let files = sgf_files(&a.dirs);
    if files.is_empty() {
        return Err(miette::miette!("no .sgf file in {:?}", a.dirs));
    }
    let peer_path = match a.peer {
        Some(PeerName::Gnugo) => match gnugo() {
            Some(p) => Some(p),
            None => {
                eprintln!("GNU Go is not installed: evaluating without the peer");
                None
            }
        },
        None => None,
    };
    let tmpdir = std::env::temp_dir().join(format!("ets-eval-{}", std::process::id()));
    if peer_path.is_some() {
        std::fs::create_dir_all(&tmpdir).map_err(|e| miette::miette!("{}: {e}", tmpdir.display()))?;
    }
    let peers: Mutex<Vec<GnuGo>> = Mutex::new(Vec::new());
    let counter = std::sync::atomic::AtomicUsize::new(0);
    let limit = a.games.unwrap_or(usize::MAX);
    // Games are replayed and ranked a piece at a time; no piece holds more games than asked for.
    let chunk = (4 * rayon::current_num_threads().max(1)).min(limit.max(1));
    let started = Instant::now();
    let mut results: Vec<GameResult> = Vec::new();
    let mut broken = 0;
    let mut pb = Progress::new(a.games.map(|g| g as u64), "eval");
    let peer_every = a.peer_every.max(1);
    let peer_failed = std::sync::atomic::AtomicBool::new(false);
    stream_batched(
        &files,
        4 << 20,
        chunk,
        |g| {
            let c0 = cpu_now();
            let samples = model.samples(
                &g.replay,
                Sampling {
                    leave_out: false,
                    every: a.every,
                    classes: model.class_attention(),
                },
            );
            let mut ours = Vec::with_capacity(samples.len());
            for s in &samples {
                if s.points.is_empty() {
                    continue;
                }
                let p = model.probabilities(s);
                ours.push(Record {
                    game: 0,
                    number: s.number,
                    rank: rank_of(&p, s.played),
                    logp: p[s.played].max(1e-300).ln(),
                    legal: s.points.len(),
                });
            }
            let cpu = cpu_now() - c0;
            let mut peer = Vec::new();
            let mut peer_failures = 0;
            let t0 = Instant::now();
            if let Some(path) = &peer_path
                && !peer_failed.load(std::sync::atomic::Ordering::Relaxed)
            {
                let mut gg = peers.lock().expect("no panics").pop();
                if gg.is_none() {
                    let n = counter.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    match GnuGo::new(path, a.peer_level, tmpdir.join(format!("game{n}.sgf"))) {
                        Ok(x) => gg = Some(x),
                        Err(e) => {
                            eprintln!("cannot start GNU Go: {e}");
                            peer_failed.store(true, std::sync::atomic::Ordering::Relaxed);
                        }
                    }
                }
                if let Some(mut gg) = gg {
                    if gg.game(&g.replay).is_ok() {
                        let rows = g.replay.info.size.1;
                        for (i, s) in samples.iter().enumerate().filter(|(i, _)| i % peer_every == 0) {
                            let mover = g.replay.moves[s.number].color;
                            match gg.choose(s.number, mover, rows) {
                                Ok(m) => peer.push((i, m == Some(s.points[s.played]))),
                                Err(_) => peer_failures += 1,
                            }
                        }
                    }
                    peers.lock().expect("no panics").push(gg);
                }
            }
            Some(GameResult {
                ours,
                peer,
                peer_failures,
                cpu,
                peer_secs: t0.elapsed().as_secs_f64(),
            })
        },
        |piece| {
            for it in piece {
                match it {
                    Streamed::Game { result: Some(r), .. } if results.len() < limit => {
                        results.push(r);
                        pb.inc(1);
                    }
                    Streamed::Broken(b) => {
                        broken += 1;
                        pb.pb.suspend(|| eprintln!("skipped: {b}"));
                    }
                    _ => {}
                }
            }
            results.len() < limit
        },
    );
    pb.pb.finish_and_clear();
    drop(peers);
    let _ = std::fs::remove_dir_all(&tmpdir);
    let wall = started.elapsed().as_secs_f64();
    let mut all: Vec<Record> = Vec::new();
    let mut ours_at_peer: Vec<Record> = Vec::new();
    let mut theirs: Vec<Record> = Vec::new();
    let (mut cpu, mut peer_secs, mut failures) = (0.0, 0.0, 0);
    for (gi, r) in results.iter().enumerate() {
        cpu += r.cpu;
        peer_secs += r.peer_secs;
        failures += r.peer_failures;
        for rec in &r.ours {
            all.push(Record { game: gi, ..*rec });
        }
        for &(i, agreed) in &r.peer {
            let rec = Record { game: gi, ..r.ours[i] };
            ours_at_peer.push(rec);
            theirs.push(Record {
                rank: if agreed { 1 } else { 2 },
                logp: f64::NAN,
                ..rec
            });
        }
    }
    if all.is_empty() {
        return Err(miette::miette!("no position to evaluate in {:?}", a.dirs));
    }
    let report = EvalReport {
        model: a.model.clone(),
        kmax: model.kmax,
        patterns: model.tree.len() - 1,
        features: model.ranker.w.len(),
        dim: model.ranker.dim,
        families: model.ranker.space.families().text(),
        class_attention: model.class_attention().map(|a| a.text()),
        broken,
        all: summarize(&all),
        phases: PHASES
            .iter()
            .enumerate()
            .map(|(k, &(name, ..))| Phase {
                phase: name,
                summary: summarize(
                    &all.iter()
                        .copied()
                        .filter(|r| phase_of(r.number) == k)
                        .collect::<Vec<_>>(),
                ),
            })
            .collect(),
        peer: peer_path.as_ref().filter(|_| !theirs.is_empty()).map(|p| PeerReport {
            peer: format!("{} (level {})", gnugo_version(p), a.peer_level),
            every: peer_every,
            ours: summarize(&ours_at_peer),
            theirs: summarize(&theirs),
            failures,
            peer_secs,
        }),
        threads: rayon::current_num_threads(),
        model_cpu_secs: cpu,
        positions_per_cpu_sec: all.len() as f64 / cpu.max(1e-9),
        wall_secs: wall,
    };
    match a.format {
        Format::Json => println!("{}", serde_json::to_string_pretty(&report).expect("serialisable")),
        Format::Text => print_report(&report),
    }
    Ok(ExitCode::SUCCESS)
}

fn pct(e: &ets::knowledge::eval::Estimate) -> String {
    format!("{:5.1}% [{:4.1}, {:4.1}]", 100.0 * e.mean, 100.0 * e.lo, 100.0 * e.hi)
}

fn print_report(r: &EvalReport) {
    println!(
        "model {}: Forme_K Kmax {}, {} patterns; ranker with {} features ({}{}), latent dimension {}",
        r.model,
        r.kmax,
        r.patterns,
        r.features,
        r.families,
        r.class_attention
            .map_or(String::new(), |a| format!("; classes read with {a} attention")),
        r.dim
    );
    println!(
        "{} games, {} positions{}; 95% intervals clustered by game",
        r.all.games,
        r.all.positions,
        if r.broken > 0 {
            format!(" ({} broken records skipped)", r.broken)
        } else {
            String::new()
        }
    );
    println!(
        "{:<10} {:>9}  {:<24} {:<24} {:<24} mean log p",
        "moves", "positions", "top-1", "top-5", "top-10"
    );
    let line = |name: &str, s: &Summary| {
        println!(
            "{:<10} {:>9}  {:<24} {:<24} {:<24} {:.3} [{:.3}, {:.3}]",
            name,
            s.positions,
            pct(&s.top1),
            pct(&s.top5),
            pct(&s.top10),
            s.logp.mean,
            s.logp.lo,
            s.logp.hi
        )
    };
    line("all", &r.all);
    for p in &r.phases {
        if p.summary.positions > 0 {
            line(p.phase, &p.summary);
        }
    }
    if let Some(p) = &r.peer {
        println!(
            "beside {} at {} ({} positions, {} unanswered; {:.0}s of GNU Go):",
            p.peer,
            if p.every == 1 {
                "every position".to_string()
            } else {
                format!("every {} position", ordinal(p.every))
            },
            p.theirs.positions,
            p.failures,
            p.peer_secs
        );
        println!("  {:<24} top-1 {}", "ets (same positions)", pct(&p.ours.top1));
        println!("  {:<24} top-1 {}", "GNU Go", pct(&p.theirs.top1));
    }
    println!(
        "speed: {:.0} positions per CPU-second ranking every legal move with the model's features ({} threads, {:.0}s wall)",
        r.positions_per_cpu_sec, r.threads, r.wall_secs
    );
}

fn ordinal(n: usize) -> String {
    match n {
        1 => String::new(),
        2 => "2nd".into(),
        3 => "3rd".into(),
        n => format!("{n}th"),
    }
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum PredictFormat {
    Text,
    Json,
    Svg,
}

#[derive(Args)]
pub struct PredictArgs {
    /// An SGF file.
    pub file: PathBuf,
    /// The store `ets learn` wrote.
    #[arg(long)]
    pub model: String,
    /// Which game of a collection (1-based).
    #[arg(long, default_value_t = 1)]
    pub game: usize,
    /// The position after N moves (default: the last position of the game).
    #[arg(long = "move")]
    pub mv: Option<usize>,
    /// How many moves to list.
    #[arg(long, default_value_t = 10)]
    pub top: usize,
    /// Output format.
    #[arg(long, value_enum, default_value_t = PredictFormat::Text)]
    pub format: PredictFormat,
    /// Write the output here instead of standard output.
    #[arg(short, long)]
    pub output: Option<PathBuf>,
}

#[derive(Serialize)]
struct Ranked {
    rank: usize,
    #[serde(rename = "move")]
    mv: String,
    p: f64,
    pattern: PatternReason,
    reasons: Vec<Reason>,
}

#[derive(Serialize)]
struct PatternReason {
    id: u32,
    k: u32,
    n_played: u64,
    n_match: u64,
    p_smoothed: f64,
}

#[derive(Serialize)]
struct Reason {
    feature: String,
    contribution: f64,
}

#[derive(Serialize)]
struct PredictJson {
    file: String,
    after_move: usize,
    to_move: &'static str,
    legal: usize,
    played: Option<String>,
    played_rank: Option<usize>,
    moves: Vec<Ranked>,
}

pub fn predict_cmd(a: PredictArgs) -> miette::Result<ExitCode> {
    let model = open_model(&a.model)?;
    let sel = super::go_cmds::GameSel {
        game: Some(a.game),
        ..Default::default()
    };
    let (_, replay) = super::go_cmds::load(&a.file, &sel)?;
    let n = a.mv.unwrap_or(replay.len());
    if n > replay.len() {
        return Err(miette::miette!(
            "{}: move {n} asked for, but the game has {} moves",
            a.file.display(),
            replay.len()
        ));
    }
    let board = &replay.positions[n];
    let mover = replay.moves.get(n).map(|m| m.color).unwrap_or(replay.to_move[n]);
    let played = replay.moves.get(n).and_then(|m| m.point);
    let ko = ets::knowledge::position::positions(&replay)
        .into_iter()
        .find(|p| p.number == n)
        .and_then(|p| p.ko);
    let pos = ets::knowledge::position::Position {
        board,
        mover,
        played: played.unwrap_or(Point { col: 0, row: 0 }),
        number: n,
        ko,
        last: [
            n.checked_sub(1).and_then(|i| replay.moves[i].point),
            n.checked_sub(2).and_then(|i| replay.moves[i].point),
        ],
    };
    let classes = if let Some(att) = model.class_attention() {
        Some(
            ets::knowledge::classes::GameClasses::new(&replay, att)
                .map_err(|e| miette::miette!("{}: classifying the game: {e}", a.file.display()))?
                .at(n),
        )
    } else {
        None
    };
    let ranked = model.rank(&pos, classes.as_ref());
    let rows = board.rows();
    let played_rank = played.and_then(|q| ranked.iter().position(|r| r.0 == q).map(|i| i + 1));
    let mut out_moves = Vec::new();
    for (i, (pt, p, raw)) in ranked.iter().take(a.top).enumerate() {
        out_moves.push(ranked_entry(&model, i + 1, *pt, *p, raw, rows));
    }
    let text = match a.format {
        PredictFormat::Json => serde_json::to_string_pretty(&PredictJson {
            file: a.file.display().to_string(),
            after_move: n,
            to_move: mover.letter(),
            legal: ranked.len(),
            played: played.map(|q| q.gtp(rows)),
            played_rank,
            moves: out_moves,
        })
        .expect("serialisable"),
        PredictFormat::Text => {
            let mut s = format!(
                "{} after move {n}: {} to play, {} legal moves{}\n",
                a.file.display(),
                if mover == Color::Black { "Black" } else { "White" },
                ranked.len(),
                match (played, played_rank) {
                    (Some(q), Some(k)) => format!("; played {} (ranked {k})", q.gtp(rows)),
                    (Some(q), None) => format!("; played {} (not a legal move here)", q.gtp(rows)),
                    _ => String::new(),
                }
            );
            for m in &out_moves {
                s.push_str(&format!(
                    "{:>3}. {:<4} {:5.1}%  pattern k={} ({}/{}, P≈{:.3}); {}\n",
                    m.rank,
                    m.mv,
                    100.0 * m.p,
                    m.pattern.k,
                    m.pattern.n_played,
                    m.pattern.n_match,
                    m.pattern.p_smoothed,
                    m.reasons
                        .iter()
                        .map(|r| format!("{} {:+.2}", r.feature, r.contribution))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            s
        }
        PredictFormat::Svg => {
            let probs: Vec<(Point, f64)> = ranked.iter().map(|r| (r.0, r.1)).collect();
            ets::knowledge::heatmap::svg(
                board,
                &probs,
                played,
                a.top,
                &format!("{} after move {n}", a.file.display()),
            )
        }
    };
    match &a.output {
        Some(p) => std::fs::write(p, text).map_err(|e| miette::miette!("{}: {e}", p.display()))?,
        None => print!("{text}{}", if text.ends_with('\n') { "" } else { "\n" }),
    }
    Ok(ExitCode::SUCCESS)
}

fn ranked_entry(
    model: &Model,
    rank: usize,
    pt: Point,
    p: f64,
    raw: &ets::knowledge::features::Raw,
    rows: u8,
) -> Ranked {
    let mut ids = ets::knowledge::ranker::Ids::new();
    model.ranker.space.lookup(raw, &mut ids);
    let mut reasons: Vec<Reason> = model
        .ranker
        .contributions(&ids)
        .into_iter()
        .map(|(f, c)| Reason {
            feature: model.ranker.space.name(f),
            contribution: c as f64,
        })
        .collect();
    reasons.sort_by(|a, b| b.contribution.abs().total_cmp(&a.contribution.abs()));
    reasons.truncate(4);
    let (q, k, _) = model.patterns().estimate(raw.node, None);
    let s = model.stats[raw.node as usize];
    Ranked {
        rank,
        mv: pt.gtp(rows),
        p,
        pattern: PatternReason {
            id: raw.node,
            k,
            n_played: s.n_played,
            n_match: s.n_match,
            p_smoothed: q,
        },
        reasons,
    }
}
