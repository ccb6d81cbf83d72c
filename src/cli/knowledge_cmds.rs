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

/// What `ets learn` learns.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum System {
    /// Forme_K patterns and the move-prediction model.
    FormeK,
    /// The ACADEMY's libraries (each record's players are posting players; the options of
    /// `ets academy learn` at their defaults, `--games` honoured).
    Academy,
}

#[derive(Args)]
pub struct LearnArgs {
    /// Directories or SGF files (single records and collections), read recursively.
    #[arg(required = true)]
    pub dirs: Vec<PathBuf>,
    /// What to learn.
    #[arg(long, value_enum, default_value_t = System::FormeK)]
    pub system: System,
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
    #[command(flatten)]
    pub rank: RankArgs,
}

/// Training the move-prediction ranker (after both passes).
#[derive(Args, Clone)]
pub struct RankArgs {
    /// Do not train the ranker.
    #[arg(long)]
    pub no_rank: bool,
    /// Train the ranker on this many games of the list, spread evenly through it.
    #[arg(long, default_value_t = 3000)]
    pub rank_games: usize,
    /// Train on every n-th position of those games.
    #[arg(long, default_value_t = 1)]
    pub rank_every: usize,
    /// Latent dimension of the factorization machine (0: the plain Bradley–Terry model).
    #[arg(long, default_value_t = 8)]
    pub dim: usize,
    /// Passes over the training positions.
    #[arg(long, default_value_t = 3)]
    pub epochs: usize,
    /// AdaGrad step.
    #[arg(long, default_value_t = 0.05)]
    pub rate: f32,
    /// Prior weight of a parent pattern's estimate when smoothing P(i|p) along the tree.
    #[arg(long, default_value_t = 5.0)]
    pub alpha: f64,
    /// Patterns matched at least this often are features of their own.
    #[arg(long, default_value_t = 200)]
    pub min_match_id: u64,
    /// Retrain even if the store holds a ranker (a store whose counts are complete for these
    /// files skips both passes).
    #[arg(long)]
    pub retrain: bool,
    /// Feature families of the ranker: any of `patterns` (Forme_K), `base` (shape, tactics,
    /// distances), `classes` (the ETS classification of the position and the move), or `all`.
    #[arg(long, default_value = "all")]
    pub features: String,
    /// The attention of the classification the class features read: `focus` (the player's, one
    /// layer per position) or `full` (every vertex). Recorded with the model.
    #[arg(long, default_value = "focus", value_parser = class_attention)]
    pub class_attention: ets::knowledge::classes::ClassAttention,
    /// With `--retrain`: train on the games counted so far even if pass 2 has not counted every
    /// game (the statistics are then those of the counted games; a development shortcut).
    #[arg(long)]
    pub partial: bool,
}

fn class_attention(s: &str) -> Result<ets::knowledge::classes::ClassAttention, String> {
    ets::knowledge::classes::ClassAttention::parse(s)
}

/// Progress: a bar on a terminal; otherwise (a log) a line every 30 seconds.
pub struct Progress {
    pub pb: ProgressBar,
    pub unit: &'static str,
    what: &'static str,
    len: Option<u64>,
    done: u64,
    start: std::time::Instant,
    last: std::time::Instant,
}

