//! The pattern store: learning sharded and merged gives the counts of one run; a killed run
//! leaves the store consistent and resumes to the same counts; the 16 equivalent forms of a
//! pattern share its statistics.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use ets::go::board::{Board, Cell, Point};
use ets::knowledge::corpus::{read_file, sgf_files};
use ets::knowledge::forme_k::{Grid, Walk};
use ets::knowledge::learn::{Options, learn};
use ets::knowledge::order::Sym;
use ets::knowledge::pattern_store as ps;
use ets::knowledge::position::positions;
use ets::store::{Store, Value};

fn sample() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/games");
    sgf_files(&[root.join("tom-9d"), root.join("collections")])
}

fn existing(name: &str) -> String {
    let d = std::env::temp_dir().join(format!("ets-kstore-{}", std::process::id()));
    d.join(name).display().to_string()
}

/// A fresh store path.
fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ets-kstore-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let p = d.join(name);
    for s in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{s}", p.display()));
    }
    p
}

fn opts(shard: (u64, u64)) -> Options {
    Options {
        kmax: 12,
        shard,
        commit_secs: 0.0,
        batch_bytes: 1,
        ..Options::default()
    }
}

fn table(s: &mut Store, sql: &str) -> Vec<Vec<Value>> {
    s.rows(sql, &[]).unwrap()
}

const PATTERNS: &str = "SELECT id, parent, pos, kind, k, n_played, n_match FROM fk_pattern ORDER BY id";
const GAMES: &str = "SELECT key, file, game_index, moves, counted, positions, tests FROM fk_game ORDER BY key";

#[test]
fn shards_merged_give_the_counts_of_one_run() {
    let files = sample();
    let mut whole = Store::open(tmp("whole.db").to_str().unwrap()).unwrap();
    let r = learn(&mut whole, &files, &opts((1, 1)), &mut |_| {}).unwrap();
    assert!(r.complete && r.counted >= 10 && r.patterns > 100);
    let mut parts = Vec::new();
    let mut counted = 0;
    for i in 1..=2 {
        let mut s = Store::open(tmp(&format!("part{i}.db")).to_str().unwrap()).unwrap();
        let r = learn(&mut s, &files, &opts((i, 2)), &mut |_| {}).unwrap();
        assert!(!r.complete, "each shard counts only its half");
        assert!(r.counted > 0);
        counted += r.counted;
        parts.push(s);
    }
    assert_eq!(counted, r.counted);
    let mut merged = Store::open(tmp("merged.db").to_str().unwrap()).unwrap();
    let m = ps::merge(&mut merged, &mut parts).unwrap();
    assert_eq!((m.stores, m.games, m.counted), (2, r.games, r.counted));
    assert_eq!(table(&mut merged, PATTERNS), table(&mut whole, PATTERNS));
    assert_eq!(table(&mut merged, GAMES), table(&mut whole, GAMES));
    assert_eq!(ps::phase(&mut merged).unwrap(), Some(ps::Phase::Counted));
    // The root's counts are the positions and tested points of every game.
    let root = table(&mut whole, "SELECT n_played, n_match FROM fk_pattern WHERE id = 0");
    let sums = table(&mut whole, "SELECT SUM(positions), SUM(tests) FROM fk_game");
    assert_eq!(root, sums);
    // P(i|p) never exceeds 1, and a child never matches more often than its parent.
    let bad = table(
        &mut whole,
        "SELECT COUNT(*) FROM fk_pattern c JOIN fk_pattern p ON p.id = c.parent
         WHERE c.id > 0 AND (c.n_played > c.n_match OR c.n_match > p.n_match OR c.n_played > p.n_played)",
    );
    assert_eq!(bad, vec![vec![Value::Int(0)]]);
    // Merging a store with itself is refused (its games would count twice); so is a store of
    // other games.
    let mut again = vec![
        Store::open(&existing("part1.db")).unwrap(),
        Store::open(&existing("part1.db")).unwrap(),
    ];
    let mut out = Store::open(tmp("bad.db").to_str().unwrap()).unwrap();
    let e = ps::merge(&mut out, &mut again).unwrap_err().to_string();
    assert!(e.contains("counted in two"), "{e}");
    let mut other = Store::open(tmp("other.db").to_str().unwrap()).unwrap();
    learn(&mut other, &files[..3], &opts((1, 1)), &mut |_| {}).unwrap();
    let mut mixed = vec![Store::open(&existing("part1.db")).unwrap(), other];
    let mut out = Store::open(tmp("bad2.db").to_str().unwrap()).unwrap();
    let e = ps::merge(&mut out, &mut mixed).unwrap_err().to_string();
    assert!(e.contains("other patterns"), "{e}");
}

