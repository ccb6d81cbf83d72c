//! The fast rule board: the referee a player searches with (principle 7 — rule code, not class
//! code). It implements the rules of Go as GTP and the area-scoring rule sets state them: a move
//! on an empty point, opponent chains left without liberties captured, suicide illegal (or, as an
//! option, executed: New Zealand rules), simple ko, positional superko as an option; area
//! (Tromp–Taylor) and territory scoring with named dead stones; Zobrist hashing; and
//! uniform-random playouts with the usual eye rule, as in the Monte-Carlo programs since Brügmann
//! (1993) and Bouzy's Indigo — the sample games of Gomi's position evaluation and of the thesis's
//! §5.3.2.1 "examination of the current state-of-affairs".
//!
//! It is not the record of a game ([`super::board::Board`] executes any move the SGF holds, as the
//! SGF specification says); it refuses illegal moves, and is built for speed:
//!
//! - a padded one-dimensional board (`(rows + 2) × (cols + 1) + 1` cells, one shared border
//!   column), so the four neighbours and four diagonals of a point are fixed offsets;
//! - chains kept as circular lists of stones with a head, a stone count and an **exact** liberty
//!   set (a bit set over the padded board) with its count — ataris, captures and suicide are
//!   answered in O(1), liberties listed at once;
//! - the empty points in a list with back-indices, so a uniform random empty point is one draw;
//! - storage sized to the board, so a copy ([`Clone`], or [`FastBoard::copy_from`] reusing the
//!   buffers) costs a few hundred bytes on 9x9.
//!
//! Boards from 1x1 to [`MAX_SIZE`]`x`[`MAX_SIZE`] (GTP's largest; rectangular boards too).

use super::board::{Board, Cell, Color, Point};

/// The largest number of columns or rows (GTP names columns A–Z without I: 25).
pub const MAX_SIZE: usize = 25;
const MAX_LEN: usize = (MAX_SIZE + 2) * (MAX_SIZE + 1) + 1;

/// `v[i]` without a bounds check: the fast board's reads on its hot path (playouts). Bounds-checked
/// indexing here measured +22% (9x9) and +77% (19x19) per playout relative to the naive peer in the
/// same run (`cargo bench --bench fastboard`, 2026-11-23), so the reads stay unchecked, with
/// their invariant stated once here and checked in debug builds and under Miri.
///
/// # Safety
/// `i < v.len()`. The fast board's indexes are padded indexes of an on-board point, of one of
/// its eight neighbours, or of a chain head (all below `padded_len` by the layout: the last
/// point's lower-right diagonal is the last cell), or `head * words + k` with `k < words` into
/// the liberty sets; its buffers are sized from the padded layout when the board is made and
/// never shrink.
#[inline(always)]
unsafe fn read_unchecked<T: Copy>(v: &[T], i: usize) -> T {
    debug_assert!(i < v.len());
    // SAFETY: the caller promises `i < v.len()`.
    unsafe { *v.get_unchecked(i) }
}

/// `v[i] = x` without a bounds check (see [`read_unchecked`]).
///
/// # Safety
/// `i < v.len()`, as for [`read_unchecked`].
#[inline(always)]
unsafe fn write_unchecked<T>(v: &mut [T], i: usize, x: T) {
    debug_assert!(i < v.len());
    // SAFETY: the caller promises `i < v.len()`.
    unsafe { *v.get_unchecked_mut(i) = x }
}

/// Reads `self.field[i]` through [`read_unchecked`].
macro_rules! rd {
    ($s:ident . $f:ident [ $i:expr ]) => {{
        let i = $i;
        // SAFETY: `i` is one of the board's layout indexes (see `read_unchecked`'s `# Safety`).
        unsafe { read_unchecked(&$s.$f, i) }
    }};
}

/// Writes `self.field[i] = v` through [`write_unchecked`].
macro_rules! wr {
    ($s:ident . $f:ident [ $i:expr ] = $v:expr) => {{
        let i = $i;
        let v = $v;
        // SAFETY: `i` is one of the board's layout indexes (see `read_unchecked`'s `# Safety`).
        unsafe { write_unchecked(&mut $s.$f, i, v) }
    }};
}

/// Writes `self.field[i] = v` through [`write_unchecked`], and tells `log` the value it replaces
/// as `Write::$w` (when the log keeps writes: see [`Log`]).
macro_rules! wl {
    ($log:ident, $w:ident, $s:ident . $f:ident [ $i:expr ] = $v:expr) => {{
        let i = $i;
        let v = $v;
        if $log.on() {
            $log.keep(Write::$w(i as _, rd!($s.$f[i])));
        }
        wr!($s.$f[i] = v)
    }};
}

/// One write of a move to the board's buffers, with the value it replaced (see [`Undo`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Write {
    Cell(u16, u8),
    Head(u16, u16),
    Next(u16, u16),
    Size(u16, u16),
    Nlibs(u16, u16),
    Libs(u32, u64),
    Empties(u16, u16),
    EmptyAt(u16, u16),
    /// The empty list lost its last entry, this one.
    Pop(u16),
    /// The empty list gained an entry.
    Push,
}

/// Where the writes of a move go: nowhere (`()`: playouts and every other move, the code the
/// same as without a log once the compiler drops the calls), or kept for [`FastBoard::undo`].
trait Log {
    /// Whether writes are kept (a constant of the type).
    fn on(&self) -> bool;
    /// Keeps one write.
    fn keep(&mut self, w: Write);
}

impl Log for () {
    #[inline(always)]
    fn on(&self) -> bool {
        false
    }
    #[inline(always)]
    fn keep(&mut self, _: Write) {}
}

impl Log for Vec<Write> {
    #[inline(always)]
    fn on(&self) -> bool {
        true
    }
    #[inline(always)]
    fn keep(&mut self, w: Write) {
        self.push(w);
    }
}

/// What taking one move back needs ([`FastBoard::play_undoable`], [`FastBoard::undo`]): the
/// values each of its writes replaced and the scalars before it. Undone in reverse, the writes
/// leave every buffer as it was, byte for byte (the empty list in its order, stale liberty words
/// included), so a board taken back is the board before the move for every later use, playouts
/// included; a few dozen writes, where a copy of a 19x19 board is some 30 kB.
#[derive(Debug, Clone, Default)]
pub(crate) struct Undo {
    writes: Vec<Write>,
    ko: Vtx,
    ko_color: u8,
    hash: u64,
    captures: [u32; 2],
    last: [Vtx; 2],
    passes: u32,
    moves: u32,
    history: usize,
}

impl Undo {
    /// The points whose stone the move changed, with what each held before it, in index order
    /// (row by row): the point played (unless its stone was taken as a suicide), the stones
    /// captured, and under suicide rules the mover's chain taken.
    pub(crate) fn changed(&self, board: &FastBoard) -> Vec<(Vtx, Option<Color>)> {
        // A point's first write holds its stone before the move.
        let mut first: Vec<(u16, u8)> = Vec::new();
        for w in &self.writes {
            if let Write::Cell(i, old) = *w
                && !first.iter().any(|&(j, _)| j == i)
            {
                first.push((i, old));
            }
        }
        first.sort_unstable();
        first
            .into_iter()
            .filter(|&(i, old)| board.cell[i as usize] != old)
            .map(|(i, old)| (Vtx(i), (old != EMPTY).then(|| color_of(old))))
            .collect()
    }
}

const EMPTY: u8 = 0;
const BLACK: u8 = 1;
const WHITE: u8 = 2;
const OFF: u8 = 3;

