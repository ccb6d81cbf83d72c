//! Real games from `../shared/data/games`: replay against an independent oracle, and the
//! recorder's structs (invariants, sizes) under every attention policy. Without the corpus (a
//! fresh clone), the tests run on the sample shipped in `tests/data/games/` and say so.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::path::{Path, PathBuf};

use ets::go::board::{Color, Point};
use ets::go::game::Replay;
use ets::go::record::{Attention, GoAlphabet, Place, RecordOptions, Recording, record};
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
fn every_shared_game_parses_replays_and_records() {
    // All 10,190 shared games: parse, replay, record with the focus policy (full attention on the
    // sample below, which is ~60 ms a game); every struct passes the engine's invariants because
    // the recorder builds it only through checked mutators, so `record` returning Ok is one half
    // of the test; the other is that every layer is exactly what the focus policy defines.
    use rayon::prelude::*;
    let mut all = files("tom-9d");
    all.extend(files("alphago"));
    all.extend(files("9x9"));
    let least = if corpus() { 10_190 } else { 15 };
    assert!(all.len() >= least, "{} games", all.len());
    let kinds = GoAlphabet::new();
    let results: Vec<Result<FocusStats, String>> = all
        .par_iter()
        .map(|f| {
            let r = ours(f);
            let last: Vec<Option<Point>> = std::iter::once(None).chain(r.moves.iter().map(|m| m.point)).collect();
            let opts = RecordOptions {
                attention: Attention::FOCUS,
                layers: 3,
            };
            match record(&kinds, &r.positions, &last, opts) {
                Ok(rec) if rec.strukt.is_empty() && !r.moves.is_empty() => {
                    Err(format!("{}: empty struct", f.display()))
                }
                Ok(rec) => check_focus(&rec, &r, 3).map_err(|e| format!("{}: {e}", f.display())),
                Err(e) => Err(format!("{}: {e}", f.display())),
            }
        })
        .collect();
    let bad: Vec<&String> = results.iter().filter_map(|x| x.as_ref().err()).collect();
    assert!(bad.is_empty(), "{bad:?}");
    let stats: Vec<&FocusStats> = results.iter().filter_map(|x| x.as_ref().ok()).collect();
    let layers: usize = stats.iter().map(|s| s.layers).sum();
    let attended: usize = stats.iter().map(|s| s.attended).sum();
    eprintln!(
        "focus over {} games: {layers} layers after the first look, {:.1} vertices attended per layer, at most {}; window at most {}",
        stats.len(),
        attended as f64 / layers.max(1) as f64,
        stats.iter().map(|s| s.max_attended).max().unwrap_or(0),
        stats.iter().map(|s| s.max_window).max().unwrap_or(0)
    );
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
            // A position where nothing changed (a pass; a stone played onto its own colour, which
            // the shipped 2006-02-21463234.sgf has at move 2) gives the sensor nothing to perceive.
            let perceived = 1 + r
                .positions
                .windows(2)
                .filter(|w| {
                    [Color::Black, Color::White]
                        .iter()
                        .any(|&c| w[0].stones(c) != w[1].stones(c))
                })
                .count();
            let n = perceived * layers;
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
    let stats = check_focus(&rec, &r, 3).unwrap_or_else(|e| panic!("{}: {e}", tom_sample()[0].display()));
    eprintln!("focus on {}: {stats:?}", tom_sample()[0].display());
    // The window is full (12 vertices) somewhere in a 19x19 game, and never larger.
    assert_eq!(stats.max_window, 12);
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
    // A position that changes nothing (a pass) adds no layer.
    let perceived = (0..small.positions.len())
        .filter(|&k| k == 0 || !small.positions[k].same_cells(&small.positions[k - 1]))
        .count();
    assert_eq!(verts, perceived * (c - 2) * 3 * rr);
}

/// What the focus policy's layers of one recording looked like (for the message of a test).
#[derive(Debug, Default, Clone, Copy)]
struct FocusStats {
    /// Colour sublayers after the first position.
    layers: usize,
    /// The largest focus window (vertices chosen around the last move).
    max_window: usize,
    /// The most vertices a colour sublayer attended (window, changes, their neighbours and the
    /// pairs completed).
    max_attended: usize,
    /// Vertices attended in all those sublayers.
    attended: usize,
}

