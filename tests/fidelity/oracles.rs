//! Independent oracles for the Go class setting: each class of levels 1 and 2 written again from
//! the thesis's definition, as plain rule code over the board (flood fills, jump geometry). They
//! live here, in the tests, and nowhere else: the setting's classes are recognised by the engine
//! from `grammars/go/`, and these are what its results are checked against (`docs/fidelity.md`).
//!
//! An element is named by its vertices, as the classification names it: at level 1 the vertices of
//! its one-vertex members (stones, empty vertices; a block shows its stones, not its liberties), at
//! level 2 the vertices of all its members.

use std::collections::{BTreeMap, BTreeSet};

use ets::go::board::{Board, Cell, Color, Point};

/// An element's vertices, sorted.
pub type Shape = Vec<Point>;

/// An offset (columns, rows).
type Off = (i32, i32);
/// A jump: the offset of the far stone and the offsets of the empty points between.
type Jump = (Off, Vec<Off>);
/// A symmetry of the board, on offsets.
type Sym = fn(Off) -> Off;

/// Per class name, the elements the oracle expects.
pub type Expected = BTreeMap<String, BTreeSet<Shape>>;

/// The cell at `(col, row)`, `None` off the board.
pub fn at(b: &Board, c: i32, r: i32) -> Option<Cell> {
    if c < 0 || r < 0 || c >= b.cols() as i32 || r >= b.rows() as i32 {
        None
    } else {
        Some(b.get(pt(c, r)))
    }
}

pub fn pt(c: i32, r: i32) -> Point {
    Point {
        col: c as u8,
        row: r as u8,
    }
}

fn shape(v: impl IntoIterator<Item = Point>) -> Shape {
    let mut v: Vec<Point> = v.into_iter().collect();
    v.sort();
    v.dedup();
    v
}

pub fn colour_name(c: Color) -> &'static str {
    match c {
        Color::Black => "black",
        Color::White => "white",
    }
}

/// The four directions: left, up, down, right (the thesis's side order).
pub const DIRS: [(i32, i32); 4] = [(-1, 0), (0, -1), (0, 1), (1, 0)];

/// Blocks of colour `c` (§4.6.2: connected same-colour stones), by flood fill.
pub fn blocks(b: &Board, c: Color) -> Vec<Shape> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for p in b.points() {
        if b.get(p) != Cell::Stone(c) || seen.contains(&p) {
            continue;
        }
        let mut blk = vec![];
        let mut stack = vec![p];
        seen.insert(p);
        while let Some(q) = stack.pop() {
            blk.push(q);
            for n in b.neighbours(q) {
                if b.get(n) == Cell::Stone(c) && seen.insert(n) {
                    stack.push(n);
                }
            }
        }
        out.push(shape(blk));
    }
    out.sort();
    out
}

/// The liberties of a set of stones.
pub fn liberties(b: &Board, stones: &[Point]) -> BTreeSet<Point> {
    stones
        .iter()
        .flat_map(|&p| b.neighbours(p).collect::<Vec<_>>())
        .filter(|&n| b.get(n) == Cell::Empty)
        .collect()
}

/// Stones of colour `c` as (col, row).
fn stones(b: &Board, c: Color) -> Vec<(i32, i32)> {
    b.points()
        .filter(|&p| b.get(p) == Cell::Stone(c))
        .map(|p| (p.col as i32, p.row as i32))
        .collect()
}

/// Whether every point of `pts` is on the board and empty.
fn all_empty(b: &Board, pts: &[(i32, i32)]) -> bool {
    pts.iter().all(|&(c, r)| at(b, c, r) == Some(Cell::Empty))
}

fn shape_of(pts: &[(i32, i32)]) -> Shape {
    shape(pts.iter().map(|&(c, r)| pt(c, r)))
}

/// A jump from a stone of colour `x` to a stone of colour `y` across the empty points `between`
/// (offsets from the first stone) to the stone at offset `to`; every unordered pair once when
/// `x == y` and the offsets are listed for one half of the directions.
fn jumps(b: &Board, x: Color, y: Color, offsets: &[Jump]) -> BTreeSet<Shape> {
    let mut out = BTreeSet::new();
    for (c, r) in stones(b, x) {
        for (to, between) in offsets {
            if at(b, c + to.0, r + to.1) != Some(Cell::Stone(y)) {
                continue;
            }
            let mid: Vec<(i32, i32)> = between.iter().map(|&(dc, dr)| (c + dc, r + dr)).collect();
            if all_empty(b, &mid) {
                let mut pts = mid;
                pts.push((c, r));
                pts.push((c + to.0, r + to.1));
                out.insert(shape_of(&pts));
            }
        }
    }
    out
}

