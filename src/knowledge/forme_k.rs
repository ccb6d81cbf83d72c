//! Forme_K: K-nearest-neighbour patterns with Bayesian statistics (B. Bouzy, G. Chaslot,
//! *Extraction bayésienne et intégration de patterns représentés suivant les K plus proches
//! voisins pour le go 19x19*, 2005 — `../shared/seeds/004_…`), §3–4.
//!
//! - A pattern advises a move at its centre. Its *important facts* are stones and board edges;
//!   empty points are facts of the tree but not counted. The pattern with `k` facts at a point is
//!   what the board shows in the neighbour order ([`super::order`]) up to and including the k-th
//!   important fact (§3.1).
//! - Stones are read relative to the player to move (own / opponent), and of a pattern's eight
//!   transforms under the symmetries of the square the one whose sequence is least is kept: so
//!   the 16 equivalent patterns of §3.1 (8 symmetries × colour swap) share one set of statistics,
//!   as §6 asks (see `docs/semantics.md`).
//! - An edge is one important fact per side: the first off-board point beyond a side not yet
//!   seen, which in this order is always the point on the axis through the centre; off-board
//!   points beyond a known side are implied and not read.
//! - Patterns are stored in a tree whose nodes have four children (if empty, if own, if
//!   opponent, if edge; §3.2); runs of "if empty" children are stored as one step to the next
//!   important fact, so a node of [`Tree`] is a pattern, and its parent the pattern with one
//!   fact fewer.
//! - Creation (§3.2) walks the tree at every played move for k = 1..Kmax; counting (§4.2) walks it
//!   at every tested point of every position: `n_match` for every pattern matching there,
//!   `n_played` where the move was played. `P(i|p) = n_played / n_match` (§4.1).

use std::sync::OnceLock;

use rustc_hash::FxHashMap;

use super::order::{Order, Sym};
use crate::go::board::{Board, Cell, Color, Point};

/// What the tree branches on at a point (§3.2: "si vide", "si noir", "si blanc", "si bord"),
/// stones relative to the player to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Kind {
    /// An empty intersection (not an important fact).
    Empty = 0,
    /// A stone of the player to move.
    Own = 1,
    /// A stone of the opponent.
    Opp = 2,
    /// The edge of the board.
    Edge = 3,
}

impl Kind {
    /// From its number.
    pub fn from_u8(v: u8) -> Kind {
        match v & 3 {
            0 => Kind::Empty,
            1 => Kind::Own,
            2 => Kind::Opp,
            _ => Kind::Edge,
        }
    }
}

/// An important fact: its position in the neighbour order and what is there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Fact {
    /// Position in [`Order`].
    pub pos: u16,
    /// Own or opponent stone, or edge.
    pub kind: Kind,
}

/// A board as a pattern reads it: per vertex 0 empty, 1 a stone of the player to move, 2 an
/// opponent's stone; padded with off-board cells (3) wide enough that every offset a walk can
/// read is inside the array.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grid {
    cols: i32,
    rows: i32,
    pad: i32,
    width: i32,
    cells: Vec<u8>,
}

const OFF: u8 = 3;

/// Per padded width, the linear offset of every order position under every symmetry.
fn linear(width: i32) -> &'static [i32] {
    static CACHE: [OnceLock<Box<[i32]>>; 512] = [const { OnceLock::new() }; 512];
    CACHE[width as usize].get_or_init(|| {
        let o = Order::get();
        let mut v = Vec::with_capacity(8 * o.len());
        for s in Sym::ALL {
            for j in 0..o.len() {
                let (x, y) = o.image(s, j);
                v.push(y * width + x);
            }
        }
        v.into_boxed_slice()
    })
}

