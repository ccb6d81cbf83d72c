//! 3x3 shape patterns of the Monte-Carlo playout policies (Gelly, Wang, Munos & Teytaud 2006,
//! "Modification of UCT with patterns in Monte-Carlo Go", the MoGo patterns; Pachi's "moggy"
//! policy keeps the same family): a move next to the opponent's last move is urgent when its 3x3
//! neighbourhood is a hane, a cut, or one of the edge shapes below. They are the playouts'
//! tactics — rule-level shape knowledge for the sample games of §5.3.2.1 — and a prior of the
//! tree; the player's *knowledge* (classes, Forme_K, the ACADEMY, Gomi) enters as candidates and
//! priors elsewhere ([`super::components`], [`super::knowledge`]).
//!
//! Each pattern is written as three rows of three cells, the candidate move in the middle:
//! `X`, `O` stones of the two colours (either way round: every pattern is also matched with the
//! colours exchanged, and in its eight rotations and reflections), `.` empty, `#` off the board,
//! `x` anything but an `X` stone, `o` anything but an `O` stone, `?` anything. A neighbourhood is
//! coded as [`crate::go::fastboard::FastBoard::neighbourhood`] codes it; the set of matching codes
//! is a 65,536-bit table built once.

use std::sync::OnceLock;

/// The patterns (MoGo's, as the paper draws them; the edge row written `###`).
pub const PATTERNS: [(&str, &str); 14] = [
    ("hane, enclosing", "XOX...???"),
    ("hane, non-cutting", "XO....?.?"),
    ("hane, magari", "XO?X..x.?"),
    ("hane, thin", "XOO...?.?"),
    ("diagonal attachment", ".O.X....."),
    ("cut, unprotected", "XO?O.o?o?"),
    ("cut, peeped", "XO?O.X???"),
    ("cut, de", "?X?O.Oooo"),
    ("cut, keima", "OX??.O?o?"),
    ("edge, chase", "X.?O.?###"),
    ("edge, block the cut", "OX?X.O###"),
    ("edge, block the connection", "?X?x.O###"),
    ("edge, sagari", "?XOx.x###"),
    ("edge, cut", "?OXX.O###"),
];

/// The grid positions (row-major, 0..9, 4 the middle) of the eight neighbourhood cells, in the
/// order of their 2-bit fields in a code.
const CELLS: [usize; 8] = [0, 1, 2, 3, 5, 6, 7, 8];

fn table() -> &'static [u64] {
    static T: OnceLock<Vec<u64>> = OnceLock::new();
    T.get_or_init(build)
}

/// Whether a neighbourhood code matches one of the patterns.
#[inline]
pub fn matches(code: u16) -> bool {
    let t = table();
    t[(code >> 6) as usize] >> (code & 63) & 1 != 0
}

/// The allowed cell values (0 empty, 1 X's colour, 2 O's colour, 3 off) of a pattern letter,
/// with the colours exchanged when `swap`.
fn allowed(ch: u8, swap: bool) -> &'static [u16] {
    let (x, o, not_x, not_o): (&[u16], &[u16], &[u16], &[u16]) = if swap {
        (&[2], &[1], &[0, 1, 3], &[0, 2, 3])
    } else {
        (&[1], &[2], &[0, 2, 3], &[0, 1, 3])
    };
    match ch {
        b'X' => x,
        b'O' => o,
        b'x' => not_x,
        b'o' => not_o,
        b'.' => &[0],
        b'#' => &[3],
        _ => &[0, 1, 2, 3],
    }
}

/// The eight symmetries of the 3x3 grid: where the cell at (row, col) goes.
fn symmetric(t: usize, pos: usize) -> usize {
    let (mut r, mut c) = (pos / 3, pos % 3);
    for _ in 0..t % 4 {
        (r, c) = (c, 2 - r);
    }
    if t >= 4 {
        c = 2 - c;
    }
    r * 3 + c
}

fn build() -> Vec<u64> {
    let mut bits = vec![0u64; 1 << 10];
    for (_, p) in PATTERNS {
        let p = p.as_bytes();
        for t in 0..8 {
            for swap in [false, true] {
                // The letter at each code field after the symmetry.
                let mut letters = [b'?'; 8];
                for (src, &pos) in CELLS.iter().enumerate() {
                    let dst = symmetric(t, pos);
                    let field = CELLS.iter().position(|&c| c == dst).expect("not the middle");
                    letters[field] = p[CELLS[src]];
                }
                let mut codes = vec![0u16];
                for (field, &l) in letters.iter().enumerate() {
                    let mut next = Vec::with_capacity(codes.len() * 4);
                    for &c in &codes {
                        for &v in allowed(l, swap) {
                            next.push(c | v << (2 * field));
                        }
                    }
                    codes = next;
                }
                for c in codes {
                    bits[(c >> 6) as usize] |= 1 << (c & 63);
                }
            }
        }
    }
    bits
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::board::Color;
    use crate::go::fastboard::FastBoard;

    fn board(rows: &[&str]) -> FastBoard {
        let mut b = FastBoard::new(rows.len()).unwrap();
        for (r, row) in rows.iter().enumerate() {
            for (c, ch) in row.chars().enumerate() {
                let p = crate::go::board::Point {
                    col: c as u8,
                    row: r as u8,
                };
                let color = match ch {
                    'X' => Color::Black,
                    'O' => Color::White,
                    _ => continue,
                };
                b.play(color, b.vtx(p)).unwrap();
            }
        }
        b
    }

    fn at(b: &FastBoard, col: u8, row: u8) -> u16 {
        b.neighbourhood(b.vtx(crate::go::board::Point { col, row }))
    }

    #[test]
    fn a_hane_matches_in_every_orientation_and_colour() {
        // Enclosing hane: X O X above the move, the row of the move empty.
        let b = board(&[".....", ".XOX.", ".....", ".....", "....."]);
        assert!(matches(at(&b, 2, 2)));
        // Rotated (the stones in a column) and with the colours exchanged.
        let b = board(&[".....", ".O...", ".X...", ".O...", "....."]);
        assert!(matches(at(&b, 2, 2)));
    }

    #[test]
    fn an_empty_neighbourhood_and_a_lone_stone_do_not_match() {
        let b = board(&[".....", ".....", ".....", ".....", "....."]);
        assert!(!matches(at(&b, 2, 2)));
        let b = board(&[".....", ".X...", ".....", ".....", "....."]);
        assert!(!matches(at(&b, 2, 2)));
    }

    #[test]
    fn edge_patterns_need_the_edge() {
        // Block the cut on the edge: O X / X . O / edge.
        let b = board(&[".....", ".....", ".....", ".OX..", ".X.O."]);
        assert!(matches(at(&b, 2, 4)));
        // A lone stone beside an edge point is no edge shape.
        let b = board(&[".....", ".....", ".....", ".....", ".X..."]);
        assert!(!matches(at(&b, 2, 4)));
    }
}
