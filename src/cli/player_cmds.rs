//! `ets gtp` (a GTP engine on standard input/output) and `ets arena` (matches between GTP
//! engines), over `ets::player`.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use miette::{IntoDiagnostic, miette};

use ets::player::arena::{self, ArenaConfig, EngineSpec, Store};
use ets::player::gtp::Gtp;
use ets::player::{Player, PlayerConfig};

/// `ets gtp`.
#[derive(Args, Debug)]
pub struct GtpArgs {
    /// A settings file (TOML; `--print-config` shows every key).
    #[arg(long)]
    config: Option<PathBuf>,
    /// Playouts per move (when no time limit applies).
    #[arg(long)]
    playouts: Option<usize>,
    /// Seconds per move at most.
    #[arg(long)]
    time: Option<f64>,
    /// Search threads.
    #[arg(long)]
    threads: Option<usize>,
    /// Playout policy: uniform, capture or patterns (the default).
    #[arg(long)]
    policy: Option<String>,
    /// Seed of the search.
    #[arg(long)]
    seed: Option<u64>,
    /// The engine's name.
    #[arg(long)]
    name: Option<String>,
    /// The knowledge store (SQLite).
    #[arg(long)]
    store: Option<PathBuf>,
    /// Turn the class-generated candidates off (an ablation).
    #[arg(long)]
    no_classes: bool,
    /// Turn components on: classes, ranker, forme_k, forme_k_book, academy, gomi, learn
    /// (comma-separated; `knowledge` = ranker, forme_k, forme_k_book, academy, gomi). The knowledge
    /// components need `--store`.
    #[arg(long, value_delimiter = ',', value_name = "COMPONENT,…")]
    with: Vec<String>,
    /// Turn components off (same names; applied after `--with`).
    #[arg(long, value_delimiter = ',', value_name = "COMPONENT,…")]
    without: Vec<String>,
    /// Any setting, as KEY=VALUE with a TOML value (e.g. `components.class_prior=40`); repeatable.
    #[arg(long = "set", value_name = "KEY=VALUE")]
    set: Vec<String>,
    /// Print the effective settings (TOML) and exit.
    #[arg(long)]
    print_config: bool,
}

/// Applies `key.path=value` to a TOML table.
fn set_key(table: &mut toml::Table, key: &str, value: &str) -> Result<(), String> {
    let parsed: toml::Value = match format!("v = {value}").parse::<toml::Table>() {
        Ok(mut t) => t.remove("v").expect("the key just written"),
        Err(_) => toml::Value::String(value.to_string()),
    };
    let parts: Vec<&str> = key.split('.').collect();
    let mut t = table;
    for p in &parts[..parts.len() - 1] {
        t = t
            .entry(p.to_string())
            .or_insert_with(|| toml::Value::Table(Default::default()))
            .as_table_mut()
            .ok_or_else(|| format!("`{p}` in `{key}` is not a section"))?;
    }
    t.insert(parts[parts.len() - 1].to_string(), parsed);
    Ok(())
}

/// The player's settings from the file and the flags (flags win).
pub fn player_config(a: &GtpArgs) -> Result<PlayerConfig, String> {
    let mut cfg = match &a.config {
        Some(p) => {
            let text = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
            PlayerConfig::from_toml(&text).map_err(|e| format!("{}: {e}", p.display()))?
        }
        None => PlayerConfig::default(),
    };
    if let Some(n) = a.playouts {
        cfg.search.playouts = n;
    }
    if let Some(t) = a.time {
        cfg.time_per_move = t;
    }
    if let Some(t) = a.threads {
        cfg.search.threads = t;
    }
    if let Some(s) = a.seed {
        cfg.search.seed = s;
    }
    if let Some(n) = &a.name {
        cfg.name = n.clone();
    }
    if let Some(s) = &a.store {
        cfg.store = Some(s.clone());
    }
    if a.no_classes {
        cfg.components.classes = false;
    }
    for (names, on) in [(&a.with, true), (&a.without, false)] {
        for n in names {
            let c = &mut cfg.components;
            match n.trim() {
                "classes" => c.classes = on,
                "ranker" => c.ranker = on,
                "forme_k" => c.forme_k = on,
                "forme_k_book" => c.forme_k_book = on,
                "academy" => c.academy = on,
                "gomi" => c.gomi = on,
                "learn" => c.learn = on,
                "knowledge" => {
                    c.ranker = on;
                    c.forme_k = on;
                    c.forme_k_book = on;
                    c.academy = on;
                    c.gomi = on;
                }
                other => {
                    return Err(format!(
                        "`{other}` is not a component (classes, ranker, forme_k, forme_k_book, academy, gomi, learn, knowledge)"
                    ));
                }
            }
        }
    }
    let mut table: toml::Table = toml::from_str(&cfg.to_toml()).map_err(|e| e.to_string())?;
    if let Some(p) = &a.policy {
        set_key(&mut table, "search.policy", &format!("\"{p}\""))?;
    }
    for kv in &a.set {
        let (k, v) = kv
            .split_once('=')
            .ok_or_else(|| format!("`{kv}`: expected KEY=VALUE"))?;
        set_key(&mut table, k.trim(), v.trim())?;
    }
    toml::to_string(&table)
        .map_err(|e| e.to_string())
        .and_then(|t| PlayerConfig::from_toml(&t))
}

