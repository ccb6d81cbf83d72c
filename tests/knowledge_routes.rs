//! The routes of pass 2 (Forme_K counting, Bouzy & Chaslot 2005, §4.2) agree on real games: the
//! frozen breadth-first tree that `ets learn` matches through, with its cache of deepest patterns,
//! gives exactly the counts of the tree's hash map walked afresh at every tested point (the route
//! before it), and the same deepest pattern at every legal point.

use std::path::{Path, PathBuf};

use ets::go::game::Replay;
use ets::knowledge::corpus::{read_file, sgf_files};
use ets::knowledge::forme_k::{Grid, Tree, Walk};
use ets::knowledge::learn::{Counter, count_game, count_game_by, create_game};
use ets::knowledge::position::{Analysis, positions};

fn games(dirs: &[PathBuf], n: usize) -> Vec<Replay> {
    let mut out = Vec::new();
    for f in sgf_files(dirs) {
        out.extend(read_file(&f).0.into_iter().map(|g| g.replay));
        if out.len() >= n {
            break;
        }
    }
    out.truncate(n);
    out
}

/// The counts of the hash-map route, every tested point walked afresh.
fn oracle(tree: &Tree, g: &Replay, kmax: usize, ends: &mut [u32], played: &mut [u32]) {
    for pos in positions(g) {
        let legal = Analysis::new(pos.board).legal_points(&pos);
        let grid = Grid::new(pos.board, pos.mover);
        for p in legal {
            let d = tree.deepest_hashed(&mut Walk::new(&grid, p.col as i32, p.row as i32), kmax);
            let e = tree.deepest(&mut Walk::new(&grid, p.col as i32, p.row as i32), kmax);
            assert_eq!(d, e, "move {} at {p:?}", pos.number);
            ends[d as usize] += 1;
            if p == pos.played {
                played[d as usize] += 1;
            }
        }
    }
}

/// Learns a tree from `learn` (patterns created at least `min` times), then counts `count` by
/// the three routes.
fn check(learn: &[Replay], count: &[Replay], kmax: usize, min: u32) {
    let mut tree = Tree::new();
    let mut created = vec![0u32; 1];
    for g in learn {
        for f in create_game(g, kmax) {
            for id in tree.create(&f) {
                created.resize(tree.len(), 0);
                created[id as usize] += 1;
            }
        }
    }
    tree.retain(|id| created[id as usize] >= min);
    assert!(tree.len() > 1000, "a tree of {} patterns", tree.len());
    let n = tree.len();
    let (mut a, mut b, mut c) = (
        (vec![0; n], vec![0; n]),
        (vec![0; n], vec![0; n]),
        (vec![0; n], vec![0; n]),
    );
    for g in count {
        count_game(&tree, g, kmax, &mut a.0, &mut a.1);
        count_game_by(Counter::hashed(), &tree, g, kmax, &mut b.0, &mut b.1);
        oracle(&tree, g, kmax, &mut c.0, &mut c.1);
    }
    assert_eq!(a, c, "frozen and cached against the hash map afresh");
    assert_eq!(b, c, "hash map cached against the hash map afresh");
    // The counts are not trivial: many patterns matched, some deep ones played.
    assert!(a.0.iter().filter(|&&x| x > 0).count() > 500);
    assert!(
        (1..n as u32).any(|id| a.1[id as usize] > 0 && tree.node(id).k as usize >= kmax / 2),
        "no deep pattern played"
    );
}

#[test]
fn the_frozen_tree_counts_as_the_hash_map_on_the_shipped_games() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/games");
    let gs = games(&[root.join("tom-9d")], 12);
    assert!(gs.len() >= 8);
    check(&gs, &gs[..4], 15, 1);
}

#[test]
fn the_frozen_tree_counts_as_the_hash_map_on_corpus_games() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data/games/tom-9d");
    if !dir.is_dir() {
        eprintln!("skipped: {} is absent", dir.display());
        return;
    }
    // Patterns from 300 games created at least twice; counted on 6 games the tree never saw.
    let gs = games(&[dir], 306);
    check(&gs[..300], &gs[300..], 15, 2);
}
