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
//!
//! Under full attention every position after the first makes the same layers as the one before
//! but for the colour primitives of the vertices whose colour changed. A step with no attention
//! beginning or ending (every one but the first) is plain, and a step whose two steps before were
//! plain (from the fourth position on) is fed from the same places as the step before, one step
//! on. The sensor then writes it as one copy of the step before with those kinds changed
//! ([`Struct::append_copy`] through [`Grow::add_copy`]): the same struct as perceiving every
//! vertex again ([`Sensor::copy_steps`] turns it off; the tests compare both), made in one pass
//! over the slots, and the engine reads its repeats from the copy.

use smallvec::SmallVec;
use std::ops::Range;
use std::sync::Arc;

use crate::ets::timeline::{Pipelined, Steps, Timeline, TimelineError};
use crate::ets::{Alphabet, NodeId, PrimitiveKind, Struct};

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
    /// The neighbourhood of the last move. The cap bounds the *focus window*, what the player
    /// chooses to look at: the vertices within Manhattan distance `radius` of the last move,
    /// nearest first, at most `cap / 4` of them (each vertex holds four local space processes;
    /// the thesis suggests a cap of 50 processes and 3 refresh iterations per move). A layer
    /// also perceives what is not chosen: the vertices whose colour changed and their neighbours,
    /// and the far ends of pairs last perceived from one end alone (closed transitively). The
    /// first position is a look at the whole board. See `docs/semantics.md`, "The recorder".
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

/// Where the sensor writes: a timeline (within an open step) or a plain struct.
pub trait Grow {
    /// Adds a primitive.
    fn add(&mut self, kind: PrimitiveKind) -> Result<NodeId, TimelineError>;
    /// Joins a terminal site of an earlier primitive to an initial site of a later one.
    fn connect(&mut self, from: NodeId, from_site: usize, to: NodeId, to_site: usize) -> Result<(), TimelineError>;
    /// Adds a copy of the earlier primitives `src`, fed as they are one translation on, of their
    /// kinds but where `kinds` (offset, kind) says otherwise ([`Struct::append_copy`]); returns
    /// the copy's first node.
    fn add_copy(&mut self, src: Range<NodeId>, kinds: &[(u32, PrimitiveKind)]) -> Result<NodeId, TimelineError>;
}

impl Grow for Timeline {
    fn add(&mut self, kind: PrimitiveKind) -> Result<NodeId, TimelineError> {
        Timeline::add(self, kind)
    }
    fn connect(&mut self, from: NodeId, from_site: usize, to: NodeId, to_site: usize) -> Result<(), TimelineError> {
        Timeline::connect(self, from, from_site, to, to_site)
    }
    fn add_copy(&mut self, src: Range<NodeId>, kinds: &[(u32, PrimitiveKind)]) -> Result<NodeId, TimelineError> {
        Timeline::add_copy(self, src, kinds)
    }
}

impl Grow for Pipelined<'_> {
    fn add(&mut self, kind: PrimitiveKind) -> Result<NodeId, TimelineError> {
        Steps::add(self, kind)
    }
    fn connect(&mut self, from: NodeId, from_site: usize, to: NodeId, to_site: usize) -> Result<(), TimelineError> {
        Steps::connect(self, from, from_site, to, to_site)
    }
    fn add_copy(&mut self, src: Range<NodeId>, kinds: &[(u32, PrimitiveKind)]) -> Result<NodeId, TimelineError> {
        Steps::add_copy(self, src, kinds)
    }
}

impl Grow for Struct {
    fn add(&mut self, kind: PrimitiveKind) -> Result<NodeId, TimelineError> {
        Ok(self.add_primitive(kind)?)
    }
    fn connect(&mut self, from: NodeId, from_site: usize, to: NodeId, to_site: usize) -> Result<(), TimelineError> {
        Ok(Struct::connect(self, from, from_site, to, to_site)?)
    }
    fn add_copy(&mut self, src: Range<NodeId>, kinds: &[(u32, PrimitiveKind)]) -> Result<NodeId, TimelineError> {
        Ok(self.append_copy(src, kinds, |_, _, _, _| {})?)
    }
}