impl Grid {
    /// An empty board.
    pub fn empty(cols: i32, rows: i32) -> Grid {
        // A walk reads offsets of distance at most 3·(side − 1), so |dx|, |dy| ≤ 1.5·side.
        let pad = (3 * cols.max(rows) + 1) / 2 + 1;
        let width = cols + 2 * pad;
        let mut cells = vec![OFF; (width * (rows + 2 * pad)) as usize];
        for y in 0..rows {
            for x in 0..cols {
                cells[((y + pad) * width + x + pad) as usize] = 0;
            }
        }
        Grid {
            cols,
            rows,
            pad,
            width,
            cells,
        }
    }

    /// The board seen by `mover`.
    pub fn new(board: &Board, mover: Color) -> Grid {
        let mut g = Grid::empty(board.cols() as i32, board.rows() as i32);
        for p in board.points() {
            let v = match board.get(p) {
                Cell::Empty => 0,
                Cell::Stone(c) if c == mover => 1,
                Cell::Stone(_) => 2,
            };
            g.set(p.col as i32, p.row as i32, v);
        }
        g
    }

    /// From rows of characters: `.` empty, `X` own, `O` opponent (tests, documentation).
    pub fn from_rows(rows: &[&str]) -> Grid {
        let parsed: Vec<Vec<u8>> = rows
            .iter()
            .map(|r| {
                r.chars()
                    .filter(|c| !c.is_whitespace())
                    .map(|c| match c {
                        'X' => 1,
                        'O' => 2,
                        _ => 0,
                    })
                    .collect()
            })
            .collect();
        let cols = parsed.first().map_or(0, |r| r.len()) as i32;
        let mut g = Grid::empty(cols, parsed.len() as i32);
        for (y, r) in parsed.iter().enumerate() {
            for (x, &v) in r.iter().enumerate() {
                g.set(x as i32, y as i32, v);
            }
        }
        g
    }

    /// Columns.
    pub fn cols(&self) -> i32 {
        self.cols
    }
    /// Rows.
    pub fn rows(&self) -> i32 {
        self.rows
    }

    #[inline]
    fn lin(&self, x: i32, y: i32) -> usize {
        ((y + self.pad) * self.width + x + self.pad) as usize
    }

    /// What `(x, y)` holds (`None`: off the board).
    #[inline]
    pub fn at(&self, x: i32, y: i32) -> Option<u8> {
        if x < 0 || y < 0 || x >= self.cols || y >= self.rows {
            None
        } else {
            Some(self.cells[self.lin(x, y)])
        }
    }

    /// Sets `(x, y)` (0 empty, 1 own, 2 opponent).
    pub fn set(&mut self, x: i32, y: i32, v: u8) {
        let i = self.lin(x, y);
        self.cells[i] = v;
    }
}

/// The canonical walk from a centre: the important facts, one at a time, of the least of the
/// eight transformed sequences (empty < own < opponent < edge at the first point where two
/// sequences differ). The least sequences with k + 1 facts extend the least ones with k facts, so
/// the walk is one path of the tree.
///
/// The sequences still tied have read the same facts, so each has as many facts left in every
/// ring of equal distance: one of them is scanned to its next fact, the others only to the end of
/// that ring.
pub struct Walk<'a> {
    grid: &'a Grid,
    order: &'static Order,
    lin: &'static [i32],
    centre: usize,
    /// Known sides in the pattern's frame: the first off-board |offset| to the left, right, up,
    /// down (`i32::MAX`: not yet seen).
    sides: [i32; 4],
    /// Order positions beyond this one are off the board.
    limit: usize,
    cursor: usize,
    tied: u8,
    /// The largest order position read so far.
    reach: usize,
}