/// The offsets of one shape under the eight symmetries of the board (rotations and mirrors),
/// deduplicated: `(target, between)`.
fn symmetric(to: Off, between: &[Off]) -> Vec<Jump> {
    let maps: [Sym; 8] = [
        |(a, b)| (a, b),
        |(a, b)| (-a, b),
        |(a, b)| (a, -b),
        |(a, b)| (-a, -b),
        |(a, b)| (b, a),
        |(a, b)| (-b, a),
        |(a, b)| (b, -a),
        |(a, b)| (-b, -a),
    ];
    let mut out: Vec<Jump> = Vec::new();
    for m in maps {
        let mut bt: Vec<(i32, i32)> = between.iter().map(|&p| m(p)).collect();
        bt.sort();
        let e = (m(to), bt);
        if !out.contains(&e) {
            out.push(e);
        }
    }
    out
}

/// One-point jump (Def. 5): stone, empty, stone of one colour in a line.
fn one_point(b: &Board, x: Color, y: Color) -> BTreeSet<Shape> {
    jumps(b, x, y, &symmetric((2, 0), &[(1, 0)]))
}

/// Two-point jump (Table 4.5): stone, empty, empty, stone in a line.
fn two_point(b: &Board, x: Color, y: Color) -> BTreeSet<Shape> {
    jumps(b, x, y, &symmetric((3, 0), &[(1, 0), (2, 0)]))
}

/// Knight's jump (Def. 6): two stones a knight's move apart (one and two), the two middle points
/// of their 2x3 box empty (Def. 6's path: across, along, across).
fn knight(b: &Board, x: Color, y: Color) -> BTreeSet<Shape> {
    jumps(b, x, y, &symmetric((2, 1), &[(1, 0), (1, 1)]))
}

/// Long knight's jump (Def. 8): two stones one and three apart, the 2x2 box between them empty.
fn long_knight(b: &Board, x: Color, y: Color) -> BTreeSet<Shape> {
    jumps(b, x, y, &symmetric((3, 1), &[(1, 0), (2, 0), (1, 1), (2, 1)]))
}

/// Diagonal play (Def. 7): two stones diagonally adjacent, one element per empty corner between
/// them (each of Def. 7's constraints holds one corner).
fn diagonal(b: &Board, x: Color, y: Color) -> BTreeSet<Shape> {
    let mut out = jumps(b, x, y, &symmetric((1, 1), &[(1, 0)]));
    out.extend(jumps(b, x, y, &symmetric((1, 1), &[(0, 1)])));
    out
}

/// A stone beside `k` empty points in a line and then the edge: Fig. 5.1's C^1_19 ("one point from
/// the edge", k = 1) and C^1_9 ("three points from the edge", on the third line: k = 2).
fn from_edge(b: &Board, x: Color, k: i32) -> BTreeSet<Shape> {
    let mut out = BTreeSet::new();
    for (c, r) in stones(b, x) {
        for (dc, dr) in DIRS {
            let mid: Vec<(i32, i32)> = (1..=k).map(|i| (c + i * dc, r + i * dr)).collect();
            if all_empty(b, &mid) && at(b, c + (k + 1) * dc, r + (k + 1) * dr).is_none() {
                let mut pts = mid;
                pts.push((c, r));
                out.insert(shape_of(&pts));
            }
        }
    }
    out
}

/// Adjacent black and white stones (Def. 4, the block interface).
fn interfaces(b: &Board) -> BTreeSet<Shape> {
    let mut out = BTreeSet::new();
    for (c, r) in stones(b, Color::Black) {
        for (dc, dr) in DIRS {
            if at(b, c + dc, r + dr) == Some(Cell::Stone(Color::White)) {
                out.insert(shape_of(&[(c, r), (c + dc, r + dr)]));
            }
        }
    }
    out
}

