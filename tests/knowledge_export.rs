//! A Forme_K pattern exported as a class of the class language is accepted by the language and
//! recognized by the engine exactly where the pattern's region reads, on real positions; the
//! tree's matches are among those places (and where they are not, a lesser reading explains it).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use ets::go::board::{Board, Cell, Color, Point};
use ets::go::classify::{class_name, classify, setting_from};
use ets::go::record::RecordOptions;
use ets::knowledge::corpus::{read_file, sgf_files};
use ets::knowledge::export::{Content, class_name as exported_name, class_text, region};
use ets::knowledge::forme_k::{Grid, Tree, Walk};
use ets::knowledge::learn::{Options, learn};
use ets::knowledge::order::Sym;
use ets::knowledge::pattern_store as ps;
use ets::knowledge::position::{Analysis, positions};
use ets::store::Store;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

/// The oracle: every (orientation) placement of the pattern's region that the board shows, as
/// the set of its vertices, with its centre.
fn placements(tree: &Tree, id: u32, b: &Board, mover: Color) -> BTreeSet<(Point, Vec<Point>)> {
    let r = region(tree, id);
    let mut out = BTreeSet::new();
    for p in b.points() {
        'orient: for s in Sym::ALL {
            let mut verts = Vec::new();
            for &((x, y), c) in &r.vertices {
                let (dx, dy) = s.apply(x, y);
                let (qx, qy) = (p.col as i32 + dx, p.row as i32 + dy);
                if qx < 0 || qy < 0 || qx >= b.cols() as i32 || qy >= b.rows() as i32 {
                    continue 'orient;
                }
                let q = Point {
                    col: qx as u8,
                    row: qy as u8,
                };
                let want = match c {
                    Content::Empty => Cell::Empty,
                    Content::Own => Cell::Stone(mover),
                    Content::Opp => Cell::Stone(mover.other()),
                };
                if b.get(q) != want {
                    continue 'orient;
                }
                verts.push(q);
            }
            for &(ex, ey) in &r.edges {
                let (dx, dy) = s.apply(ex, ey);
                let (qx, qy) = (p.col as i32 + dx, p.row as i32 + dy);
                if qx >= 0 && qy >= 0 && qx < b.cols() as i32 && qy < b.rows() as i32 {
                    continue 'orient;
                }
            }
            verts.sort();
            out.insert((p, verts));
        }
    }
    out
}

#[test]
fn an_exported_pattern_is_recognized_where_it_matched() {
    let games = root().join("tests/data/games/tom-9d");
    let files = sgf_files(&[games]);
    let dir = std::env::temp_dir().join(format!("ets-kexport-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("p.db");
    let mut store = Store::open(db.to_str().unwrap()).unwrap();
    let opts = Options {
        kmax: 12,
        ..Options::default()
    };
    learn(&mut store, &files, &opts, &mut |_| {}).unwrap();
    let (tree, stats) = ps::load(&mut store).unwrap();
    // A game and positions to look at; the patterns are those matching the moves played there
    // (k = 3 .. 6, so their regions are of every size between a few points and a few dozen).
    let (gs, _) = read_file(&files[3]);
    let replay = &gs[0].replay;
    let ps_all = positions(replay);
    let chosen: Vec<usize> = vec![12, 41, 77];
    let import = root().join("grammars/go/level0.ets").display().to_string();
    let mut checked = 0;
    let mut tree_matches = 0;
    for &pi in &chosen {
        let pos = &ps_all[pi];
        let grid = Grid::new(pos.board, pos.mover);
        let played = pos.played;
        let deepest = tree.deepest(&mut Walk::new(&grid, played.col as i32, played.row as i32), 12);
        let path = tree.path(deepest);
        let Some(&id) = path.iter().rev().find(|&&id| (3..=6).contains(&tree.node(id).k)) else {
            continue;
        };
        assert!(stats[id as usize].n_played >= 2);
        // Export, check, classify the position with the exported class.
        let file = dir.join(format!("p{id}.ets"));
        std::fs::write(&file, class_text(&tree, id, &import, &[pos.mover], "test")).unwrap();
        let (_, setting) = setting_from(std::slice::from_ref(&file));
        let setting = setting.unwrap_or_else(|e| panic!("the exported class does not check: {e:?}"));
        let n = pos.number;
        let boards: Vec<Board> = replay.positions[..=n].to_vec();
        let last: Vec<Option<Point>> = std::iter::once(None)
            .chain(replay.moves[..n].iter().map(|m| m.point))
            .collect();
        let c = classify(&setting, &boards, &last, RecordOptions::default(), Some(1)).unwrap();
        let want = exported_name(id, pos.mover);
        let level1 = &c.hierarchy.levels[1];
        let mut engine: BTreeSet<Vec<Point>> = BTreeSet::new();
        for (i, e) in level1.elements.iter().enumerate() {
            if class_name(&setting, e) == want {
                let mut v = c.named[1][i].vertices.clone();
                v.sort();
                v.dedup();
                engine.insert(v);
            }
        }
        let oracle = placements(&tree, id, pos.board, pos.mover);
        let oracle_sets: BTreeSet<Vec<Point>> = oracle.iter().map(|x| x.1.clone()).collect();
        assert_eq!(engine, oracle_sets, "pattern {id} at move {n}");
        assert!(!engine.is_empty(), "the move played matched pattern {id}");
        // The tree's matches among the legal points are among the placements; where a
        // placement's centre is not a tree match, the least reading there is less than the
        // pattern.
        let centres: BTreeSet<Point> = oracle.iter().map(|x| x.0).collect();
        let facts = tree.facts(id);
        let legal = Analysis::new(pos.board).legal_points(pos);
        for p in pos.board.points().filter(|p| pos.board.get(*p) == Cell::Empty) {
            let mine: Vec<_> = Walk::new(&grid, p.col as i32, p.row as i32).take(facts.len()).collect();
            let matched = mine == facts;
            if matched {
                assert!(centres.contains(&p), "a tree match at {p:?} the class misses");
                if legal.contains(&p) {
                    tree_matches += 1;
                }
            } else if centres.contains(&p) {
                let less = mine
                    .iter()
                    .zip(&facts)
                    .find(|(a, b)| a != b)
                    .is_some_and(|(a, b)| a.pos > b.pos || (a.pos == b.pos && a.kind < b.kind));
                assert!(less, "at {p:?} the pattern reads, yet the tree's reading is not less");
            }
        }
        checked += 1;
    }
    assert!(checked >= 2, "too few positions checked");
    assert!(tree_matches >= checked);
    std::fs::remove_dir_all(&dir).ok();
}
