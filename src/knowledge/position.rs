//! The positions of a game as move prediction sees them: the board before each move, who moves,
//! where they played, the ko point, the last moves, and what a candidate move would do (legality,
//! captures, liberties). Rule code, not class code (principle 7): blocks and liberties here are
//! the referee's, read to describe a candidate move, never a recognized class.

use crate::go::board::{Board, Cell, Color, Point};
use crate::go::game::Replay;

/// One position of a game at which a move was played on the board.
#[derive(Debug, Clone)]
pub struct Position<'a> {
    /// The board before the move.
    pub board: &'a Board,
    /// Who moves.
    pub mover: Color,
    /// The move played (on the board, legal).
    pub played: Point,
    /// Moves played before this one (0-based index of the move).
    pub number: usize,
    /// The point the mover may not play because of simple ko.
    pub ko: Option<Point>,
    /// The previous move and the one before (`None`: a pass or the start).
    pub last: [Option<Point>; 2],
}

/// The positions of a replayed game at which a move was played on an empty, legal point (passes,
/// moves onto stones, suicides and ko retakes that a record may hold are left out: nothing can
/// predict them as a move of the board).
pub fn positions(replay: &Replay) -> Vec<Position<'_>> {
    let mut out = Vec::with_capacity(replay.moves.len());
    for (k, m) in replay.moves.iter().enumerate() {
        let Some(p) = m.point else { continue };
        let board = &replay.positions[k];
        let ko = if k > 0 { ko_point(replay, k - 1, m.color) } else { None };
        let last = [
            k.checked_sub(1).and_then(|i| replay.moves[i].point),
            k.checked_sub(2).and_then(|i| replay.moves[i].point),
        ];
        let pos = Position {
            board,
            mover: m.color,
            played: p,
            number: k,
            ko,
            last,
        };
        if legal_here(&pos, p) {
            out.push(pos);
        }
    }
    out
}

/// [`Analysis::is_legal`] without analysing the whole board: a point with an empty neighbour is
/// legal at once; otherwise only the blocks beside it are followed, as far as their second
/// liberty.
fn legal_here(pos: &Position<'_>, p: Point) -> bool {
    let b = pos.board;
    if b.get(p) != Cell::Empty || pos.ko == Some(p) {
        return false;
    }
    if b.neighbours(p).any(|n| b.get(n) == Cell::Empty) {
        return true;
    }
    b.neighbours(p).any(|n| match b.get(n) {
        Cell::Stone(c) if c == pos.mover => liberties_up_to(b, n, 2) >= 2,
        Cell::Stone(_) => liberties_up_to(b, n, 2) == 1,
        Cell::Empty => true,
    })
}

/// The liberties of the block at `at`, counted up to `cap`.
fn liberties_up_to(b: &Board, at: Point, cap: usize) -> usize {
    let Cell::Stone(c) = b.get(at) else { return 0 };
    let mut seen = vec![at];
    let mut libs: Vec<Point> = Vec::new();
    let mut i = 0;
    while i < seen.len() {
        let q = seen[i];
        i += 1;
        for n in b.neighbours(q) {
            match b.get(n) {
                Cell::Empty if !libs.contains(&n) => {
                    libs.push(n);
                    if libs.len() >= cap {
                        return libs.len();
                    }
                }
                Cell::Stone(d) if d == c && !seen.contains(&n) => seen.push(n),
                _ => {}
            }
        }
    }
    libs.len()
}

/// The simple-ko point left by move `i` (0-based) for `next`: move `i` captured exactly one stone
/// with a stone that is alone in its block and has exactly one liberty (the captured point).
fn ko_point(replay: &Replay, i: usize, next: Color) -> Option<Point> {
    let m = &replay.moves[i];
    let p = m.point?;
    if m.color == next || m.effect.captured.len() != 1 || !m.effect.suicide.is_empty() {
        return None;
    }
    let q = m.effect.captured[0];
    let b = &replay.positions[i + 1];
    let lonely = b.neighbours(p).all(|n| b.get(n) != Cell::Stone(m.color));
    let libs = b.neighbours(p).filter(|&n| b.get(n) == Cell::Empty).count();
    (lonely && libs == 1).then_some(q)
}

/// Blocks and liberties of a board (flood fill once), enough to say what a move would do.
#[derive(Debug, Clone)]
pub struct Analysis {
    cols: usize,
    words: usize,
    /// Block id per vertex (`u32::MAX`: empty).
    block: Vec<u32>,
    /// Per block: liberty count.
    libs: Vec<u16>,
    /// Per block: colour.
    color: Vec<Color>,
    /// Per block: its liberties as a bit set (`words` words each).
    libset: Vec<u64>,
    /// Per block: its stones (`stones[start[b]..start[b + 1]]`).
    stones: Vec<u16>,
    start: Vec<u32>,
}

