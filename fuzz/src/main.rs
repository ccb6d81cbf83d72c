//! `ets-fuzz`: a fuzz driver that runs on stable Rust, for the SGF reader, the whole Go pipeline
//! (read → replay → classify levels 0–2) and the class language.
//!
//! ```text
//! cargo run --release -p ets-fuzz -- run sgf --inputs 1000000 [--start I] [--seed S] [--jobs J] [--seconds T]
//! cargo run --release -p ets-fuzz -- one sgf FILE     # one input, e.g. a saved crash
//! ```
//! Inputs are seeds (the records in `tests/data/games/`, the class setting in `grammars/`) under
//! structure-aware mutations (`mutate.rs`), input `i` a pure function of the seed and `i`. Worker
//! processes run the inputs and announce each one before running it; the parent notes a worker
//! that dies (a panic, an abort, a stack overflow) or spends over two seconds of CPU time on one
//! input (a hang, confirmed by running the input alone in a new process), makes that input again,
//! saves it under `fuzz/artifacts/TARGET/`, and starts a new worker after it. Why not `cargo fuzz`: it needs nightly and an installed tool; this runs on
//! the toolchain the project builds with, in CI, and its findings replay as plain tests
//! (`tests/fuzz_regressions.rs` runs every file in `fuzz/regressions/TARGET/`).

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

mod mutate;
#[path = "targets.rs"]
mod targets;

/// An input that takes more CPU time than this is a hang (CPU time, not wall time: the machine
/// is shared, and a busy spell must not look like a hang).
const HANG: Duration = Duration::from_secs(2);