impl Progress {
    pub fn new(len: Option<u64>, what: &'static str) -> Progress {
        let now = std::time::Instant::now();
        Progress {
            pb: bar(len, what),
            unit: "games",
            what,
            len,
            done: 0,
            start: now,
            last: now,
        }
    }
    pub fn inc(&mut self, n: u64) {
        self.pb.inc(n);
        self.done += n;
        if self.pb.is_hidden() && self.last.elapsed().as_secs() >= 30 {
            self.last = std::time::Instant::now();
            let s = self.start.elapsed().as_secs_f64();
            let of = self.len.map(|l| format!(" of {l}")).unwrap_or_default();
            eprintln!(
                "{}: {}{of} {u} in {s:.0}s ({:.1} {u}/s)",
                self.what.trim(),
                self.done,
                self.done as f64 / s,
                u = self.unit
            );
        }
    }
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
        Some(_) => format!("{what} {{bar:40}} {{pos}}/{{len}}, {{per_sec}} eta {{eta}}"),
        None => format!("{what} {{spinner}} {{pos}}, {{per_sec}}"),
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
    if a.system == System::Academy {
        return super::academy_cmd::learn_collections(
            &a.dirs,
            &a.store,
            a.games,
            Default::default(),
            Default::default(),
        );
    }
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
    if a.rank.retrain && complete_for(&mut store, &files, a.kmax, a.rank.partial)? {
        let (all, counted) = ps::game_counts(&mut store).map_err(|e| miette::miette!("{e}"))?;
        println!(
            "{}: {counted} of the {all} games of these files counted (Kmax {}): both passes skipped",
            a.store, a.kmax
        );
        train_ranker(&mut store, &files, &a.rank)?;
        return Ok(ExitCode::SUCCESS);
    }
    let mut pb = Progress::new(None, "pass 1 (create)");
    let mut broken = Vec::new();
    let r = learn(&mut store, &files, &opts, &mut |e| match e {
        Event::Created(n) => pb.inc(n),
        Event::Counting(n) => {
            pb.pb.finish_and_clear();
            pb = Progress::new(Some(n), "pass 2 (count) ");
        }
        Event::Counted(n) => pb.inc(n),
        Event::Committed => {}
        Event::Broken(b) => {
            pb.pb.suspend(|| eprintln!("skipped: {b}"));
            broken.push(b);
        }
    })
    .map_err(|e| miette::miette!("{}: {e}", a.store))?;
    pb.pb.finish_and_clear();
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
    if r.complete && !a.rank.no_rank {
        train_ranker(&mut store, &files, &a.rank)?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Whether the store's counts are complete (or, `partial`, begun), at `kmax`, for the games of
/// `files` (every file of the store's list is among them).
fn complete_for(store: &mut Store, files: &[PathBuf], kmax: usize, partial: bool) -> miette::Result<bool> {
    let err = |e: ets::store::StoreError| miette::miette!("{e}");
    let Some(s) = ps::settings(store).map_err(err)? else {
        return Ok(false);
    };
    let phase = ps::phase(store).map_err(err)?;
    if s.kmax != kmax || !(phase == Some(ps::Phase::Counted) || partial && phase.is_some()) {
        return Ok(false);
    }
    let stored: std::collections::BTreeSet<String> = store
        .rows("SELECT DISTINCT file FROM fk_game", &[])
        .map_err(err)?
        .iter()
        .filter_map(|r| r[0].as_str().map(str::to_string))
        .collect();
    let given: std::collections::BTreeSet<String> = files.iter().map(|f| f.display().to_string()).collect();
    // Files that gave no game at learning (broken records, games met in another file) are not in
    // the store's list; every file of the list must be given.
    if !stored.is_subset(&given) {
        return Ok(false);
    }
    let extra = given.len() - stored.len();
    if extra > 0 {
        println!("{extra} of the files gave no game to this store when it was learned (broken or duplicates)");
    }
    Ok(true)
}

/// Trains the ranker on a store whose counts are complete, and saves it.
pub fn train_ranker(store: &mut Store, files: &[PathBuf], a: &RankArgs) -> miette::Result<()> {
    use ets::knowledge::predict::{TrainEvent, train};
    use ets::knowledge::rank_store::{self, ModelSettings};
    let err = |e: ets::store::StoreError| miette::miette!("{e}");
    let families =
        ets::knowledge::features::Families::parse(&a.features).map_err(|e| miette::miette!("--features: {e}"))?;
    if !a.retrain && rank_store::has_ranker(store).map_err(err)? {
        println!("ranker: already trained (--retrain to train again)");
        return Ok(());
    }
    let settings = ps::settings(store)
        .map_err(err)?
        .ok_or_else(|| miette::miette!("no patterns"))?;
    let (tree, stats) = ps::load(store).map_err(err)?;
    let keys: Vec<u64> = store
        .rows("SELECT key FROM fk_game WHERE counted = 1 ORDER BY key", &[])
        .map_err(err)?
        .iter()
        .map(|r| r[0].as_i64().unwrap_or(0) as u64)
        .collect();
    let n = a.rank_games.min(keys.len()).max(1);
    let chosen: rustc_hash::FxHashSet<u64> = (0..n).map(|i| keys[i * keys.len() / n]).collect();
    let pm = ets::knowledge::features::PatternModel {
        tree: &tree,
        stats: &stats,
        kmax: settings.kmax,
        alpha: a.alpha,
        min_match_id: a.min_match_id,
    };
    let t = ets::knowledge::ranker::Train {
        dim: a.dim,
        rate: a.rate,
        epochs: a.epochs,
        ..Default::default()
    };
    let start = std::time::Instant::now();
    let mut pb = Progress::new(None, "ranker");
    pb.unit = "positions";
    let (mut pos, mut lp) = (0u64, 0.0f64);
    let ranker = train(
        &pm,
        files,
        &chosen,
        &t,
        a.rank_every,
        families,
        a.class_attention,
        &mut |e| match e {
            TrainEvent::Epoch(k) => {
                if k > 1 {
                    pb.pb.suspend(|| {
                        eprintln!(
                            "ranker: epoch {} done, {} positions, mean log-probability {:.3}",
                            k - 1,
                            pos,
                            lp / pos.max(1) as f64
                        )
                    });
                }
                pos = 0;
                lp = 0.0;
            }
            TrainEvent::Positions(n, l) => {
                pos += n;
                lp += l;
                pb.inc(n);
            }
        },
    );
    pb.pb.finish_and_clear();
    println!(
        "ranker: {} epochs over {} positions of {} games in {:.0}s; last epoch's mean log-probability {:.3}; {} features",
        a.epochs,
        pos,
        chosen.len(),
        start.elapsed().as_secs_f64(),
        lp / pos.max(1) as f64,
        ranker.w.len()
    );
    rank_store::save(
        store,
        &ranker,
        &ModelSettings {
            alpha: a.alpha,
            min_match_id: a.min_match_id,
            attention: a.class_attention,
        },
        &[
            ("epochs", a.epochs.to_string()),
            ("rate", a.rate.to_string()),
            ("games", chosen.len().to_string()),
            ("every", a.rank_every.to_string()),
            ("positions", pos.to_string()),
            ("train_logp", format!("{:.4}", lp / pos.max(1) as f64)),
        ],
    )
    .map_err(err)?;
    Ok(())
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
