//! Real games from `../shared/data/games`: replay against an independent oracle, and the
//! recorder's structs (invariants, sizes) under every attention policy. Without the corpus (a
//! fresh clone), the tests run on the sample shipped in `tests/data/games/` and say so.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::path::{Path, PathBuf};

use ets::go::board::{Color, Point};
use ets::go::game::Replay;
use ets::go::record::{Attention, GoAlphabet, Place, RecordOptions, record};
use ets::go::sgf::Sgf;

const DATA: &str = "../shared/data/games";
const SAMPLE: &str = "tests/data/games";

/// Whether the large corpus is beside the repository (else a message says what runs instead).
fn corpus() -> bool {
    let here = Path::new(DATA).is_dir();
    if !here {
        eprintln!("{DATA} is absent: running on the shipped sample {SAMPLE} instead");
    }
    here
}

fn files(sub: &str) -> Vec<PathBuf> {
    let root = if corpus() { DATA } else { SAMPLE };
    let mut out = Vec::new();
    let mut stack = vec![Path::new(root).join(sub)];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d)
            .unwrap_or_else(|e| panic!("{}: {e}", d.display()))
            .flatten()
        {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "sgf") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The sample of tom-9d games used by the slower tests: every 100th file (every shipped one).
fn tom_sample() -> Vec<PathBuf> {
    let step = if corpus() { 100 } else { 1 };
    files("tom-9d").into_iter().step_by(step).collect()
}

/// An independent replay: sgf-parse reads the file, a separately written rule engine executes
/// the main line (placement, opponent captures, suicide), returning the stone sets and prisoner
/// counts after every move.
/// Black stones, white stones, prisoners taken by Black, by White.
type Snapshot = (BTreeSet<(u8, u8)>, BTreeSet<(u8, u8)>, u32, u32);

fn oracle(path: &Path) -> Vec<Snapshot> {
    use sgf_parse::go::{Move, Prop, parse};
    let text = String::from_utf8_lossy(&std::fs::read(path).unwrap()).into_owned();
    let trees = parse(&text).unwrap();
    let root = &trees[0];
    let size = match root.get_property("SZ") {
        Some(Prop::SZ((c, r))) => (*c, *r),
        _ => (19, 19),
    };
    let mut board: HashMap<(u8, u8), char> = HashMap::new();
    let (mut cap_b, mut cap_w) = (0u32, 0u32);
    let mut out = Vec::new();
    let snapshot = |b: &HashMap<(u8, u8), char>, cb, cw| {
        let s = |c| {
            b.iter()
                .filter(|(_, v)| **v == c)
                .map(|(k, _)| *k)
                .collect::<BTreeSet<_>>()
        };
        (s('B'), s('W'), cb, cw)
    };
    let neighbours = |x: u8, y: u8| -> Vec<(u8, u8)> {
        let (cols, rows) = (size.0 as u8, size.1 as u8);
        let mut ns = vec![];
        if x > 0 {
            ns.push((x - 1, y));
        }
        if y > 0 {
            ns.push((x, y - 1));
        }
        if x + 1 < cols {
            ns.push((x + 1, y));
        }
        if y + 1 < rows {
            ns.push((x, y + 1));
        }
        ns
    };
    let group = |b: &HashMap<(u8, u8), char>, start: (u8, u8)| -> (Vec<(u8, u8)>, usize) {
        let c = b[&start];
        let mut q = VecDeque::from([start]);
        let mut seen = BTreeSet::from([start]);
        let mut libs = BTreeSet::new();
        while let Some((x, y)) = q.pop_front() {
            for n in neighbours(x, y) {
                match b.get(&n) {
                    None => {
                        libs.insert(n);
                    }
                    Some(&d) if d == c && seen.insert(n) => q.push_back(n),
                    _ => {}
                }
            }
        }
        (seen.into_iter().collect(), libs.len())
    };
    let mut first = true;
    for node in root.main_variation() {
        for p in node.properties() {
            match p {
                Prop::AB(ps) => ps.iter().for_each(|q| {
                    board.insert((q.x, q.y), 'B');
                }),
                Prop::AW(ps) => ps.iter().for_each(|q| {
                    board.insert((q.x, q.y), 'W');
                }),
                Prop::AE(ps) => ps.iter().for_each(|q| {
                    board.remove(&(q.x, q.y));
                }),
                _ => {}
            }
        }
        if first {
            out.push(snapshot(&board, cap_b, cap_w));
            first = false;
        }
        for p in node.properties() {
            let (c, m) = match p {
                Prop::B(m) => ('B', m),
                Prop::W(m) => ('W', m),
                _ => continue,
            };
            if let Move::Move(q) = m
                && (q.x as u16) < size.0 as u16
                && (q.y as u16) < size.1 as u16
            {
                let at = (q.x, q.y);
                board.insert(at, c);
                let opp = if c == 'B' { 'W' } else { 'B' };
                let mut taken = 0;
                for n in neighbours(at.0, at.1) {
                    if board.get(&n) == Some(&opp) {
                        let (g, l) = group(&board, n);
                        if l == 0 {
                            taken += g.len() as u32;
                            g.iter().for_each(|s| {
                                board.remove(s);
                            });
                        }
                    }
                }
                let (g, l) = group(&board, at);
                let own = if l == 0 {
                    g.iter().for_each(|s| {
                        board.remove(s);
                    });
                    g.len() as u32
                } else {
                    0
                };
                if c == 'B' {
                    cap_b += taken;
                    cap_w += own;
                } else {
                    cap_w += taken;
                    cap_b += own;
                }
            }
            out.push(snapshot(&board, cap_b, cap_w));
        }
        // setup after moves belongs to the latest position
        if let Some(last) = out.last_mut() {
            *last = snapshot(&board, cap_b, cap_w);
        }
    }
    out
}