/// Runs `ets gtp`.
pub fn gtp(a: GtpArgs) -> miette::Result<ExitCode> {
    let cfg = player_config(&a).map_err(|e| miette!("settings: {e}"))?;
    if a.print_config {
        print!("{}", cfg.to_toml());
        return Ok(ExitCode::SUCCESS);
    }
    let player = Player::new(cfg).map_err(|e| miette!("{e}"))?;
    let mut engine = Gtp::new(player);
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    engine.serve(stdin.lock(), stdout.lock()).into_diagnostic()?;
    Ok(ExitCode::SUCCESS)
}

/// `ets arena`.
#[derive(Args, Debug)]
pub struct ArenaArgs {
    /// An engine: `NAME=COMMAND` or a command (`ets gtp …`, `gnugo --mode gtp --level 10`); two or
    /// more; every pair plays.
    #[arg(long = "engine", value_name = "[NAME=]COMMAND")]
    engines: Vec<String>,
    /// Games per pair of engines (colours alternate).
    #[arg(long, default_value_t = 2)]
    games: usize,
    /// Board size.
    #[arg(long, default_value_t = 9)]
    size: usize,
    /// Komi.
    #[arg(long, default_value_t = 7.0)]
    komi: f32,
    /// Seconds per move for every engine (sent as `time_settings 0 T 1`).
    #[arg(long)]
    time: Option<f64>,
    /// Games played at once.
    #[arg(long, default_value_t = 1)]
    parallel: usize,
    /// Moves before a game is stopped and scored by area (default: 3 × points).
    #[arg(long)]
    max_moves: Option<usize>,
    /// The results store (SQLite); an arena of the same name resumes.
    #[arg(long, default_value = "arena.sqlite")]
    store: PathBuf,
    /// The arena's name in the store (default: from the engines and settings).
    #[arg(long)]
    name: Option<String>,
    /// Where the SGF files go (default: `arena-<name>/` beside the store).
    #[arg(long)]
    out: Option<PathBuf>,
    /// The engine (name) whose `final_status_list dead` scores disagreements.
    #[arg(long)]
    scorer: Option<String>,
    /// The engine (name) rated 0 in the table.
    #[arg(long)]
    anchor: Option<String>,
    /// Seconds an engine may take for one answer.
    #[arg(long)]
    timeout: Option<f64>,
    /// Draw the learning curve of this engine (name; default the first) as SVG here.
    #[arg(long)]
    curve: Option<PathBuf>,
    /// Games per block of the learning curve.
    #[arg(long, default_value_t = 10)]
    block: usize,
    /// Only print the summary of what the store holds for this arena (all arenas with `--all`).
    #[arg(long)]
    summary: bool,
    /// With `--summary`: every arena in the store.
    #[arg(long)]
    all: bool,
}

fn default_name(engines: &[EngineSpec], a: &ArenaArgs) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let key = format!(
        "{:?}|{}|{}|{:?}|{:?}",
        engines.iter().map(|e| &e.command).collect::<Vec<_>>(),
        a.size,
        a.komi,
        a.time,
        a.max_moves
    );
    for b in key.bytes() {
        h = (h ^ b as u64).wrapping_mul(0x0100_0000_01b3);
    }
    let names: Vec<&str> = engines.iter().map(|e| e.name.as_str()).collect();
    format!("{}-{}x{}-{:08x}", names.join("-vs-"), a.size, a.size, h as u32)
}

