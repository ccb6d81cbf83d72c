//! The recorder: the player's awareness of the board history as an ETS struct (§4.3–4.4).
//!
//! The alphabet (§4.3, decoded in `../shared/seeds/README.md`): one primal class, the *local
//! space awareness process* (attention to one half of the short line joining two neighbouring
//! vertices, Fig. 4.8), and seven primitives:
//! - `pi1`/`pi2`/`pi3`: black/white/empty colour awareness of one vertex; initial and terminal
//!   sites `left`, `up`, `down`, `right`, in that order (§4.3.2);
//! - `pi4`: adjacency awareness, sites `left` and `right` on both sides; its left-hand sites meet
//!   the right or down sites of the left/upper vertex, its right-hand sites the left or up sites
//!   of the right/lower vertex (§4.3.3, Fig. 4.9);
//! - `pi5`: edge, one initial and one terminal site, standing where an off-board neighbour would be
//!   (§4.3.4);
//! - `pi6`: attention starts (one terminal), `pi7`: attention leaves (one initial) (§4.3.5).
//!
//! Structs are lattices of alternating layers (§4.4.1): a colour layer (a colour primitive per
//! attended vertex, an edge primitive per off-board neighbour of an attended vertex), then an
//! adjacency layer (a `pi4` per adjacent pair with an attended end), then colour again. A play or a
//! removal is a vertex's colour primitive changing kind between consecutive colour layers
//! (Fig. 4.14). At the border of the attended region, the adjacency primitive's outer site is
//! joined directly to the next adjacency primitive, with no colour primitive between (§4.4.2, last
//! paragraph). A process nobody will consume is absorbed by a `pi7`; a site nobody feeds is fed by
//! a `pi6`. Attention policies: [`Attention::Full`], [`Attention::Focus`], [`Attention::Sweep`].

use std::sync::Arc;

use crate::ets::{Alphabet, NodeId, PrimitiveKind, Struct, StructError};

use super::board::{Board, Cell, Color, Point};

/// Colour-primitive site indices: left, up, down, right (§4.3.2).
pub const LEFT: usize = 0;
/// Up.
pub const UP: usize = 1;
/// Down.
pub const DOWN: usize = 2;
/// Right.
pub const RIGHT: usize = 3;

/// The Go alphabet and its primitive kinds.
#[derive(Debug, Clone)]
pub struct GoAlphabet {
    /// The alphabet.
    pub alphabet: Arc<Alphabet>,
    /// `pi1`, black.
    pub black: PrimitiveKind,
    /// `pi2`, white.
    pub white: PrimitiveKind,
    /// `pi3`, empty.
    pub empty: PrimitiveKind,
    /// `pi4`, adjacency.
    pub adjacency: PrimitiveKind,
    /// `pi5`, edge.
    pub edge: PrimitiveKind,
    /// `pi6`, attention starts.
    pub start: PrimitiveKind,
    /// `pi7`, attention leaves.
    pub end: PrimitiveKind,
}

impl GoAlphabet {
    /// Builds the alphabet of §4.3.
    pub fn new() -> GoAlphabet {
        let mut a = Alphabet::new();
        let l = a.add_primal_class("local_space").expect("fresh");
        let dirs = ["left", "up", "down", "right"];
        let black = a.add_uniform_primitive("pi1", l, &dirs, &dirs).expect("fresh");
        let white = a.add_uniform_primitive("pi2", l, &dirs, &dirs).expect("fresh");
        let empty = a.add_uniform_primitive("pi3", l, &dirs, &dirs).expect("fresh");
        let adjacency = a
            .add_uniform_primitive("pi4", l, &["left", "right"], &["left", "right"])
            .expect("fresh");
        let edge = a.add_uniform_primitive("pi5", l, &["edge"], &["edge"]).expect("fresh");
        let start = a.add_uniform_primitive("pi6", l, &[], &["out"]).expect("fresh");
        let end = a.add_uniform_primitive("pi7", l, &["in"], &[]).expect("fresh");
        GoAlphabet {
            alphabet: Arc::new(a),
            black,
            white,
            empty,
            adjacency,
            edge,
            start,
            end,
        }
    }
    /// The colour primitive of a cell.
    pub fn colour(&self, c: Cell) -> PrimitiveKind {
        match c {
            Cell::Empty => self.empty,
            Cell::Stone(Color::Black) => self.black,
            Cell::Stone(Color::White) => self.white,
        }
    }
}

impl Default for GoAlphabet {
    fn default() -> Self {
        Self::new()
    }
}