/// The focus window of docs/semantics.md ("The recorder", focus): the vertices within Manhattan
/// distance 2 of `focus`, nearest first, ties by row then column, at most 50/4 of them.
fn focus_window(cols: u8, rows: u8, focus: Option<Point>) -> BTreeSet<Point> {
    let Some(c) = focus else { return BTreeSet::new() };
    let mut near: Vec<(u32, u8, u8)> = Vec::new();
    for row in 0..rows {
        for col in 0..cols {
            let d = (col as i32 - c.col as i32).unsigned_abs() + (row as i32 - c.row as i32).unsigned_abs();
            if d <= 2 {
                near.push((d, row, col));
            }
        }
    }
    near.sort();
    near.into_iter()
        .take(50 / 4)
        .map(|(_, row, col)| Point { col, row })
        .collect()
}

fn board_neighbours(cols: u8, rows: u8, p: Point) -> Vec<Point> {
    let (c, r) = (p.col as i16, p.row as i16);
    [(c - 1, r), (c, r - 1), (c, r + 1), (c + 1, r)]
        .into_iter()
        .filter(|&(c, r)| c >= 0 && r >= 0 && c < cols as i16 && r < rows as i16)
        .map(|(c, r)| Point {
            col: c as u8,
            row: r as u8,
        })
        .collect()
}

/// Checks a focus recording (radius 2, cap 50) of `r` with `layers` layers per position against
/// the focus policy's definition, exactly, layer by layer (an oracle written apart from the
/// sensor; docs/semantics.md, "The recorder"):
/// - position 0 (the first look) attends every vertex; a position whose board equals the one
///   before (a pass) adds no layer; every other position adds `layers` refresh layers;
/// - each colour sublayer of position k > 0 attends exactly the closure of W ∪ C ∪ N(C), where
///   W is the focus window around the last move played (at most 12 vertices), C the vertices
///   whose colour changed at k and N(C) their neighbours, closed under "a pair perceived from
///   one end alone is perceived from both the next time either end is attended";
/// - each adjacency sublayer holds one `pi4` per on-board adjacent pair with an attended end.
fn check_focus(rec: &Recording, r: &Replay, layers: usize) -> Result<FocusStats, String> {
    let (cols, rows) = r.info.size;
    let subs = 2 * rec.layer_count as usize;
    let mut attended: Vec<BTreeSet<Point>> = vec![BTreeSet::new(); subs];
    let mut pairs: Vec<BTreeSet<(Point, Point)>> = vec![BTreeSet::new(); subs];
    let mut at: Vec<Option<u32>> = vec![None; subs];
    for (n, place) in rec.place.iter().enumerate() {
        let s = rec.layer[n] as usize;
        if s >= subs {
            continue; // the attention-leaves primitives of the end of the recording
        }
        match *place {
            Place::Vertex(p) => {
                attended[s].insert(p);
                if at[s].is_some_and(|k| k != rec.position[n]) {
                    return Err(format!("sublayer {s} perceives two positions"));
                }
                at[s] = Some(rec.position[n]);
            }
            Place::Pair { x, y, vertical } if x >= 1 && y >= 1 => {
                let a = Point { col: x - 1, row: y - 1 };
                let b = if vertical {
                    Point { col: x - 1, row: y }
                } else {
                    Point { col: x, row: y - 1 }
                };
                if b.col < cols && b.row < rows {
                    pairs[s].insert((a, b));
                }
            }
            _ => {}
        }
    }
    // Which positions have layers, and how many.
    let mut per_position: BTreeMap<u32, usize> = BTreeMap::new();
    for s in (0..subs).step_by(2) {
        let k = at[s].ok_or_else(|| format!("colour sublayer {s} attends no vertex"))?;
        *per_position.entry(k).or_default() += 1;
    }
    let expected: BTreeMap<u32, usize> = (0..r.positions.len())
        .filter(|&k| k == 0 || !r.positions[k].same_cells(&r.positions[k - 1]))
        .map(|k| (k as u32, layers))
        .collect();
    if per_position != expected {
        return Err(format!("layers per position {per_position:?}, expected {expected:?}"));
    }
    // Per on-board pair: the end perceived alone since the pair was last perceived from both
    // ends (1: left/upper, 2: right/lower).
    let mut half: HashMap<(Point, Point), u8> = HashMap::new();
    let mut stats = FocusStats::default();
    for s in (0..subs).step_by(2) {
        let k = at[s].expect("checked") as usize;
        let want: BTreeSet<Point> = if k == 0 {
            r.positions[0].points().collect()
        } else {
            let focus = r.moves[..k].iter().rev().find_map(|m| m.point);
            let window = focus_window(cols, rows, focus);
            if window.len() > 12 {
                return Err(format!("position {k}: a focus window of {} vertices", window.len()));
            }
            stats.max_window = stats.max_window.max(window.len());
            let mut set = window;
            for p in r.positions[k].points() {
                if r.positions[k].get(p) != r.positions[k - 1].get(p) {
                    set.insert(p);
                    set.extend(board_neighbours(cols, rows, p));
                }
            }
            let mut stack: Vec<Point> = set.iter().copied().collect();
            while let Some(u) = stack.pop() {
                for v in board_neighbours(cols, rows, u) {
                    if set.contains(&v) {
                        continue;
                    }
                    let (pair, v_end) = if (v.row, v.col) < (u.row, u.col) {
                        ((v, u), 1)
                    } else {
                        ((u, v), 2)
                    };
                    if half.get(&pair) == Some(&v_end) {
                        set.insert(v);
                        stack.push(v);
                    }
                }
            }
            stats.layers += 1;
            stats.max_attended = stats.max_attended.max(set.len());
            stats.attended += set.len();
            set
        };
        if attended[s] != want {
            let extra: Vec<_> = attended[s].difference(&want).collect();
            let missing: Vec<_> = want.difference(&attended[s]).collect();
            return Err(format!(
                "position {k}, sublayer {s}: attends {extra:?} beyond the definition, not {missing:?}"
            ));
        }
        let mut want_pairs = BTreeSet::new();
        for &a in &want {
            for b in board_neighbours(cols, rows, a) {
                let pair = if (b.row, b.col) < (a.row, a.col) {
                    (b, a)
                } else {
                    (a, b)
                };
                want_pairs.insert(pair);
            }
        }
        if pairs[s + 1] != want_pairs {
            return Err(format!(
                "position {k}, sublayer {}: the adjacency sublayer's pairs differ",
                s + 1
            ));
        }
        for (a, b) in want_pairs {
            let v = match (want.contains(&a), want.contains(&b)) {
                (true, true) => 0,
                (true, false) => 1,
                _ => 2,
            };
            half.insert((a, b), v);
        }
    }
    Ok(stats)
}