fn ours(path: &Path) -> Replay {
    let sgf = Sgf::parse_bytes(std::fs::read(path).unwrap()).unwrap();
    Replay::from_sgf(&sgf, 0, &[]).unwrap()
}

fn sets(r: &Replay, k: usize) -> Snapshot {
    let b = &r.positions[k];
    let s = |c| {
        b.stones(c)
            .into_iter()
            .map(|p: Point| (p.col, p.row))
            .collect::<BTreeSet<_>>()
    };
    (
        s(Color::Black),
        s(Color::White),
        b.captured_by_black,
        b.captured_by_white,
    )
}

#[test]
fn every_position_matches_an_independent_replay() {
    let mut games = files("alphago");
    games.extend(files("9x9"));
    games.extend(tom_sample());
    let want = if corpus() { (100, 20_000) } else { (15, 2_000) };
    assert!(games.len() > want.0, "{} games", games.len());
    let mut positions = 0;
    for f in &games {
        let want = oracle(f);
        let got = ours(f);
        assert_eq!(got.positions.len(), want.len(), "{}", f.display());
        for (k, w) in want.iter().enumerate() {
            assert_eq!(&sets(&got, k), w, "{} after move {k}", f.display());
        }
        positions += want.len();
    }
    assert!(positions > want.1, "{positions} positions");
}

#[test]
fn the_double_move_defect_is_executed_and_warned() {
    let r = ours(&Path::new(SAMPLE).join("tom-9d/2006-02-21463234.sgf"));
    assert!(r.moves[0].color == Color::Black && r.moves[1].color == Color::Black);
    let w: Vec<_> = r.warnings.iter().filter(|w| w.move_number == 2).collect();
    assert!(w.iter().any(|w| w.message.contains("twice")));
    assert!(w.iter().any(|w| w.message.contains("onto a black stone")));
    assert_eq!(r.positions[2].stones(Color::Black).len(), 1);
}