impl<'a> Walk<'a> {
    /// A walk centred on `(cx, cy)`.
    pub fn new(grid: &'a Grid, cx: i32, cy: i32) -> Walk<'a> {
        let (l, r, u, d) = (cx + 1, grid.cols - cx, cy + 1, grid.rows - cy);
        let corners = [
            (-cx, -cy),
            (grid.cols - 1 - cx, -cy),
            (-cx, grid.rows - 1 - cy),
            (grid.cols - 1 - cx, grid.rows - 1 - cy),
        ];
        let dc = corners
            .iter()
            .map(|&(x, y)| super::order::distance(x, y))
            .max()
            .unwrap_or(0);
        let de = 2 * l.max(r).max(u).max(d) as u32;
        let order = Order::get();
        Walk {
            grid,
            order,
            lin: linear(grid.width),
            centre: grid.lin(cx, cy),
            sides: [i32::MAX; 4],
            limit: order.within(dc.max(de)),
            cursor: 0,
            tied: 0xff,
            reach: 0,
        }
    }

    /// The next fact of symmetry `s` in order positions `from..to`.
    #[inline]
    fn scan_from(&self, s: usize, from: usize, to: usize) -> Option<Fact> {
        let lin = &self.lin[s * self.order.len()..(s + 1) * self.order.len()];
        let cells = &self.grid.cells;
        let [l, r, u, d] = self.sides;
        for (j, &off) in lin.iter().enumerate().take(to).skip(from) {
            // The padding keeps every offset of distance ≤ the walk's limit inside the array.
            let v = cells[(self.centre as isize + off as isize) as usize];
            if v == 0 {
                continue;
            }
            if v == OFF {
                let (dx, dy) = self.order.offset(j);
                if dx <= -l || dx >= r || dy <= -u || dy >= d {
                    continue;
                }
                return Some(Fact {
                    pos: j as u16,
                    kind: Kind::Edge,
                });
            }
            return Some(Fact {
                pos: j as u16,
                kind: Kind::from_u8(v),
            });
        }
        None
    }

    /// The symmetries that read the canonical sequence so far (a bit per [`Sym`]).
    pub fn tied(&self) -> u8 {
        self.tied
    }

    /// The largest order position read so far: a change of the board farther from the centre
    /// than this position's distance cannot change what the walk has returned.
    pub fn reach(&self) -> usize {
        self.reach
    }
}

/// Orders two next facts: the lesser continues the least sequence (a later fact means an empty
/// point where the other has a fact; at the same point the lesser kind).
#[inline]
fn less(x: Fact, y: Fact) -> std::cmp::Ordering {
    y.pos.cmp(&x.pos).then(x.kind.cmp(&y.kind))
}

impl Iterator for Walk<'_> {
    type Item = Fact;

    fn next(&mut self) -> Option<Fact> {
        let from = self.cursor;
        if from >= self.limit {
            return None;
        }
        let first = self.tied.trailing_zeros() as usize;
        let Some(mut best) = self.scan_from(first, from, self.limit) else {
            self.reach = self.limit;
            return None;
        };
        let end = self.order.ring_end(best.pos as usize).min(self.limit);
        let mut tied = 1u8 << first;
        let mut rest = self.tied & !(1 << first);
        let mut reach = best.pos as usize;
        while rest != 0 {
            let s = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let Some(f) = self.scan_from(s, from, end) else {
                debug_assert!(false, "tied symmetries have facts in the same ring");
                continue;
            };
            reach = reach.max(f.pos as usize);
            match less(f, best) {
                std::cmp::Ordering::Less => {
                    best = f;
                    tied = 1 << s;
                }
                std::cmp::Ordering::Equal => tied |= 1 << s,
                std::cmp::Ordering::Greater => {}
            }
        }
        self.reach = self.reach.max(reach);
        self.tied = tied;
        self.cursor = best.pos as usize + 1;
        if best.kind == Kind::Edge {
            let (dx, dy) = self.order.offset(best.pos as usize);
            match (dx.signum(), dy.signum()) {
                (-1, _) => self.sides[0] = -dx,
                (1, _) => self.sides[1] = dx,
                (_, -1) => self.sides[2] = -dy,
                _ => self.sides[3] = dy,
            }
        }
        Some(best)
    }
}