/// Runs `ets arena`.
pub fn arena(a: ArenaArgs) -> miette::Result<ExitCode> {
    // An engine that dies must lose its game, not end the arena: writes to its closed pipe fail
    // with an error instead of the default SIGPIPE (which `main` restores for `| head`).
    // SAFETY: setting a signal disposition to SIG_IGN has no preconditions.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_IGN);
    }
    let engines: Vec<EngineSpec> = a.engines.iter().map(|s| EngineSpec::parse(s)).collect();
    let name = a.name.clone().unwrap_or_else(|| default_name(&engines, &a));
    if a.summary {
        let mut store = Store::open(&a.store).map_err(|e| miette!("{e}"))?;
        let rows = store
            .rows((!a.all).then_some(name.as_str()))
            .map_err(|e| miette!("{e}"))?;
        println!("{}: {} game(s)", if a.all { "all arenas" } else { &name }, rows.len());
        print!("{}", arena::summary(&rows, a.anchor.as_deref()));
        return Ok(ExitCode::SUCCESS);
    }
    if engines.len() < 2 {
        return Err(miette!("an arena needs two or more --engine"));
    }
    let scorer = match &a.scorer {
        Some(n) => Some(
            engines
                .iter()
                .position(|e| &e.name == n)
                .ok_or_else(|| miette!("--scorer {n}: no such engine"))?,
        ),
        None => None,
    };
    let out = a.out.clone().unwrap_or_else(|| {
        a.store
            .parent()
            .unwrap_or(std::path::Path::new("."))
            .join(format!("arena-{name}"))
    });
    let cfg = ArenaConfig {
        engines: engines.clone(),
        games: a.games,
        size: a.size,
        komi: a.komi,
        time_per_move: a.time,
        parallel: a.parallel,
        max_moves: a.max_moves.unwrap_or(3 * a.size * a.size),
        out,
        store: a.store.clone(),
        name: name.clone(),
        scorer,
        timeout: a.timeout,
    };
    let total = arena::schedule(&cfg).len();
    let tty = std::io::stderr().is_terminal();
    let pb = if tty {
        let pb = ProgressBar::new(total as u64);
        pb.set_style(ProgressStyle::with_template("{bar:30} {pos}/{len} eta {eta} {msg}").expect("template"));
        pb
    } else {
        ProgressBar::hidden()
    };
    eprintln!("arena {name}: {total} game(s), SGF in {}", cfg.out.display());
    let store_path = a.store.clone();
    let arena_name = name.clone();
    let mut score: std::collections::BTreeMap<String, f64> = Default::default();
    let results = arena::run(&cfg, |r, stored| {
        pb.set_position(stored.len() as u64);
        let (bn, wn) = (&engines[r.black].name, &engines[r.white].name);
        match r.winner {
            Some(ets::go::board::Color::Black) => *score.entry(bn.clone()).or_default() += 1.0,
            Some(ets::go::board::Color::White) => *score.entry(wn.clone()).or_default() += 1.0,
            None => {
                *score.entry(bn.clone()).or_default() += 0.5;
                *score.entry(wn.clone()).or_default() += 0.5;
            }
        }
        let running: Vec<String> = engines
            .iter()
            .map(|e| format!("{} {}", e.name, score.get(&e.name).copied().unwrap_or(0.0)))
            .collect();
        let msg = running.join(" – ");
        pb.set_message(msg.clone());
        let line = format!(
            "game {:>4} ({}/{}): B {} W {} {} ({}, {} moves, {:.0}s) | this run: {msg}",
            r.game,
            stored.len(),
            total,
            bn,
            wn,
            r.result,
            r.ending.as_str(),
            r.moves,
            r.seconds
        );
        let learned: Vec<String> = r.learned.iter().map(|l| format!("\n    learned: {l}")).collect();
        let line = format!("{line}{}", learned.concat());
        if tty {
            pb.println(line);
        } else {
            eprintln!("{line}");
        }
    })
    .map_err(|e| miette!("{e}"))?;
    pb.finish_and_clear();
    let mut store = Store::open(&store_path).map_err(|e| miette!("{e}"))?;
    let rows = store.rows(Some(&arena_name)).map_err(|e| miette!("{e}"))?;
    println!(
        "arena {arena_name}: {} game(s) played now, {} in the store",
        results.len(),
        rows.len()
    );
    print!("{}", arena::summary(&rows, a.anchor.as_deref()));
    let all = store.rows(None).map_err(|e| miette!("{e}"))?;
    if all.len() > rows.len() {
        println!("every engine in the store ({} games):", all.len());
        for r in arena::ratings(&all, a.anchor.as_deref()) {
            println!(
                "  {:<28} {:>7.0} ± {:<5.0} games {}",
                r.name, r.rating.elo, r.rating.ci95, r.rating.games
            );
        }
    }
    let who = engines[0].name.clone();
    let curve = arena::learning_curve(&rows, &who, a.block);
    if !curve.is_empty() {
        println!("learning curve of {who} (win rate per {} games):", a.block);
        for (g, p, lo, hi) in &curve {
            println!(
                "  up to game {g:>4}: {:>5.1}%  [{:.1}%, {:.1}%]",
                100.0 * p,
                100.0 * lo,
                100.0 * hi
            );
        }
    }
    if let Some(path) = &a.curve {
        std::fs::write(
            path,
            arena::curve_svg(&curve, &format!("{who}: win rate per {} games", a.block)),
        )
        .map_err(|e| miette!("{}: {e}", path.display()))?;
    }
    Ok(ExitCode::SUCCESS)
}