/// What a move at an empty point would do (for the player to move).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Effect {
    /// Opponent stones captured.
    pub captured: u16,
    /// Opponent blocks captured.
    pub captured_blocks: u8,
    /// The captured blocks include the opponent's last move.
    pub captures_last: bool,
    /// A captured block touched an own block in atari.
    pub capture_saves: bool,
    /// Liberties of the block the move forms (after captures).
    pub libs_after: u16,
    /// Stones of the block the move forms.
    pub size_after: u16,
    /// Distinct own blocks beside the point.
    pub own_blocks: u8,
    /// Distinct opponent blocks beside the point.
    pub opp_blocks: u8,
    /// Stones of the own blocks in atari beside the point (which the move joins).
    pub in_atari_joined: u16,
    /// Largest opponent block the move puts in atari (0: none).
    pub atari_size: u16,
    /// Opponent blocks the move puts in atari.
    pub ataris: u8,
}

impl Analysis {
    /// Analyses a board.
    pub fn new(b: &Board) -> Analysis {
        let cols = b.cols() as usize;
        let n = cols * b.rows() as usize;
        let words = n.div_ceil(64);
        let mut a = Analysis {
            cols,
            words,
            block: vec![u32::MAX; n],
            libs: Vec::new(),
            color: Vec::new(),
            libset: Vec::new(),
            stones: Vec::new(),
            start: vec![0],
        };
        let mut stack = Vec::new();
        for p in b.points() {
            let i = idx(cols, p);
            let Cell::Stone(c) = b.get(p) else { continue };
            if a.block[i] != u32::MAX {
                continue;
            }
            let id = a.libs.len() as u32;
            let base = a.libset.len();
            a.libset.resize(base + words, 0);
            a.block[i] = id;
            stack.push(p);
            while let Some(q) = stack.pop() {
                a.stones.push(idx(cols, q) as u16);
                for nb in b.neighbours(q) {
                    let j = idx(cols, nb);
                    match b.get(nb) {
                        Cell::Empty => a.libset[base + j / 64] |= 1 << (j % 64),
                        Cell::Stone(c2) if c2 == c && a.block[j] == u32::MAX => {
                            a.block[j] = id;
                            stack.push(nb);
                        }
                        _ => {}
                    }
                }
            }
            let l: u32 = a.libset[base..].iter().map(|w| w.count_ones()).sum();
            a.libs.push(l as u16);
            a.color.push(c);
            a.start.push(a.stones.len() as u32);
        }
        a
    }

    /// The block at `p` (`None`: empty).
    pub fn block_at(&self, p: Point) -> Option<u32> {
        let b = self.block[idx(self.cols, p)];
        (b != u32::MAX).then_some(b)
    }

    /// Liberties of block `b`.
    pub fn liberties(&self, b: u32) -> u16 {
        self.libs[b as usize]
    }

    /// Stones of block `b`.
    pub fn size(&self, b: u32) -> u16 {
        (self.start[b as usize + 1] - self.start[b as usize]) as u16
    }

    /// Colour of block `b`.
    pub fn color(&self, b: u32) -> Color {
        self.color[b as usize]
    }