/// The canonical facts at `p`, at most `kmax`.
pub fn facts_at(grid: &Grid, p: Point, kmax: usize) -> Vec<Fact> {
    Walk::new(grid, p.col as i32, p.row as i32).take(kmax).collect()
}

/// A node of the pattern tree: the pattern of its parent with one more important fact.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Node {
    /// The pattern with one fact fewer (the root is its own parent).
    pub parent: u32,
    /// The last fact.
    pub fact: Fact,
    /// Number of important facts (k).
    pub k: u8,
}

/// The pattern tree (§3.2): node 0 is the root (the pattern with no fact, which matches every
/// tested point), every other node a pattern. Node ids grow with creation, so a parent's id is
/// less than its children's.
///
/// Creation goes through a hash map of children; matching ([`Tree::deepest`]) through a frozen
/// copy built on first use ([`Frozen`]), laid out for the cache.
#[derive(Debug, Clone)]
pub struct Tree {
    nodes: Vec<Node>,
    children: FxHashMap<u64, u32>,
    frozen: OnceLock<Frozen>,
}

/// A node of [`Frozen`]: its children are `recs[first..first + count]`, sorted by fact.
#[derive(Debug, Clone, Copy)]
#[repr(C)]
struct Rec {
    first: u32,
    /// The node's id in [`Tree`].
    id: u32,
    /// The last fact: `pos << 2 | kind` (positions are below 2^14).
    key: u16,
    count: u16,
}

#[inline]
fn fact_key(f: Fact) -> u16 {
    (f.pos << 2) | f.kind as u16
}

/// The pattern tree frozen for matching: the nodes in breadth-first order, the children of a
/// node contiguous and sorted by their fact, each 12 bytes holding where its own children are.
/// Following a fact reads the parent's children, which hold the child's children's place: one
/// cache line per level, where a hash map of 4 million children costs a miss into its control
/// bytes and another into its slots; and the top levels, which every walk reads, are packed
/// together.
#[derive(Debug, Clone)]
pub struct Frozen {
    recs: Vec<Rec>,
}