/// Eye points of colour `c` (Fig. 5.1's eyes, with the diagonal rule of `docs/semantics.md`): an empty point whose
/// neighbours on the board are all stones of `c`, of whose diagonal points on the board the opponent holds at most one
/// when the point has four neighbours, none on the edge or in the corner. Named by the point and its neighbours.
pub fn eye_points(b: &Board, c: Color) -> BTreeSet<Shape> {
    let mut out = BTreeSet::new();
    for p in b.points() {
        if b.get(p) != Cell::Empty {
            continue;
        }
        let nb: Vec<Point> = b.neighbours(p).collect();
        if nb.iter().any(|&n| b.get(n) != Cell::Stone(c)) {
            continue;
        }
        let (x, y) = (p.col as i32, p.row as i32);
        let opp = [(-1, -1), (1, -1), (-1, 1), (1, 1)]
            .iter()
            .filter(|&&(dx, dy)| at(b, x + dx, y + dy) == Some(Cell::Stone(c.other())))
            .count();
        let allowed = if nb.len() == 4 { 1 } else { 0 };
        if opp <= allowed {
            out.insert(shape(nb.into_iter().chain([p])));
        }
    }
    out
}

/// The empty regions (connected empty points) that reach stones of `c` and no stone of the other colour (area
/// scoring's territory), each with the stones it reaches.
pub fn enclosed_spaces(b: &Board, c: Color) -> Vec<(Shape, Shape)> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for p in b.points() {
        if b.get(p) != Cell::Empty || seen.contains(&p) {
            continue;
        }
        let mut region = vec![];
        let mut border = BTreeSet::new();
        let mut stack = vec![p];
        seen.insert(p);
        while let Some(q) = stack.pop() {
            region.push(q);
            for n in b.neighbours(q) {
                match b.get(n) {
                    Cell::Empty => {
                        if seen.insert(n) {
                            stack.push(n);
                        }
                    }
                    Cell::Stone(_) => {
                        border.insert(n);
                    }
                }
            }
        }
        let reaches = |k: Color| border.iter().any(|&n| b.get(n) == Cell::Stone(k));
        if reaches(c) && !reaches(c.other()) {
            out.push((shape(region), shape(border)));
        }
    }
    out
}

/// The captures by `c` at a move: the points whose stones of the other colour the move removed, by connected part,
/// each with the stones of `c` beside them.
pub fn captures(before: &Board, after: &Board, c: Color) -> Vec<(Shape, Shape)> {
    let removed: BTreeSet<Point> = after
        .points()
        .filter(|&p| after.get(p) == Cell::Empty && before.get(p) == Cell::Stone(c.other()))
        .collect();
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for &p in &removed {
        if !seen.insert(p) {
            continue;
        }
        let mut part = vec![];
        let mut stack = vec![p];
        while let Some(q) = stack.pop() {
            part.push(q);
            for n in after.neighbours(q) {
                if removed.contains(&n) && seen.insert(n) {
                    stack.push(n);
                }
            }
        }
        let beside: BTreeSet<Point> = part
            .iter()
            .flat_map(|&q| after.neighbours(q).collect::<Vec<_>>())
            .filter(|&n| after.get(n) == Cell::Stone(c))
            .collect();
        out.push((shape(part), shape(beside)));
    }
    out
}

/// One position of a game, as the oracles see it.
pub struct Position<'a> {
    pub board: &'a Board,
    /// The position before (the same board at the first position).
    pub before: &'a Board,
}

/// Every level-1 class of the setting, by the thesis's definitions.
pub fn level1(pos: &Position) -> Expected {
    let b = pos.board;
    let mut e = level1_board(b);
    for c in [Color::Black, Color::White] {
        let n = colour_name(c);
        e.insert(format!("{n}_eye_point"), eye_points(b, c));
        e.insert(
            format!("{n}_enclosed_space"),
            enclosed_spaces(b, c)
                .into_iter()
                .map(|(r, s)| shape(r.into_iter().chain(s)))
                .collect(),
        );
        e.insert(
            format!("{n}_capture"),
            captures(pos.before, b, c)
                .into_iter()
                .map(|(r, s)| shape(r.into_iter().chain(s)))
                .collect(),
        );
    }
    e
}