/// (dx, dy) for each colour site direction: left, up, down, right.
const D: [(isize, isize); 4] = [(-1, 0), (0, -1), (0, 1), (1, 0)];

/// What the sensor changed at one position (for undo).
#[derive(Debug, Clone, Default)]
struct SensorLog {
    open: Vec<(u32, Option<(NodeId, u8)>)>,
    half: Vec<(u32, u8)>,
    open_shift: NodeId,
    nodes: usize,
    sub: u32,
    focus: Option<Point>,
    copyable: Option<Copyable>,
    plain: bool,
}

/// A step the next one can copy ([`Struct::append_copy`]): one perceived at full attention with
/// every process from the step before (no attention began or ended in it), so that the next
/// step at full attention makes the same primitives and processes, one translation on, and only
/// the colour primitives of the vertices whose colour changed differ (in kind).
#[derive(Debug, Clone)]
struct Copyable {
    /// Its primitives.
    nodes: Range<NodeId>,
    /// Its first sublayer.
    sub: u32,
    /// Per vertex (row by row): the offsets of its colour primitives in the step, one a layer.
    colours: Arc<Vec<SmallVec<[u32; 1]>>>,
    /// Per vertex: the kind of its colour primitives.
    kinds: Vec<PrimitiveKind>,
}

/// The player's awareness as it grows, position after position (§4.3–4.4): turns each position
/// into the refresh layers of one step.
///
/// Awareness is not dropped when attention moves on (§4.4.2: "a quick glance at the board is
/// sufficient to refresh his memory"): the processes of a vertex that is not attended stay open
/// ("dormant") and its next colour primitive, whenever attention comes back, consumes them, so a
/// vertex's awareness — and the elements it carries — goes on, and a stone played or removed while
/// attention was elsewhere is perceived as a play or a removal when it returns. At the border of
/// the attended region, the adjacency primitive toward an unattended vertex is a look from the
/// attended side: its far-side site is fed by a `pi6` and absorbed by a `pi7`, leaving the
/// unattended vertex's own processes untouched. A pair perceived from one side is perceived from
/// both the next time either end is attended. A position that changes nothing (a pass) adds no
/// layer. See `docs/semantics.md`.
#[derive(Debug, Clone)]
pub struct Sensor {
    k: GoAlphabet,
    cols: usize,
    rows: usize,
    opts: RecordOptions,
    /// Per (extended vertex, direction): the terminal carrying that half-line's process, its
    /// node less `open_shift` ([`Sensor::open_at`]).
    open: Vec<Option<(NodeId, u8)>>,
    /// What the nodes of `open` are stored less: a step made as a copy moves every open
    /// half-line one translation on ([`Sensor::copy_step`]), which is this sum moved, not the
    /// table rewritten (and logged for undo) entry by entry.
    open_shift: NodeId,
    /// Per pair (extended vertex × 2 + vertical): 0, or the end (1: left/upper, 2: right/lower)
    /// perceived alone since the pair was last perceived from both ends.
    half: Vec<u8>,
    /// Per primitive: its sublayer (colour sublayers even, adjacency sublayers odd).
    pub layer: Runs,
    /// Per primitive: what it stands for.
    pub place: Vec<Place>,
    /// Per primitive: the position it perceives.
    pub position: Runs,
    sub: u32,
    focus: Option<Point>,
    positions: u32,
    log: Option<Vec<SensorLog>>,
    cur: SensorLog,
    /// Whether a step at full attention copies the step before when it can (on by default).
    copy: bool,
    /// The last step, when the next one at full attention can copy it.
    copyable: Option<Copyable>,
    /// Whether the last step was perceived at full attention with no attention beginning or
    /// ending in it (a step is copied only when the one before it was so too: its processes then
    /// come from a step of the same layout).
    plain: bool,
    /// Positions perceived as a copy of the step before.
    copies: u32,
}

