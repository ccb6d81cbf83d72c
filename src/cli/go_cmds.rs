//! `ets board`, `ets replay`, `ets bench`: positions, structs and throughput of game records
//! (the sensor of thesis §4.4).

use clap::{Args, ValueEnum};
use rayon::prelude::*;
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

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
    /// reporting its worms at every position when `gnugo` is installed.
    #[arg(long)]
    pub classify: Option<PathBuf>,
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

#[derive(Serialize)]
struct BenchClassifyJson {
    file: String,
    moves: usize,
    positions: usize,
    reps: usize,
    ets_ms_per_game: f64,
    ets_ms_per_position: f64,
    primitives: usize,
    bytes_per_primitive: f64,
    peak_memory_bytes: Option<u64>,
    gnugo_ms_per_game: Option<f64>,
    ratio: Option<f64>,
    median_ratio_of_repetitions: Option<f64>,
    peer: String,
}

fn bench_classify(file: &Path, reps: usize, format: Format) -> miette::Result<ExitCode> {
    let (sources, st) = ets::go::classify::embedded_setting();
    let st = std::sync::Arc::new(st.map_err(|e| miette::miette!("{}", crate::cli::dsl_cmds::render(&sources, &e)))?);
    let l = super::input::load(file, &GameSel::default())?;
    let json = format == Format::Json;
    let n = l.replay.len();
    let warnings = report_warnings(l.warnings(n), false, json)?;
    super::input::check_recording(&l, n, RecordOptions::default())?;
    let replay = &l.replay;
    let last = last_moves(replay, n);
    let (mut ours, mut peer) = (Vec::new(), Vec::new());
    let (mut prims, mut heap, mut peak) = (0, 0, None);
    let (cols, rows) = replay.info.size;
    // GNU Go plays square boards up to 19x19 and loads only the first game of a file.
    let g = gnugo();
    let mut peer_note = match &g {
        None => "GNU Go: not installed (apt-get install gnugo), no peer measured".to_string(),
        Some(_) if cols != rows || cols > 19 => {
            format!("GNU Go: plays square boards up to 19x19, not {cols}x{rows}; no peer measured")
        }
        Some(_) => String::new(),
    };
    let g = g.filter(|_| peer_note.is_empty());
    let script = g.as_ref().map(|_| {
        let mut script = String::new();
        for k in 1..=n {
            script.push_str(&format!("loadsgf {} {k}\nworm_stones\n", l.name));
        }
        script.push_str("quit\n");
        script
    });
    // Ours and the peer's runs alternate, so that both meet the machine's load alike.
    for _ in 0..reps {
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
                .stdout(std::process::Stdio::piped())
                .spawn()
                .map_err(|e| miette::miette!("gnugo: {e}"))?;
            let mut stdin = child.stdin.take().expect("piped");
            let script = script.clone();
            let writer = std::thread::spawn(move || {
                use std::io::Write;
                stdin.write_all(script.as_bytes())
            });
            let out = child.wait_with_output().map_err(|e| miette::miette!("gnugo: {e}"))?;
            let _ = writer.join();
            peer.push(t.elapsed().as_secs_f64());
            // A GTP failure answers `? message`: the peer did not do the work, so no ratio.
            let text = String::from_utf8_lossy(&out.stdout);
            if let Some(refusal) = text.lines().find(|x| x.starts_with('?')) {
                peer_note = format!("GNU Go refused the record ({}); no peer measured", refusal.trim());
                peer.clear();
                break;
            }
        }
    }
    let o = median(ours.clone());
    let per_pos = o * 1e3 / (n + 1) as f64;
    let bpp = heap as f64 / prims.max(1) as f64;
    let (p, ratio, pairs) = if peer.is_empty() {
        (None, None, None)
    } else {
        // Each repetition's ratio too: the two runs of a repetition are adjacent in time, so a
        // change in the machine's load between repetitions cancels in it.
        let pairs = median(ours.iter().zip(&peer).map(|(a, b)| a / b).collect());
        let p = median(peer.clone());
        (Some(p), Some(o / p), Some(pairs))
    };
    if json {
        let j = BenchClassifyJson {
            file: l.name.clone(),
            moves: n,
            positions: n + 1,
            reps,
            ets_ms_per_game: o * 1e3,
            ets_ms_per_position: per_pos,
            primitives: prims,
            bytes_per_primitive: bpp,
            peak_memory_bytes: peak,
            gnugo_ms_per_game: p.map(|p| p * 1e3),
            ratio,
            median_ratio_of_repetitions: pairs,
            peer: if p.is_some() {
                "GNU Go 3.8, worms at every position (loadsgf + worm_stones)".into()
            } else {
                peer_note
            },
        };
        println!("{}", json_with_warnings(&j, &warnings));
        return Ok(ExitCode::SUCCESS);
    }
    println!("{}: {} moves, {} positions; medians of {} runs", l.name, n, n + 1, reps);
    println!(
        "  ets classify, every position, levels 0-2, full attention: {:.0} ms/game, {:.2} ms/position; {} primitives, {:.1} bytes/primitive; peak memory {}",
        o * 1e3,
        per_pos,
        prims,
        bpp,
        peak.map(|b| format!("{:.0} MiB", b as f64 / 1048576.0))
            .unwrap_or_else(|| "unknown".into())
    );
    match (p, ratio, pairs) {
        (Some(p), Some(r), Some(pairs)) => println!(
            "  GNU Go 3.8, worms at every position (loadsgf + worm_stones): {:.0} ms/game, {:.2} ms/position; ratio ets/GNU Go {:.2} (median of the repetitions' ratios {:.2})",
            p * 1e3,
            p * 1e3 / n.max(1) as f64,
            r,
            pairs
        ),
        _ => println!("  {peer_note}"),
    }
    Ok(ExitCode::SUCCESS)
}

