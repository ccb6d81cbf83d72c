//! `ets board`, `ets replay`, `ets bench`.

use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use serde::Serialize;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use ets::go::board::{Board, Color, Point};
use ets::go::game::{GameError, Replay};
use ets::go::record::{Attention, GoAlphabet, RecordOptions, record};
use ets::go::sgf::Sgf;

/// Options naming one game of a file.
#[derive(Args, Clone)]
pub struct GameSel {
    /// Which game of a collection (1-based).
    #[arg(long, default_value_t = 1)]
    pub game: usize,
    /// The variation: at the k-th branching node, take child path[k] (0 = main line), e.g. `0,2`.
    #[arg(long, value_delimiter = ',')]
    pub path: Vec<usize>,
    /// Position after N moves (default: the end).
    #[arg(long = "move")]
    pub mv: Option<usize>,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum BoardFormat {
    Ascii,
    Json,
}

#[derive(Args)]
pub struct BoardArgs {
    /// An SGF file.
    pub file: PathBuf,
    #[command(flatten)]
    pub sel: GameSel,
    /// Output format.
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
    #[arg(long)]
    pub layers: Option<usize>,
    /// Focus radius (Manhattan distance from the last move).
    #[arg(long, default_value_t = 2)]
    pub radius: u8,
    /// Focus cap on local space awareness processes.
    #[arg(long, default_value_t = 50)]
    pub cap: usize,
    /// Sweep window width in columns.
    #[arg(long, default_value_t = 3)]
    pub width: u8,
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
    /// An SGF file, or a directory of them.
    pub file: PathBuf,
    #[command(flatten)]
    pub sel: GameSel,
    #[command(flatten)]
    pub rec: RecordArgs,
    /// Write the struct as JSON (docs/formats.md).
    #[arg(short = 'o', long)]
    pub output: Option<PathBuf>,
}

#[derive(Args)]
pub struct BenchArgs {
    /// A directory of SGF files.
    #[arg(default_value = "../shared/data/games/tom-9d")]
    pub dir: PathBuf,
    /// Use at most this many files.
    #[arg(long, default_value_t = 2000)]
    pub limit: usize,
    /// Repetitions (the median is reported).
    #[arg(long, default_value_t = 3)]
    pub reps: usize,
    /// Instead: classify every position of this game at levels 0–2 (full attention), beside GNU Go
    /// reporting its worms at every position when `gnugo` is installed.
    #[arg(long)]
    pub classify: Option<PathBuf>,
}

/// Loads one game and reports failures located in the file.
pub fn load(file: &Path, sel: &GameSel) -> miette::Result<(Sgf, Replay)> {
    let name = file.display().to_string();
    let bytes = std::fs::read(file).map_err(|e| miette::miette!("cannot read {name}: {e}"))?;
    let sgf = Sgf::parse_bytes(bytes.clone()).map_err(|e| {
        let src = ets::go::sgf::normalise_encoding(bytes);
        crate::cli::located(&name, &src, e.offset(), e.to_string(), "here")
    })?;
    let replay = Replay::from_sgf(&sgf, sel.game.saturating_sub(1), &sel.path).map_err(|e| match e {
        GameError::Sgf(e) => crate::cli::located(&name, sgf.source(), e.offset(), e.to_string(), "here"),
        other => miette::miette!("{name}: {other}"),
    })?;
    Ok((sgf, replay))
}

fn upto(replay: &Replay, mv: Option<usize>, name: &str) -> miette::Result<usize> {
    match mv {
        None => Ok(replay.len()),
        Some(n) if n <= replay.len() => Ok(n),
        Some(n) => Err(miette::miette!(
            "{name}: move {n} asked for, but the line has {} moves",
            replay.len()
        )),
    }
}

fn warning_lines(sgf: &Sgf, replay: &Replay, upto: usize) -> Vec<String> {
    replay
        .warnings
        .iter()
        .filter(|w| w.move_number <= upto)
        .map(|w| {
            let (l, c) = ets::go::sgf::line_col(sgf.source(), w.offset);
            format!("move {} ({l}:{c}): {}", w.move_number, w.message)
        })
        .collect()
}

#[derive(Serialize)]
struct BoardJson {
    size: [u8; 2],
    black: Vec<String>,
    white: Vec<String>,
    to_move: &'static str,
    captures: Captures,
    warnings: Vec<String>,
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
    let name = a.file.display().to_string();
    let (sgf, replay) = load(&a.file, &a.sel)?;
    let n = upto(&replay, a.sel.mv, &name)?;
    let b = &replay.positions[n];
    let warnings = warning_lines(&sgf, &replay, n);
    match a.format {
        BoardFormat::Json => {
            let j = BoardJson {
                size: [b.cols(), b.rows()],
                black: names(b, Color::Black),
                white: names(b, Color::White),
                to_move: replay.to_move[n].letter(),
                captures: Captures {
                    black: b.captured_by_black,
                    white: b.captured_by_white,
                },
                warnings,
            };
            println!("{}", serde_json::to_string_pretty(&j).expect("serialisable"));
        }
        BoardFormat::Ascii => {
            print!("{}", b.ascii());
            println!(
                "after move {n} of {}; {} to move; captures: black {}, white {}",
                replay.len(),
                replay.to_move[n].letter(),
                b.captured_by_black,
                b.captured_by_white
            );
            for w in warnings {
                println!("warning: {w}");
            }
        }
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

pub fn progress(n: usize) -> ProgressBar {
    if std::io::stderr().is_terminal() {
        let pb = ProgressBar::new(n as u64);
        pb.set_style(ProgressStyle::with_template("{bar:40} {pos}/{len} {per_sec} eta {eta}").expect("template"));
        pb
    } else {
        ProgressBar::hidden()
    }
}

pub fn last_moves(replay: &Replay, n: usize) -> Vec<Option<Point>> {
    let mut v = vec![None];
    v.extend(replay.moves[..n].iter().map(|m| m.point));
    v
}

pub fn replay(a: ReplayArgs) -> miette::Result<ExitCode> {
    let kinds = GoAlphabet::new();
    let opts = a.rec.options();
    if a.file.is_dir() {
        let files = sgf_files(&a.file);
        let pb = progress(files.len());
        // per file: (warnings, primitives, processes) or the failure
        type Outcome = Result<(usize, usize, usize), String>;
        let results: Vec<(PathBuf, Outcome)> = files
            .par_iter()
            .map(|f| {
                let r = (|| {
                    let (_, replay) = load(f, &a.sel).map_err(|e| format!("{e}"))?;
                    let rec = record(&kinds, &replay.positions, &last_moves(&replay, replay.len()), opts)
                        .map_err(|e| e.to_string())?;
                    Ok((replay.warnings.len(), rec.strukt.len(), rec.strukt.process_count()))
                })();
                pb.inc(1);
                (f.clone(), r)
            })
            .collect();
        pb.finish_and_clear();
        let (mut ok, mut warned, mut failed, mut prims) = (0, 0, 0, 0usize);
        for (f, r) in &results {
            match r {
                Ok((w, p, _)) => {
                    prims += p;
                    if *w > 0 {
                        warned += 1;
                        println!("warnings: {} ({w})", f.display());
                    } else {
                        ok += 1;
                    }
                }
                Err(e) => {
                    failed += 1;
                    println!("failed: {}: {}", f.display(), e.lines().next().unwrap_or(""));
                }
            }
        }
        println!(
            "{} games: {ok} ok, {warned} with warnings, {failed} failed; {prims} primitives recorded",
            results.len()
        );
        return Ok(if failed > 0 {
            ExitCode::from(1)
        } else {
            ExitCode::SUCCESS
        });
    }
    let name = a.file.display().to_string();
    let (sgf, replay) = load(&a.file, &a.sel)?;
    let n = upto(&replay, a.sel.mv, &name)?;
    let rec = record(&kinds, &replay.positions[..=n], &last_moves(&replay, n), opts)
        .map_err(|e| miette::miette!("{name}: {e}"))?;
    for w in warning_lines(&sgf, &replay, n) {
        eprintln!("warning: {w}");
    }
    let s = &rec.strukt;
    println!(
        "{name}: {} positions, {} layers, {} primitives, {} processes ({:.1} bytes/primitive)",
        n + 1,
        rec.layer_count,
        s.len(),
        s.process_count(),
        s.heap_bytes() as f64 / s.len().max(1) as f64
    );
    if let Some(out) = a.output {
        std::fs::write(&out, ets::ets::json::write_struct(s))
            .map_err(|e| miette::miette!("cannot write {}: {e}", out.display()))?;
    }
    Ok(ExitCode::SUCCESS)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Peak resident memory of this process so far (Linux), in bytes.
fn peak_rss() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse::<u64>().ok().map(|kb| kb * 1024)
}

fn gnugo() -> Option<PathBuf> {
    ["gnugo", "/usr/games/gnugo"].iter().map(PathBuf::from).find(|p| {
        std::process::Command::new(p)
            .arg("--version")
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    })
}

fn bench_classify(file: &Path, reps: usize) -> miette::Result<ExitCode> {
    let (sources, st) = ets::go::classify::embedded_setting();
    let st = std::sync::Arc::new(st.map_err(|e| miette::miette!("{}", crate::cli::dsl_cmds::render(&sources, &e)))?);
    let (_, replay) = load(
        file,
        &GameSel {
            game: 1,
            path: vec![],
            mv: None,
        },
    )?;
    let n = replay.len();
    let last = last_moves(&replay, n);
    let (mut ours, mut peer) = (Vec::new(), Vec::new());
    let (mut prims, mut heap, mut peak) = (0, 0, None);
    let g = gnugo();
    let script = g.as_ref().map(|_| {
        let mut script = String::new();
        for k in 1..=n {
            script.push_str(&format!("loadsgf {} {k}\nworm_stones\n", file.display()));
        }
        script.push_str("quit\n");
        script
    });
    // Ours and the peer's runs alternate, so that both meet the machine's load alike.
    for _ in 0..reps.max(1) {
        let t = Instant::now();
        let whole =
            ets::go::classify::classify_game(st.clone(), &replay.positions, &last, RecordOptions::default(), Some(2))
                .map_err(|e| miette::miette!("{e}"))?;
        ours.push(t.elapsed().as_secs_f64());
        prims = whole.timeline().strukt().len();
        heap = whole.timeline().strukt().heap_bytes();
        std::hint::black_box(whole.timeline().level(1).elements().len());
        drop(whole);
        peak = peak_rss();
        if let (Some(g), Some(script)) = (&g, &script) {
            let t = Instant::now();
            let mut child = std::process::Command::new(g)
                .args(["--mode", "gtp"])
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::null())
                .spawn()
                .map_err(|e| miette::miette!("gnugo: {e}"))?;
            use std::io::Write;
            child
                .stdin
                .take()
                .expect("piped")
                .write_all(script.as_bytes())
                .map_err(|e| miette::miette!("gnugo: {e}"))?;
            child.wait().map_err(|e| miette::miette!("gnugo: {e}"))?;
            peer.push(t.elapsed().as_secs_f64());
        }
    }
    let o = median(ours.clone());
    println!(
        "{}: {} moves, {} positions; medians of {} runs",
        file.display(),
        n,
        n + 1,
        reps.max(1)
    );
    println!(
        "  ets classify, every position, levels 0-2, full attention: {:.0} ms/game, {:.2} ms/position; {} primitives, {:.1} bytes/primitive; peak memory {}",
        o * 1e3,
        o * 1e3 / (n + 1) as f64,
        prims,
        heap as f64 / prims.max(1) as f64,
        peak.map(|b| format!("{:.0} MiB", b as f64 / 1048576.0))
            .unwrap_or_else(|| "unknown".into())
    );
    if peer.is_empty() {
        println!("  GNU Go: not installed (apt-get install gnugo), no peer measured");
    } else {
        // Each repetition's ratio too: the two runs of a repetition are adjacent in time, so a
        // change in the machine's load between repetitions cancels in it.
        let pairs = median(ours.iter().zip(&peer).map(|(a, b)| a / b).collect());
        let p = median(peer);
        println!(
            "  GNU Go 3.8, worms at every position (loadsgf + worm_stones): {:.0} ms/game, {:.2} ms/position; ratio ets/GNU Go {:.2} (median of the repetitions' ratios {:.2})",
            p * 1e3,
            p * 1e3 / n as f64,
            o / p,
            pairs
        );
    }
    Ok(ExitCode::SUCCESS)
}

pub fn bench(a: BenchArgs) -> miette::Result<ExitCode> {
    if let Some(f) = &a.classify {
        return bench_classify(f, a.reps);
    }
    let files: Vec<PathBuf> = sgf_files(&a.dir).into_iter().take(a.limit).collect();
    if files.is_empty() {
        return Err(miette::miette!("no SGF files under {}", a.dir.display()));
    }
    let data: Vec<Vec<u8>> = files.iter().filter_map(|f| std::fs::read(f).ok()).collect();
    let bytes: usize = data.iter().map(|d| d.len()).sum();
    let texts: Vec<String> = data.iter().map(|d| String::from_utf8_lossy(d).into_owned()).collect();
    let kinds = GoAlphabet::new();
    let reps = a.reps.max(1);
    let (mut ours, mut peer, mut rep, mut rec) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut prims = 0usize;
    let mut heap = 0usize;
    let mut games = 0usize;
    for _ in 0..reps {
        let t = Instant::now();
        let parsed: Vec<Sgf> = data.iter().filter_map(|d| Sgf::parse_bytes(d.clone()).ok()).collect();
        ours.push(t.elapsed().as_secs_f64());
        games = parsed.len();
        let t = Instant::now();
        let mut n = 0;
        for tx in &texts {
            if sgf_parse::go::parse(tx).is_ok() {
                n += 1;
            }
        }
        peer.push(t.elapsed().as_secs_f64());
        std::hint::black_box(n);
        let t = Instant::now();
        let replays: Vec<Replay> = parsed.iter().filter_map(|s| Replay::from_sgf(s, 0, &[]).ok()).collect();
        rep.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        prims = 0;
        heap = 0;
        for r in &replays {
            let rc = record(&kinds, &r.positions, &last_moves(r, r.len()), RecordOptions::default()).expect("valid");
            prims += rc.strukt.len();
            heap += rc.strukt.heap_bytes();
        }
        rec.push(t.elapsed().as_secs_f64());
    }
    let mb = bytes as f64 / 1e6;
    let (o, p, r, c) = (median(ours), median(peer), median(rep), median(rec));
    println!(
        "{} files, {:.1} MB, {} games; medians of {} runs, one thread:",
        data.len(),
        mb,
        games,
        reps
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
        prims,
        heap as f64 / prims.max(1) as f64
    );
    Ok(ExitCode::SUCCESS)
}