/// A value per primitive, kept as runs of equal values (a sublayer, a position: each the same
/// for the many primitives perceived together), so that it costs per run, not per primitive.
#[derive(Debug, Clone, Default)]
pub struct Runs {
    /// `(first primitive, value)` of each run, in primitive order.
    runs: Vec<(u32, u32)>,
    len: u32,
}

impl Runs {
    fn push(&mut self, v: u32) {
        if self.runs.last().is_none_or(|r| r.1 != v) {
            self.runs.push((self.len, v));
        }
        self.len += 1;
    }
    /// The value of primitive `n` (< [`Runs::len`]).
    pub fn get(&self, n: usize) -> u32 {
        let i = self.runs.partition_point(|r| r.0 as usize <= n);
        self.runs[i - 1].1
    }
    /// Number of primitives.
    pub fn len(&self) -> usize {
        self.len as usize
    }
    /// Whether no primitive has a value.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The value of the last primitive.
    pub fn last(&self) -> Option<u32> {
        self.runs.last().map(|r| r.1)
    }
    /// The value of every primitive, in order.
    pub fn to_vec(&self) -> Vec<u32> {
        let mut out = Vec::with_capacity(self.len as usize);
        for (k, &(from, v)) in self.runs.iter().enumerate() {
            let to = self.runs.get(k + 1).map_or(self.len, |r| r.0);
            out.extend(std::iter::repeat_n(v, (to - from) as usize));
        }
        out
    }
    /// Appends `n` primitives of value `v`.
    fn push_n(&mut self, v: u32, n: usize) {
        if n == 0 {
            return;
        }
        if self.runs.last().is_none_or(|r| r.1 != v) {
            self.runs.push((self.len, v));
        }
        self.len += n as u32;
    }
    /// Appends the values of the earlier primitives `from`, each plus `add`.
    fn extend_from_within(&mut self, from: Range<usize>, add: u32) {
        if from.is_empty() {
            return;
        }
        let first = self.runs.partition_point(|r| r.0 as usize <= from.start) - 1;
        let mut pieces: SmallVec<[(u32, usize); 8]> = SmallVec::new();
        for k in first..self.runs.len() {
            let (start, v) = self.runs[k];
            if start as usize >= from.end {
                break;
            }
            let end = self.runs.get(k + 1).map_or(self.len as usize, |r| r.0 as usize);
            pieces.push((v + add, end.min(from.end) - (start as usize).max(from.start)));
        }
        for (v, n) in pieces {
            self.push_n(v, n);
        }
    }
    fn truncate(&mut self, n: usize) {
        if n < self.len as usize {
            let k = self.runs.partition_point(|r| (r.0 as usize) < n);
            self.runs.truncate(k);
            self.len = n as u32;
        }
    }
    fn shrink_to_fit(&mut self) {
        self.runs.shrink_to_fit();
    }
    fn heap_bytes(&self) -> usize {
        self.runs.capacity() * 8
    }
}