#[derive(Serialize)]
struct BenchJson {
    files: usize,
    megabytes: f64,
    games: usize,
    reps: usize,
    parse_s: f64,
    parse_sgf_parse_s: f64,
    replay_s: f64,
    record_s: f64,
    primitives: usize,
    bytes_per_primitive: f64,
}

pub fn bench(a: BenchArgs) -> miette::Result<ExitCode> {
    if let Some(f) = &a.classify {
        return bench_classify(f, a.reps, a.format);
    }
    if !a.dir.is_dir() {
        return Err(miette::miette!("{}: not a directory of SGF files", a.dir.display()));
    }
    let files: Vec<PathBuf> = sgf_files(&a.dir).into_iter().take(a.limit).collect();
    if files.is_empty() {
        return Err(miette::miette!("no SGF files under {}", a.dir.display()));
    }
    let data: Vec<Vec<u8>> = files.iter().filter_map(|f| super::input::read_input(f).ok()).collect();
    let bytes: usize = data.iter().map(|d| d.len()).sum();
    let texts: Vec<String> = data.iter().map(|d| String::from_utf8_lossy(d).into_owned()).collect();
    let kinds = GoAlphabet::new();
    let reps = a.reps;
    let (mut ours, mut peer, mut rep, mut rec) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut prims = 0usize;
    let mut heap = 0usize;
    let mut games = 0usize;
    let pb = Progress::new(reps);
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
            let (c, rw) = r.info.size;
            if ets::go::game::check_recording(c, rw, r.positions.len(), RecordOptions::default()).is_err() {
                continue;
            }
            let rc = record(&kinds, &r.positions, &last_moves(r, r.len()), RecordOptions::default())
                .map_err(|e| miette::miette!("{e}"))?;
            prims += rc.strukt.len();
            heap += rc.strukt.heap_bytes();
        }
        rec.push(t.elapsed().as_secs_f64());
        pb.inc();
    }
    pb.finish();
    let mb = bytes as f64 / 1e6;
    let (o, p, r, c) = (median(ours), median(peer), median(rep), median(rec));
    if a.format == Format::Json {
        let j = BenchJson {
            files: data.len(),
            megabytes: mb,
            games,
            reps,
            parse_s: o,
            parse_sgf_parse_s: p,
            replay_s: r,
            record_s: c,
            primitives: prims,
            bytes_per_primitive: heap as f64 / prims.max(1) as f64,
        };
        println!("{}", serde_json::to_string_pretty(&j).expect("serialisable"));
        return Ok(ExitCode::SUCCESS);
    }
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