/// CPU time (user + system) of a process so far, from `/proc` (Linux); None elsewhere.
fn cpu_time(pid: &str) -> Option<Duration> {
    let s = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &s[s.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: u64 = f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?;
    Some(Duration::from_millis(ticks * 10))
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn files_below(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut v: Vec<PathBuf> = rd.flatten().map(|e| e.path()).collect();
    v.sort();
    for p in v {
        if p.is_dir() {
            files_below(&p, ext, out);
        } else if p.extension().is_some_and(|x| x == ext) {
            out.push(p);
        }
    }
}

/// The seeds of a target, in a fixed order.
fn seeds(target: &str) -> Vec<Vec<u8>> {
    let mut files = Vec::new();
    match target {
        "dsl" => {
            files_below(&repo().join("grammars"), "ets", &mut files);
            files_below(&repo().join("examples"), "ets", &mut files);
        }
        _ => files_below(&repo().join("tests/data/games"), "sgf", &mut files),
    }
    files_below(&repo().join("fuzz/regressions").join(target), "in", &mut files);
    files.iter().filter_map(|f| std::fs::read(f).ok()).collect()
}

struct Inputs {
    target: String,
    seed: u64,
    seeds: Vec<Vec<u8>>,
    words: Vec<Vec<u8>>,
}

impl Inputs {
    fn new(target: &str, seed: u64) -> Inputs {
        let seeds = seeds(target);
        let words = mutate::words_of(&seeds);
        Inputs {
            target: target.to_string(),
            seed,
            seeds,
            words,
        }
    }
    fn get(&self, i: u64) -> Vec<u8> {
        match self.target.as_str() {
            "dsl" => mutate::dsl_input(self.seed, i, &self.seeds, &self.words),
            // The pipeline classifies: its inputs start from small boards (mutations may still
            // make them anything).
            "pipeline" => mutate::sgf_input(self.seed, i, &self.seeds, !i.is_multiple_of(4)),
            _ => mutate::sgf_input(self.seed, i, &self.seeds, false),
        }
    }
}

fn arg<T: std::str::FromStr>(args: &[String], name: &str, default: T) -> T {
    args.iter()
        .position(|a| a == name)
        .and_then(|k| args.get(k + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Worker: runs inputs `from..to`, announcing each on stdout before it runs.
fn work(target: &str, seed: u64, from: u64, to: u64) {
    let inputs = Inputs::new(target, seed);
    let out = std::io::stdout();
    let mut out = out.lock();
    for i in from..to {
        let d = inputs.get(i);
        let _ = writeln!(out, "{i}");
        let _ = out.flush();
        targets::run(target, &d);
    }
    let _ = writeln!(out, "done");
}

enum Outcome {
    Done,
    Crash(u64, String),
    Hang(u64),
}

/// Runs a worker over `from..to`; returns how it ended and the inputs it finished.
fn supervise(target: &str, seed: u64, from: u64, to: u64, deadline: Option<Instant>) -> (Outcome, u64) {
    let exe = std::env::current_exe().expect("own path");
    let mut child = Command::new(exe)
        .args(["work", target, &seed.to_string(), &from.to_string(), &to.to_string()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start a worker");
    let stdout = child.stdout.take().expect("piped");
    let mut stderr = child.stderr.take().expect("piped");
    let (tx, rx) = mpsc::channel::<Option<String>>();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            match line {
                Ok(l) => {
                    if tx.send(Some(l)).is_err() {
                        return;
                    }
                }
                Err(_) => break,
            }
        }
        let _ = tx.send(None);
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = std::io::Read::read_to_string(&mut stderr, &mut s);
        s
    });
    let mut current: Option<u64> = None;
    let pid = child.id().to_string();
    let mut cpu_at_start = cpu_time(&pid).unwrap_or_default();
    let mut wall_at_start = Instant::now();
    loop {
        if let Some(d) = deadline
            && Instant::now() >= d
        {
            // time is up: the inputs announced before the current one are done
            let _ = child.kill();
            let _ = child.wait();
            return (Outcome::Done, current.map_or(0, |c| c - from));
        }
        let wait = deadline.map_or(HANG, |d| d.saturating_duration_since(Instant::now()).min(HANG));
        match rx.recv_timeout(wait.max(Duration::from_millis(1))) {
            Ok(Some(l)) if l == "done" => {
                let _ = child.wait();
                return (Outcome::Done, to - from);
            }
            Ok(Some(l)) => {
                current = l.parse().ok();
                cpu_at_start = cpu_time(&pid).unwrap_or_default();
                wall_at_start = Instant::now();
            }
            Err(_) if deadline.is_some_and(|d| Instant::now() >= d) => {}
            Err(_)
                if cpu_time(&pid).is_some_and(|c| c.saturating_sub(cpu_at_start) <= HANG)
                    && wall_at_start.elapsed() < Duration::from_secs(300) =>
            {
                // slow only because the machine is busy: wait on
            }
            Ok(None) => {
                let status = child.wait().expect("worker status");
                let err = err_reader.join().unwrap_or_default();
                let i = current.unwrap_or(from);
                let tail: String = err
                    .lines()
                    .rev()
                    .take(12)
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev()
                    .collect::<Vec<_>>()
                    .join("\n");
                return (Outcome::Crash(i, format!("{status}\n{tail}")), i - from);
            }
            Err(_) => {
                let _ = child.kill();
                let _ = child.wait();
                let i = current.unwrap_or(from);
                return (Outcome::Hang(i), i - from);
            }
        }
    }
}

/// The CPU seconds target `target` takes on the input in `file`, run alone in a new process.
fn confirm(target: &str, file: &Path) -> f64 {
    let exe = std::env::current_exe().expect("own path");
    let out = Command::new(exe)
        .args(["one", target, &file.display().to_string()])
        .output()
        .expect("run one input");
    let text = String::from_utf8_lossy(&out.stdout);
    text.split("cpu ")
        .nth(1)
        .and_then(|t| t.split_whitespace().next())
        .and_then(|t| t.parse().ok())
        .unwrap_or(f64::INFINITY)
}

fn save(target: &str, kind: &str, i: u64, data: &[u8]) -> PathBuf {
    let dir = repo().join("fuzz/artifacts").join(target);
    let _ = std::fs::create_dir_all(&dir);
    let p = dir.join(format!("{kind}-{i}.in"));
    let _ = std::fs::write(&p, data);
    p
}

/// Runs `inputs` inputs (or until `seconds` pass) on `jobs` workers; prints the figures.
fn run(target: &str, start_at: u64, inputs: u64, seed: u64, jobs: u64, seconds: u64) -> bool {
    let start = Instant::now();
    let inputs_of = Inputs::new(target, seed);
    let batch = 20_000u64;
    let deadline = (seconds > 0).then(|| start + Duration::from_secs(seconds));
    let next = std::sync::Mutex::new(start_at);
    let inputs = start_at + inputs;
    let findings = std::sync::Mutex::new(Vec::<String>::new());
    let ran = std::sync::atomic::AtomicU64::new(0);
    let slow = std::sync::Mutex::new(Vec::<(u64, f64)>::new());
    std::thread::scope(|sc| {
        for _ in 0..jobs.max(1) {
            sc.spawn(|| {
                loop {
                    if deadline.is_some_and(|d| Instant::now() >= d) {
                        return;
                    }
                    let (from, to) = {
                        let mut n = next.lock().unwrap();
                        if *n >= inputs {
                            return;
                        }
                        let f = *n;
                        *n = (f + batch).min(inputs);
                        (f, *n)
                    };
                    let mut at = from;
                    while at < to {
                        let (o, done) = supervise(target, seed, at, to, deadline);
                        ran.fetch_add(done, std::sync::atomic::Ordering::Relaxed);
                        match o {
                            Outcome::Done => break,
                            Outcome::Crash(i, why) => {
                                let d = inputs_of.get(i);
                                let p = save(target, "crash", i, &d);
                                findings
                                    .lock()
                                    .unwrap()
                                    .push(format!("crash at input {i} ({}): {why}", p.display()));
                                ran.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                                at = i + 1;
                            }
                            Outcome::Hang(i) => {
                                // Make sure: the CPU time of the input alone, in a process of its own.
                                let d = inputs_of.get(i);
                                let p = save(target, "slow", i, &d);
                                let secs = confirm(target, &p);
                                if secs > HANG.as_secs_f64() {
                                    let p2 = p.with_file_name(format!("hang-{i}.in"));
                                    let _ = std::fs::rename(&p, &p2);
                                    let p = p2;
                                    findings
                                        .lock()
                                        .unwrap()
                                        .push(format!("hang at input {i} ({secs:.1} s alone; {})", p.display()));
                                } else {
                                    let _ = std::fs::remove_file(&p);
                                    slow.lock().unwrap().push((i, secs));
                                }
                                ran.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                                at = i + 1;
                            }
                        }
                    }
                    let r = ran.load(std::sync::atomic::Ordering::Relaxed);
                    eprintln!(
                        "[{target}] {r} inputs, {:.0} s, {:.0}/s",
                        start.elapsed().as_secs_f64(),
                        r as f64 / start.elapsed().as_secs_f64()
                    );
                }
            });
        }
    });
    let r = ran.load(std::sync::atomic::Ordering::Relaxed);
    let f = findings.into_inner().unwrap();
    let slow = slow.into_inner().unwrap();
    println!(
        "ets-fuzz {target}: {r} inputs from input {start_at} in {:.0} s (seed {seed}, {jobs} worker(s)); {} crash(es) or hang(s) over {} s of CPU; {} input(s) slow only under load (under {} s of CPU alone)",
        start.elapsed().as_secs_f64(),
        f.len(),
        HANG.as_secs(),
        slow.len(),
        HANG.as_secs()
    );
    for x in &f {
        println!("  {x}");
    }
    f.is_empty()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let target = args.get(1).cloned().unwrap_or_default();
    match args.first().map(|s| s.as_str()) {
        Some("work") => {
            let n = |k: usize| args[k].parse::<u64>().expect("a number");
            work(&target, n(2), n(3), n(4));
        }
        Some("run") if targets::TARGETS.contains(&target.as_str()) => {
            let ok = run(
                &target,
                arg(&args, "--start", 0),
                arg(&args, "--inputs", 1_000_000),
                arg(&args, "--seed", 1),
                arg(&args, "--jobs", 1),
                arg(&args, "--seconds", 0),
            );
            std::process::exit(if ok { 0 } else { 1 });
        }
        Some("one") if targets::TARGETS.contains(&target.as_str()) => {
            let file = args.get(2).expect("a file");
            let d = std::fs::read(file).expect("readable");
            let t = Instant::now();
            let c0 = cpu_time("self").unwrap_or_default();
            targets::run(&target, &d);
            let cpu = cpu_time("self").unwrap_or_default().saturating_sub(c0);
            println!(
                "{file}: ok in {:.3} s, cpu {:.3} s",
                t.elapsed().as_secs_f64(),
                cpu.as_secs_f64()
            );
        }
        Some("input") if targets::TARGETS.contains(&target.as_str()) => {
            // writes input I of seed S to stdout (to look at it)
            let d = Inputs::new(&target, arg(&args, "--seed", 1)).get(arg(&args, "--index", 0));
            let _ = std::io::stdout().write_all(&d);
        }
        _ => {
            eprintln!(
                "usage: ets-fuzz run TARGET [--inputs N] [--start I] [--seed S] [--jobs J] [--seconds T]\n       ets-fuzz one TARGET FILE\n       ets-fuzz input TARGET --index I [--seed S]\ntargets: {}",
                targets::TARGETS.join(", ")
            );
            std::process::exit(2);
        }
    }
}