/// Where the player's attention goes (§4.4.1–4.4.2, §5.1.4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Attention {
    /// The whole board at every layer.
    Full,
    /// The neighbourhood of the last move: the vertices within Manhattan distance `radius` of it,
    /// nearest first, at most `cap / 4` of them (each vertex holds four local space processes;
    /// the thesis suggests a cap of 50 processes and 3 refresh iterations per move).
    Focus {
        /// Largest distance from the last move.
        radius: u8,
        /// Most local space awareness processes attended.
        cap: usize,
    },
    /// A pan across the board: a window of `width` columns moving one column per layer from left
    /// to right, at every position.
    Sweep {
        /// Window width in columns (≥ 3 keeps every vertex's neighbours in view with it).
        width: u8,
    },
}

impl Attention {
    /// The thesis's suggested focus: radius 2, 50 processes.
    pub const FOCUS: Attention = Attention::Focus { radius: 2, cap: 50 };
    /// A three-column pan.
    pub const SWEEP: Attention = Attention::Sweep { width: 3 };
}

/// Options of the recorder.
#[derive(Debug, Clone, Copy)]
pub struct RecordOptions {
    /// The attention policy.
    pub attention: Attention,
    /// Refresh layers (colour + adjacency) per position and attended region.
    pub layers: usize,
}

impl Default for RecordOptions {
    fn default() -> Self {
        RecordOptions {
            attention: Attention::Full,
            layers: 1,
        }
    }
}

/// What a primitive of a recording stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// A colour primitive of this vertex.
    Vertex(Point),
    /// An edge primitive: the off-board neighbour of `of`, in direction `dir` (a colour site index).
    Edge {
        /// The on-board vertex.
        of: Point,
        /// The direction from it.
        dir: u8,
    },
    /// An adjacency primitive between `a` (left/upper end, maybe off-board) and the vertex to its
    /// right (`vertical == false`) or below; `a` is in extended coordinates (col+1, row+1).
    Pair {
        /// Extended column of the left/upper end.
        x: u8,
        /// Extended row of the left/upper end.
        y: u8,
        /// Whether the pair is vertical.
        vertical: bool,
    },
    /// An attention primitive (`pi6`/`pi7`).
    Attention,
}

/// A recorded struct with, for every primitive, the layer and position it belongs to and what it
/// stands for.
#[derive(Debug, Clone)]
pub struct Recording {
    /// The struct.
    pub strukt: Struct,
    /// The alphabet's kinds.
    pub kinds: GoAlphabet,
    /// Board size.
    pub size: (u8, u8),
    /// Per node: its sublayer (colour sublayers even, adjacency sublayers odd).
    pub layer: Vec<u32>,
    /// Per node: the position (number of moves played) it perceives.
    pub position: Vec<u32>,
    /// Per node: what it stands for.
    pub place: Vec<Place>,
    /// Number of full (colour + adjacency) layers.
    pub layer_count: u32,
}

struct Recorder<'a> {
    k: &'a GoAlphabet,
    s: Struct,
    cols: usize,
    rows: usize,
    /// Open half-line processes, by (extended vertex, direction): the terminal that carries it.
    open: Vec<Option<(NodeId, u8)>>,
    /// The keys of `open` that may hold a process (a superset; pruned each layer), without repeats.
    open_keys: Vec<usize>,
    /// Whether a key is in `open_keys`.
    listed: Vec<bool>,
    layer: Vec<u32>,
    position: Vec<u32>,
    place: Vec<Place>,
    sub: u32,
}

impl<'a> Recorder<'a> {
    fn ext(&self, x: usize, y: usize) -> usize {
        y * (self.cols + 2) + x
    }
    fn node(&mut self, kind: PrimitiveKind, pos: u32, place: Place) -> Result<NodeId, StructError> {
        let n = self.s.add_primitive(kind)?;
        self.layer.push(self.sub);
        self.position.push(pos);
        self.place.push(place);
        Ok(n)
    }
    /// Feeds initial site `site` of `n` with the open half-line `key`, or with a fresh `pi6`.
    fn feed(&mut self, key: usize, n: NodeId, site: usize, pos: u32) -> Result<(), StructError> {
        match self.open[key].take() {
            Some((m, t)) => self.s.connect(m, t as usize, n, site),
            None => {
                let st = self.node(self.k.start, pos, Place::Attention)?;
                self.s.connect(st, 0, n, site)
            }
        }
    }
    fn set_open(&mut self, key: usize, v: (NodeId, u8)) {
        if !self.listed[key] {
            self.listed[key] = true;
            self.open_keys.push(key);
        }
        self.open[key] = Some(v);
    }
    fn absorb(&mut self, key: usize, pos: u32) -> Result<(), StructError> {
        if let Some((m, t)) = self.open[key].take() {
            let e = self.node(self.k.end, pos, Place::Attention)?;
            self.s.connect(m, t as usize, e, 0)?;
        }
        Ok(())
    }

