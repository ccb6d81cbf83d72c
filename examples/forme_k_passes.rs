//! The cost of Forme_K's two passes (Bouzy & Chaslot 2005, §3.2 and §4.2) on real games, in CPU
//! time of one thread, without the store: pass 1 (creation at every played move, k = 1..Kmax),
//! the pruning of patterns created fewer than `MIN` times, then pass 2 (counting at every legal
//! point of every position) by the cached walk `ets learn` uses, by the same through the tree's hash
//! map (the route before the frozen tree: the peer) and by walking every point afresh, each reported
//! as ns per tested point and games/s per core, the cached routes twice (the machine's noise).
//!
//! ```sh
//! cargo run --release --example forme_k_passes -- ../shared/data/games/tom-9d 200 15 2
//! ```
//! (arguments: a directory or SGF file, how many games, Kmax, MIN). A fifth argument, a store that
//! `ets learn` wrote, counts with that store's pattern tree instead of the one pass 1 made from
//! these games (the tree of a whole collection, millions of patterns, is what learning meets), and
//! times one commit of their counts into it (it changes that store: give it a copy):
//! ```sh
//! cargo run --release --example forme_k_passes -- ../shared/data/games/tom-9d 200 15 2 fk15.db
//! ```

use std::process::ExitCode;
use std::time::Instant;

use ets::knowledge::{corpus, forme_k::Tree, learn::*};

/// CPU seconds of this thread.
fn cpu() -> f64 {
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: clock_gettime writes the timespec it is given.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let num = |i: usize, default: u64| args.get(i).and_then(|s| s.parse().ok()).unwrap_or(default);
    let Some(dir) = args.first() else {
        eprintln!("usage: forme_k_passes DIR|FILE [GAMES=200] [KMAX=15] [MIN=2]");
        return ExitCode::from(2);
    };
    let (n, kmax, min) = (num(1, 200) as usize, num(2, 15) as usize, num(3, 2));
    let mut games = Vec::new();
    for f in corpus::sgf_files(&[dir.into()]) {
        games.extend(corpus::read_file(&f).0);
        if games.len() >= n {
            break;
        }
    }
    games.truncate(n);
    if games.is_empty() {
        eprintln!("no game in {dir}");
        return ExitCode::from(1);
    }
    let (c0, t) = (cpu(), Instant::now());
    let mut tree = Tree::new();
    let mut created = vec![0u64; 1];
    for g in &games {
        for f in create_game(&g.replay, kmax) {
            let ids = tree.create(&f);
            created.resize(tree.len(), 0);
            for id in ids {
                created[id as usize] += 1;
            }
        }
    }
    let c1 = cpu() - c0;
    println!(
        "pass 1: {} games, {} patterns, {:.2} CPU-s ({:.0} games/s per core; wall {:.2}s)",
        games.len(),
        tree.len() - 1,
        c1,
        games.len() as f64 / c1,
        t.elapsed().as_secs_f64()
    );
    tree.retain(|id| created[id as usize] >= min);
    println!("created at least {min} times: {} patterns", tree.len() - 1);
    if let Some(path) = args.get(4) {
        let t = Instant::now();
        let loaded = ets::store::Store::open(path).and_then(|mut s| ets::knowledge::pattern_store::load(&mut s));
        match loaded {
            Ok((t2, _)) => tree = t2,
            Err(e) => {
                eprintln!("{path}: {e}");
                return ExitCode::from(1);
            }
        }
        println!(
            "counting with the tree of {path}: {} patterns (loaded in {:.1}s)",
            tree.len() - 1,
            t.elapsed().as_secs_f64()
        );
    }
    // Build the frozen tree outside the timings (ets learn builds it once per run).
    let tf = Instant::now();
    tree.frozen();
    println!("frozen tree built in {:.2}s", tf.elapsed().as_secs_f64());
    for (label, route) in [
        ("cached", 0),
        ("cached, hashed: the route before", 2),
        ("afresh", 1),
        ("cached", 0),
        ("cached, hashed: the route before", 2),
    ] {
        let c0 = cpu();
        let mut e = vec![0; tree.len()];
        let mut p = vec![0; tree.len()];
        let mut tests = 0;
        for g in &games {
            let c = match route {
                0 => count_game(&tree, &g.replay, kmax, &mut e, &mut p),
                1 => count_game_fresh(&tree, &g.replay, kmax, &mut e, &mut p),
                _ => count_game_by(Counter::hashed(), &tree, &g.replay, kmax, &mut e, &mut p),
            };
            tests += c.tests;
        }
        let dt = cpu() - c0;
        println!(
            "pass 2 ({label}): {tests} tested points, {dt:.2} CPU-s = {:.0} ns per point, {:.1} games/s per core",
            dt * 1e9 / tests as f64,
            games.len() as f64 / dt
        );
    }
    // The store's side of pass 2: one commit of the counts of these games (into the store given,
    // which it changes: give a copy).
    if let Some(path) = args.get(4) {
        let mut e = vec![0u32; tree.len()];
        let mut p = vec![0u32; tree.len()];
        for g in &games {
            count_game(&tree, &g.replay, kmax, &mut e, &mut p);
        }
        let mut ends: Vec<u64> = e.iter().map(|&x| x as u64).collect();
        let mut played: Vec<u64> = p.iter().map(|&x| x as u64).collect();
        tree.accumulate(&mut ends);
        tree.accumulate(&mut played);
        let deltas: Vec<(u32, u64, u64)> = (0..tree.len())
            .filter(|&k| ends[k] > 0)
            .map(|k| (k as u32, played[k], ends[k]))
            .collect();
        let t = Instant::now();
        let res = ets::store::Store::open(path)
            .and_then(|mut s| ets::knowledge::pattern_store::add_counts(&mut s, &deltas, &[]));
        if let Err(e) = res {
            eprintln!("{path}: {e}");
            return ExitCode::from(1);
        }
        println!(
            "one commit of the counts of {} games: {} patterns updated in {:.2}s wall",
            games.len(),
            deltas.len(),
            t.elapsed().as_secs_f64()
        );
    }
    ExitCode::SUCCESS
}
