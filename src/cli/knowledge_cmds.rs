//! `ets learn`, `ets store`: learning Forme_K patterns (and the move-prediction model) from game
//! collections into a store, and looking after stores.

use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use ets::knowledge::corpus::sgf_files;
use ets::knowledge::forme_k::Prune;
use ets::knowledge::learn::{Event, Options, learn};
use ets::knowledge::pattern_store as ps;
use ets::store::Store;

/// A shard `i/n`.
#[derive(Clone, Copy, Debug)]
pub struct Shard(pub u64, pub u64);

impl std::str::FromStr for Shard {
    type Err = String;
    fn from_str(s: &str) -> Result<Shard, String> {
        let (a, b) = s.split_once('/').ok_or("a shard is written i/n, e.g. 1/2")?;
        let (i, n): (u64, u64) = (
            a.trim().parse().map_err(|_| "i in i/n is a number")?,
            b.trim().parse().map_err(|_| "n in i/n is a number")?,
        );
        if n == 0 || i == 0 || i > n {
            return Err(format!("shard {i}/{n}: need 1 ≤ i ≤ n"));
        }
        Ok(Shard(i, n))
    }
}

#[derive(Args)]
pub struct LearnArgs {
    /// Directories or SGF files (single records and collections), read recursively.
    #[arg(required = true)]
    pub dirs: Vec<PathBuf>,
    /// The store (an SQLite file, created if absent).
    #[arg(long)]
    pub store: String,
    /// Largest number of important facts (stones and edges) of a pattern (Kmax).
    #[arg(long, default_value_t = 15)]
    pub kmax: usize,
    /// Learn from the first N games only.
    #[arg(long)]
    pub games: Option<usize>,
    /// Drop patterns created fewer than this many times before counting (1 keeps them all).
    #[arg(long, default_value_t = 2)]
    pub min_played: u64,
    /// Keep patterns with P(i|p) above this (the seed's 0.01); recorded, applied when reading.
    #[arg(long, default_value_t = 0.01)]
    pub prune_p: f64,
    /// Also keep only patterns with P(i|p) ≥ T·s(i|p), s = √n_played / n_match (the seed's confidence rule).
    #[arg(long)]
    pub confidence: Option<f64>,
    /// Count only shard i of n (the games whose content key is i−1 modulo n); merge the shards'
    /// stores with `ets store merge`.
    #[arg(long, default_value = "1/1")]
    pub shard: Shard,
    /// Commit counts to the store at least this often (seconds).
    #[arg(long, default_value_t = 30.0)]
    pub commit_secs: f64,
    /// Read files in batches of this many bytes (tests).
    #[arg(long, default_value_t = 4 << 20, hide = true)]
    pub batch_bytes: u64,
    /// Worker threads (default: every core).
    #[arg(long)]
    pub threads: Option<usize>,
}

fn bar(len: Option<u64>, what: &str) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let pb = match len {
        Some(n) => ProgressBar::new(n),
        None => ProgressBar::new_spinner(),
    };
    let t = match len {
        Some(_) => format!("{what} {{bar:40}} {{pos}}/{{len}} games, {{per_sec}} eta {{eta}}"),
        None => format!("{what} {{spinner}} {{pos}} games, {{per_sec}}"),
    };
    pb.set_style(ProgressStyle::with_template(&t).expect("template"));
    pb
}

pub fn set_threads(n: Option<usize>) {
    if let Some(n) = n {
        let _ = rayon::ThreadPoolBuilder::new().num_threads(n.max(1)).build_global();
    }
}

pub fn learn_cmd(a: LearnArgs) -> miette::Result<ExitCode> {
    set_threads(a.threads);
    let files = sgf_files(&a.dirs);
    if files.is_empty() {
        return Err(miette::miette!("no .sgf file in {:?}", a.dirs));
    }
    if a.kmax == 0 || a.kmax > 64 {
        return Err(miette::miette!("--kmax {} is out of range (1 to 64)", a.kmax));
    }
    let mut store = Store::open(&a.store).map_err(|e| miette::miette!("{e}"))?;
    let opts = Options {
        kmax: a.kmax,
        min_played: a.min_played.max(1),
        prune: Prune {
            min_p: a.prune_p,
            confidence: a.confidence,
            min_played: 1,
        },
        games: a.games,
        shard: (a.shard.0, a.shard.1),
        commit_secs: a.commit_secs,
        batch_bytes: a.batch_bytes.max(1),
    };
    let mut pb = bar(None, "pass 1 (create)");
    let mut broken = Vec::new();
    let r = learn(&mut store, &files, &opts, &mut |e| match e {
        Event::Created(n) => pb.inc(n),
        Event::Counting(n) => {
            pb.finish_and_clear();
            pb = bar(Some(n), "pass 2 (count) ");
        }
        Event::Counted(n) => pb.inc(n),
        Event::Committed => {}
        Event::Broken(b) => {
            pb.suspend(|| eprintln!("skipped: {b}"));
            broken.push(b);
        }
    })
    .map_err(|e| miette::miette!("{}: {e}", a.store))?;
    pb.finish_and_clear();
    let rate = |n: u64, s: f64| if s > 0.0 { n as f64 / s } else { 0.0 };
    println!(
        "pass 1: {} games ({} duplicates, {} broken records skipped) in {:.1}s ({:.0} games/s): {} patterns created, {} kept (played ≥ {})",
        r.games,
        r.duplicates,
        r.broken,
        r.secs.0,
        rate(r.games, r.secs.0),
        r.created,
        r.patterns,
        opts.min_played
    );
    println!(
        "pass 2: {} games counted now ({} before), {} positions, {} tested points in {:.1}s ({:.0} games/s)",
        r.counted,
        r.counted_before,
        r.positions,
        r.tests,
        r.secs.1,
        rate(r.counted, r.secs.1)
    );
    println!(
        "both passes: {:.0} games/s; store {}: {}",
        rate(r.counted.max(r.games), r.secs.0 + r.secs.1),
        a.store,
        if r.complete {
            "every game counted".to_string()
        } else {
            let (all, c) = ps::game_counts(&mut store).map_err(|e| miette::miette!("{e}"))?;
            format!("{c} of {all} games counted (other shards: count them and `ets store merge`)")
        }
    );
    Ok(ExitCode::SUCCESS)
}