    /// One refresh layer over the attended vertices `att` (a mask over board points).
    fn layer(&mut self, board: &Board, att: &[bool], pos: u32) -> Result<(), StructError> {
        let (cols, rows) = (self.cols, self.rows);
        let on = |x: usize, y: usize| x >= 1 && y >= 1 && x <= cols && y <= rows;
        let attended = |x: usize, y: usize| on(x, y) && att[(y - 1) * cols + (x - 1)];
        // (dx, dy) for each colour site direction.
        const D: [(isize, isize); 4] = [(-1, 0), (0, -1), (0, 1), (1, 0)];
        let present = |x: usize, y: usize| -> bool {
            attended(x, y)
                || (!on(x, y)
                    && D.iter().any(|&(dx, dy)| {
                        let (nx, ny) = (x as isize + dx, y as isize + dy);
                        nx >= 0 && ny >= 0 && attended(nx as usize, ny as usize)
                    }))
        };
        // The attended region's bounding box, one wider (extended coordinates).
        let (mut x0, mut y0, mut x1, mut y1) = (usize::MAX, usize::MAX, 0, 0);
        for (i, _) in att.iter().enumerate().filter(|(_, a)| **a) {
            let (x, y) = (i % cols + 1, i / cols + 1);
            (x0, y0, x1, y1) = (x0.min(x - 1), y0.min(y - 1), x1.max(x + 1), y1.max(y + 1));
        }
        if x0 == usize::MAX {
            return Ok(());
        }
        // 0. Absorb what this layer will not consume.
        let keys = std::mem::take(&mut self.open_keys);
        for &key in &keys {
            if self.open[key].is_none() {
                continue;
            }
            let (cell, d) = (key / 4, key % 4);
            let (x, y) = (cell % (cols + 2), cell / (cols + 2));
            let (dx, dy) = D[d];
            let (nx, ny) = (x as isize + dx, y as isize + dy);
            let across = nx >= 0 && ny >= 0 && attended(nx as usize, ny as usize);
            if !attended(x, y) && !across {
                // neither a colour primitive here nor a border adjacency will take it; an edge
                // slot's only live direction is toward its attended neighbour
                self.absorb(key, pos)?;
            }
        }
        let mut kept = Vec::with_capacity(keys.len());
        for k in keys {
            if self.open[k].is_some() {
                kept.push(k);
            } else {
                self.listed[k] = false;
            }
        }
        self.open_keys = kept;
        // 1. Colour sublayer.
        for y in y0..=y1 {
            for x in x0..=x1 {
                if attended(x, y) {
                    let p = Point {
                        col: (x - 1) as u8,
                        row: (y - 1) as u8,
                    };
                    let n = self.node(self.k.colour(board.get(p)), pos, Place::Vertex(p))?;
                    for d in 0..4 {
                        let key = self.ext(x, y) * 4 + d;
                        self.feed(key, n, d, pos)?;
                        self.set_open(key, (n, d as u8));
                    }
                } else if !on(x, y) && present(x, y) {
                    for (d, &(dx, dy)) in D.iter().enumerate() {
                        let (nx, ny) = (x as isize + dx, y as isize + dy);
                        if nx < 0 || ny < 0 || !attended(nx as usize, ny as usize) {
                            continue;
                        }
                        let of = Point {
                            col: (nx - 1) as u8,
                            row: (ny - 1) as u8,
                        };
                        let n = self.node(self.k.edge, pos, Place::Edge { of, dir: (3 - d) as u8 })?;
                        let key = self.ext(x, y) * 4 + d;
                        self.feed(key, n, 0, pos)?;
                        self.set_open(key, (n, 0));
                    }
                }
            }
        }
        self.sub += 1;
        // 2. Adjacency sublayer: pairs (x,y)-(x+1,y) and (x,y)-(x,y+1) with an attended end.
        for y in y0..=y1 {
            for x in x0..=x1 {
                for vertical in [false, true] {
                    let (x2, y2) = if vertical { (x, y + 1) } else { (x + 1, y) };
                    if x2 >= cols + 2 || y2 >= rows + 2 || !(attended(x, y) || attended(x2, y2)) {
                        continue;
                    }
                    if !on(x, y) && !on(x2, y2) {
                        continue;
                    }
                    let (da, db) = if vertical { (DOWN, UP) } else { (RIGHT, LEFT) };
                    let n = self.node(
                        self.k.adjacency,
                        pos,
                        Place::Pair {
                            x: x as u8,
                            y: y as u8,
                            vertical,
                        },
                    )?;
                    let (ka, kb) = (self.ext(x, y) * 4 + da, self.ext(x2, y2) * 4 + db);
                    self.feed(ka, n, 0, pos)?;
                    self.feed(kb, n, 1, pos)?;
                    self.set_open(ka, (n, 0));
                    self.set_open(kb, (n, 1));
                }
            }
        }
        self.sub += 1;
        Ok(())
    }
}