/// A point of the padded board (see the module documentation), or [`Vtx::PASS`]. Board-size
/// dependent: convert with [`FastBoard::vtx`] and [`FastBoard::point`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Vtx(pub u16);

impl Vtx {
    /// A pass (index 0 is always a border cell, never a point).
    pub const PASS: Vtx = Vtx(0);
    /// Whether this is a pass.
    pub fn is_pass(self) -> bool {
        self.0 == 0
    }
    fn i(self) -> usize {
        self.0 as usize
    }
}

const fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

const fn zobrist_table() -> [[u64; MAX_LEN]; 2] {
    let mut t = [[0u64; MAX_LEN]; 2];
    let mut c = 0;
    while c < 2 {
        let mut i = 0;
        while i < MAX_LEN {
            t[c][i] = splitmix((c * MAX_LEN + i) as u64 ^ 0x0005_EED0_FE75);
            i += 1;
        }
        c += 1;
    }
    t
}

/// Zobrist keys: one per colour and padded index (fixed, so hashes are reproducible).
static ZOBRIST: [[u64; MAX_LEN]; 2] = zobrist_table();

fn code(c: Color) -> u8 {
    match c {
        Color::Black => BLACK,
        Color::White => WHITE,
    }
}

fn color_of(code: u8) -> Color {
    if code == BLACK { Color::Black } else { Color::White }
}

/// The rule options of a board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rules {
    /// Positional superko: a move may not recreate an earlier position (stones only).
    pub superko: bool,
    /// Suicide is executed (the mover's chain removed, the opponent takes the prisoners) instead of
    /// refused. Never played in playouts.
    pub suicide_allowed: bool,
}

impl Default for Rules {
    /// Simple ko, suicide illegal (GTP's default).
    fn default() -> Rules {
        Rules {
            superko: false,
            suicide_allowed: false,
        }
    }
}

/// Why a move was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Illegal {
    /// The point is off the board.
    #[error("the point is off the board")]
    OffBoard,
    /// The point holds a stone.
    #[error("the point is occupied")]
    Occupied,
    /// The move would leave its own chain without liberties.
    #[error("suicide")]
    Suicide,
    /// The move retakes a ko at once.
    #[error("the move retakes a ko")]
    Ko,
    /// The move recreates an earlier position.
    #[error("the move repeats an earlier position (positional superko)")]
    Superko,
}

/// What a point holds at the end of a game, for scoring.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Owner {
    /// A black stone or black area.
    Black,
    /// A white stone or white area.
    White,
    /// Neither (an empty region touching both colours, or none).
    Neutral,
}

/// A small fast seeded random generator (xorshift64*) for playouts: deterministic, no allocation.
#[derive(Debug, Clone)]
pub struct FastRng(u64);

impl FastRng {
    /// A generator from a seed (any value; 0 is remapped).
    pub fn new(seed: u64) -> FastRng {
        FastRng(splitmix(seed) | 1)
    }
    /// The next 64 random bits.
    #[inline]
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// A uniform integer in `0..n` (`n > 0`), by multiply-shift.
    #[inline]
    pub fn below(&mut self, n: usize) -> usize {
        (((self.next_u64() >> 32) * n as u64) >> 32) as usize
    }
    /// A uniform float in `[0, 1)`.
    #[inline]
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A Go position under the rules (see the module documentation).
#[derive(Debug)]
pub struct FastBoard {
    cols: u8,
    rows: u8,
    /// Row stride: `cols + 1`.
    w: usize,
    /// Liberty-set words per chain.
    words: usize,
    cell: Vec<u8>,
    /// The head of a stone's chain.
    head: Vec<u16>,
    /// The next stone of a stone's chain (circular).
    next: Vec<u16>,
    /// Per head: stones in the chain.
    size: Vec<u16>,
    /// Per head: distinct liberties.
    nlibs: Vec<u16>,
    /// Per head: the liberty set, `words` words.
    libs: Vec<u64>,
    empties: Vec<u16>,
    empty_at: Vec<u16>,
    /// The point the colour `ko_color` may not play now (PASS: none).
    ko: Vtx,
    ko_color: u8,
    hash: u64,
    captures: [u32; 2],
    last: [Vtx; 2],
    passes: u32,
    moves: u32,
    rules: Rules,
    /// Position hashes of the game so far (kept when `rules.superko`).
    history: Vec<u64>,
}

impl Clone for FastBoard {
    fn clone(&self) -> FastBoard {
        FastBoard {
            cols: self.cols,
            rows: self.rows,
            w: self.w,
            words: self.words,
            cell: self.cell.clone(),
            head: self.head.clone(),
            next: self.next.clone(),
            size: self.size.clone(),
            nlibs: self.nlibs.clone(),
            libs: self.libs.clone(),
            empties: self.empties.clone(),
            empty_at: self.empty_at.clone(),
            ko: self.ko,
            ko_color: self.ko_color,
            hash: self.hash,
            captures: self.captures,
            last: self.last,
            passes: self.passes,
            moves: self.moves,
            rules: self.rules,
            history: self.history.clone(),
        }
    }
    fn clone_from(&mut self, o: &FastBoard) {
        self.cols = o.cols;
        self.rows = o.rows;
        self.w = o.w;
        self.words = o.words;
        self.cell.clone_from(&o.cell);
        self.head.clone_from(&o.head);
        self.next.clone_from(&o.next);
        self.size.clone_from(&o.size);
        self.nlibs.clone_from(&o.nlibs);
        self.libs.clone_from(&o.libs);
        self.empties.clone_from(&o.empties);
        self.empty_at.clone_from(&o.empty_at);
        self.ko = o.ko;
        self.ko_color = o.ko_color;
        self.hash = o.hash;
        self.captures = o.captures;
        self.last = o.last;
        self.passes = o.passes;
        self.moves = o.moves;
        self.rules = o.rules;
        self.history.clone_from(&o.history);
    }
}

impl PartialEq for FastBoard {
    /// Same size, stones, ko, prisoners and rules (the history and move counts aside).
    fn eq(&self, o: &FastBoard) -> bool {
        self.cols == o.cols
            && self.rows == o.rows
            && self.cell == o.cell
            && self.ko == o.ko
            && self.ko_color == o.ko_color
            && self.captures == o.captures
            && self.rules == o.rules
    }
}

/// Error: a board size outside 1..=[`MAX_SIZE`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("unsupported board size {0}x{1} (1 to 25 per side)")]
pub struct BadSize(pub usize, pub usize);

impl FastBoard {
    /// An empty square board with the default rules.
    pub fn new(size: usize) -> Result<FastBoard, BadSize> {
        FastBoard::with_rules(size, size, Rules::default())
    }

    /// An empty `cols × rows` board.
    pub fn with_rules(cols: usize, rows: usize, rules: Rules) -> Result<FastBoard, BadSize> {
        if cols == 0 || rows == 0 || cols > MAX_SIZE || rows > MAX_SIZE {
            return Err(BadSize(cols, rows));
        }
        let w = cols + 1;
        let len = (rows + 2) * w + 1;
        let words = len.div_ceil(64);
        let mut cell = vec![OFF; len];
        let mut empties = Vec::with_capacity(cols * rows);
        let mut empty_at = vec![0u16; len];
        for r in 0..rows {
            for c in 0..cols {
                let i = (r + 1) * w + c + 1;
                cell[i] = EMPTY;
                empty_at[i] = empties.len() as u16;
                empties.push(i as u16);
            }
        }
        let mut b = FastBoard {
            cols: cols as u8,
            rows: rows as u8,
            w,
            words,
            cell,
            head: vec![0; len],
            next: vec![0; len],
            size: vec![0; len],
            nlibs: vec![0; len],
            libs: vec![0; len * words],
            empties,
            empty_at,
            ko: Vtx::PASS,
            ko_color: EMPTY,
            hash: 0,
            captures: [0; 2],
            last: [Vtx::PASS; 2],
            passes: 0,
            moves: 0,
            rules,
            history: Vec::new(),
        };
        if rules.superko {
            b.history.push(0);
        }
        Ok(b)
    }

