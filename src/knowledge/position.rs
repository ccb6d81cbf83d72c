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
        if Analysis::new(board).is_legal(&pos, p) {
            out.push(pos);
        }
    }
    out
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
    /// Block id per vertex (`u32::MAX`: empty).
    block: Vec<u32>,
    /// Per block: liberty count.
    libs: Vec<u16>,
    /// Per block: stone count.
    size: Vec<u16>,
    /// Per block: colour.
    color: Vec<Color>,
}

impl Analysis {
    /// Analyses a board.
    pub fn new(b: &Board) -> Analysis {
        let cols = b.cols() as usize;
        let n = cols * b.rows() as usize;
        let mut block = vec![u32::MAX; n];
        let (mut libs, mut size, mut color) = (Vec::new(), Vec::new(), Vec::new());
        let mut stamp = vec![u32::MAX; n];
        let mut stack = Vec::new();
        for p in b.points() {
            let i = idx(cols, p);
            let Cell::Stone(c) = b.get(p) else { continue };
            if block[i] != u32::MAX {
                continue;
            }
            let id = libs.len() as u32;
            let (mut l, mut s) = (0u16, 0u16);
            block[i] = id;
            stack.push(p);
            while let Some(q) = stack.pop() {
                s += 1;
                for nb in b.neighbours(q) {
                    let j = idx(cols, nb);
                    match b.get(nb) {
                        Cell::Empty if stamp[j] != id => {
                            stamp[j] = id;
                            l += 1;
                        }
                        Cell::Empty => {}
                        Cell::Stone(c2) if c2 == c && block[j] == u32::MAX => {
                            block[j] = id;
                            stack.push(nb);
                        }
                        _ => {}
                    }
                }
            }
            libs.push(l);
            size.push(s);
            color.push(c);
        }
        Analysis {
            cols,
            block,
            libs,
            size,
            color,
        }
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
        self.size[b as usize]
    }

    /// Colour of block `b`.
    pub fn color(&self, b: u32) -> Color {
        self.color[b as usize]
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
}

fn idx(cols: usize, p: Point) -> usize {
    p.row as usize * cols + p.col as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::sgf::Sgf;

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