/// The attended vertices of position `pos` for a focus on `last` (None: nothing attended).
fn focus_mask(cols: usize, rows: usize, last: Option<Point>, radius: u8, cap: usize) -> Vec<bool> {
    let mut m = vec![false; cols * rows];
    let Some(c) = last else { return m };
    let mut pts: Vec<(u32, u8, u8)> = Vec::new();
    for row in 0..rows as u8 {
        for col in 0..cols as u8 {
            let d = (col as i32 - c.col as i32).unsigned_abs() + (row as i32 - c.row as i32).unsigned_abs();
            if d <= radius as u32 {
                pts.push((d, row, col));
            }
        }
    }
    pts.sort();
    for &(_, row, col) in pts.iter().take((cap / 4).max(1)) {
        m[row as usize * cols + col as usize] = true;
    }
    m
}

/// Records the struct of a sequence of positions. `last_moves[k]` is the vertex played to reach
/// position k (None for the initial position and passes); it steers the focus policy.
pub fn record(
    kinds: &GoAlphabet,
    positions: &[Board],
    last_moves: &[Option<Point>],
    opts: RecordOptions,
) -> Result<Recording, StructError> {
    let first = positions.first().cloned().unwrap_or_else(|| Board::new(19, 19));
    let (cols, rows) = (first.cols() as usize, first.rows() as usize);
    let per_layer = cols * rows * 3 + 4 * (cols + rows);
    let n_layers = match opts.attention {
        Attention::Sweep { width } => positions.len() * opts.layers * (cols + 1).saturating_sub(width as usize).max(1),
        _ => positions.len() * opts.layers,
    };
    let est = if matches!(opts.attention, Attention::Focus { .. }) {
        n_layers * 64
    } else {
        n_layers * per_layer
    };
    let mut r = Recorder {
        k: kinds,
        // Processes: up to four per colour primitive, two per adjacency one (the slots, twice that).
        s: Struct::with_capacity(kinds.alphabet.clone(), est, est * 3),
        cols,
        rows,
        open: vec![None; (cols + 2) * (rows + 2) * 4],
        open_keys: Vec::new(),
        listed: vec![false; (cols + 2) * (rows + 2) * 4],
        layer: Vec::with_capacity(est),
        position: Vec::with_capacity(est),
        place: Vec::with_capacity(est),
        sub: 0,
    };
    let mut last_focus: Option<Point> = None;
    for (pos, board) in positions.iter().enumerate() {
        let p = pos as u32;
        match opts.attention {
            Attention::Full => {
                let all = vec![true; cols * rows];
                for _ in 0..opts.layers {
                    r.layer(board, &all, p)?;
                }
            }
            Attention::Focus { radius, cap } => {
                if let Some(Some(m)) = last_moves.get(pos) {
                    last_focus = Some(*m);
                }
                let mask = focus_mask(cols, rows, last_focus, radius, cap);
                if mask.iter().any(|&b| b) {
                    for _ in 0..opts.layers {
                        r.layer(board, &mask, p)?;
                    }
                }
            }
            Attention::Sweep { width } => {
                let w = (width as usize).clamp(1, cols);
                for start in 0..=(cols - w) {
                    let mut mask = vec![false; cols * rows];
                    for row in 0..rows {
                        for col in start..start + w {
                            mask[row * cols + col] = true;
                        }
                    }
                    for _ in 0..opts.layers {
                        r.layer(board, &mask, p)?;
                    }
                }
            }
        }
    }
    let last = positions.len().saturating_sub(1) as u32;
    let mut keys = std::mem::take(&mut r.open_keys);
    keys.sort_unstable();
    keys.dedup();
    for key in keys {
        r.absorb(key, last)?;
    }
    let layer_count = r.sub / 2;
    r.s.shrink_to_fit();
    Ok(Recording {
        strukt: r.s,
        kinds: kinds.clone(),
        size: (cols as u8, rows as u8),
        layer: r.layer,
        position: r.position,
        place: r.place,
        layer_count,
    })
}