/// The level-1 classes of the thesis's tables, over one board.
fn level1_board(b: &Board) -> Expected {
    let mut e = Expected::new();
    let mut put = |name: String, v: BTreeSet<Shape>| {
        e.insert(name, v);
    };
    for c in [Color::Black, Color::White] {
        let n = colour_name(c);
        let bl = blocks(b, c);
        put(format!("{n}_block"), bl.iter().cloned().collect());
        put(
            format!("{n}_one_stone_block"),
            bl.iter().filter(|x| x.len() == 1).cloned().collect(),
        );
        put(
            format!("{n}_two_stone_block"),
            bl.iter().filter(|x| x.len() == 2).cloned().collect(),
        );
        put(
            format!("{n}_one_stone_in_atari"),
            bl.iter()
                .filter(|x| x.len() == 1 && liberties(b, x).len() == 1)
                .cloned()
                .collect(),
        );
        put(format!("{n}_one_point_jump"), one_point(b, c, c));
        put(format!("{n}_two_point_jump"), two_point(b, c, c));
        put(format!("{n}_knights_jump"), knight(b, c, c));
        put(format!("{n}_diagonal_jump"), diagonal(b, c, c));
        put(format!("{n}_long_knights_jump"), long_knight(b, c, c));
        put(format!("{n}_one_from_edge"), from_edge(b, c, 1));
        put(format!("{n}_three_from_edge"), from_edge(b, c, 2));
    }
    put("block_interface".into(), interfaces(b));
    put(
        "black_white_one_point_jump".into(),
        one_point(b, Color::Black, Color::White),
    );
    put("black_white_knights_jump".into(), knight(b, Color::Black, Color::White));
    put(
        "black_white_diagonal_interface".into(),
        diagonal(b, Color::Black, Color::White),
    );
    e
}

/// The spaces a group is made of (§4.1.4, the setting's group class): one- and two-point jumps, knight's jumps,
/// diagonals, one and three points from the edge, of colour `c`.
fn group_spaces(b: &Board, c: Color) -> Vec<Shape> {
    let mut v: Vec<Shape> = Vec::new();
    v.extend(one_point(b, c, c));
    v.extend(two_point(b, c, c));
    v.extend(knight(b, c, c));
    v.extend(diagonal(b, c, c));
    v.extend(from_edge(b, c, 1));
    v.extend(from_edge(b, c, 2));
    v
}

/// A union-find over `n` items.
struct Dsu(Vec<usize>);
impl Dsu {
    fn new(n: usize) -> Self {
        Dsu((0..n).collect())
    }
    fn find(&mut self, x: usize) -> usize {
        let mut r = x;
        while self.0[r] != r {
            r = self.0[r];
        }
        let mut y = x;
        while self.0[y] != r {
            let z = self.0[y];
            self.0[y] = r;
            y = z;
        }
        r
    }
    fn union(&mut self, a: usize, b: usize) {
        let (a, b) = (self.find(a), self.find(b));
        if a != b {
            self.0[a] = b;
        }
    }
}

/// The groups of colour `c`: blocks joined through the spaces whose stones they hold; a block with no space is in no
/// group. Each group as (its blocks, its vertices).
fn groups(b: &Board, c: Color, blocks: &[Shape]) -> Vec<(BTreeSet<usize>, Shape)> {
    let of: BTreeMap<Point, usize> = blocks
        .iter()
        .enumerate()
        .flat_map(|(i, bl)| bl.iter().map(move |&p| (p, i)))
        .collect();
    let spaces = group_spaces(b, c);
    let mut dsu = Dsu::new(blocks.len());
    let mut touched = vec![false; blocks.len()];
    let mut space_of: Vec<usize> = Vec::new();
    for s in &spaces {
        let bs: Vec<usize> = s.iter().filter_map(|p| of.get(p).copied()).collect();
        for &x in &bs {
            touched[x] = true;
            dsu.union(x, bs[0]);
        }
        space_of.push(bs[0]);
    }
    let mut by_root: BTreeMap<usize, (BTreeSet<usize>, BTreeSet<Point>)> = BTreeMap::new();
    for (i, bl) in blocks.iter().enumerate() {
        if touched[i] {
            let e = by_root.entry(dsu.find(i)).or_default();
            e.0.insert(i);
            e.1.extend(bl.iter().copied());
        }
    }
    for (s, &x) in spaces.iter().zip(&space_of) {
        by_root
            .get_mut(&dsu.find(x))
            .expect("its block")
            .1
            .extend(s.iter().copied());
    }
    by_root.into_values().map(|(bs, v)| (bs, shape(v))).collect()
}