    /// The position of a [`Board`] (stones and prisoners; no ko). Chains without liberties (which
    /// a setup may hold) are removed as captures would.
    pub fn from_board(board: &Board, rules: Rules) -> Result<FastBoard, BadSize> {
        let mut f = FastBoard::with_rules(board.cols() as usize, board.rows() as usize, rules)?;
        for p in board.points() {
            if let Cell::Stone(c) = board.get(p) {
                let v = f.vtx(p);
                f.put_stone(v, code(c), &mut ());
            }
        }
        // A setup may leave chains without liberties; remove them.
        for p in board.points() {
            let v = f.vtx(p);
            if f.cell[v.i()] != EMPTY && f.nlibs[f.head[v.i()] as usize] == 0 {
                let h = f.head[v.i()] as usize;
                f.remove_chain(h, &mut ());
            }
        }
        f.captures = [board.captured_by_black, board.captured_by_white];
        if rules.superko {
            f.history = vec![f.hash];
        }
        Ok(f)
    }

    /// The position as a [`Board`] (stones and prisoners).
    pub fn to_board(&self) -> Board {
        let mut b = Board::new(self.cols, self.rows);
        for p in b.points().collect::<Vec<_>>() {
            if let Some(c) = self.color_at(self.vtx(p)) {
                b.set(p, Cell::Stone(c));
            }
        }
        b.captured_by_black = self.captures[0];
        b.captured_by_white = self.captures[1];
        b
    }