impl Sensor {
    /// Heap bytes held: what each primitive stands for (its sublayer, position and place), and the
    /// open half-lines.
    pub fn heap_bytes(&self) -> usize {
        self.layer.heap_bytes()
            + self.position.heap_bytes()
            + self.place.capacity() * std::mem::size_of::<Place>()
            + self.open.capacity() * std::mem::size_of::<Option<(NodeId, u8)>>()
            + self.half.capacity()
            + self.log.as_ref().map_or(0, |l| {
                l.capacity() * std::mem::size_of::<SensorLog>()
                    + l.iter()
                        .map(|s| {
                            s.open.capacity() * std::mem::size_of::<(u32, Option<(NodeId, u8)>)>()
                                + s.half.capacity() * 8
                        })
                        .sum::<usize>()
            })
    }
    /// Releases spare capacity (a record classified to its end).
    pub fn shrink_to_fit(&mut self) {
        self.layer.shrink_to_fit();
        self.position.shrink_to_fit();
        self.place.shrink_to_fit();
    }
    /// A sensor for a `cols` × `rows` board.
    pub fn new(kinds: &GoAlphabet, cols: u8, rows: u8, opts: RecordOptions) -> Sensor {
        let (cols, rows) = (cols as usize, rows as usize);
        Sensor {
            k: kinds.clone(),
            cols,
            rows,
            opts,
            open: vec![None; (cols + 2) * (rows + 2) * 4],
            open_shift: 0,
            half: vec![0; (cols + 2) * (rows + 2) * 2],
            layer: Runs::default(),
            place: Vec::new(),
            position: Runs::default(),
            sub: 0,
            focus: None,
            positions: 0,
            log: None,
            cur: SensorLog::default(),
            copy: true,
            copyable: None,
            plain: false,
            copies: 0,
        }
    }
    /// Whether a position at full attention copies the step before when it can
    /// ([`Struct::append_copy`], the primitives of the vertices whose colour changed of their
    /// new colour) rather than perceiving every vertex again: on by default, the struct the same
    /// either way.
    pub fn copy_steps(&mut self, on: bool) {
        self.copy = on;
        if !on {
            self.copyable = None;
        }
    }
    /// Keeps what each position changed, so that [`Sensor::undo`] can take it back.
    pub fn keep_journal(&mut self, keep: bool) {
        self.log = keep.then(Vec::new);
    }
    /// The options.
    pub fn options(&self) -> RecordOptions {
        self.opts
    }
    /// Number of positions perceived.
    pub fn positions(&self) -> u32 {
        self.positions
    }
    /// How many positions were perceived as a copy of the step before ([`Sensor::copy_steps`]),
    /// taken back ones included.
    pub fn copied_steps(&self) -> u32 {
        self.copies
    }
    /// Board size.
    pub fn size(&self) -> (u8, u8) {
        (self.cols as u8, self.rows as u8)
    }

    fn ext(&self, x: usize, y: usize) -> usize {
        y * (self.cols + 2) + x
    }
    fn set_open(&mut self, key: usize, v: Option<(NodeId, u8)>) {
        if self.log.is_some() {
            self.cur.open.push((key as u32, self.open[key]));
        }
        self.open[key] = v.map(|(n, s)| (n.wrapping_sub(self.open_shift), s));
    }
    /// The terminal carrying half-line `key`, if its process is open.
    #[inline]
    fn open_at(&self, key: usize) -> Option<(NodeId, u8)> {
        self.open[key].map(|(n, s)| (n.wrapping_add(self.open_shift), s))
    }
    fn set_half(&mut self, key: usize, v: u8) {
        if self.half[key] == v {
            return;
        }
        if self.log.is_some() {
            self.cur.half.push((key as u32, self.half[key]));
        }
        self.half[key] = v;
    }
    fn node<G: Grow>(
        &mut self,
        g: &mut G,
        kind: PrimitiveKind,
        pos: u32,
        place: Place,
    ) -> Result<NodeId, TimelineError> {
        let n = g.add(kind)?;
        self.layer.push(self.sub);
        self.position.push(pos);
        self.place.push(place);
        Ok(n)
    }
    /// The terminal carrying half-line `key`, or a new `pi6` (attention starts there).
    fn source<G: Grow>(&mut self, g: &mut G, key: Option<usize>, pos: u32) -> Result<(NodeId, u8), TimelineError> {
        if let Some(k) = key
            && let Some(v) = self.open_at(k)
        {
            return Ok(v);
        }
        let st = self.node(g, self.k.start, pos, Place::Attention)?;
        Ok((st, 0))
    }