#[test]
#[ignore = "known failure, issue 14 (open): under focus attention the timeline's sensor keeps dormant awareness, so a layer attends more than the 12-vertex window; the bound and the semantics must be reconciled"]
fn every_shared_game_parses_replays_and_records() {
    // All 10,190 shared games: parse, replay, record with the focus policy (full attention on the
    // sample below, which is ~60 ms a game); every struct passes the engine's invariants because
    // the recorder builds it only through checked mutators, so `record` returning Ok is the test.
    use rayon::prelude::*;
    let mut all = files("tom-9d");
    all.extend(files("alphago"));
    all.extend(files("9x9"));
    let least = if corpus() { 10_190 } else { 15 };
    assert!(all.len() >= least, "{} games", all.len());
    let kinds = GoAlphabet::new();
    let bad: Vec<String> = all
        .par_iter()
        .filter_map(|f| {
            let r = ours(f);
            let last: Vec<Option<Point>> = std::iter::once(None).chain(r.moves.iter().map(|m| m.point)).collect();
            let opts = RecordOptions {
                attention: Attention::FOCUS,
                layers: 3,
            };
            match record(&kinds, &r.positions, &last, opts) {
                Ok(rec) if rec.strukt.is_empty() && !r.moves.is_empty() => {
                    Some(format!("{}: empty struct", f.display()))
                }
                Ok(rec) => {
                    // sizes: at most 50/4 attended vertices per colour sublayer, 3 layers per position played
                    let mut per: HashMap<u32, usize> = HashMap::new();
                    for (n, p) in rec.place.iter().enumerate() {
                        if matches!(p, Place::Vertex(_)) {
                            *per.entry(rec.layer[n]).or_default() += 1;
                        }
                    }
                    let first_move = r
                        .moves
                        .iter()
                        .position(|m| m.point.is_some())
                        .map(|k| k + 1)
                        .unwrap_or(r.positions.len());
                    let expected_layers = 3 * (r.positions.len() - first_move);
                    if per.values().any(|&v| v > 12) {
                        Some(format!("{}: a layer attends more than 12 vertices", f.display()))
                    } else if rec.layer_count as usize != expected_layers {
                        Some(format!(
                            "{}: {} layers, expected {expected_layers}",
                            f.display(),
                            rec.layer_count
                        ))
                    } else {
                        None
                    }
                }
                Err(e) => Some(format!("{}: {e}", f.display())),
            }
        })
        .collect();
    assert!(bad.is_empty(), "{bad:?}");
}

/// Primitives of each kind per full-attention layer on a cols × rows board.
fn full_counts(cols: usize, rows: usize, layers: usize) -> (usize, usize, usize, usize, usize) {
    let colour = cols * rows;
    let edge = 2 * (cols + rows);
    let adj = (cols + 1) * rows + cols * (rows + 1);
    let starts = 4 * colour + edge;
    let ends = 2 * adj;
    (colour * layers, edge * layers, adj * layers, starts, ends)
}

#[test]
fn full_attention_struct_sizes_and_layers() {
    let kinds = GoAlphabet::new();
    let mut games = files("9x9");
    games.extend(tom_sample().into_iter().take(10));
    for f in games {
        let r = ours(&f);
        let (cols, rows) = (r.info.size.0 as usize, r.info.size.1 as usize);
        for layers in [1usize, 2] {
            let rec = record(
                &kinds,
                &r.positions,
                &vec![None; r.positions.len()],
                RecordOptions {
                    attention: Attention::Full,
                    layers,
                },
            )
            .unwrap();
            let s = &rec.strukt;
            let count = |k| s.nodes_of(k).len();
            let n = r.positions.len() * layers;
            let (colour, edge, adj, starts, ends) = full_counts(cols, rows, n);
            assert_eq!(
                count(kinds.black) + count(kinds.white) + count(kinds.empty),
                colour,
                "{}",
                f.display()
            );
            assert_eq!(count(kinds.edge), edge);
            assert_eq!(count(kinds.adjacency), adj);
            assert_eq!(count(kinds.start), starts);
            assert_eq!(count(kinds.end), ends);
            assert_eq!(rec.layer_count as usize, n);
            // Every site of every non-attention primitive holds a process: a closed lattice.
            assert!(s.open_initials().is_empty() && s.open_terminals().is_empty());
            // The colour layer after the last move shows the final position.
            let last_layer = 2 * (rec.layer_count - 1);
            let mut shown: Vec<(Point, bool)> = Vec::new();
            for node in s.nodes() {
                if rec.layer[node as usize] == last_layer
                    && let Place::Vertex(p) = rec.place[node as usize]
                {
                    shown.push((p, s.kind_of(node) == kinds.black));
                }
            }
            let finalb: BTreeSet<Point> = r.positions.last().unwrap().stones(Color::Black).into_iter().collect();
            assert_eq!(shown.len(), cols * rows);
            assert!(shown.iter().all(|(p, b)| *b == finalb.contains(p)));
        }
    }
}