/// Every level-2 class of the setting, by the definitions in `docs/semantics.md` (groups, §4.1.4; eyes, Fig. 5.1;
/// territory, §4.7.3; captures, §5.3.2.2; the shapes of §4.7.2 and Fig. 4.39).
pub fn level2(pos: &Position) -> Expected {
    let b = pos.board;
    let mut e = Expected::new();
    for c in [Color::Black, Color::White] {
        let n = colour_name(c);
        let blocks = blocks(b, c);
        let block_of: BTreeMap<Point, usize> = blocks
            .iter()
            .enumerate()
            .flat_map(|(i, bl)| bl.iter().map(move |&p| (p, i)))
            .collect();
        let gs = groups(b, c, &blocks);
        e.insert(format!("{n}_group"), gs.iter().map(|(_, v)| v.clone()).collect());

        // Eyes: the eye point with the blocks of its stones.
        let eyes: BTreeSet<Shape> = eye_points(b, c)
            .into_iter()
            .map(|ep| {
                let mut v: Vec<Point> = ep.clone();
                for p in &ep {
                    if let Some(&i) = block_of.get(p) {
                        v.extend(blocks[i].iter().copied());
                    }
                }
                shape(v)
            })
            .collect();
        e.insert(format!("{n}_eyes"), eyes);

        // Territory: a group (or a block in no group) with the enclosed spaces beside its blocks.
        let spaces = enclosed_spaces(b, c);
        let mut units: Vec<(BTreeSet<usize>, Shape)> = gs.clone();
        let grouped: BTreeSet<usize> = gs.iter().flat_map(|(bs, _)| bs.iter().copied()).collect();
        for (i, bl) in blocks.iter().enumerate() {
            if !grouped.contains(&i) {
                units.push((BTreeSet::from([i]), bl.clone()));
            }
        }
        let mut terr = BTreeSet::new();
        for (bs, v) in units {
            let stones: BTreeSet<Point> = bs.iter().flat_map(|&i| blocks[i].iter().copied()).collect();
            let mut out: Vec<Point> = v.clone();
            let mut any = false;
            for (region, border) in &spaces {
                if border.iter().any(|p| stones.contains(p)) {
                    any = true;
                    out.extend(region.iter().chain(border.iter()).copied());
                }
            }
            if any {
                terr.insert(shape(out));
            }
        }
        e.insert(format!("{n}_territory"), terr);

        // Captures: the captures of this move joined through the blocks that made them; an opponent stone in atari
        // whose holding blocks made some of them leads the element.
        let caps = captures(pos.before, b, c);
        let nk = caps.len();
        let mut dsu = Dsu::new(nk + blocks.len());
        let mut cap_blocks: Vec<BTreeSet<usize>> = Vec::new();
        for (k, (_, beside)) in caps.iter().enumerate() {
            let bs: BTreeSet<usize> = beside.iter().filter_map(|p| block_of.get(p).copied()).collect();
            for &x in &bs {
                dsu.union(k, nk + x);
            }
            cap_blocks.push(bs);
        }
        // each component: its shape
        let mut comp: BTreeMap<usize, Vec<Point>> = BTreeMap::new();
        for (k, (part, beside)) in caps.iter().enumerate() {
            let r = dsu.find(k);
            let v = comp.entry(r).or_default();
            v.extend(part.iter().chain(beside.iter()).copied());
            for &x in &cap_blocks[k] {
                v.extend(blocks[x].iter().copied());
            }
        }
        let mut led: BTreeSet<usize> = BTreeSet::new();
        let mut out = BTreeSet::new();
        let opp = c.other();
        for a in blocks_of_one_in_atari(b, opp) {
            let holders: Vec<Point> = b.neighbours(a).filter(|&n| b.get(n) == Cell::Stone(c)).collect();
            let hb: BTreeSet<usize> = holders.iter().filter_map(|p| block_of.get(p).copied()).collect();
            let roots: BTreeSet<usize> = hb
                .iter()
                .map(|&x| dsu.find(nk + x))
                .filter(|r| comp.contains_key(r))
                .collect();
            if roots.is_empty() {
                continue;
            }
            let mut v: Vec<Point> = vec![a];
            v.extend(holders.iter().copied());
            for &x in &hb {
                v.extend(blocks[x].iter().copied());
            }
            for r in &roots {
                v.extend(comp[r].iter().copied());
                led.insert(*r);
            }
            out.insert(shape(v));
        }
        for (r, v) in comp {
            if !led.contains(&r) {
                out.insert(shape(v));
            }
        }
        e.insert(format!("{n}_captures"), out);
    }
    e.insert("thesis_shapes".into(), thesis_shapes(b));
    e
}

