//! Benchmarks of the Go front-end with their peers (`ets bench`; issue 14 item 5): what is
//! measured, the GNU Go driver that measures the peer in the same run, and the reports (serde
//! types the command prints as text or JSON). Speed is measured here and by criterion in
//! `benches/`, never by timed assertions in tests.
//!
//! - [`classify`]: a whole record classified at levels 0–2 with full attention at every position
//!   (one timeline step per position, §4.4, §5.1.1), beside GNU Go 3.8 computing its worms at
//!   every position of the same record (`loadsgf FILE k` + `worm_stones`), runs alternating; and
//!   `--move N` (the classification at position N) beside `--timeline` up to N, in one process;
//!   and the live loop of the Game API at a middle-game position of the record ([`LiveBench`]:
//!   a move tried and taken back, a fork), beside GNU Go playing the same move, listing its
//!   worms and taking the move back.
//! - [`record_corpus`]: parsing, replay and recording of a directory of records, beside the
//!   `sgf-parse` crate's parser.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Instant;

use serde::Serialize;

use super::board::Point;
use super::classify::{ClassifyError, GoTimeline, classify_game};
use super::game::{Replay, check_recording};
use super::live::{Game, GameOptions, Move};
use super::record::{Attention, GoAlphabet, RecordOptions, changes, record};
use super::sgf::Sgf;
use crate::ets::Setting;
use crate::ets::timeline::TimelineMemory;