fn consistent(path: &Path) -> (i64, i64) {
    let mut s = Store::open(path.to_str().unwrap()).unwrap();
    assert_eq!(
        s.value("PRAGMA integrity_check", &[]).unwrap(),
        Some(Value::Text("ok".into()))
    );
    if !s.has_table("fk_game").unwrap() || ps::settings(&mut s).unwrap().is_none() {
        return (0, 0);
    }
    // Counts committed are exactly those of the games marked counted.
    let root = table(&mut s, "SELECT n_played, n_match FROM fk_pattern WHERE id = 0");
    let sums = table(
        &mut s,
        "SELECT COALESCE(SUM(positions), 0), COALESCE(SUM(tests), 0) FROM fk_game WHERE counted = 1",
    );
    assert_eq!(root, sums, "counts and counted games disagree after a kill");
    let (all, counted) = ps::game_counts(&mut s).unwrap();
    (all as i64, counted as i64)
}

#[test]
fn a_killed_run_leaves_the_store_consistent_and_resumes() {
    let exe = env!("CARGO_BIN_EXE_ets");
    let files = sample();
    let args = |store: &Path| {
        let mut v: Vec<String> = vec!["learn".into()];
        v.extend(files.iter().map(|f| f.display().to_string()));
        v.extend(
            [
                "--store",
                store.to_str().unwrap(),
                "--kmax",
                "12",
                "--commit-secs",
                "0",
                "--batch-bytes",
                "1",
                "--threads",
                "1",
                // The counts are what a kill must leave consistent; the ranker is trained after
                // them in one transaction, and training it seven times would cost minutes.
                "--no-rank",
            ]
            .map(String::from),
        );
        v
    };
    let reference = tmp("reference.db");
    let t = Instant::now();
    let st = Command::new(exe).args(args(&reference)).output().unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    let full = t.elapsed();
    let mut partial = 0;
    for (i, frac) in [0.15, 0.3, 0.45, 0.6, 0.75, 0.9].iter().enumerate() {
        let path = tmp(&format!("killed{i}.db"));
        let mut child = Command::new(exe)
            .args(args(&path))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_secs_f64(full.as_secs_f64() * frac));
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        let (all, counted) = consistent(&path);
        if all > 0 && counted < all {
            partial += 1;
        }
        // Resume: the same command finishes the counts, equal to the uninterrupted run's.
        let st = Command::new(exe).args(args(&path)).output().unwrap();
        assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
        let (all, counted) = consistent(&path);
        assert_eq!(all, counted);
        let mut a = Store::open(path.to_str().unwrap()).unwrap();
        let mut b = Store::open(reference.to_str().unwrap()).unwrap();
        assert_eq!(table(&mut a, PATTERNS), table(&mut b, PATTERNS));
        assert_eq!(table(&mut a, GAMES), table(&mut b, GAMES));
    }
    if partial == 0 {
        eprintln!("note: no kill landed between commits on this machine (the run took {full:?})");
    }
}

#[test]
fn the_sixteen_forms_of_a_real_pattern_share_its_statistics() {
    let files = sample();
    let path = tmp("sym.db");
    let mut s = Store::open(path.to_str().unwrap()).unwrap();
    learn(&mut s, &files, &opts((1, 1)), &mut |_| {}).unwrap();
    let (tree, stats) = ps::load(&mut s).unwrap();
    let (games, _) = read_file(&files[0]);
    let g = &games[0];
    let mut checked = 0;
    for pos in positions(&g.replay).iter().step_by(7) {
        let (c, r) = (pos.board.cols() as i32, pos.board.rows() as i32);
        let base = {
            let grid = Grid::new(pos.board, pos.mover);
            tree.deepest(&mut Walk::new(&grid, pos.played.col as i32, pos.played.row as i32), 12)
        };
        assert!(stats[base as usize].n_played >= 1);
        for sym in Sym::ALL {
            for swap in [false, true] {
                let at = |p: Point| {
                    let (a, b) = sym.apply(2 * p.col as i32 - (c - 1), 2 * p.row as i32 - (r - 1));
                    Point {
                        col: ((a + c - 1) / 2) as u8,
                        row: ((b + r - 1) / 2) as u8,
                    }
                };
                let mut b = Board::new(c as u8, r as u8);
                for p in pos.board.points() {
                    let cell = match pos.board.get(p) {
                        Cell::Stone(x) if swap => Cell::Stone(x.other()),
                        x => x,
                    };
                    b.set(at(p), cell);
                }
                let mover = if swap { pos.mover.other() } else { pos.mover };
                let grid = Grid::new(&b, mover);
                let q = at(pos.played);
                let id = tree.deepest(&mut Walk::new(&grid, q.col as i32, q.row as i32), 12);
                assert_eq!(id, base, "move {} under {sym:?}, swap {swap}", pos.number + 1);
                checked += 1;
            }
        }
    }
    assert!(checked >= 16 * 10);
}