/// The single stones of colour `c` with one liberty (C^1_20).
fn blocks_of_one_in_atari(b: &Board, c: Color) -> Vec<Point> {
    blocks(b, c)
        .into_iter()
        .filter(|bl| bl.len() == 1 && liberties(b, bl).len() == 1)
        .map(|bl| bl[0])
        .collect()
}

/// The shapes of §4.7.2 and Fig. 4.39 (`grammars/go/level2.ets`): Con^2_6, Con^2_10 as the thesis defines them, Con^2_7
/// as reconstructed, and the 3-3 corner play, in the thesis's orientation (right = +col, down = +row).
fn thesis_shapes(b: &Board) -> BTreeSet<Shape> {
    let mut out = BTreeSet::new();
    let single = |c: Color, x: i32, y: i32| {
        at(b, x, y) == Some(Cell::Stone(c))
            && DIRS
                .iter()
                .all(|&(dx, dy)| at(b, x + dx, y + dy) != Some(Cell::Stone(c)))
    };
    let empty = |pts: &[(i32, i32)]| all_empty(b, pts);
    let (w, k) = (Color::White, Color::Black);
    for p in b.points() {
        let (x, y) = (p.col as i32, p.row as i32);
        // Con^2_6: a two-point jump from (x, y) to (x+3, y); (x-1, y+1) diagonal to (x, y) across both corners.
        if single(w, x, y)
            && single(w, x + 3, y)
            && single(w, x - 1, y + 1)
            && empty(&[(x + 1, y), (x + 2, y), (x, y + 1), (x - 1, y)])
        {
            out.insert(shape_of(&[
                (x, y),
                (x + 3, y),
                (x - 1, y + 1),
                (x + 1, y),
                (x + 2, y),
                (x, y + 1),
                (x - 1, y),
            ]));
        }
        // Con^2_10: white (x, y), black (x, y-2) one point above it, black (x-2, y-1) a knight's jump from both.
        if single(w, x, y)
            && single(k, x, y - 2)
            && single(k, x - 2, y - 1)
            && empty(&[(x, y - 1), (x - 1, y - 2), (x - 1, y - 1), (x - 1, y)])
        {
            out.insert(shape_of(&[
                (x, y),
                (x, y - 2),
                (x - 2, y - 1),
                (x, y - 1),
                (x - 1, y - 2),
                (x - 1, y - 1),
                (x - 1, y),
            ]));
        }
        // Con^2_7: a single black stone between two stones of one white block, left and right.
        if single(k, x, y) && at(b, x - 1, y) == Some(Cell::Stone(w)) && at(b, x + 1, y) == Some(Cell::Stone(w)) {
            let wb = blocks(b, w);
            if let Some(bl) = wb.iter().find(|bl| bl.contains(&pt(x - 1, y)))
                && bl.contains(&pt(x + 1, y))
            {
                out.insert(shape(bl.iter().copied().chain([p])));
            }
        }
        // Fig. 4.39: a single stone three points from two edges (the 3-3 point).
        for c in [k, w] {
            if !single(c, x, y) {
                continue;
            }
            let (cols, rows) = (b.cols() as i32, b.rows() as i32);
            for dx in [-1, 1] {
                for dy in [-1, 1] {
                    let h = [(x + dx, y), (x + 2 * dx, y)];
                    let v = [(x, y + dy), (x, y + 2 * dy)];
                    let off_h = x + 3 * dx < 0 || x + 3 * dx >= cols;
                    let off_v = y + 3 * dy < 0 || y + 3 * dy >= rows;
                    if off_h && off_v && empty(&h) && empty(&v) {
                        out.insert(shape_of(&[(x, y), h[0], h[1], v[0], v[1]]));
                    }
                }
            }
        }
    }
    out
}