/// What can stop a benchmark.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// Classification failed.
    #[error(transparent)]
    Classify(#[from] ClassifyError),
    /// Recording failed.
    #[error(transparent)]
    Record(#[from] crate::ets::timeline::TimelineError),
    /// The live loop's game refused a position or a move.
    #[error(transparent)]
    Game(#[from] super::live::GameError),
    /// The peer could not be started or read.
    #[error("gnugo: {0}")]
    Peer(std::io::Error),
    /// The record has no position to classify.
    #[error("the record has no position")]
    Empty,
}

/// How the running code was built: `"profile-guided"` when `scripts/pgo.sh` built it (it sets
/// `ETS_BUILD_PROFILE=pgo` in both of its builds, so that they compile the same code; its
/// instrumented build, used only for training, says so too), otherwise `"release"` or `"debug"`
/// (`docs/performance.md`, "A profile-guided build").
pub fn build_kind() -> &'static str {
    match option_env!("ETS_BUILD_PROFILE") {
        Some("pgo") => "profile-guided",
        _ if cfg!(debug_assertions) => "debug",
        _ => "release",
    }
}

/// `ets bench --classify`: one record, ours beside GNU Go's, medians of the repetitions.
#[derive(Debug, Clone, Serialize)]
pub struct ClassifyBench {
    /// The record's name.
    pub file: String,
    /// Moves of its main line.
    pub moves: usize,
    /// Positions classified (moves + 1).
    pub positions: usize,
    /// Repetitions.
    pub reps: usize,
    /// How the code measured was built ([`build_kind`]).
    pub build: &'static str,
    /// Whole record, levels 0–2, full attention, every position: median wall time (levels ≥ 1
    /// on a second thread, one position behind level 0, as `ets classify` runs them).
    pub ets_ms_per_game: f64,
    /// The same run's CPU time (every thread), median.
    pub ets_cpu_ms_per_game: f64,
    /// The same classification on one thread (every level at each position), median wall time.
    pub ets_one_thread_ms_per_game: f64,
    /// Whether the levels ≥ 1 of `ets_ms_per_game`'s runs went on a second thread (not on a
    /// machine with one core).
    pub pipelined: bool,
    /// The same per position.
    pub ets_ms_per_position: f64,
    /// The move N of the `--move N` / `--timeline` comparison.
    pub move_n: usize,
    /// `--move N`: positions 0..=N classified and the classification at N built (its JSON).
    pub move_n_ms: f64,
    /// `--timeline` up to N: positions 0..=N classified and the timeline's JSON built.
    pub timeline_to_n_ms: f64,
    /// Median over the repetitions of `move_n_ms / timeline_to_n_ms` (each pair adjacent in time).
    pub move_n_over_timeline: f64,
    /// Of `move_n_ms`, the output: the classification at N built (its JSON), median.
    pub move_n_output_ms: f64,
    /// Of `timeline_to_n_ms`, the output: the timeline's JSON built, median. The two routes
    /// classify positions 0..=N by the same call; they differ by their outputs alone.
    pub timeline_output_ms: f64,
    /// Primitives of the whole record's struct.
    pub primitives: usize,
    /// Per position after the first, on average, the vertices whose colour changed or that
    /// border one that did: what a position changes in what full attention perceives (the rest
    /// repeats the previous position; `docs/design-repeats.md`).
    pub dirty_vertices_per_position: f64,
    /// The board's vertices.
    pub vertices: usize,
    /// Of the whole record's primitives, the share level 0 found clean: they and everything
    /// around them repeat the previous position, or they repeat it and their matches were found
    /// to (`calm_share`), and their matches were taken as images of the previous position's
    /// (`Timeline::find_repeats`).
    pub clean_share: f64,
    /// Of the whole record's primitives, the share of those clean ones found so by their
    /// matches, not by their neighbourhood.
    pub calm_share: f64,
    /// Of the whole record's primitives, the share of repeats that are not clean but anchor some
    /// images of their preimage's matches among matches that are not (`RepeatCounts::partial`).
    pub partial_share: f64,
    /// Element steps level 0 took as images of the element's last one, without derivation.
    pub quiet_element_steps: u64,
    /// Stillborn elements of levels 1–2 made by trial derivations (`Timeline::trial_derivations`),
    /// and made again from the memo of stillborn derivations (`Timeline::remember_floods`).
    pub stillborn_by_trials: u64,
    /// See [`ClassifyBench::stillborn_by_trials`].
    pub stillborn_from_memo: u64,
    /// Late forks levels 1–2 made (`Timeline::late_forks_made`; fewer with
    /// `Timeline::forks_first`).
    pub late_forks_made: u64,
    /// Starts of levels 1–2 not tried as trials, since they could only give up
    /// (`Timeline::trials_skipped`).
    pub trials_skipped: u64,
    /// Heap bytes of the struct per primitive.
    pub bytes_per_primitive: f64,
    /// Heap bytes of the whole timeline (struct, every level, indexes) per primitive.
    pub timeline_bytes_per_primitive: f64,
    /// The whole timeline's heap bytes part by part (their sum is
    /// `timeline_bytes_per_primitive` × `primitives`), after the record was classified to its
    /// end and the spare capacity released.
    pub memory: TimelineMemory,
    /// Heap bytes per primitive the front-end keeps beside the timeline: the sensor's record of
    /// what each primitive stands for.
    pub front_end_bytes_per_primitive: f64,
    /// Peak resident memory of the process after the first whole-record classification (Linux).
    pub peak_memory_bytes: Option<u64>,
    /// GNU Go's median wall time for its worms at every position.
    pub gnugo_ms_per_game: Option<f64>,
    /// `ets_ms_per_game / gnugo_ms_per_game`.
    pub ratio: Option<f64>,
    /// `ets_one_thread_ms_per_game / gnugo_ms_per_game` (GNU Go runs on one thread).
    pub one_thread_ratio: Option<f64>,
    /// Median of each repetition's ratio (a change of load between repetitions cancels in it).
    pub median_ratio_of_repetitions: Option<f64>,
    /// What the peer is, or why none was measured.
    pub peer: String,
    /// The Game API's live loop at a middle-game position of the record (none for a record
    /// without a move or without a legal move there).
    pub live: Option<LiveBench>,
}

/// The live loop of `ets bench --classify` (issue 14 item 5): what a player's search pays to try
/// a move with the Game API ([`super::live::Game`]), at a position of the record.
#[derive(Debug, Clone, Serialize)]
pub struct LiveBench {
    /// The position tried from: moves played (the middle of the record, at most move 120).
    pub at: usize,
    /// The move tried, by its GTP name: the legal move nearest the last one (ties by row, then
    /// column), a move a search would try ([`candidate`]).
    pub tried: String,
    /// Tries per repetition (each figure is a repetition's mean; the median over repetitions
    /// is reported).
    pub tries: usize,
    /// Per attention: the Game's default first (focus on the last move, three refresh layers),
    /// then full attention.
    pub modes: Vec<LiveMode>,
    /// GNU Go 3.8 at the same position (`loadsgf`): `play` the same move, `worm_stones`, `undo`,
    /// in one GTP session, microseconds per try (a session that only loads the position is
    /// subtracted), median over the repetitions.
    pub gnugo_us: Option<f64>,
    /// What the peer is, or why none was measured.
    pub peer: String,
}

/// One attention's figures in [`LiveBench`].
#[derive(Debug, Clone, Serialize)]
pub struct LiveMode {
    /// The attention and its refresh layers.
    pub attention: String,
    /// `play`, the deltas of levels 0–2 read, `undo`: microseconds per try.
    pub play_delta_undo_us: f64,
    /// `fork` (and the fork dropped): microseconds.
    pub fork_us: f64,
}

/// The legal move nearest the last move played (the board's centre before the first), ties by
/// row, then column: a move a search would try. None when there is no legal move.
pub fn candidate(g: &Game) -> Option<Point> {
    let (cols, rows) = (g.referee().cols(), g.referee().rows());
    let last = match g.last_move() {
        Some(Move::Play(p)) => p,
        _ => Point {
            col: (cols / 2) as u8,
            row: (rows / 2) as u8,
        },
    };
    let d = |p: &Point| (p.col as i32 - last.col as i32).abs() + (p.row as i32 - last.row as i32).abs();
    g.legal_moves().into_iter().min_by_key(|p| (d(p), p.row, p.col))
}

/// `ets bench DIR`: parse, replay and record a directory of records, medians of the repetitions.
#[derive(Debug, Clone, Serialize)]
pub struct RecordBench {
    /// Files read.
    pub files: usize,
    /// Their size.
    pub megabytes: f64,
    /// Games parsed.
    pub games: usize,
    /// Repetitions.
    pub reps: usize,
    /// Parsing every file (ets), seconds.
    pub parse_s: f64,
    /// Parsing every file with the `sgf-parse` crate (the peer), seconds.
    pub parse_sgf_parse_s: f64,
    /// Replaying every game, seconds.
    pub replay_s: f64,
    /// Recording every game (full attention, one layer), seconds.
    pub record_s: f64,
    /// Primitives recorded.
    pub primitives: usize,
    /// Heap bytes of the structs per primitive.
    pub bytes_per_primitive: f64,
}

/// The median (upper of the two middle values); 0 for none.
pub fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Peak resident memory of this process so far (Linux `VmHWM`), in bytes.
pub fn peak_rss() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = s.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse::<u64>().ok().map(|kb| kb * 1024)
}