#[test]
fn plays_are_colour_changes_between_consecutive_layers() {
    // Fig. 4.14: a play shows as a vertex's colour primitive changing kind, empty then black.
    let kinds = GoAlphabet::new();
    let r = ours(&files("9x9")[0]);
    let rec = record(
        &kinds,
        &r.positions,
        &vec![None; r.positions.len()],
        RecordOptions::default(),
    )
    .unwrap();
    let s = &rec.strukt;
    let mut changes = 0;
    for n in s.nodes() {
        let Place::Vertex(p) = rec.place[n as usize] else {
            continue;
        };
        // follow the `down` half-line: colour → pi4 → colour of the same vertex
        if let Some((a, _)) = s.successor(n, ets::go::record::DOWN)
            && let Some((m, _)) = s.successor(a, 0)
            && rec.place[m as usize] == Place::Vertex(p)
            && s.kind_of(m) != s.kind_of(n)
        {
            changes += 1;
            let k = rec.position[m as usize] as usize;
            let mv = &r.moves[k - 1];
            let played = mv.point == Some(p);
            let captured = mv.effect.captured.contains(&p) || mv.effect.suicide.contains(&p);
            assert!(
                played || captured,
                "vertex {p:?} changes at position {k} without a play or capture"
            );
        }
    }
    let expected: usize = r
        .moves
        .iter()
        .map(|m| m.point.is_some() as usize + m.effect.captured.len() + m.effect.suicide.len())
        .sum();
    // vertices on the bottom row have no `down` neighbour, so count through them differently:
    assert!(changes > 0 && changes <= expected);
}

#[test]
#[ignore = "known failure, issue 14 (open): under focus attention the timeline's sensor keeps dormant awareness, so a layer attends more than the 12-vertex window; the bound and the semantics must be reconciled"]
fn focus_and_sweep_attention_respect_their_bounds() {
    let kinds = GoAlphabet::new();
    let r = ours(&tom_sample()[0]);
    let last: Vec<Option<Point>> = std::iter::once(None).chain(r.moves.iter().map(|m| m.point)).collect();
    let rec = record(
        &kinds,
        &r.positions,
        &last,
        RecordOptions {
            attention: Attention::FOCUS,
            layers: 3,
        },
    )
    .unwrap();
    let s = &rec.strukt;
    let mut per_layer: HashMap<u32, usize> = HashMap::new();
    for n in s.nodes() {
        if matches!(rec.place[n as usize], Place::Vertex(_)) {
            *per_layer.entry(rec.layer[n as usize]).or_default() += 1;
        }
    }
    assert!(
        per_layer.values().all(|&v| (1..=12).contains(&v)),
        "at most 50/4 vertices attended"
    );
    assert_eq!(rec.layer_count as usize, 3 * r.moves.len());
    // the attended vertices include the last move
    for n in s.nodes() {
        if let Place::Vertex(p) = rec.place[n as usize] {
            let k = rec.position[n as usize] as usize;
            let m = r.moves[..k].iter().rev().find_map(|m| m.point).unwrap();
            assert!((p.col as i32 - m.col as i32).abs() + (p.row as i32 - m.row as i32).abs() <= 2);
        }
    }
    // sweep: every vertex attended in `width` windows per position
    let small = ours(&files("9x9")[0]);
    let rec = record(
        &kinds,
        &small.positions,
        &vec![None; small.positions.len()],
        RecordOptions {
            attention: Attention::SWEEP,
            layers: 1,
        },
    )
    .unwrap();
    let verts = rec.place.iter().filter(|p| matches!(p, Place::Vertex(_))).count();
    let (c, rr) = (small.info.size.0 as usize, small.info.size.1 as usize);
    assert_eq!(verts, small.positions.len() * (c - 2) * 3 * rr);
}