    /// Perceives position `pos` (the board after it, the move that reached it, the vertices whose
    /// colour changed) as the layers of one step of `g`.
    pub fn perceive<G: Grow>(
        &mut self,
        g: &mut G,
        board: &Board,
        last_move: Option<Point>,
        changed: &[Point],
    ) -> Result<(), TimelineError> {
        let pos = self.positions;
        self.cur = SensorLog {
            open_shift: self.open_shift,
            nodes: self.place.len(),
            sub: self.sub,
            focus: self.focus,
            copyable: if self.log.is_some() {
                self.copyable.clone()
            } else {
                None
            },
            plain: self.plain,
            ..SensorLog::default()
        };
        self.positions += 1;
        let (cols, rows) = (self.cols, self.rows);
        if let Some(m) = last_move {
            self.focus = Some(m);
        }
        if pos > 0 && changed.is_empty() {
            // Nothing on the board changed (a pass): nothing new to perceive.
            self.finish_log();
            return Ok(());
        }
        let all = vec![true; cols * rows];
        let layers = self.opts.layers.max(1);
        match self.opts.attention {
            Attention::Full => {
                let copy = self
                    .copyable
                    .take()
                    .filter(|c| c.nodes.end as usize == self.place.len());
                if let Some(c) = copy {
                    self.copy_step(g, board, pos, c)?;
                } else {
                    let (from, sub) = (self.place.len(), self.sub);
                    for _ in 0..layers {
                        self.layer(g, board, &all, pos)?;
                    }
                    let now = self.copyable_since(board, from, sub);
                    let before = std::mem::replace(&mut self.plain, now.is_some());
                    self.copyable = now.filter(|_| self.copy && before);
                }
            }
            Attention::Focus { radius, cap } => {
                (self.copyable, self.plain) = (None, false);
                let mask = if pos == 0 {
                    // The player's first look takes in the whole board.
                    all
                } else {
                    let mut m = focus_mask(cols, rows, self.focus, radius, cap);
                    for &p in changed {
                        m[p.row as usize * cols + p.col as usize] = true;
                        for n in board.neighbours(p) {
                            m[n.row as usize * cols + n.col as usize] = true;
                        }
                    }
                    m
                };
                for _ in 0..layers {
                    self.layer(g, board, &mask, pos)?;
                }
            }
            Attention::Sweep { width } => {
                (self.copyable, self.plain) = (None, false);
                let w = (width as usize).clamp(1, cols);
                for start in 0..=(cols - w) {
                    let mut mask = vec![false; cols * rows];
                    for row in 0..rows {
                        for col in start..start + w {
                            mask[row * cols + col] = true;
                        }
                    }
                    for _ in 0..layers {
                        self.layer(g, board, &mask, pos)?;
                    }
                }
            }
        }
        self.finish_log();
        Ok(())
    }

    fn finish_log(&mut self) {
        if let Some(l) = self.log.as_mut() {
            l.push(std::mem::take(&mut self.cur));
        }
    }

    /// Takes the last position back (the struct it wrote is the caller's to take back).
    pub fn undo(&mut self) -> bool {
        let Some(l) = self.log.as_mut().and_then(|l| l.pop()) else {
            return false;
        };
        for (k, v) in l.open.into_iter().rev() {
            self.open[k as usize] = v;
        }
        self.open_shift = l.open_shift;
        for (k, v) in l.half.into_iter().rev() {
            self.half[k as usize] = v;
        }
        self.layer.truncate(l.nodes);
        self.place.truncate(l.nodes);
        self.position.truncate(l.nodes);
        self.sub = l.sub;
        self.focus = l.focus;
        self.copyable = l.copyable;
        self.plain = l.plain;
        self.positions -= 1;
        true
    }