/// Per position after the first, on average, the vertices whose colour changed or that border
/// one that did (0 for a record of one position).
fn dirty_vertices(replay: &Replay) -> f64 {
    let mut dirty = 0usize;
    for w in replay.positions.windows(2) {
        let changed = changes(&w[0], &w[1]);
        let mut d: Vec<Point> = changed.iter().flat_map(|&p| w[1].neighbours(p)).collect();
        d.extend_from_slice(&changed);
        d.sort_unstable();
        d.dedup();
        dirty += d.len();
    }
    dirty as f64 / replay.positions.len().saturating_sub(1).max(1) as f64
}

/// CPU time of the process so far (every thread, ended ones included), seconds.
fn cpu_seconds() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes the timespec it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// GNU Go's executable, if one answers `--version` (on the path or Debian's `/usr/games`).
pub fn gnugo() -> Option<PathBuf> {
    ["gnugo", "/usr/games/gnugo"].iter().map(PathBuf::from).find(|p| {
        Command::new(p)
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    })
}

/// The vertex played to reach each position 0..=n (None for the first and for passes).
fn last_moves(r: &Replay, n: usize) -> Vec<Option<super::board::Point>> {
    std::iter::once(None)
        .chain(r.moves.iter().take(n).map(|m| m.point))
        .collect()
}