/// Issue 14's acceptance command, exactly as a user types it:
/// `ets classify GAME --attention sweep --all --level 0 --format json` lists one play element per
/// move (at the move's vertex, born at its position) and one removal element per captured stone,
/// on the shipped 9x9 games and two shipped 19x19 games, and on three corpus games when
/// `../shared/data` is present.
#[test]
fn the_sweep_acceptance_command_lists_a_play_per_move() {
    let mut games = files("9x9");
    games.extend(files("alphago").into_iter().take(1));
    games.extend(tom_sample().into_iter().take(if corpus() { 3 } else { 2 }));
    for f in &games {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_ets"))
            .arg("classify")
            .arg(f)
            .args(["--attention", "sweep", "--all", "--level", "0", "--format", "json"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}: {}",
            f.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let r = ours(f);
        let rows = r.info.size.1;
        let level0 = &v["levels"][0];
        assert_eq!(level0["level"], 0);
        let mut plays = BTreeSet::new();
        let mut removals = 0usize;
        for e in level0["elements"].as_array().unwrap() {
            let class = e["class"].as_str().unwrap();
            if class.ends_with("_play") {
                let vs = e["vertices"].as_array().unwrap();
                assert_eq!(vs.len(), 1, "{}: {e}", f.display());
                plays.insert((
                    e["born"].as_u64().unwrap() as usize,
                    vs[0].as_str().unwrap().to_string(),
                ));
            } else if class.ends_with("_removal") {
                removals += 1;
            }
        }
        let moves: BTreeSet<(usize, String)> = r
            .moves
            .iter()
            .enumerate()
            .filter_map(|(k, m)| m.point.map(|p| (k + 1, p.gtp(rows))))
            .collect();
        let captured: usize = r
            .moves
            .iter()
            .map(|m| m.effect.captured.len() + m.effect.suicide.len())
            .sum();
        assert_eq!(plays.len(), moves.len(), "{}: play elements against moves", f.display());
        assert_eq!(plays, moves, "{}", f.display());
        assert_eq!(
            removals,
            captured,
            "{}: removal elements against captured stones",
            f.display()
        );
    }
}