impl Frozen {
    fn new(tree: &Tree) -> Frozen {
        let n = tree.nodes.len();
        // Children per node (compressed rows by id), then each list sorted by fact.
        let mut start = vec![0u32; n + 1];
        for nd in &tree.nodes[1..] {
            start[nd.parent as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        // (fact, id) side by side, so that sorting a list reads no other memory.
        let mut fill = start.clone();
        let mut kids = vec![(0u16, 0u32); n.saturating_sub(1)];
        for (id, nd) in tree.nodes.iter().enumerate().skip(1) {
            let f = &mut fill[nd.parent as usize];
            kids[*f as usize] = (fact_key(nd.fact), id as u32);
            *f += 1;
        }
        let mut recs = Vec::with_capacity(n);
        recs.push(Rec {
            first: 0,
            id: 0,
            key: 0,
            count: 0,
        });
        let mut s = 0;
        while s < recs.len() {
            let id = recs[s].id as usize;
            let list = &mut kids[start[id] as usize..start[id + 1] as usize];
            if list.len() > 1 {
                list.sort_unstable();
            }
            recs[s].first = recs.len() as u32;
            recs[s].count = list.len() as u16;
            for &(key, id) in list.iter() {
                recs.push(Rec {
                    first: 0,
                    id,
                    key,
                    count: 0,
                });
            }
            s += 1;
        }
        Frozen { recs }
    }

    /// The deepest pattern matching at the walk's centre (see [`Tree::deepest`]).
    #[inline]
    pub fn deepest(&self, walk: &mut Walk<'_>, kmax: usize) -> u32 {
        let recs = &self.recs[..];
        let mut r = recs[0];
        for _ in 0..kmax {
            if r.count == 0 {
                // A leaf: no further fact can change the answer, so none is read.
                break;
            }
            let Some(f) = walk.next() else { break };
            let k = fact_key(f);
            let kids = &recs[r.first as usize..r.first as usize + r.count as usize];
            let at = if kids.len() <= 8 {
                kids.iter().position(|c| c.key == k)
            } else {
                let i = kids.partition_point(|c| c.key < k);
                (i < kids.len() && kids[i].key == k).then_some(i)
            };
            match at {
                Some(i) => r = kids[i],
                None => break,
            }
        }
        r.id
    }
}

impl Default for Tree {
    fn default() -> Self {
        Tree::new()
    }
}

#[inline]
fn key(parent: u32, f: Fact) -> u64 {
    ((parent as u64) << 16) | ((f.pos as u64) << 2) | f.kind as u64
}

impl Tree {
    /// A tree holding only the root.
    pub fn new() -> Tree {
        Tree {
            nodes: vec![Node {
                parent: 0,
                fact: Fact {
                    pos: 0,
                    kind: Kind::Empty,
                },
                k: 0,
            }],
            children: FxHashMap::default(),
            frozen: OnceLock::new(),
        }
    }

    /// The tree frozen for matching (built on first use, after the last change).
    pub fn frozen(&self) -> &Frozen {
        self.frozen.get_or_init(|| Frozen::new(self))
    }

    /// Number of nodes, the root included.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Only the root.
    pub fn is_empty(&self) -> bool {
        self.nodes.len() == 1
    }

    /// A node.
    pub fn node(&self, id: u32) -> Node {
        self.nodes[id as usize]
    }

    /// The child of `parent` for fact `f`.
    #[inline]
    pub fn child(&self, parent: u32, f: Fact) -> Option<u32> {
        self.children.get(&key(parent, f)).copied()
    }

    /// The child of `parent` for `f`, created if absent.
    pub fn insert(&mut self, parent: u32, f: Fact) -> u32 {
        let n = self.nodes.len() as u32;
        let k = self.nodes[parent as usize].k + 1;
        let e = self.children.entry(key(parent, f)).or_insert(n);
        if *e == n {
            self.nodes.push(Node { parent, fact: f, k });
            self.frozen.take();
        }
        *e
    }

    /// Adds a node read from a store, with its id (ids must come in increasing order, parents
    /// first).
    pub fn push_with_id(&mut self, id: u32, parent: u32, f: Fact) -> Result<(), String> {
        if id as usize != self.nodes.len() || parent >= id {
            return Err(format!(
                "pattern {id}: ids must be consecutive and parents first (parent {parent})"
            ));
        }
        let k = self.nodes[parent as usize].k + 1;
        if self.children.insert(key(parent, f), id).is_some() {
            return Err(format!("pattern {id} repeats a sibling"));
        }
        self.nodes.push(Node { parent, fact: f, k });
        self.frozen.take();
        Ok(())
    }

    /// The path of facts from the root to `id`.
    pub fn facts(&self, mut id: u32) -> Vec<Fact> {
        let mut v = Vec::with_capacity(self.nodes[id as usize].k as usize);
        while id != 0 {
            let n = self.nodes[id as usize];
            v.push(n.fact);
            id = n.parent;
        }
        v.reverse();
        v
    }

    /// Finds the pattern with exactly these facts.
    pub fn find(&self, facts: &[Fact]) -> Option<u32> {
        facts.iter().try_fold(0u32, |n, &f| self.child(n, f))
    }

    /// Creates the patterns of a played move (§3.2 `creerPattern(k, i)` for k = 1..kmax) and
    /// returns the node of each k.
    pub fn create(&mut self, facts: &[Fact]) -> Vec<u32> {
        let mut n = 0u32;
        facts
            .iter()
            .map(|&f| {
                n = self.insert(n, f);
                n
            })
            .collect()
    }

    /// The deepest pattern matching at the walk's centre (at most `kmax` facts): the tree is
    /// followed along the canonical facts until it has no such child. No fact is read past a
    /// pattern that has no longer one, so the walk's [`Walk::reach`] is what the answer
    /// depends on. Matching goes through [`Tree::frozen`].
    pub fn deepest(&self, walk: &mut Walk<'_>, kmax: usize) -> u32 {
        self.frozen().deepest(walk, kmax)
    }

    /// [`Tree::deepest`] through the hash map of children, reading one fact past a leaf (the
    /// route before [`Frozen`]; tests compare the two).
    pub fn deepest_hashed(&self, walk: &mut Walk<'_>, kmax: usize) -> u32 {
        let mut n = 0u32;
        for f in walk.take(kmax) {
            match self.child(n, f) {
                Some(c) => n = c,
                None => break,
            }
        }
        n
    }

    /// The matching patterns along the path to `deepest` (k = 1..), root excluded.
    pub fn path(&self, mut id: u32) -> Vec<u32> {
        let mut v = Vec::new();
        while id != 0 {
            v.push(id);
            id = self.nodes[id as usize].parent;
        }
        v.reverse();
        v
    }

    /// Turns per-node counts of "deepest match here" into per-node match counts: every pattern
    /// on a path matches, so a node's count is its own plus its descendants' (children have
    /// larger ids than their parents).
    pub fn accumulate(&self, counts: &mut [u64]) {
        for id in (1..self.nodes.len()).rev() {
            let p = self.nodes[id].parent as usize;
            counts[p] += counts[id];
        }
    }

    /// Keeps only the nodes for which `keep` holds and every ancestor is kept; returns the map
    /// from old ids to new ones (`u32::MAX`: dropped). The root is always kept.
    pub fn retain(&mut self, keep: impl Fn(u32) -> bool) -> Vec<u32> {
        let mut map = vec![u32::MAX; self.nodes.len()];
        map[0] = 0;
        let mut t = Tree::new();
        for id in 1..self.nodes.len() {
            let n = self.nodes[id];
            let p = map[n.parent as usize];
            if p != u32::MAX && keep(id as u32) {
                map[id] = t.insert(p, n.fact);
            }
        }
        *self = t;
        map
    }
}

/// Statistics of a pattern (§4.1).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stats {
    /// Tested points where the move was played and the pattern matched.
    pub n_played: u64,
    /// Tested points where the pattern matched.
    pub n_match: u64,
}

impl Stats {
    /// `P(i|p) = n_played / n_match` (0 when never matched).
    pub fn p(&self) -> f64 {
        if self.n_match == 0 {
            0.0
        } else {
            self.n_played as f64 / self.n_match as f64
        }
    }
    /// The confidence of §4.3: `s(i|p) = √n_played / n_match`.
    pub fn s(&self) -> f64 {
        if self.n_match == 0 {
            f64::INFINITY
        } else {
            (self.n_played as f64).sqrt() / self.n_match as f64
        }
    }
}

/// The pruning rules of §4.3.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prune {
    /// Keep patterns with `P(i|p) > min_p` (the seed: 0.01).
    pub min_p: f64,
    /// Also drop patterns with `P(i|p) < threshold × s(i|p)` (the seed's confidence rule; off by
    /// default, as the seed left it).
    pub confidence: Option<f64>,
    /// Keep patterns played at least this often (1 keeps every created pattern).
    pub min_played: u64,
}