/// One GNU Go run: its worms at every position 1..=n of `file`; `Ok(Err(refusal))` when GNU Go
/// answered a command with an error (it did not do the work).
fn gnugo_worms(g: &Path, script: &str) -> Result<(f64, Result<(), String>), BenchError> {
    let t = Instant::now();
    let mut child = Command::new(g)
        .args(["--mode", "gtp"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(BenchError::Peer)?;
    let mut stdin = child
        .stdin
        .take()
        .ok_or_else(|| BenchError::Peer(std::io::Error::other("no stdin")))?;
    let script = script.to_string();
    let writer = std::thread::spawn(move || stdin.write_all(script.as_bytes()));
    let out = child.wait_with_output().map_err(BenchError::Peer)?;
    let _ = writer.join();
    let secs = t.elapsed().as_secs_f64();
    let text = String::from_utf8_lossy(&out.stdout);
    Ok(match text.lines().find(|x| x.starts_with('?')) {
        Some(refusal) => (secs, Err(refusal.trim().to_string())),
        None => (secs, Ok(())),
    })
}

/// Runs `ets bench --classify`: the record `replay` (read from `file`, named `name`) classified
/// whole `reps` times at levels 0–2 with full attention, each run followed by GNU Go's worms at
/// every position when `peer` is given (GNU Go reads `file` itself); then `--move N` beside
/// `--timeline` up to N (`move_n`, default the last move), alternating, `reps` times each.
pub fn classify(
    setting: Arc<Setting>,
    replay: &Replay,
    file: &Path,
    name: &str,
    reps: usize,
    move_n: Option<usize>,
    peer: Option<&Path>,
) -> Result<ClassifyBench, BenchError> {
    let n = replay.len();
    if replay.positions.is_empty() {
        return Err(BenchError::Empty);
    }
    let reps = reps.max(1);
    let opts = RecordOptions::default();
    let last = last_moves(replay, n);
    let (cols, rows) = replay.info.size;
    let mut peer_note = match peer {
        None => "GNU Go: not installed (apt-get install gnugo), no peer measured".to_string(),
        Some(_) if cols != rows || cols > 19 => {
            format!("GNU Go: plays square boards up to 19x19, not {cols}x{rows}; no peer measured")
        }
        Some(_) => String::new(),
    };
    let g = peer.filter(|_| peer_note.is_empty());
    // GNU Go loads only the first game of a file; `loadsgf FILE k` stops before move k, so
    // k = 1..=n + 1 are the positions 0..=n, the ones classified.
    let script = g.map(|_| {
        let mut script = String::new();
        for k in 1..=n + 1 {
            script.push_str(&format!("loadsgf {} {k}\nworm_stones\n", file.display()));
        }
        script.push_str("quit\n");
        script
    });
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    let (mut cpu, mut single) = (Vec::new(), Vec::new());
    let (mut prims, mut heap, mut all_heap, mut peak) = (0, 0, 0, None);
    let mut memory = TimelineMemory::default();
    let mut front_end = 0;
    let mut piped = false;
    let (mut clean_share, mut calm_share, mut partial_share, mut quiet) = (0.0, 0.0, 0.0, 0);
    let (mut trials, mut replays, mut forks, mut skipped) = (0, 0, 0, 0);
    // On one thread: the positions pushed one at a time, every level at each position.
    let one_thread = || -> Result<f64, BenchError> {
        let t = Instant::now();
        let mut one = GoTimeline::new(setting.clone(), (cols, rows), opts, Some(2))?;
        for (b, m) in replay.positions.iter().zip(&last) {
            one.push(b, *m)?;
        }
        one.shrink_to_fit();
        let secs = t.elapsed().as_secs_f64();
        drop(one);
        Ok(secs)
    };
    for rep in 0..reps {
        // The one-thread run in turn before and after the pipelined one.
        if rep % 2 == 1 {
            single.push(one_thread()?);
        }
        let (t, c) = (Instant::now(), cpu_seconds());
        let whole = classify_game(setting.clone(), &replay.positions, &last, opts, Some(2))?;
        ours.push(t.elapsed().as_secs_f64());
        cpu.push(cpu_seconds() - c);
        piped = whole.timeline().steps_pipelined() > 0;
        let r = whole.timeline().repeat_counts();
        clean_share = r.clean as f64 / r.primitives.max(1) as f64;
        calm_share = r.calm as f64 / r.primitives.max(1) as f64;
        partial_share = r.partial as f64 / r.primitives.max(1) as f64;
        quiet = r.quiet;
        trials = whole.timeline().trials_made();
        replays = whole.timeline().flood_replays();
        forks = whole.timeline().late_forks_made();
        skipped = whole.timeline().trials_skipped();
        prims = whole.timeline().strukt().len();
        heap = whole.timeline().strukt().heap_bytes();
        all_heap = whole.timeline().heap_bytes();
        memory = whole.timeline().memory();
        front_end = whole.front_end_heap_bytes();
        std::hint::black_box(whole.timeline().level(1).elements().len());
        drop(whole);
        if rep == 0 {
            peak = peak_rss();
        }
        if rep % 2 == 0 {
            single.push(one_thread()?);
        }
        if let (Some(g), Some(script)) = (g, &script) {
            let (secs, done) = gnugo_worms(g, script)?;
            if let Err(refusal) = done {
                peer_note = format!("GNU Go refused the record ({refusal}); no peer measured");
                theirs.clear();
                break;
            }
            theirs.push(secs);
        }
    }
    // `--move N` beside `--timeline` up to N: the same positions, the two outputs' JSON built.
    let m = move_n.unwrap_or(n).min(n);
    let (mut one, mut upto, mut pair) = (Vec::new(), Vec::new(), Vec::new());
    let (mut one_out, mut upto_out) = (Vec::new(), Vec::new());
    // Each route: (whole, of which its output).
    let one_position = || -> Result<(f64, f64), BenchError> {
        let t = Instant::now();
        let g = classify_game(setting.clone(), &replay.positions[..=m], &last[..=m], opts, Some(2))?;
        let o = Instant::now();
        std::hint::black_box(g.position_json(m as u32, false, false));
        let out = o.elapsed().as_secs_f64();
        drop(g);
        Ok((t.elapsed().as_secs_f64(), out))
    };
    let timeline = || -> Result<(f64, f64), BenchError> {
        let t = Instant::now();
        let g = classify_game(setting.clone(), &replay.positions[..=m], &last[..=m], opts, Some(2))?;
        let o = Instant::now();
        std::hint::black_box(g.timeline_json(false));
        let out = o.elapsed().as_secs_f64();
        drop(g);
        Ok((t.elapsed().as_secs_f64(), out))
    };
    for r in 0..reps {
        // In turn first and second: the first run of a pair may find the memory the other left.
        let (a, b) = if r % 2 == 0 {
            let a = one_position()?;
            (a, timeline()?)
        } else {
            let b = timeline()?;
            (one_position()?, b)
        };
        one.push(a.0);
        upto.push(b.0);
        pair.push(a.0 / b.0);
        one_out.push(a.1);
        upto_out.push(b.1);
    }
    let o = median(ours.clone());
    let o1 = median(single);
    let (p, ratio, pairs, ratio1) = if theirs.is_empty() {
        (None, None, None, None)
    } else {
        let pairs = median(ours.iter().zip(&theirs).map(|(a, b)| a / b).collect());
        let p = median(theirs);
        (Some(p * 1e3), Some(o / p), Some(pairs), Some(o1 / p))
    };
    Ok(ClassifyBench {
        file: name.to_string(),
        moves: n,
        positions: n + 1,
        reps,
        build: build_kind(),
        ets_ms_per_game: o * 1e3,
        ets_cpu_ms_per_game: median(cpu) * 1e3,
        ets_one_thread_ms_per_game: o1 * 1e3,
        pipelined: piped,
        ets_ms_per_position: o * 1e3 / (n + 1) as f64,
        move_n: m,
        move_n_ms: median(one) * 1e3,
        timeline_to_n_ms: median(upto) * 1e3,
        move_n_over_timeline: median(pair),
        move_n_output_ms: median(one_out) * 1e3,
        timeline_output_ms: median(upto_out) * 1e3,
        primitives: prims,
        dirty_vertices_per_position: dirty_vertices(replay),
        vertices: cols as usize * rows as usize,
        clean_share,
        calm_share,
        partial_share,
        quiet_element_steps: quiet,
        stillborn_by_trials: trials,
        stillborn_from_memo: replays,
        late_forks_made: forks,
        trials_skipped: skipped,
        bytes_per_primitive: heap as f64 / prims.max(1) as f64,
        timeline_bytes_per_primitive: all_heap as f64 / prims.max(1) as f64,
        memory,
        front_end_bytes_per_primitive: front_end as f64 / prims.max(1) as f64,
        peak_memory_bytes: peak,
        gnugo_ms_per_game: p,
        ratio,
        one_thread_ratio: ratio1,
        median_ratio_of_repetitions: pairs,
        live: live(&setting, replay, file, reps, if p.is_some() { g } else { None })?,
        peer: if p.is_some() {
            "GNU Go 3.8, worms at every position (loadsgf + worm_stones)".into()
        } else {
            peer_note
        },
    })
}

/// Tries per repetition of the live loop.
const LIVE_TRIES: usize = 200;

/// The live loop of [`classify`] ([`LiveBench`]): `reps` repetitions of [`LIVE_TRIES`] tries
/// and forks per attention, each beside a GNU Go session when `peer` is given.
fn live(
    setting: &Arc<Setting>,
    replay: &Replay,
    file: &Path,
    reps: usize,
    peer: Option<&Path>,
) -> Result<Option<LiveBench>, BenchError> {
    let n = replay.len();
    if n == 0 {
        return Ok(None);
    }
    let at = (n / 2).min(120);
    let modes = [
        ("focus, 3 refresh layers (the Game's default)", GameOptions::default()),
        (
            "full, 1 refresh layer",
            GameOptions {
                record: RecordOptions {
                    attention: Attention::Full,
                    layers: 1,
                },
                ..GameOptions::default()
            },
        ),
    ];
    let mut games = Vec::new();
    for (name, opts) in modes {
        let opts = GameOptions { top: Some(2), ..opts };
        let g = Game::from_replay(setting.clone(), replay, at, opts)?;
        games.push((name, g));
    }
    let Some(p) = candidate(&games[0].1) else {
        return Ok(None);
    };
    let (colour, rows) = (games[0].1.to_move(), games[0].1.referee().rows() as u8);
    let tried = p.gtp(rows);
    let mut times: Vec<(Vec<f64>, Vec<f64>)> = vec![(Vec::new(), Vec::new()); games.len()];
    let mut theirs = Vec::new();
    let mut peer_note = match peer {
        Some(_) => String::new(),
        None => "GNU Go: not measured (see above)".to_string(),
    };
    let gtp_colour = if colour == super::board::Color::Black { "B" } else { "W" };
    let load = format!("loadsgf {} {}\n", file.display(), at + 1);
    let base = format!("{load}quit\n");
    let tries = format!(
        "{load}{}quit\n",
        format!("play {gtp_colour} {tried}\nworm_stones\nundo\n").repeat(LIVE_TRIES)
    );
    for _ in 0..reps.max(1) {
        for ((_, g), (ours, forks)) in games.iter_mut().zip(&mut times) {
            let try_once = |g: &mut Game| -> Result<usize, BenchError> {
                g.play(p)?;
                let changed = (0..=2u32)
                    .map(|l| {
                        let d = g.delta(l);
                        d.born.len() + d.extended.len() + d.ended.len()
                    })
                    .sum();
                g.undo()?;
                Ok(changed)
            };
            // (One try first: the lists a try grows are grown before the timing.)
            std::hint::black_box(try_once(g)?);
            let t = Instant::now();
            for _ in 0..LIVE_TRIES {
                std::hint::black_box(try_once(g)?);
            }
            ours.push(t.elapsed().as_secs_f64() * 1e6 / LIVE_TRIES as f64);
            let t = Instant::now();
            for _ in 0..LIVE_TRIES {
                std::hint::black_box(g.fork());
            }
            forks.push(t.elapsed().as_secs_f64() * 1e6 / LIVE_TRIES as f64);
        }
        if let Some(gg) = peer.filter(|_| peer_note.is_empty()) {
            let (b, done_b) = gnugo_worms(gg, &base)?;
            let (t, done_t) = gnugo_worms(gg, &tries)?;
            match done_b.and(done_t) {
                Ok(()) => theirs.push((t - b).max(0.0) * 1e6 / LIVE_TRIES as f64),
                Err(refusal) => {
                    peer_note = format!("GNU Go refused the position or the move ({refusal}); no peer measured");
                    theirs.clear();
                }
            }
        }
    }
    let gnugo_us = (!theirs.is_empty()).then(|| median(theirs));
    Ok(Some(LiveBench {
        at,
        tried,
        tries: LIVE_TRIES,
        modes: games
            .iter()
            .zip(times)
            .map(|((name, _), (ours, forks))| LiveMode {
                attention: name.to_string(),
                play_delta_undo_us: median(ours),
                fork_us: median(forks),
            })
            .collect(),
        gnugo_us,
        peer: if gnugo_us.is_some() {
            "GNU Go 3.8: play, worm_stones, undo in one GTP session (loadsgf at the same position)".into()
        } else {
            peer_note
        },
    }))
}

/// Runs `ets bench DIR` on the records' bytes `data`: parsing (ets, and `sgf-parse` as the peer),
/// replay and recording with full attention, `reps` times; `tick` is called after each repetition.
pub fn record_corpus(data: &[Vec<u8>], reps: usize, mut tick: impl FnMut()) -> Result<RecordBench, BenchError> {
    let bytes: usize = data.iter().map(|d| d.len()).sum();
    let texts: Vec<String> = data.iter().map(|d| String::from_utf8_lossy(d).into_owned()).collect();
    let kinds = GoAlphabet::new();
    let opts = RecordOptions::default();
    let (mut ours, mut peer, mut rep, mut rec) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut prims, mut heap, mut games) = (0usize, 0usize, 0usize);
    for _ in 0..reps.max(1) {
        let t = Instant::now();
        let parsed: Vec<Sgf> = data.iter().filter_map(|d| Sgf::parse_bytes(d.clone()).ok()).collect();
        ours.push(t.elapsed().as_secs_f64());
        games = parsed.len();
        let t = Instant::now();
        let parsed_by_peer = texts.iter().filter(|tx| sgf_parse::go::parse(tx).is_ok()).count();
        peer.push(t.elapsed().as_secs_f64());
        std::hint::black_box(parsed_by_peer);
        let t = Instant::now();
        let replays: Vec<Replay> = parsed.iter().filter_map(|s| Replay::from_sgf(s, 0, &[]).ok()).collect();
        rep.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        (prims, heap) = (0, 0);
        for r in &replays {
            let (c, rw) = r.info.size;
            if check_recording(c, rw, r.positions.len(), opts).is_err() {
                continue;
            }
            let rc = record(&kinds, &r.positions, &last_moves(r, r.len()), opts)?;
            prims += rc.strukt.len();
            heap += rc.strukt.heap_bytes();
        }
        rec.push(t.elapsed().as_secs_f64());
        tick();
    }
    Ok(RecordBench {
        files: data.len(),
        megabytes: bytes as f64 / 1e6,
        games,
        reps: reps.max(1),
        parse_s: median(ours),
        parse_sgf_parse_s: median(peer),
        replay_s: median(rep),
        record_s: median(rec),
        primitives: prims,
        bytes_per_primitive: heap as f64 / prims.max(1) as f64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::classify::embedded_setting;

    #[test]
    fn the_candidate_is_the_legal_move_nearest_the_last() {
        let st = Arc::new(embedded_setting().1.unwrap());
        let mut g = Game::new(st, 9, 9, GameOptions::default()).unwrap();
        let at = |s: &str| Point::from_gtp(s, 9).unwrap();
        // No move yet: the centre.
        assert_eq!(candidate(&g), Some(at("E5")));
        g.play(at("E5")).unwrap();
        // Four at distance one: the upper row first (rows count from the top).
        assert_eq!(candidate(&g), Some(at("E6")));
        g.play(at("E6")).unwrap();
        // E5, occupied, is not legal; of D6, F6 and E7, the upper row, then the left column.
        assert_eq!(candidate(&g), Some(at("E7")));
    }
}