#[derive(Subcommand)]
pub enum StoreCmd {
    /// What a store holds: components and their migrations, Forme_K settings and counts.
    Info {
        /// The store.
        store: String,
    },
    /// Merge stores counted over disjoint shards of one list of games (`ets learn --shard i/n`)
    /// into a new store: the counts of one run over all of them.
    Merge {
        /// The shards' stores.
        #[arg(required = true)]
        parts: Vec<String>,
        /// The new store.
        #[arg(long)]
        into: String,
    },
}

#[derive(Args)]
pub struct StoreArgs {
    #[command(subcommand)]
    pub cmd: StoreCmd,
}

pub fn store_cmd(a: StoreArgs) -> miette::Result<ExitCode> {
    match a.cmd {
        StoreCmd::Info { store } => {
            if !store.contains("://") && !std::path::Path::new(store.trim_start_matches("sqlite:")).exists() {
                return Err(miette::miette!("{store}: no such store"));
            }
            let mut s = Store::open(&store).map_err(|e| miette::miette!("{e}"))?;
            for (c, v, d) in s.migrations().map_err(|e| miette::miette!("{e}"))? {
                println!("{c} v{v}: {d}");
            }
            if s.has_table("fk_setting").map_err(|e| miette::miette!("{e}"))? {
                let rows = s
                    .rows("SELECT name, value FROM fk_setting ORDER BY name", &[])
                    .map_err(|e| miette::miette!("{e}"))?;
                for r in rows {
                    println!("  {} = {}", r[0].as_str().unwrap_or(""), r[1].as_str().unwrap_or(""));
                }
                let (g, c) = ps::game_counts(&mut s).map_err(|e| miette::miette!("{e}"))?;
                let n = s
                    .value("SELECT COUNT(*) FROM fk_pattern WHERE id > 0", &[])
                    .map_err(|e| miette::miette!("{e}"))?
                    .and_then(|v| v.as_i64())
                    .unwrap_or(0);
                let kept = s
                    .value("SELECT COUNT(*) FROM fk_kept", &[])
                    .map_err(|e| miette::miette!("{e}"))?
                    .and_then(|v| v.as_i64())
                    .unwrap_or(0);
                println!("  games: {g} ({c} counted); patterns: {n} ({kept} kept by the pruning rules)");
            }
            Ok(ExitCode::SUCCESS)
        }
        StoreCmd::Merge { parts, into } => {
            if std::path::Path::new(into.trim_start_matches("sqlite:")).exists() {
                return Err(miette::miette!("{into} exists; merge into a new store"));
            }
            let mut stores = Vec::new();
            for p in &parts {
                if !std::path::Path::new(p.trim_start_matches("sqlite:")).exists() {
                    return Err(miette::miette!("{p}: no such store"));
                }
                stores.push(Store::open(p).map_err(|e| miette::miette!("{e}"))?);
            }
            let mut out = Store::open(&into).map_err(|e| miette::miette!("{e}"))?;
            let r = ps::merge(&mut out, &mut stores);
            drop(out);
            let r = r.map_err(|e| {
                let path = into.trim_start_matches("sqlite:");
                for suffix in ["", "-wal", "-shm"] {
                    let _ = std::fs::remove_file(format!("{path}{suffix}"));
                }
                miette::miette!("{e}")
            })?;
            println!(
                "merged {} stores into {into}: {} games, {} counted{}",
                r.stores,
                r.games,
                r.counted,
                if r.counted == r.games { "" } else { " (shards missing)" }
            );
            Ok(ExitCode::SUCCESS)
        }
    }
}