impl Default for Prune {
    fn default() -> Self {
        Prune {
            min_p: 0.01,
            confidence: None,
            min_played: 1,
        }
    }
}

impl Prune {
    /// Whether a pattern with these statistics is kept.
    pub fn keeps(&self, s: Stats) -> bool {
        let p = s.p();
        s.n_played >= self.min_played && p > self.min_p && self.confidence.is_none_or(|t| p >= t * s.s())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(dx: i32, dy: i32, kind: Kind) -> Fact {
        Fact {
            pos: Order::get().position(dx, dy).unwrap() as u16,
            kind,
        }
    }

    #[test]
    fn a_tiny_board_reads_as_hand_computed() {
        // 3x3, centre (1,1) empty; own stone up, opponent stone on the lower right diagonal.
        let g = Grid::from_rows(&[". X .", ". . .", ". . O"]);
        let facts = facts_at(&g, Point { col: 1, row: 1 }, 10);
        // d=2 ring holds one own stone (up); the least transform puts it last among the four
        // neighbours (down). Then the diagonal opponent, then the four edges.
        assert_eq!(facts[0], f(0, 1, Kind::Own));
        assert_eq!(facts.len(), 6);
        assert_eq!(facts.iter().filter(|x| x.kind == Kind::Edge).count(), 4);
        assert!(facts.iter().any(|x| x.kind == Kind::Opp));
        // Every edge is on an axis at distance 2 (the first off-board points).
        for x in facts.iter().filter(|x| x.kind == Kind::Edge) {
            let (dx, dy) = Order::get().offset(x.pos as usize);
            assert!(dx == 0 || dy == 0);
            assert_eq!(dx.abs() + dy.abs(), 2);
        }
    }

    #[test]
    fn edges_count_once_per_side() {
        // Corner of an empty 19x19: the two near sides, then the two far sides.
        let row = ".".repeat(19);
        let g = Grid::from_rows(&[row.as_str(); 19]);
        let facts = facts_at(&g, Point { col: 0, row: 0 }, 20);
        assert_eq!(facts.len(), 4);
        assert!(facts.iter().all(|x| x.kind == Kind::Edge));
        let d: Vec<u32> = facts.iter().map(|x| Order::get().dist(x.pos as usize)).collect();
        assert_eq!(d, vec![2, 2, 38, 38]);
    }

    #[test]
    fn the_sixteen_forms_read_alike() {
        let rows = [
            ". . . . . . .",
            ". X . O . . .",
            ". . . . X . .",
            ". O . . . . .",
            ". . . X . . .",
            ". . . . . . .",
            ". . . . . . .",
        ];
        // A board with Black to move, and the same position for each of the 16 forms: the
        // board transformed, and the colours swapped with White to move.
        let mut board = Board::new(7, 7);
        for (y, r) in rows.iter().enumerate() {
            for (x, c) in r.split_whitespace().enumerate() {
                let cell = match c {
                    "X" => Cell::Stone(Color::Black),
                    "O" => Cell::Stone(Color::White),
                    _ => Cell::Empty,
                };
                board.set(
                    Point {
                        col: x as u8,
                        row: y as u8,
                    },
                    cell,
                );
            }
        }
        let p = Point { col: 2, row: 3 };
        let base = facts_at(&Grid::new(&board, Color::Black), p, 12);
        assert!(base.len() >= 8);
        for s in Sym::ALL {
            for swap in [false, true] {
                let mut b = Board::new(7, 7);
                let at = |q: Point| {
                    let (a, c) = s.apply(2 * q.col as i32 - 6, 2 * q.row as i32 - 6);
                    Point {
                        col: ((a + 6) / 2) as u8,
                        row: ((c + 6) / 2) as u8,
                    }
                };
                for q in board.points() {
                    let cell = match board.get(q) {
                        Cell::Stone(c) if swap => Cell::Stone(c.other()),
                        c => c,
                    };
                    b.set(at(q), cell);
                }
                let mover = if swap { Color::White } else { Color::Black };
                let got = facts_at(&Grid::new(&b, mover), at(p), 12);
                assert_eq!(got, base, "symmetry {s:?}, colours swapped: {swap}");
            }
        }
        // A different position reads differently.
        let other = facts_at(&Grid::new(&board, Color::White), p, 12);
        assert_ne!(other, base);
    }

    /// The definition, written plainly: each symmetry's whole sequence (with its own known
    /// sides), and the least k-prefix.
    fn naive(grid: &Grid, cx: i32, cy: i32, kmax: usize) -> Vec<Fact> {
        let o = Order::get();
        let seqs: Vec<Vec<Fact>> = Sym::ALL
            .iter()
            .map(|&s| {
                let (mut l, mut r, mut u, mut d) = (i32::MAX, i32::MAX, i32::MAX, i32::MAX);
                let mut v = Vec::new();
                for j in 0..o.len() {
                    let (dx, dy) = o.offset(j);
                    if dx <= -l || dx >= r || dy <= -u || dy >= d {
                        continue;
                    }
                    let (ix, iy) = o.image(s, j);
                    let pos = j as u16;
                    match grid.at(cx + ix, cy + iy) {
                        None => {
                            assert!(dx == 0 || dy == 0, "an edge off the axis");
                            if dx < 0 {
                                l = -dx
                            } else if dx > 0 {
                                r = dx
                            } else if dy < 0 {
                                u = -dy
                            } else {
                                d = dy
                            }
                            v.push(Fact { pos, kind: Kind::Edge });
                        }
                        Some(0) => {}
                        Some(c) => v.push(Fact {
                            pos,
                            kind: Kind::from_u8(c),
                        }),
                    }
                }
                v
            })
            .collect();
        let n = seqs[0].len();
        assert!(seqs.iter().all(|q| q.len() == n));
        let k = kmax.min(n);
        let mut best = seqs[0][..k].to_vec();
        for q in &seqs[1..] {
            let q = &q[..k];
            let ord = q
                .iter()
                .zip(&best)
                .map(|(a, b)| less(*a, *b))
                .find(|o| o.is_ne())
                .unwrap_or(std::cmp::Ordering::Equal);
            if ord.is_lt() {
                best = q.to_vec();
            }
        }
        best
    }

    #[test]
    fn the_walk_agrees_with_the_definition_on_random_boards() {
        use rand::{RngExt, SeedableRng};
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for &(c, r) in &[(1, 1), (1, 5), (2, 3), (5, 5), (7, 4), (9, 9), (13, 13), (19, 19)] {
            for density in [0.05, 0.3, 0.7] {
                let mut g = Grid::empty(c, r);
                for y in 0..r {
                    for x in 0..c {
                        if rng.random::<f64>() < density {
                            g.set(x, y, if rng.random::<bool>() { 1 } else { 2 });
                        }
                    }
                }
                for y in 0..r {
                    for x in 0..c {
                        if g.at(x, y) != Some(0) {
                            continue;
                        }
                        let w: Vec<Fact> = Walk::new(&g, x, y).take(25).collect();
                        assert_eq!(w, naive(&g, x, y, 25), "{c}x{r} at ({x},{y})");
                    }
                }
            }
        }
    }

    #[test]
    fn tree_counts_accumulate_along_paths() {
        let mut t = Tree::new();
        let a = f(0, 1, Kind::Own);
        let b = f(1, 0, Kind::Opp);
        let c = f(0, -1, Kind::Edge);
        let ab = t.create(&[a, b]);
        let ac = t.create(&[a, c]);
        assert_eq!(ab[0], ac[0]);
        assert_eq!(t.len(), 4);
        let mut counts = vec![0u64; t.len()];
        counts[ab[1] as usize] += 2;
        counts[ac[1] as usize] += 1;
        counts[ab[0] as usize] += 1;
        t.accumulate(&mut counts);
        assert_eq!(counts[ab[0] as usize], 4);
        assert_eq!(counts[0], 4);
        assert_eq!(t.facts(ac[1]), vec![a, c]);
        assert_eq!(t.find(&[a, b]), Some(ab[1]));
        let map = t.retain(|id| id != ab[0]);
        assert_eq!(t.len(), 1);
        assert_eq!(map[ac[1] as usize], u32::MAX);
    }
}