    /// The stones of block `b`.
    pub fn stones(&self, b: u32) -> impl Iterator<Item = Point> + '_ {
        let cols = self.cols;
        self.stones[self.start[b as usize] as usize..self.start[b as usize + 1] as usize]
            .iter()
            .map(move |&i| Point {
                col: (i as usize % cols) as u8,
                row: (i as usize / cols) as u8,
            })
    }

    /// Whether the mover of `pos` may play at `p` (empty, not the ko point, not suicide).
    pub fn is_legal(&self, pos: &Position<'_>, p: Point) -> bool {
        let b = pos.board;
        if b.get(p) != Cell::Empty || pos.ko == Some(p) {
            return false;
        }
        b.neighbours(p).any(|n| match self.block_at(n) {
            None => true,
            Some(k) if self.color(k) == pos.mover => self.liberties(k) >= 2,
            Some(k) => self.liberties(k) == 1,
        })
    }

    /// Every legal point for the mover, row by row.
    pub fn legal_points(&self, pos: &Position<'_>) -> Vec<Point> {
        pos.board.points().filter(|&p| self.is_legal(pos, p)).collect()
    }

    /// What the mover's move at the empty point `p` would do.
    pub fn effect(&self, pos: &Position<'_>, p: Point) -> Effect {
        let b = pos.board;
        let mut e = Effect::default();
        let mut own: [u32; 4] = [u32::MAX; 4];
        let mut opp: [u32; 4] = [u32::MAX; 4];
        let (mut no, mut np) = (0, 0);
        let mut lib = vec![0u64; self.words];
        let pi = idx(self.cols, p);
        for n in b.neighbours(p) {
            match self.block_at(n) {
                None => {
                    let j = idx(self.cols, n);
                    lib[j / 64] |= 1 << (j % 64);
                }
                Some(k) if self.color(k) == pos.mover => {
                    if !own[..no].contains(&k) {
                        own[no] = k;
                        no += 1;
                    }
                }
                Some(k) => {
                    if !opp[..np].contains(&k) {
                        opp[np] = k;
                        np += 1;
                    }
                }
            }
        }
        e.own_blocks = no as u8;
        e.opp_blocks = np as u8;
        let mut size = 1u16;
        for &k in &own[..no] {
            let base = k as usize * self.words;
            for (w, x) in lib.iter_mut().zip(&self.libset[base..base + self.words]) {
                *w |= x;
            }
            size += self.size(k);
            if self.liberties(k) == 1 {
                e.in_atari_joined += self.size(k);
            }
        }
        lib[pi / 64] &= !(1 << (pi % 64));
        for &k in &opp[..np] {
            let l = self.liberties(k);
            if l == 1 {
                e.captured += self.size(k);
                e.captured_blocks += 1;
                if pos.last[0].is_some_and(|q| self.block_at(q) == Some(k)) {
                    e.captures_last = true;
                }
                // Captured stones beside the new block become its liberties; a captured block
                // beside an own block in atari saves it.
                for s in self.stones(k) {
                    let touches = s.col.abs_diff(p.col) + s.row.abs_diff(p.row) == 1
                        || b.neighbours(s)
                            .any(|t| self.block_at(t).is_some_and(|x| own[..no].contains(&x)));
                    if touches {
                        let j = idx(self.cols, s);
                        lib[j / 64] |= 1 << (j % 64);
                    }
                    if b.neighbours(s).any(|t| {
                        self.block_at(t)
                            .is_some_and(|x| self.color(x) == pos.mover && self.liberties(x) == 1)
                    }) {
                        e.capture_saves = true;
                    }
                }
            } else if l == 2 {
                e.ataris += 1;
                e.atari_size = e.atari_size.max(self.size(k));
            }
        }
        e.libs_after = lib.iter().map(|w| w.count_ones()).sum::<u32>() as u16;
        e.size_after = size;
        e
    }
}

fn idx(cols: usize, p: Point) -> usize {
    p.row as usize * cols + p.col as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::sgf::Sgf;

    /// The local legality test agrees with the whole-board analysis at every point of every
    /// position of the shipped games.
    #[test]
    fn legality_read_locally_agrees_with_the_analysis() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/games/tom-9d");
        let mut points = 0;
        for f in crate::knowledge::corpus::sgf_files(&[dir]).iter().take(4) {
            for g in crate::knowledge::corpus::read_file(f).0 {
                for pos in positions(&g.replay) {
                    let a = Analysis::new(pos.board);
                    for p in pos.board.points() {
                        assert_eq!(legal_here(&pos, p), a.is_legal(&pos, p), "move {} at {p:?}", pos.number);
                        points += 1;
                    }
                }
            }
        }
        assert!(points > 100_000);
    }

    #[test]
    fn ko_and_suicide_are_not_legal() {
        // White captures at b2 (a ko): Black may not retake at once; a1 would be suicide for
        // White after B[a2] B[b1] … here we check the ko.
        let sgf = Sgf::parse("(;SZ[5];B[bb];W[cb];B[ac];W[dc];B[bd];W[cd];B[cc];W[bc])").unwrap();
        let r = Replay::from_sgf(&sgf, 0, &[]).unwrap();
        // Move 8 (W[bc]) captured the black stone at c3 (cc).
        assert_eq!(r.moves[7].effect.captured.len(), 1);
        let ko = ko_point(&r, 7, Color::Black);
        assert_eq!(ko, Some(Point { col: 2, row: 2 }));
        let pos = Position {
            board: &r.positions[8],
            mover: Color::Black,
            played: Point { col: 0, row: 0 },
            number: 8,
            ko,
            last: [None, None],
        };
        let a = Analysis::new(pos.board);
        assert!(!a.is_legal(&pos, Point { col: 2, row: 2 }));
        assert!(a.is_legal(&pos, Point { col: 0, row: 0 }));
        // Suicide: a corner point surrounded by white stones with liberties.
        let sgf = Sgf::parse("(;SZ[3];W[ba];B[cc];W[ab])").unwrap();
        let r = Replay::from_sgf(&sgf, 0, &[]).unwrap();
        let pos = Position {
            board: &r.positions[3],
            mover: Color::Black,
            played: Point { col: 0, row: 0 },
            number: 3,
            ko: None,
            last: [None, None],
        };
        let a = Analysis::new(pos.board);
        assert!(!a.is_legal(&pos, Point { col: 0, row: 0 }));
        assert!(a.is_legal(&pos, Point { col: 1, row: 1 }));
    }
}