    /// The step perceived from primitive `from` and sublayer `sub` on, when it is plain: no
    /// attention began or ended in it, each vertex has one colour primitive a layer, and every
    /// open half-line comes from it. The next step at full attention can copy it when the step
    /// before it was plain too: each half-line's process into it then came from the node at the
    /// same offset one step back, as it will come from its node at that offset into the copy.
    fn copyable_since(&self, board: &Board, from: usize, sub: u32) -> Option<Copyable> {
        let to = self.place.len();
        let layers = (self.sub - sub) / 2;
        if to == from || layers == 0 {
            return None;
        }
        let mut colours: Vec<SmallVec<[u32; 1]>> = vec![SmallVec::new(); self.cols * self.rows];
        for (o, place) in self.place[from..].iter().enumerate() {
            match *place {
                Place::Attention => return None,
                Place::Vertex(p) => colours[p.row as usize * self.cols + p.col as usize].push(o as u32),
                _ => {}
            }
        }
        let nodes = from as NodeId..to as NodeId;
        if colours.iter().any(|c| c.len() != layers as usize)
            || (self.open.iter().flatten()).any(|&(n, _)| !nodes.contains(&n.wrapping_add(self.open_shift)))
        {
            return None;
        }
        let kinds = board.points().map(|p| self.k.colour(board.get(p))).collect();
        Some(Copyable {
            nodes,
            sub,
            colours: Arc::new(colours),
            kinds,
        })
    }

    /// Perceives position `pos` at full attention as a copy of step `c` (the step before), its
    /// colour primitives of the vertices whose colour changed of their new colour: the primitives
    /// and processes [`Sensor::layer`] would make.
    fn copy_step<G: Grow>(&mut self, g: &mut G, board: &Board, pos: u32, mut c: Copyable) -> Result<(), TimelineError> {
        let mut kinds: Vec<(u32, PrimitiveKind)> = Vec::new();
        for (i, p) in board.points().enumerate() {
            let k = self.k.colour(board.get(p));
            if k != c.kinds[i] {
                kinds.extend(c.colours[i].iter().map(|&o| (o, k)));
                c.kinds[i] = k;
            }
        }
        kinds.sort_unstable();
        let first = g.add_copy(c.nodes.clone(), &kinds)?;
        let (from, to) = (c.nodes.start as usize, c.nodes.end as usize);
        let shift = first - c.nodes.start;
        self.place.extend_from_within(from..to);
        let subs = self.sub - c.sub;
        self.layer.extend_from_within(from..to, subs);
        self.position.push_n(pos, to - from);
        // Every open half-line comes from the step copied (`copyable_since`): each moves one
        // translation on.
        debug_assert!((0..self.open.len()).all(|k| self.open_at(k).is_none_or(|(n, _)| c.nodes.contains(&n))));
        self.open_shift = self.open_shift.wrapping_add(shift);
        c.nodes = first..first + (to - from) as NodeId;
        c.sub = self.sub;
        self.sub += subs;
        self.copyable = Some(c);
        self.copies += 1;
        Ok(())
    }