    /// Columns.
    pub fn cols(&self) -> usize {
        self.cols as usize
    }
    /// Rows.
    pub fn rows(&self) -> usize {
        self.rows as usize
    }
    /// The rule options.
    pub fn rules(&self) -> Rules {
        self.rules
    }
    /// Changes the rule options (turning superko on starts its history at this position).
    pub fn set_rules(&mut self, rules: Rules) {
        if rules.superko && !self.rules.superko {
            self.history = vec![self.hash];
        }
        self.rules = rules;
    }
    /// The number of cells of the padded board (every [`Vtx`] is below it).
    pub fn padded_len(&self) -> usize {
        self.cell.len()
    }
    /// The padded index of a point (which must be on the board).
    #[inline]
    pub fn vtx(&self, p: Point) -> Vtx {
        Vtx(((p.row as usize + 1) * self.w + p.col as usize + 1) as u16)
    }
    /// Whether a point lies on this board.
    pub fn contains_point(&self, p: Point) -> bool {
        p.col < self.cols && p.row < self.rows
    }
    /// The point of a padded index on the board (`None` for a pass or a border cell).
    pub fn point(&self, v: Vtx) -> Option<Point> {
        let i = v.i();
        if i >= self.cell.len() || self.cell[i] == OFF {
            return None;
        }
        Some(Point {
            col: (i % self.w - 1) as u8,
            row: (i / self.w - 1) as u8,
        })
    }
    /// The GTP name of a vertex (`pass` for a pass).
    pub fn gtp(&self, v: Vtx) -> String {
        match self.point(v) {
            Some(p) => p.gtp(self.rows),
            None => "pass".to_string(),
        }
    }
    /// Parses a GTP vertex (`pass` gives [`Vtx::PASS`]); `None` if it is not on this board.
    pub fn from_gtp(&self, s: &str) -> Option<Vtx> {
        if s.trim().eq_ignore_ascii_case("pass") {
            return Some(Vtx::PASS);
        }
        let p = Point::from_gtp(s, self.rows)?;
        (p.col < self.cols).then(|| self.vtx(p))
    }
    /// Every point of the board, row by row from the top.
    pub fn points(&self) -> impl Iterator<Item = Vtx> + '_ {
        (0..self.rows as usize)
            .flat_map(move |r| (0..self.cols as usize).map(move |c| Vtx(((r + 1) * self.w + c + 1) as u16)))
    }
    /// Whether `v` is a point of the board.
    #[inline]
    pub fn on_board(&self, v: Vtx) -> bool {
        v.i() < self.cell.len() && self.cell[v.i()] != OFF
    }
    /// The stone on `v`, if any.
    #[inline]
    pub fn color_at(&self, v: Vtx) -> Option<Color> {
        match self.cell[v.i()] {
            BLACK => Some(Color::Black),
            WHITE => Some(Color::White),
            _ => None,
        }
    }
    /// Whether `v` is an empty point.
    #[inline]
    pub fn is_empty(&self, v: Vtx) -> bool {
        self.cell[v.i()] == EMPTY
    }
    /// The on-board neighbours of `v` (left, up, down, right).
    pub fn neighbours(&self, v: Vtx) -> impl Iterator<Item = Vtx> + '_ {
        let i = v.i();
        [i - 1, i - self.w, i + self.w, i + 1]
            .into_iter()
            .filter(|&n| self.cell[n] != OFF)
            .map(|n| Vtx(n as u16))
    }
    /// The on-board diagonal neighbours of `v`.
    pub fn diagonals(&self, v: Vtx) -> impl Iterator<Item = Vtx> + '_ {
        let i = v.i();
        [i - self.w - 1, i - self.w + 1, i + self.w - 1, i + self.w + 1]
            .into_iter()
            .filter(|&n| self.cell[n] != OFF)
            .map(|n| Vtx(n as u16))
    }
    /// The empty points (in an unspecified order).
    pub fn empty_points(&self) -> impl Iterator<Item = Vtx> + '_ {
        self.empties.iter().map(|&i| Vtx(i))
    }
    /// The number of empty points.
    pub fn empty_count(&self) -> usize {
        self.empties.len()
    }
    /// The Zobrist hash of the stones (positional: the side to move and the ko are not in it).
    pub fn hash(&self) -> u64 {
        self.hash
    }
    /// Stones captured by Black and by White.
    pub fn prisoners(&self) -> (u32, u32) {
        (self.captures[0], self.captures[1])
    }
    /// The ko point the given colour may not play now.
    pub fn ko(&self) -> Option<(Color, Vtx)> {
        (!self.ko.is_pass()).then(|| (color_of(self.ko_color), self.ko))
    }
    /// The last move of each colour (`[black, white]`; PASS before any).
    pub fn last_moves(&self) -> [Vtx; 2] {
        self.last
    }
    /// Consecutive passes just played.
    pub fn passes(&self) -> u32 {
        self.passes
    }
    /// Forgets the consecutive passes (and the ko), so that play — a playout resolving the dead
    /// stones of a finished game, say — can go on from this position.
    pub fn reset_passes(&mut self) {
        self.passes = 0;
        self.ko = Vtx::PASS;
    }
    /// Moves (and passes) played on this board.
    pub fn move_count(&self) -> u32 {
        self.moves
    }

    // ----- chains -----

    /// The head of the chain on `v` (a stone of the chain that names it).
    #[inline]
    pub fn chain_head(&self, v: Vtx) -> Vtx {
        Vtx(self.head[v.i()])
    }
    /// The number of liberties of the chain on `v` (0 for an empty point).
    #[inline]
    pub fn liberty_count(&self, v: Vtx) -> usize {
        if self.cell[v.i()] > WHITE || self.cell[v.i()] == EMPTY {
            return 0;
        }
        self.nlibs[self.head[v.i()] as usize] as usize
    }
    /// Whether the chain on `v` is in atari (exactly one liberty).
    #[inline]
    pub fn in_atari(&self, v: Vtx) -> bool {
        self.liberty_count(v) == 1
    }
    /// The last liberty of the chain on `v` when it is in atari.
    pub fn atari_liberty(&self, v: Vtx) -> Option<Vtx> {
        if !self.in_atari(v) {
            return None;
        }
        self.liberties(v).next()
    }
    /// The liberties of the chain on `v`, in index order.
    pub fn liberties(&self, v: Vtx) -> impl Iterator<Item = Vtx> + '_ {
        let stone = matches!(self.cell[v.i()], BLACK | WHITE);
        let h = self.head[v.i()] as usize;
        let words = if stone { self.words } else { 0 };
        (0..words).flat_map(move |k| {
            let mut w = self.libs[h * self.words + k];
            std::iter::from_fn(move || {
                if w == 0 {
                    return None;
                }
                let b = w.trailing_zeros() as usize;
                w &= w - 1;
                Some(Vtx((k * 64 + b) as u16))
            })
        })
    }
    /// The stones of the chain on `v` (empty for an empty point).
    pub fn chain(&self, v: Vtx) -> impl Iterator<Item = Vtx> + '_ {
        let stone = matches!(self.cell[v.i()], BLACK | WHITE);
        let start = v.0;
        let mut cur = if stone { Some(v.0) } else { None };
        std::iter::from_fn(move || {
            let c = cur?;
            let n = self.next[c as usize];
            cur = (n != start).then_some(n);
            Some(Vtx(c))
        })
    }
    /// The number of stones of the chain on `v`.
    pub fn chain_size(&self, v: Vtx) -> usize {
        if matches!(self.cell[v.i()], BLACK | WHITE) {
            self.size[self.head[v.i()] as usize] as usize
        } else {
            0
        }
    }
    /// The heads of the chains of `color` in atari.
    pub fn chains_in_atari(&self, color: Color) -> Vec<Vtx> {
        let c = code(color);
        self.points()
            .filter(|v| self.cell[v.i()] == c && self.head[v.i()] == v.0 && self.nlibs[v.i()] == 1)
            .collect()
    }

    // ----- legality -----

    /// Whether `color` may play at `v` (a pass is always legal).
    pub fn is_legal(&self, color: Color, v: Vtx) -> bool {
        self.check(color, v).is_ok()
    }

    /// Why `color` may not play at `v`, if it may not.
    pub fn check(&self, color: Color, v: Vtx) -> Result<(), Illegal> {
        if v.is_pass() {
            return Ok(());
        }
        if !self.on_board(v) {
            return Err(Illegal::OffBoard);
        }
        if self.cell[v.i()] != EMPTY {
            return Err(Illegal::Occupied);
        }
        let c = code(color);
        if v == self.ko && c == self.ko_color {
            return Err(Illegal::Ko);
        }
        let suicide = self.is_suicide(c, v.i());
        if suicide && !self.rules.suicide_allowed {
            return Err(Illegal::Suicide);
        }
        if self.rules.superko {
            let h = if suicide {
                let mut t = self.clone();
                t.rules.superko = false;
                t.place(c, v.i(), &mut ());
                t.hash
            } else {
                self.hash_after(c, v.i())
            };
            if self.history.contains(&h) {
                return Err(Illegal::Superko);
            }
        }
        Ok(())
    }

    /// Whether a stone of code `c` at the empty point `i` would have no liberty after captures.
    #[inline]
    fn is_suicide(&self, c: u8, i: usize) -> bool {
        for n in [i - 1, i - self.w, i + self.w, i + 1] {
            let x = rd!(self.cell[n]);
            if x == EMPTY {
                return false;
            }
            if x == OFF {
                continue;
            }
            let libs = rd!(self.nlibs[rd!(self.head[n]) as usize]);
            if x == c {
                if libs >= 2 {
                    return false;
                }
            } else if libs == 1 {
                return false;
            }
        }
        true
    }

    /// The hash after a non-suicide move (captures included).
    fn hash_after(&self, c: u8, i: usize) -> u64 {
        let mut h = self.hash ^ ZOBRIST[(c - 1) as usize][i];
        let mut seen = [0u16; 4];
        let mut k = 0;
        for n in [i - 1, i - self.w, i + self.w, i + 1] {
            let x = self.cell[n];
            if x == EMPTY || x == OFF || x == c {
                continue;
            }
            let hd = self.head[n];
            if self.nlibs[hd as usize] != 1 || seen[..k].contains(&hd) {
                continue;
            }
            seen[k] = hd;
            k += 1;
            for s in self.chain(Vtx(hd)) {
                h ^= ZOBRIST[(x - 1) as usize][s.i()];
            }
        }
        h
    }

    /// Every legal move of `color` (points only; a pass is always legal), in index order.
    pub fn legal_moves(&self, color: Color) -> Vec<Vtx> {
        let mut v: Vec<Vtx> = self.empty_points().filter(|&p| self.is_legal(color, p)).collect();
        v.sort();
        v
    }

    /// Whether `v` is an eye of `color` by the usual playout rule: every neighbour is a stone of
    /// `color` (or the edge), and of the diagonal points at most one is an opponent stone — none
    /// on the edge or in a corner.
    #[inline]
    pub fn is_eye(&self, color: Color, v: Vtx) -> bool {
        self.on_board(v) && self.is_empty(v) && self.is_eye_code(code(color), v.i())
    }

    #[inline]
    fn is_eye_code(&self, c: u8, i: usize) -> bool {
        let w = self.w;
        for n in [i - 1, i - w, i + w, i + 1] {
            let x = rd!(self.cell[n]);
            if x != c && x != OFF {
                return false;
            }
        }
        let o = c ^ 3;
        let mut bad = 0;
        let mut edge = 0;
        for d in [i - w - 1, i - w + 1, i + w - 1, i + w + 1] {
            let x = rd!(self.cell[d]);
            bad += (x == o) as u32;
            edge |= (x == OFF) as u32;
        }
        bad + edge < 2
    }

    // ----- moves -----

    /// Plays a move (or a pass) if it is legal; the board is unchanged otherwise.
    pub fn play(&mut self, color: Color, v: Vtx) -> Result<(), Illegal> {
        self.check(color, v)?;
        self.play_legal(color, v);
        Ok(())
    }

    /// Plays a move known to be legal (checked only in debug builds).
    pub fn play_legal(&mut self, color: Color, v: Vtx) {
        self.play_logged(color, v, &mut ());
    }

    /// Plays a move if it is legal, and returns what [`FastBoard::undo`] needs to take it back;
    /// the board is unchanged otherwise.
    pub(crate) fn play_undoable(&mut self, color: Color, v: Vtx) -> Result<Undo, Illegal> {
        self.check(color, v)?;
        let mut u = Undo {
            // (Room for a move's writes without a capture, so that the list is not grown a
            // doubling at a time on every move.)
            writes: Vec::with_capacity(64),
            ko: self.ko,
            ko_color: self.ko_color,
            hash: self.hash,
            captures: self.captures,
            last: self.last,
            passes: self.passes,
            moves: self.moves,
            history: self.history.len(),
        };
        self.play_logged(color, v, &mut u.writes);
        Ok(u)
    }

    /// Takes back the move `u` was returned for, which must be the last move played on this
    /// board (any other record leaves the board inconsistent; the writes are bounds-checked, so
    /// it never reads or writes outside the buffers).
    pub(crate) fn undo(&mut self, u: &Undo) {
        fn put<T>(v: &mut [T], i: impl Into<usize>, x: T) {
            if let Some(slot) = v.get_mut(i.into()) {
                *slot = x;
            }
        }
        for w in u.writes.iter().rev() {
            match *w {
                Write::Cell(i, x) => put(&mut self.cell, i, x),
                Write::Head(i, x) => put(&mut self.head, i, x),
                Write::Next(i, x) => put(&mut self.next, i, x),
                Write::Size(i, x) => put(&mut self.size, i, x),
                Write::Nlibs(i, x) => put(&mut self.nlibs, i, x),
                Write::Libs(i, x) => put(&mut self.libs, i as usize, x),
                Write::Empties(i, x) => put(&mut self.empties, i, x),
                Write::EmptyAt(i, x) => put(&mut self.empty_at, i, x),
                Write::Pop(x) => self.empties.push(x),
                Write::Push => {
                    self.empties.pop();
                }
            }
        }
        self.ko = u.ko;
        self.ko_color = u.ko_color;
        self.hash = u.hash;
        self.captures = u.captures;
        self.last = u.last;
        self.passes = u.passes;
        self.moves = u.moves;
        self.history.truncate(u.history);
    }

    /// [`FastBoard::play_legal`], its writes told to `log`.
    #[inline(always)]
    fn play_logged<L: Log>(&mut self, color: Color, v: Vtx, log: &mut L) {
        debug_assert!(self.check(color, v).is_ok(), "illegal {:?} at {}", color, self.gtp(v));
        let c = code(color);
        if v.is_pass() {
            self.ko = Vtx::PASS;
            self.passes += 1;
        } else {
            self.place(c, v.i(), log);
            self.passes = 0;
        }
        self.last[(c - 1) as usize] = v;
        self.moves += 1;
        if self.rules.superko {
            self.history.push(self.hash);
        }
    }

    /// Puts a stone of code `c` on the empty point `i`: liberties, merges, captures, ko, suicide.
    fn place<L: Log>(&mut self, c: u8, i: usize, log: &mut L) {
        let o = c ^ 3;
        self.put_stone(Vtx(i as u16), c, log);
        let w = self.w;
        let mut captured = 0u32;
        let mut last_cap = 0usize;
        for n in [i - 1, i - w, i + w, i + 1] {
            if rd!(self.cell[n]) == o {
                let h = rd!(self.head[n]) as usize;
                if rd!(self.nlibs[h]) == 0 {
                    captured += rd!(self.size[h]) as u32;
                    last_cap = n;
                    self.remove_chain(h, log);
                }
            }
        }
        self.captures[(c - 1) as usize] += captured;
        self.ko = Vtx::PASS;
        let h = rd!(self.head[i]) as usize;
        if captured == 1 && rd!(self.size[h]) == 1 && rd!(self.nlibs[h]) == 1 {
            self.ko = Vtx(last_cap as u16);
            self.ko_color = o;
        }
        if rd!(self.nlibs[h]) == 0 {
            // Suicide (only when the rules allow it).
            let n = self.size[h] as u32;
            self.captures[(o - 1) as usize] += n;
            self.remove_chain(h, log);
        }
    }

    /// Puts a stone without captures: a one-stone chain, liberties updated, merges with friends.
    fn put_stone<L: Log>(&mut self, v: Vtx, c: u8, log: &mut L) {
        let i = v.i();
        let w = self.w;
        let words = self.words;
        assert!(i < self.cell.len() && rd!(self.cell[i]) == EMPTY);
        wl!(log, Cell, self.cell[i] = c);
        self.hash ^= ZOBRIST[(c - 1) as usize][i];
        // Remove from the empty list.
        let at = rd!(self.empty_at[i]) as usize;
        let last = *self.empties.last().expect("an empty point");
        wl!(log, Empties, self.empties[at] = last);
        wl!(log, EmptyAt, self.empty_at[last as usize] = at as u16);
        if log.on() {
            log.keep(Write::Pop(last));
        }
        self.empties.pop();
        // A new chain of one stone.
        wl!(log, Head, self.head[i] = i as u16);
        wl!(log, Next, self.next[i] = i as u16);
        wl!(log, Size, self.size[i] = 1);
        let base = i * words;
        for k in 0..words {
            wl!(log, Libs, self.libs[base + k] = 0);
        }
        let mut nl = 0;
        let (ik, ib) = (i / 64, 1u64 << (i % 64));
        for n in [i - 1, i - w, i + w, i + 1] {
            match rd!(self.cell[n]) {
                EMPTY => {
                    // Four distinct neighbours: each empty one is a new liberty.
                    let k = base + n / 64;
                    wl!(log, Libs, self.libs[k] = rd!(self.libs[k]) | 1 << (n % 64));
                    nl += 1;
                }
                OFF => {}
                _ => {
                    // The neighbour's chain loses this liberty.
                    let h = rd!(self.head[n]) as usize;
                    let k = h * words + ik;
                    let word = rd!(self.libs[k]);
                    if word & ib != 0 {
                        wl!(log, Libs, self.libs[k] = word & !ib);
                        wl!(log, Nlibs, self.nlibs[h] = rd!(self.nlibs[h]) - 1);
                    }
                }
            }
        }
        wl!(log, Nlibs, self.nlibs[i] = nl);
        for n in [i - 1, i - w, i + w, i + 1] {
            if rd!(self.cell[n]) == c {
                let a = rd!(self.head[i]) as usize;
                let b = rd!(self.head[n]) as usize;
                if a != b {
                    self.merge(a, b, log);
                }
            }
        }
    }

    /// Merges the chains with heads `a` and `b` (the smaller into the larger).
    fn merge<L: Log>(&mut self, a: usize, b: usize, log: &mut L) {
        let (big, small) = if rd!(self.size[a]) >= rd!(self.size[b]) {
            (a, b)
        } else {
            (b, a)
        };
        // Relabel the small chain's stones.
        let mut s = small;
        loop {
            wl!(log, Head, self.head[s] = big as u16);
            s = rd!(self.next[s]) as usize;
            if s == small {
                break;
            }
        }
        // Splice the circular lists.
        if log.on() {
            log.keep(Write::Next(big as u16, rd!(self.next[big])));
            log.keep(Write::Next(small as u16, rd!(self.next[small])));
        }
        self.next.swap(big, small);
        wl!(log, Size, self.size[big] = rd!(self.size[big]) + rd!(self.size[small]));
        let words = self.words;
        let mut count = 0;
        for k in 0..words {
            let x = rd!(self.libs[big * words + k]) | rd!(self.libs[small * words + k]);
            wl!(log, Libs, self.libs[big * words + k] = x);
            count += x.count_ones();
        }
        wl!(log, Nlibs, self.nlibs[big] = count as u16);
    }

    /// Removes the chain with head `h`: its points become empty and liberties of the neighbouring
    /// chains.
    fn remove_chain<L: Log>(&mut self, h: usize, log: &mut L) {
        let c = rd!(self.cell[h]);
        let w = self.w;
        let words = self.words;
        let mut s = h;
        loop {
            let nxt = rd!(self.next[s]) as usize;
            wl!(log, Cell, self.cell[s] = EMPTY);
            self.hash ^= ZOBRIST[(c - 1) as usize][s];
            wl!(log, EmptyAt, self.empty_at[s] = self.empties.len() as u16);
            if log.on() {
                log.keep(Write::Push);
            }
            self.empties.push(s as u16);
            s = nxt;
            if s == h {
                break;
            }
        }
        // Now give liberties to the neighbouring chains (of the other colour, or of any colour
        // for suicide).
        let mut s = h;
        loop {
            let (sk, sb) = (s / 64, 1u64 << (s % 64));
            for n in [s - 1, s - w, s + w, s + 1] {
                let x = rd!(self.cell[n]);
                if x == BLACK || x == WHITE {
                    let hn = rd!(self.head[n]) as usize;
                    let k = hn * words + sk;
                    let word = rd!(self.libs[k]);
                    if word & sb == 0 {
                        wl!(log, Libs, self.libs[k] = word | sb);
                        wl!(log, Nlibs, self.nlibs[hn] = rd!(self.nlibs[hn]) + 1);
                    }
                }
            }
            s = rd!(self.next[s]) as usize;
            if s == h {
                break;
            }
        }
    }

    // ----- scoring -----

    /// Who owns each point by area (Tromp–Taylor) after removing `dead` stones: a stone's colour,
    /// or the colour of the only stones an empty region touches. Indexed by padded index.
    pub fn area_owners(&self, dead: &[Vtx]) -> Vec<Owner> {
        let mut cell = self.cell.clone();
        for &d in dead {
            if self.on_board(d) {
                cell[d.i()] = EMPTY;
            }
        }
        let mut owner = vec![Owner::Neutral; cell.len()];
        let mut seen = vec![false; cell.len()];
        let mut region = Vec::new();
        let mut stack = Vec::new();
        for v in self.points() {
            let i = v.i();
            match cell[i] {
                BLACK => owner[i] = Owner::Black,
                WHITE => owner[i] = Owner::White,
                _ if !seen[i] => {
                    let mut touch = 0u8;
                    region.clear();
                    stack.push(i);
                    seen[i] = true;
                    while let Some(p) = stack.pop() {
                        region.push(p);
                        for n in [p - 1, p - self.w, p + self.w, p + 1] {
                            match cell[n] {
                                EMPTY if !seen[n] => {
                                    seen[n] = true;
                                    stack.push(n);
                                }
                                BLACK => touch |= 1,
                                WHITE => touch |= 2,
                                _ => {}
                            }
                        }
                    }
                    let o = match touch {
                        1 => Owner::Black,
                        2 => Owner::White,
                        _ => Owner::Neutral,
                    };
                    for &p in &region {
                        owner[p] = o;
                    }
                }
                _ => {}
            }
        }
        owner
    }

    /// Area score (Tromp–Taylor, `dead` stones removed first): black area − white area − komi.
    pub fn area_score(&self, komi: f32, dead: &[Vtx]) -> f32 {
        let owners = self.area_owners(dead);
        let (mut b, mut w) = (0i32, 0i32);
        for v in self.points() {
            match owners[v.i()] {
                Owner::Black => b += 1,
                Owner::White => w += 1,
                Owner::Neutral => {}
            }
        }
        (b - w) as f32 - komi
    }

    /// Territory score (Japanese counting, `dead` stones taken as prisoners): black's territory and
    /// prisoners − white's − komi. Territory is every empty region (dead stones' points included)
    /// that touches stones of one colour only; seki is not recognised (its eyes count as territory).
    pub fn territory_score(&self, komi: f32, dead: &[Vtx]) -> f32 {
        let owners = self.area_owners(dead);
        let (mut b, mut w) = (self.captures[0] as i32, self.captures[1] as i32);
        for v in self.points() {
            let stone = self.cell[v.i()];
            let is_dead = dead.contains(&v);
            match (stone, is_dead) {
                (BLACK, true) => w += 1,
                (WHITE, true) => b += 1,
                _ => {}
            }
            if stone == EMPTY || is_dead {
                match owners[v.i()] {
                    Owner::Black => b += 1,
                    Owner::White => w += 1,
                    Owner::Neutral => {}
                }
            }
        }
        (b - w) as f32 - komi
    }

    /// The fast area count used at the end of a playout: stones, and each empty point that touches
    /// stones of one colour only (exact when every empty region is one point or touches one
    /// colour, as at a playout's end). Black − white, no komi.
    pub fn playout_score(&self) -> i32 {
        let mut s = 0i32;
        for v in self.points() {
            let i = v.i();
            match self.cell[i] {
                BLACK => s += 1,
                WHITE => s -= 1,
                _ => {
                    let mut touch = 0u8;
                    for n in [i - 1, i - self.w, i + self.w, i + 1] {
                        touch |= 1 << self.cell[n];
                    }
                    let (b, w) = (touch & (1 << BLACK) != 0, touch & (1 << WHITE) != 0);
                    s += (b && !w) as i32 - (w && !b) as i32;
                }
            }
        }
        s
    }

    /// The owner of `v` at a playout's end, by the rule of [`FastBoard::playout_score`].
    pub fn playout_owner(&self, v: Vtx) -> Owner {
        let i = v.i();
        match self.cell[i] {
            BLACK => Owner::Black,
            WHITE => Owner::White,
            _ => {
                let mut touch = 0u8;
                for n in [i - 1, i - self.w, i + self.w, i + 1] {
                    touch |= 1 << self.cell[n];
                }
                match (touch & (1 << BLACK) != 0, touch & (1 << WHITE) != 0) {
                    (true, false) => Owner::Black,
                    (false, true) => Owner::White,
                    _ => Owner::Neutral,
                }
            }
        }
    }

    // ----- playouts -----

    /// A uniformly random legal move of `color` that does not fill one of its own eyes, or a pass
    /// when there is none.
    #[inline]
    pub fn random_move(&mut self, color: Color, rng: &mut FastRng) -> Vtx {
        let c = code(color);
        let mut k = self.empties.len();
        while k > 0 {
            let j = rng.below(k);
            let i = rd!(self.empties[j]) as usize;
            if !((i == self.ko.i() && c == self.ko_color) || self.is_eye_code(c, i) || self.is_suicide(c, i)) {
                return Vtx(i as u16);
            }
            // Move the rejected point out of the draw range.
            k -= 1;
            let other = rd!(self.empties[k]);
            self.empties.swap(j, k);
            wr!(self.empty_at[other as usize] = j as u16);
            wr!(self.empty_at[i] = k as u16);
        }
        Vtx::PASS
    }

    /// The 3x3 neighbourhood of `v` as 16 bits, 2 per cell (0 empty, 1 black, 2 white, 3 off the
    /// board), cells in the order of the padded layout: the row before (`v − w − 1`, `v − w`,
    /// `v − w + 1`), the two beside (`v − 1`, `v + 1`), the row after — what a 3x3 shape pattern
    /// of the playout policies is matched against.
    #[inline]
    pub fn neighbourhood(&self, v: Vtx) -> u16 {
        let i = v.i();
        let w = self.w;
        let mut h = 0u16;
        for (k, n) in [i - w - 1, i - w, i - w + 1, i - 1, i + 1, i + w - 1, i + w, i + w + 1]
            .into_iter()
            .enumerate()
        {
            h |= (rd!(self.cell[n]) as u16) << (2 * k);
        }
        h
    }

    /// Plays a playout from this position whose moves `choose` picks (it must return a legal move
    /// under simple ko, or a pass), `to_move` first, until two passes in a row or `max_moves`
    /// moves; as [`FastBoard::playout`] otherwise.
    pub fn playout_by(
        &mut self,
        to_move: Color,
        rng: &mut FastRng,
        max_moves: usize,
        mut moves: Option<&mut Vec<Vtx>>,
        mut choose: impl FnMut(&mut FastBoard, Color, &mut FastRng) -> Vtx,
    ) -> i32 {
        let superko = self.rules.superko;
        self.rules.superko = false;
        let mut color = to_move;
        let mut n = 0;
        while n < max_moves && self.passes < 2 {
            let v = choose(self, color, rng);
            self.play_legal(color, v);
            if let Some(m) = moves.as_deref_mut() {
                m.push(v);
            }
            color = color.other();
            n += 1;
        }
        self.rules.superko = superko;
        self.playout_score()
    }

    /// Plays a uniform-random playout from this position, `to_move` first, until two passes in a
    /// row or `max_moves` moves; the moves played are appended to `moves` when given (for AMAF).
    /// Simple ko only (positional superko is not checked in playouts, and a playout's moves are
    /// not added to the superko history). Returns the [`FastBoard::playout_score`] of the final
    /// position (black − white, no komi).
    pub fn playout(
        &mut self,
        to_move: Color,
        rng: &mut FastRng,
        max_moves: usize,
        moves: Option<&mut Vec<Vtx>>,
    ) -> i32 {
        self.playout_by(to_move, rng, max_moves, moves, |b, c, r| b.random_move(c, r))
    }

    /// A copy of `other` into `self`, reusing `self`'s buffers.
    pub fn copy_from(&mut self, other: &FastBoard) {
        self.clone_from(other);
    }

    /// An ASCII diagram (`X` black, `O` white, `.` empty), with GTP coordinates.
    pub fn ascii(&self) -> String {
        self.to_board().ascii()
    }

    /// Checks every internal invariant against a recomputation from the stones (for tests):
    /// chains, liberty sets and counts, the empty list, the hash.
    pub fn check_invariants(&self) -> Result<(), String> {
        let mut hash = 0u64;
        for v in self.points() {
            let i = v.i();
            match self.cell[i] {
                EMPTY => {
                    let at = self.empty_at[i] as usize;
                    if self.empties.get(at) != Some(&(i as u16)) {
                        return Err(format!("{} missing from the empty list", self.gtp(v)));
                    }
                }
                c @ (BLACK | WHITE) => {
                    hash ^= ZOBRIST[(c - 1) as usize][i];
                    // Flood the chain independently.
                    let mut seen = vec![false; self.cell.len()];
                    let mut stack = vec![i];
                    seen[i] = true;
                    let mut stones = 0;
                    let mut libs = std::collections::BTreeSet::new();
                    while let Some(p) = stack.pop() {
                        stones += 1;
                        if self.head[p] != self.head[i] {
                            return Err(format!("{} and {} differ in head", self.gtp(v), p));
                        }
                        for n in [p - 1, p - self.w, p + self.w, p + 1] {
                            if self.cell[n] == EMPTY {
                                libs.insert(n as u16);
                            } else if self.cell[n] == c && !seen[n] {
                                seen[n] = true;
                                stack.push(n);
                            }
                        }
                    }
                    let h = self.head[i] as usize;
                    if self.size[h] as usize != stones || self.chain(v).count() != stones {
                        return Err(format!("chain of {}: size", self.gtp(v)));
                    }
                    let have: Vec<u16> = self.liberties(v).map(|x| x.0).collect();
                    let want: Vec<u16> = libs.into_iter().collect();
                    if have != want || self.nlibs[h] as usize != want.len() {
                        return Err(format!("chain of {}: liberties", self.gtp(v)));
                    }
                    if want.is_empty() {
                        return Err(format!("chain of {} has no liberty", self.gtp(v)));
                    }
                }
                _ => return Err("a point marked off-board".into()),
            }
        }
        if hash != self.hash {
            return Err("hash".into());
        }
        if self.empties.len() != self.points().filter(|v| self.is_empty(*v)).count() {
            return Err("empty list length".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn b(size: usize) -> FastBoard {
        FastBoard::new(size).unwrap()
    }
    fn at(f: &FastBoard, s: &str) -> Vtx {
        f.from_gtp(s).unwrap()
    }
    fn play(f: &mut FastBoard, c: Color, s: &str) {
        let v = at(f, s);
        f.play(c, v).unwrap_or_else(|e| panic!("{s}: {e}"));
        f.check_invariants().unwrap();
    }

    #[test]
    fn capture_in_the_corner_and_prisoners() {
        let mut f = b(9);
        play(&mut f, Color::White, "A1");
        play(&mut f, Color::Black, "A2");
        assert!(f.in_atari(at(&f, "A1")));
        assert_eq!(f.atari_liberty(at(&f, "A1")), Some(at(&f, "B1")));
        play(&mut f, Color::Black, "B1");
        assert!(f.is_empty(at(&f, "A1")));
        assert_eq!(f.prisoners(), (1, 0));
        assert_eq!(f.liberty_count(at(&f, "B1")), 3); // A1, C1, B2
    }

    #[test]
    fn suicide_is_refused_unless_allowed() {
        let mut f = b(9);
        play(&mut f, Color::Black, "A2");
        play(&mut f, Color::Black, "B1");
        assert_eq!(f.check(Color::White, at(&f, "A1")), Err(Illegal::Suicide));
        let mut g = f.clone();
        g.set_rules(Rules {
            suicide_allowed: true,
            ..Rules::default()
        });
        g.play(Color::White, at(&g, "A1")).unwrap();
        assert!(g.is_empty(at(&g, "A1")));
        assert_eq!(g.prisoners(), (1, 0));
        g.check_invariants().unwrap();
        // Filling one's own last liberty of a two-stone chain is suicide too.
        play(&mut f, Color::White, "C1");
        play(&mut f, Color::White, "B2");
        play(&mut f, Color::White, "A3");
        // Black's A2 and B1 are separate chains with one liberty each (A1): A1 captures nothing
        // of White's and joins them without liberties.
        assert_eq!(f.check(Color::Black, at(&f, "A1")), Err(Illegal::Suicide));
        // A capture is not suicide: White A1 captures both.
        play(&mut f, Color::White, "A1");
        assert_eq!(f.prisoners(), (0, 2));
    }

    #[test]
    fn simple_ko_and_its_release() {
        let mut f = b(9);
        for (c, s) in [
            (Color::Black, "B1"),
            (Color::Black, "A2"),
            (Color::Black, "C2"),
            (Color::Black, "B3"),
            (Color::White, "C1"),
            (Color::White, "D2"),
            (Color::White, "C3"),
        ] {
            play(&mut f, c, s);
        }
        // White B2, surrounded by black stones, captures C2 (whose last liberty it was).
        play(&mut f, Color::White, "B2");
        assert!(f.is_empty(at(&f, "C2")));
        assert_eq!(f.ko(), Some((Color::Black, at(&f, "C2"))));
        assert_eq!(f.check(Color::Black, at(&f, "C2")), Err(Illegal::Ko));
        play(&mut f, Color::Black, "G7");
        play(&mut f, Color::White, "G6");
        play(&mut f, Color::Black, "C2"); // the ko is taken back after a threat
        assert!(f.is_empty(at(&f, "B2")));
        assert_eq!(f.check(Color::White, at(&f, "B2")), Err(Illegal::Ko));
        f.play(Color::White, Vtx::PASS).unwrap();
        assert!(f.ko().is_none());
    }

    #[test]
    fn positional_superko_refuses_a_repetition() {
        // The same ko under superko: after the ko is taken and retaken with threats answered
        // elsewhere, simple ko allows the retake but superko refuses a recurring position.
        let mut f = FastBoard::with_rules(
            5,
            5,
            Rules {
                superko: true,
                suicide_allowed: false,
            },
        )
        .unwrap();
        for (c, s) in [
            (Color::Black, "B1"),
            (Color::Black, "A2"),
            (Color::Black, "C2"),
            (Color::Black, "B3"),
            (Color::White, "C1"),
            (Color::White, "D2"),
            (Color::White, "C3"),
            (Color::White, "B2"),
        ] {
            play(&mut f, c, s);
        }
        // Black passes, White passes: Black may now retake (simple ko is released)…
        f.play(Color::Black, Vtx::PASS).unwrap();
        f.play(Color::White, Vtx::PASS).unwrap();
        // … but retaking recreates the position before White's B2: superko refuses it.
        assert_eq!(f.check(Color::Black, at(&f, "C2")), Err(Illegal::Superko));
        let mut g = f.clone();
        g.set_rules(Rules::default());
        assert!(g.is_legal(Color::Black, at(&g, "C2")));
    }

    #[test]
    fn eyes_by_the_usual_rule() {
        let mut f = b(9);
        for s in ["A2", "B1", "B2"] {
            play(&mut f, Color::Black, s);
        }
        assert!(f.is_eye(Color::Black, at(&f, "A1")));
        let mut g = f.clone();
        play(&mut g, Color::White, "C3"); // not a diagonal of A1
        assert!(g.is_eye(Color::Black, at(&g, "A1")));
        // In the centre one opposing diagonal is allowed, two are not.
        let mut h = b(9);
        for s in ["D5", "F5", "E4", "E6"] {
            play(&mut h, Color::Black, s);
        }
        play(&mut h, Color::White, "D4");
        assert!(h.is_eye(Color::Black, at(&h, "E5")));
        play(&mut h, Color::White, "F6");
        assert!(!h.is_eye(Color::Black, at(&h, "E5")));
        assert!(!h.is_eye(Color::White, at(&h, "E5")));
    }

    #[test]
    fn scoring_area_and_territory() {
        let mut f = b(5);
        for s in ["C1", "C2", "C3", "C4", "C5"] {
            play(&mut f, Color::Black, s);
        }
        for s in ["D1", "D2", "D3", "D4", "D5", "A1"] {
            play(&mut f, Color::White, s);
        }
        // With A1 dead — Black: 5 stones + the A and B columns (10) = 15; White: 5 + the E column.
        let dead = [at(&f, "A1")];
        assert_eq!(f.area_score(0.0, &dead), 15.0 - 10.0);
        // Without naming A1 dead, the left region touches both colours: neutral.
        assert_eq!(f.area_score(0.0, &[]), 5.0 - 11.0);
        // Territory: black 10 points + 1 prisoner (the dead A1), white 5 points.
        assert_eq!(f.territory_score(0.5, &dead), 11.0 - 5.0 - 0.5);
    }

    #[test]
    fn playouts_end_in_scored_final_positions() {
        let mut rng = FastRng::new(7);
        for size in [5usize, 9, 13, 19] {
            let root = b(size);
            for _ in 0..20 {
                let mut f = root.clone();
                let mut moves = Vec::new();
                let s = f.playout(Color::Black, &mut rng, 3 * size * size, Some(&mut moves));
                f.check_invariants().unwrap();
                assert!(s.unsigned_abs() as usize <= size * size);
                assert_eq!(f.passes(), 2, "a playout on {size}x{size} ended by the move cap");
                // At the end no non-eye legal move remains for either side; the fast count equals
                // Tromp-Taylor's.
                assert_eq!(s as f32, f.area_score(0.0, &[]));
            }
        }
    }

    /// Whether two boards hold the same bytes in every buffer and field (the empty list's order
    /// and stale liberty words included).
    fn same_bytes(a: &FastBoard, b: &FastBoard) -> bool {
        (a.cell == b.cell && a.head == b.head && a.next == b.next && a.size == b.size)
            && (a.nlibs == b.nlibs && a.libs == b.libs && a.empties == b.empties && a.empty_at == b.empty_at)
            && (a.ko == b.ko && a.ko_color == b.ko_color && a.hash == b.hash && a.captures == b.captures)
            && (a.last == b.last && a.passes == b.passes && a.moves == b.moves && a.rules == b.rules)
            && a.history == b.history
    }

    #[test]
    fn a_move_taken_back_leaves_the_board_as_it_was() {
        // Random games under each rule set: at every position every legal move (suicides too
        // where allowed) and a pass is played and taken back, and the board must hold the same
        // bytes as before; the points the move said it changed must be those whose stone differs.
        // Then runs of moves are taken back together.
        let mut rng = FastRng::new(11);
        let rule_sets = [
            Rules::default(),
            Rules {
                superko: true,
                suicide_allowed: false,
            },
            Rules {
                superko: false,
                suicide_allowed: true,
            },
        ];
        let mut tried = 0;
        let mut captures = 0;
        for size in [5usize, 9, 19] {
            for rules in rule_sets {
                let mut f = FastBoard::with_rules(size, size, rules).unwrap();
                let mut color = Color::Black;
                let mut run: Vec<(FastBoard, Undo, Vtx)> = Vec::new();
                for _ in 0..4 * size * size {
                    let mut moves = vec![Vtx::PASS];
                    moves.extend(f.points().filter(|&v| f.is_legal(color, v)));
                    for &v in &moves {
                        let before = f.clone();
                        let u = f.play_undoable(color, v).unwrap();
                        let changed: Vec<(Vtx, Option<Color>)> = f
                            .points()
                            .filter(|&w| before.color_at(w) != f.color_at(w))
                            .map(|w| (w, before.color_at(w)))
                            .collect();
                        assert_eq!(u.changed(&f), changed);
                        captures += (changed.len() > 1) as usize;
                        f.undo(&u);
                        assert!(same_bytes(&f, &before), "{size}x{size} {rules:?}: {}", f.gtp(v));
                        tried += 1;
                    }
                    // On with a move a playout would choose (on a copy: choosing reorders the
                    // empty list, which a move taken back does not put back).
                    let v = f.clone().random_move(color, &mut rng);
                    let before = f.clone();
                    let u = f.play_undoable(color, v).unwrap();
                    run.push((before, u, v));
                    f.check_invariants().unwrap();
                    color = color.other();
                    if run.len() > 1 && rng.below(8) == 0 {
                        // The run taken back, then played again.
                        let redo: Vec<Vtx> = run.iter().map(|r| r.2).collect();
                        while let Some((before, u, _)) = run.pop() {
                            f.undo(&u);
                            assert!(same_bytes(&f, &before), "{size}x{size} {rules:?}: a run taken back");
                            color = color.other();
                        }
                        for v in redo {
                            run.push((f.clone(), f.play_undoable(color, v).unwrap(), v));
                            color = color.other();
                        }
                    }
                    if f.passes() >= 2 {
                        break;
                    }
                }
            }
        }
        assert!(
            tried > 10_000 && captures > 100,
            "{tried} moves tried, {captures} with captures"
        );
    }

    #[test]
    fn sizes_and_coordinates() {
        assert!(FastBoard::new(0).is_err());
        assert!(FastBoard::new(26).is_err());
        let f = FastBoard::with_rules(25, 3, Rules::default()).unwrap();
        assert_eq!(f.points().count(), 75);
        let v = f.from_gtp("Z3").unwrap();
        assert_eq!(f.gtp(v), "Z3");
        assert_eq!(f.from_gtp("Z4"), None);
        assert_eq!(f.from_gtp("pass"), Some(Vtx::PASS));
        for v in f.points() {
            assert_eq!(f.vtx(f.point(v).unwrap()), v);
        }
    }
}