    /// One refresh layer over the attended vertices `att` (a mask over board points), closed
    /// first under the pairs perceived from their other end alone.
    fn layer<G: Grow>(&mut self, g: &mut G, board: &Board, att: &[bool], pos: u32) -> Result<(), TimelineError> {
        let (cols, rows) = (self.cols, self.rows);
        let mut att = att.to_vec();
        // A pair perceived from one end alone is perceived from both the next time either is
        // (with a focus: a pan perceives both ends of every pair together at every position).
        let focus = matches!(self.opts.attention, Attention::Focus { .. });
        let mut stack: Vec<usize> = if focus {
            (0..att.len()).filter(|&i| att[i]).collect()
        } else {
            Vec::new()
        };
        while let Some(i) = stack.pop() {
            let (x, y) = (i % cols + 1, i / cols + 1);
            for (d, &(dx, dy)) in D.iter().enumerate() {
                let (nx, ny) = ((x as isize + dx) as usize, (y as isize + dy) as usize);
                if nx < 1 || ny < 1 || nx > cols || ny > rows {
                    continue;
                }
                let j = (ny - 1) * cols + (nx - 1);
                if att[j] {
                    continue;
                }
                // The pair's key and which end the neighbour is.
                let (key, nb_end) = match d {
                    0 => (self.ext(nx, ny) * 2, 1u8),
                    1 => (self.ext(nx, ny) * 2 + 1, 1),
                    2 => (self.ext(x, y) * 2 + 1, 2),
                    _ => (self.ext(x, y) * 2, 2),
                };
                if self.half[key] == nb_end {
                    att[j] = true;
                    stack.push(j);
                }
            }
        }
        let on = |x: usize, y: usize| x >= 1 && y >= 1 && x <= cols && y <= rows;
        let attended = |x: usize, y: usize| on(x, y) && att[(y - 1) * cols + (x - 1)];
        // An edge slot is present when its on-board neighbour is attended.
        let present = |x: usize, y: usize| -> bool {
            attended(x, y)
                || (!on(x, y)
                    && D.iter().any(|&(dx, dy)| {
                        let (nx, ny) = (x as isize + dx, y as isize + dy);
                        nx >= 0 && ny >= 0 && attended(nx as usize, ny as usize)
                    }))
        };
        let (mut x0, mut y0, mut x1, mut y1) = (usize::MAX, usize::MAX, 0, 0);
        for (i, _) in att.iter().enumerate().filter(|(_, a)| **a) {
            let (x, y) = (i % cols + 1, i / cols + 1);
            (x0, y0, x1, y1) = (x0.min(x - 1), y0.min(y - 1), x1.max(x + 1), y1.max(y + 1));
        }
        if x0 == usize::MAX {
            return Ok(());
        }
        // 1. Colour sublayer.
        for y in y0..=y1 {
            for x in x0..=x1 {
                if attended(x, y) {
                    let p = Point {
                        col: (x - 1) as u8,
                        row: (y - 1) as u8,
                    };
                    let mut src = [(0, 0); 4];
                    for (d, s) in src.iter_mut().enumerate() {
                        *s = self.source(g, Some(self.ext(x, y) * 4 + d), pos)?;
                    }
                    let n = self.node(g, self.k.colour(board.get(p)), pos, Place::Vertex(p))?;
                    for (d, &(m, t)) in src.iter().enumerate() {
                        g.connect(m, t as usize, n, d)?;
                        self.set_open(self.ext(x, y) * 4 + d, Some((n, d as u8)));
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
                        let key = self.ext(x, y) * 4 + d;
                        let (m, t) = self.source(g, Some(key), pos)?;
                        let n = self.node(g, self.k.edge, pos, Place::Edge { of, dir: (3 - d) as u8 })?;
                        g.connect(m, t as usize, n, 0)?;
                        self.set_open(key, Some((n, 0)));
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
                    let (ka, kb) = (self.ext(x, y) * 4 + da, self.ext(x2, y2) * 4 + db);
                    let (pa, pb) = (present(x, y), present(x2, y2));
                    let sa = self.source(g, pa.then_some(ka), pos)?;
                    let sb = self.source(g, pb.then_some(kb), pos)?;
                    let n = self.node(
                        g,
                        self.k.adjacency,
                        pos,
                        Place::Pair {
                            x: x as u8,
                            y: y as u8,
                            vertical,
                        },
                    )?;
                    g.connect(sa.0, sa.1 as usize, n, 0)?;
                    g.connect(sb.0, sb.1 as usize, n, 1)?;
                    for (present_end, key, site) in [(pa, ka, 0u8), (pb, kb, 1u8)] {
                        if present_end {
                            self.set_open(key, Some((n, site)));
                        } else {
                            // A look from the attended side: the far side's process ends here.
                            let e = self.node(g, self.k.end, pos, Place::Attention)?;
                            g.connect(n, site as usize, e, 0)?;
                        }
                    }
                    if on(x, y) && on(x2, y2) {
                        let pk = self.ext(x, y) * 2 + vertical as usize;
                        let v = match (pa, pb) {
                            (true, true) => 0,
                            (true, false) => 1,
                            (false, true) => 2,
                            _ => unreachable!("a pair with an attended end"),
                        };
                        self.set_half(pk, v);
                    }
                }
            }
        }
        self.sub += 1;
        Ok(())
    }

    /// Absorbs every open process with a `pi7` (attention leaves everything): the end of a
    /// recording, whose lattice is then closed.
    pub fn finish<G: Grow>(&mut self, g: &mut G) -> Result<(), TimelineError> {
        let pos = self.positions.saturating_sub(1);
        for key in 0..self.open.len() {
            if let Some((m, t)) = self.open_at(key) {
                self.open[key] = None;
                let e = self.node(g, self.k.end, pos, Place::Attention)?;
                g.connect(m, t as usize, e, 0)?;
            }
        }
        (self.copyable, self.plain) = (None, false);
        Ok(())
    }
}

/// The vertices whose colour differs between two boards (of one size), row by row.
pub fn changes(before: &Board, after: &Board) -> Vec<Point> {
    let cols = after.cols() as usize;
    // The cells side by side: a pass over two slices rather than a look-up per vertex.
    (before.cells().iter().zip(after.cells()).enumerate())
        .filter(|(_, (a, b))| a != b)
        .map(|(i, _)| Point {
            col: (i % cols) as u8,
            row: (i / cols) as u8,
        })
        .collect()
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

/// Records the struct of a sequence of positions: the sensor over each in turn, then attention
/// leaves everything (the lattice is closed). `last_moves[k]` is the vertex played to reach
/// position k (None for the initial position and passes); it steers the focus policy.
pub fn record(
    kinds: &GoAlphabet,
    positions: &[Board],
    last_moves: &[Option<Point>],
    opts: RecordOptions,
) -> Result<Recording, TimelineError> {
    let first = positions.first().cloned().unwrap_or_else(|| Board::new(19, 19));
    let (cols, rows) = (first.cols(), first.rows());
    let per_layer = cols as usize * rows as usize * 3 + 4 * (cols as usize + rows as usize);
    let est = if matches!(opts.attention, Attention::Full) {
        positions.len() * opts.layers * per_layer
    } else {
        per_layer + positions.len() * 128
    };
    let mut s = Struct::with_capacity(kinds.alphabet.clone(), est, est * 3);
    let mut sensor = Sensor::new(kinds, cols, rows, opts);
    for (pos, board) in positions.iter().enumerate() {
        let changed = if pos == 0 {
            Vec::new()
        } else {
            changes(&positions[pos - 1], board)
        };
        sensor.perceive(&mut s, board, last_moves.get(pos).copied().flatten(), &changed)?;
    }
    sensor.finish(&mut s)?;
    s.shrink_to_fit();
    let layer_count = sensor.sub / 2;
    Ok(Recording {
        strukt: s,
        kinds: kinds.clone(),
        size: (cols, rows),
        layer: sensor.layer.to_vec(),
        position: sensor.position.to_vec(),
        place: sensor.place,
        layer_count,
    })
}

#[cfg(test)]
mod tests {
    use super::Runs;
    use proptest::prelude::*;

    proptest! {
        /// Runs read as the list of values they keep, through pushes and truncations.
        #[test]
        fn runs_are_the_list_of_values(ops in prop::collection::vec((0u32..4, 0usize..40, any::<bool>()), 0..200)) {
            let (mut runs, mut list) = (Runs::default(), Vec::new());
            for (v, cut, truncate) in ops {
                if truncate {
                    runs.truncate(cut);
                    list.truncate(cut);
                } else {
                    runs.push(v);
                    list.push(v);
                }
                prop_assert_eq!(runs.len(), list.len());
                prop_assert_eq!(runs.last(), list.last().copied());
                prop_assert_eq!(runs.to_vec(), list.clone());
                for (n, &x) in list.iter().enumerate() {
                    prop_assert_eq!(runs.get(n), x);
                }
            }
        }
    }
}
