//! The ACADEMY's pattern notation (seed `000_…`, "Patterns"): a local board area of cells, each a
//! letter of the seed's alphabet, labelled with the signature `< N; E; V; P >` (number of players
//! proposing it, their average ELO, the expected value for the addressed player, the addressed
//! player). Parsed and printed in the seed's text form; normalised to the first player's view
//! ("Symmetrical Games") and, for Go, to one of the eight board symmetries.
//!
//! A cell letter stands for a *set* of what a cell can hold: the atoms empty, black soldier, black
//! king, white soldier, white king and "no cell" (off the board). `B` = {x, b}, `1` = {-, x, b}
//! ("no white piece"), `#` = everything. The cell tables of generalization and specialization
//! (`posting`) are stated on these letters. Go has one kind of piece: in [`Game::Go`] the king
//! letters and the piece-class letters read as the stone (`b`, `B` → `x`; `w`, `W` → `o`), so a Go
//! pattern's alphabet is `- x o 1 2 + #` (docs/semantics.md, "ACADEMY").

use std::fmt;

use thiserror::Error;

use crate::go::board::{Board, Cell as GoCell, Color, Point};

/// One cell of a pattern: a letter of the seed's alphabet.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Cell {
    /// `-`: an empty cell.
    Empty,
    /// `x`: a black (first player's) soldier — in Go, a black stone.
    X,
    /// `b`: a black king.
    BKing,
    /// `B`: a black piece (soldier or king).
    BPiece,
    /// `1`: a cell with no white piece (empty or black).
    NoWhite,
    /// `o`: a white (second player's) soldier — in Go, a white stone.
    O,
    /// `w`: a white king.
    WKing,
    /// `W`: a white piece.
    WPiece,
    /// `2`: a cell with no black piece.
    NoBlack,
    /// `+`: no cell (beyond the board's edge).
    Off,
    /// `#`: anything.
    Any,
}

/// Atoms of the cell sets.
const E: u8 = 1;
const XS: u8 = 2;
const XK: u8 = 4;
const OS: u8 = 8;
const OK: u8 = 16;
const OFF: u8 = 32;

impl Cell {
    /// Every letter, in the seed's order.
    pub const ALL: [Cell; 11] = [
        Cell::Empty,
        Cell::X,
        Cell::BKing,
        Cell::BPiece,
        Cell::NoWhite,
        Cell::O,
        Cell::WKing,
        Cell::WPiece,
        Cell::NoBlack,
        Cell::Off,
        Cell::Any,
    ];

    /// The letter.
    pub fn letter(self) -> char {
        match self {
            Cell::Empty => '-',
            Cell::X => 'x',
            Cell::BKing => 'b',
            Cell::BPiece => 'B',
            Cell::NoWhite => '1',
            Cell::O => 'o',
            Cell::WKing => 'w',
            Cell::WPiece => 'W',
            Cell::NoBlack => '2',
            Cell::Off => '+',
            Cell::Any => '#',
        }
    }

    /// The cell a letter names (any game), if it is one.
    pub fn from_letter(c: char) -> Option<Cell> {
        Cell::ALL.into_iter().find(|x| x.letter() == c)
    }

    /// The set of atoms the letter admits (bits: empty, black soldier, black king, white soldier,
    /// white king, off-board).
    pub fn set(self) -> u8 {
        match self {
            Cell::Empty => E,
            Cell::X => XS,
            Cell::BKing => XK,
            Cell::BPiece => XS | XK,
            Cell::NoWhite => E | XS | XK,
            Cell::O => OS,
            Cell::WKing => OK,
            Cell::WPiece => OS | OK,
            Cell::NoBlack => E | OS | OK,
            Cell::Off => OFF,
            Cell::Any => E | XS | XK | OS | OK | OFF,
        }
    }

    /// Whether every cell content this letter admits is admitted by `other`.
    pub fn within(self, other: Cell) -> bool {
        self.set() & !other.set() == 0
    }

    /// The same cell seen by the other player (black ↔ white).
    pub fn swapped(self) -> Cell {
        match self {
            Cell::X => Cell::O,
            Cell::BKing => Cell::WKing,
            Cell::BPiece => Cell::WPiece,
            Cell::NoWhite => Cell::NoBlack,
            Cell::O => Cell::X,
            Cell::WKing => Cell::BKing,
            Cell::WPiece => Cell::BPiece,
            Cell::NoBlack => Cell::NoWhite,
            c => c,
        }
    }

    /// Whether the letter holds a piece of the first (black) player only: `x`, `b`, `B`.
    pub fn is_black_piece(self) -> bool {
        matches!(self, Cell::X | Cell::BKing | Cell::BPiece)
    }

    /// Whether the letter holds a piece of the second (white) player only: `o`, `w`, `W`.
    pub fn is_white_piece(self) -> bool {
        matches!(self, Cell::O | Cell::WKing | Cell::WPiece)
    }

    /// The letter as `game` reads it (Go: kings and piece classes are the stone).
    pub fn in_game(self, game: Game) -> Cell {
        match (game, self) {
            (Game::Go, Cell::BKing | Cell::BPiece) => Cell::X,
            (Game::Go, Cell::WKing | Cell::WPiece) => Cell::O,
            (_, c) => c,
        }
    }

    /// Whether a Go point's content (`None`: off the board) is admitted by this letter.
    pub fn admits(self, content: Option<GoCell>) -> bool {
        let atom = match content {
            None => OFF,
            Some(GoCell::Empty) => E,
            Some(GoCell::Stone(Color::Black)) => XS | XK,
            Some(GoCell::Stone(Color::White)) => OS | OK,
        };
        self.set() & atom != 0
    }
}

/// Which game's alphabet: Go (one kind of piece, symmetric, square board) or any game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Game {
    /// Go: `b`/`B` read as `x`, `w`/`W` as `o`; patterns are put in a canonical orientation.
    #[default]
    Go,
    /// Any game: every letter as the seed defines it; no board symmetry assumed.
    Generic,
}

/// The signature `< N; E; V; P >`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Signature {
    /// Number of players proposing the pattern.
    pub n: u32,
    /// Their average ELO.
    pub e: f64,
    /// The expected value of the position for the addressed player, 0.0 (a loss) to 1.0 (a win).
    pub v: f64,
    /// The addressed player: 1 (first, black) or 2 (second, white).
    pub p: u8,
}

impl fmt::Display for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "< {}; {}; {}; {} >", self.n, self.e, self.v, self.p)
    }
}

/// A pattern: the rows of a local area (rows may differ in length, as on a hexagonal board).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Area {
    /// The rows, top first.
    pub rows: Vec<Vec<Cell>>,
}

impl Area {
    /// The area's rows as text, one line each, cells separated by a space (the seed's form).
    pub fn text(&self) -> String {
        let mut s = String::new();
        for r in &self.rows {
            let line: Vec<String> = r.iter().map(|c| c.letter().to_string()).collect();
            s.push_str(&line.join(" "));
            s.push('\n');
        }
        s
    }

    /// A compact key: the rows' letters joined by `/` (used as the stored form).
    pub fn key(&self) -> String {
        let rows: Vec<String> = self
            .rows
            .iter()
            .map(|r| r.iter().map(|c| c.letter()).collect())
            .collect();
        rows.join("/")
    }

    /// Reads a [`Area::key`].
    pub fn from_key(key: &str) -> Option<Area> {
        let rows: Option<Vec<Vec<Cell>>> = key
            .split('/')
            .map(|r| r.chars().map(Cell::from_letter).collect())
            .collect();
        let rows = rows?;
        (!rows.is_empty() && rows.iter().all(|r| !r.is_empty())).then_some(Area { rows })
    }

    /// The shape key: the row lengths and where the off-board cells are (two areas can merge
    /// only when this is equal: "the same non-empty area").
    pub fn shape(&self) -> String {
        let rows: Vec<String> = self
            .rows
            .iter()
            .map(|r| r.iter().map(|c| if *c == Cell::Off { '+' } else { '.' }).collect())
            .collect();
        rows.join("/")
    }

    /// Whether every row has the same length.
    pub fn is_rectangular(&self) -> bool {
        self.rows.iter().all(|r| r.len() == self.rows[0].len())
    }

    /// Black and white swapped in every cell.
    pub fn swapped(&self) -> Area {
        Area {
            rows: self
                .rows
                .iter()
                .map(|r| r.iter().map(|c| c.swapped()).collect())
                .collect(),
        }
    }

    /// The area under symmetry `s` (0..8: four rotations, each optionally mirrored); rectangular
    /// areas only.
    pub fn transformed(&self, s: u8) -> Area {
        let h = self.rows.len();
        let w = self.rows[0].len();
        let (nh, nw) = if s & 1 == 1 { (w, h) } else { (h, w) };
        let mut rows = vec![vec![Cell::Any; nw]; nh];
        for (y, row) in self.rows.iter().enumerate() {
            for (x, &c) in row.iter().enumerate() {
                let (tx, ty) = transform(s, x, y, w, h);
                rows[ty][tx] = c;
            }
        }
        Area { rows }
    }

    /// The canonical orientation: the least of the eight transforms by [`Area::key`] (Go); the area
    /// itself when it is not rectangular.
    pub fn canonical(&self) -> Area {
        if !self.is_rectangular() {
            return self.clone();
        }
        (0..8)
            .map(|s| self.transformed(s))
            .min_by_key(|a| a.key())
            .expect("eight transforms")
    }

    /// The number of cells.
    pub fn len(&self) -> usize {
        self.rows.iter().map(Vec::len).sum()
    }

    /// Whether the area has no cells.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The square area of `radius` around `center` on a Go board (`+` beyond the edge; `x` black,
    /// `o` white).
    pub fn around(board: &Board, center: Point, radius: usize) -> Area {
        let r = radius as i32;
        let mut rows = Vec::with_capacity(2 * radius + 1);
        for dy in -r..=r {
            let mut row = Vec::with_capacity(2 * radius + 1);
            for dx in -r..=r {
                let x = center.col as i32 + dx;
                let y = center.row as i32 + dy;
                let c = if x < 0 || y < 0 || x >= board.cols() as i32 || y >= board.rows() as i32 {
                    Cell::Off
                } else {
                    match board.get(Point {
                        col: x as u8,
                        row: y as u8,
                    }) {
                        GoCell::Empty => Cell::Empty,
                        GoCell::Stone(Color::Black) => Cell::X,
                        GoCell::Stone(Color::White) => Cell::O,
                    }
                };
                row.push(c);
            }
            rows.push(row);
        }
        Area { rows }
    }

    /// Whether this pattern matches the board's area of the same size centred at `center` (square
    /// odd-sized areas), in the orientation given.
    pub fn matches_at(&self, board: &Board, center: Point) -> bool {
        let h = self.rows.len() as i32;
        for (y, row) in self.rows.iter().enumerate() {
            let w = row.len() as i32;
            for (x, &c) in row.iter().enumerate() {
                let bx = center.col as i32 + x as i32 - w / 2;
                let by = center.row as i32 + y as i32 - h / 2;
                let content = if bx < 0 || by < 0 || bx >= board.cols() as i32 || by >= board.rows() as i32 {
                    None
                } else {
                    Some(board.get(Point {
                        col: bx as u8,
                        row: by as u8,
                    }))
                };
                if !c.admits(content) {
                    return false;
                }
            }
        }
        true
    }
}

/// Where `(x, y)` of a `w`×`h` grid goes under symmetry `s` (bit 0: transpose, bit 1: mirror x,
/// bit 2: mirror y, applied after the transpose).
fn transform(s: u8, x: usize, y: usize, w: usize, h: usize) -> (usize, usize) {
    let (mut x, mut y, w2, h2) = if s & 1 == 1 { (y, x, h, w) } else { (x, y, w, h) };
    if s & 2 != 0 {
        x = w2 - 1 - x;
    }
    if s & 4 != 0 {
        y = h2 - 1 - y;
    }
    (x, y)
}

/// A pattern with its signature (and, optionally, the library it was posted to).
#[derive(Debug, Clone, PartialEq)]
pub struct Pattern {
    /// The local area.
    pub area: Area,
    /// `< N; E; V; P >`.
    pub sig: Signature,
    /// The library named after the signature (`chuban`, `yose`), if any.
    pub library: Option<String>,
}

impl Pattern {
    /// The pattern in the first player's view (the symmetric-game rule: a pattern addressed to the
    /// second player has its colours swapped and is addressed to the first, with the same value)
    /// and, in Go, in its canonical orientation. A pattern of a game that is not symmetric is left
    /// as it is.
    pub fn normalized(&self, game: Game) -> Pattern {
        let mut p = self.clone();
        if game == Game::Go {
            if p.sig.p == 2 {
                p.area = p.area.swapped();
                p.sig.p = 1;
            }
            p.area = p.area.canonical();
        }
        p
    }
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.area.text(), self.sig)?;
        if let Some(l) = &self.library {
            write!(f, " {l}")?;
        }
        Ok(())
    }
}

/// A syntax error in a pattern file, at a line and column (1-based).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{line}:{col}: {message}")]
pub struct NotationError {
    /// Line.
    pub line: usize,
    /// Column.
    pub col: usize,
    /// What is wrong.
    pub message: String,
}

fn err(line: usize, col: usize, message: impl Into<String>) -> NotationError {
    NotationError {
        line,
        col,
        message: message.into(),
    }
}

/// Parses a file of patterns: each the area's lines (cells separated by spaces or not), then its
/// signature line `< N; E; V; P >` (optionally followed by a library name), patterns separated by
/// blank lines. Letters are read as `game` reads them.
pub fn parse(text: &str, game: Game) -> Result<Vec<Pattern>, NotationError> {
    let mut out = Vec::new();
    let mut rows: Vec<Vec<Cell>> = Vec::new();
    let mut first_row = 0;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let t = raw.trim();
        if t.is_empty() {
            if !rows.is_empty() {
                return Err(err(
                    line,
                    1,
                    "a pattern's area must end with its signature `< N; E; V; P >`",
                ));
            }
            continue;
        }
        if t.starts_with('<') {
            let col = raw.find('<').unwrap_or(0) + 1;
            if rows.is_empty() {
                return Err(err(line, col, "a signature without an area above it"));
            }
            let (sig, library) = parse_signature(raw, line)?;
            out.push(Pattern {
                area: Area {
                    rows: std::mem::take(&mut rows),
                },
                sig,
                library,
            });
            continue;
        }
        if rows.is_empty() {
            first_row = line;
        }
        let mut row = Vec::new();
        for (j, ch) in raw.char_indices() {
            if ch.is_whitespace() {
                continue;
            }
            let c = Cell::from_letter(ch).ok_or_else(|| {
                err(
                    line,
                    raw[..j].chars().count() + 1,
                    format!("`{ch}` is not a cell letter (- x b B 1 o w W 2 + #)"),
                )
            })?;
            row.push(c.in_game(game));
        }
        rows.push(row);
    }
    if !rows.is_empty() {
        return Err(err(
            first_row,
            1,
            "a pattern's area must end with its signature `< N; E; V; P >`",
        ));
    }
    Ok(out)
}

/// Parses `< N; E; V; P > [library]` on line `line`.
pub fn parse_signature(raw: &str, line: usize) -> Result<(Signature, Option<String>), NotationError> {
    let start = raw.find('<').ok_or_else(|| err(line, 1, "expected `<`"))?;
    let end = raw
        .find('>')
        .ok_or_else(|| err(line, raw.len() + 1, "the signature has no closing `>`"))?;
    let inner = &raw[start + 1..end];
    let parts: Vec<&str> = inner.split(';').collect();
    let col = start + 2;
    if parts.len() != 4 {
        return Err(err(
            line,
            col,
            format!("a signature has four fields `< N; E; V; P >`, found {}", parts.len()),
        ));
    }
    let n: u32 = parts[0].trim().parse().map_err(|_| {
        err(
            line,
            col,
            format!("N must be a whole number, not `{}`", parts[0].trim()),
        )
    })?;
    let e: f64 = parts[1]
        .trim()
        .parse()
        .map_err(|_| err(line, col, format!("E must be a number, not `{}`", parts[1].trim())))?;
    let v: f64 = parts[2]
        .trim()
        .parse()
        .map_err(|_| err(line, col, format!("V must be a number, not `{}`", parts[2].trim())))?;
    let p: u8 = parts[3]
        .trim()
        .parse()
        .map_err(|_| err(line, col, format!("P must be 1 or 2, not `{}`", parts[3].trim())))?;
    if n == 0 {
        return Err(err(line, col, "N must be at least 1"));
    }
    if !e.is_finite() {
        return Err(err(line, col, "E must be finite"));
    }
    if !(0.0..=1.0).contains(&v) {
        return Err(err(line, col, format!("V must lie in [0, 1], not {v}")));
    }
    if p != 1 && p != 2 {
        return Err(err(line, col, format!("P must be 1 or 2, not {p}")));
    }
    let rest = raw[end + 1..].trim();
    let library = (!rest.is_empty()).then(|| rest.to_string());
    Ok((Signature { n, e, v, p }, library))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The seed's two samples (the second from a hexagonal board), read as any game.
    const SEED: &str =
        "# - x b\n# - o -\n- x - w\n< 3; 165; 0.78; 2 >\n\n- w\n# - o\n# - x #\n- o -\n- -\n< 1; 700; 0.12; 1 >\n";

    #[test]
    fn the_seeds_samples_parse_and_print_back() {
        let ps = parse(SEED, Game::Generic).unwrap();
        assert_eq!(ps.len(), 2);
        assert_eq!(
            ps[0].sig,
            Signature {
                n: 3,
                e: 165.0,
                v: 0.78,
                p: 2
            }
        );
        assert_eq!(ps[0].area.rows[0], vec![Cell::Any, Cell::Empty, Cell::X, Cell::BKing]);
        assert_eq!(
            ps[1].area.rows.iter().map(Vec::len).collect::<Vec<_>>(),
            vec![2, 3, 4, 3, 2]
        );
        let printed: Vec<String> = ps.iter().map(|p| p.to_string()).collect();
        assert_eq!(printed.join("\n\n") + "\n", SEED);
    }

    #[test]
    fn go_reads_kings_and_piece_classes_as_stones() {
        let ps = parse("b B w W 1 2\n< 1; 100; 0.5; 1 >\n", Game::Go).unwrap();
        assert_eq!(ps[0].area.key(), "xxoo12");
    }

    #[test]
    fn errors_name_line_and_column() {
        let e = parse("- x\n- q\n< 1; 1; 0.5; 1 >\n", Game::Go).unwrap_err();
        assert_eq!((e.line, e.col), (2, 3));
        let e = parse("- x\n< 1; 1; 1.5; 1 >\n", Game::Go).unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("V must lie"));
        let e = parse("- x\n\n", Game::Go).unwrap_err();
        assert_eq!(e.line, 2);
        let e = parse("- x\n< 1; 1; 0.5 >\n", Game::Go).unwrap_err();
        assert!(e.message.contains("four fields"));
        let e = parse("- x\n", Game::Go).unwrap_err();
        assert_eq!(e.line, 1);
    }

    #[test]
    fn cell_sets_follow_the_seeds_definitions() {
        assert!(Cell::X.within(Cell::BPiece) && Cell::BKing.within(Cell::BPiece));
        assert!(Cell::BPiece.within(Cell::NoWhite) && Cell::Empty.within(Cell::NoWhite));
        assert!(!Cell::O.within(Cell::NoWhite) && Cell::O.within(Cell::NoBlack));
        assert!(Cell::Off.within(Cell::Any) && !Cell::Off.within(Cell::NoWhite));
        for c in Cell::ALL {
            assert_eq!(c.swapped().swapped(), c);
            assert_eq!(Cell::from_letter(c.letter()), Some(c));
        }
    }

    #[test]
    fn second_player_patterns_become_first_player_patterns() {
        let p = &parse("x o\n- -\n< 1; 100; 0.8; 2 >\n", Game::Go).unwrap()[0];
        let n = p.normalized(Game::Go);
        assert_eq!(n.sig.p, 1);
        assert_eq!(n.sig.v, 0.8);
        // swapped: "o x / - -"; canonical = least key of its 8 transforms
        assert_eq!(n.area.key(), "--/ox");
        // a rotated copy normalizes to the same pattern
        let q = &parse("o -\nx -\n< 1; 100; 0.8; 1 >\n", Game::Go).unwrap()[0];
        assert_eq!(q.normalized(Game::Go).area, n.area);
        // any game: left alone
        assert_eq!(p.normalized(Game::Generic), *p);
    }

    #[test]
    fn the_eight_transforms_are_a_group() {
        let a = Area::from_key("x-o/--+").unwrap();
        let all: std::collections::BTreeSet<String> = (0..8).map(|s| a.transformed(s).key()).collect();
        assert_eq!(all.len(), 8);
        for s in 0..8 {
            assert_eq!(a.transformed(s).canonical(), a.canonical());
        }
    }

    #[test]
    fn areas_around_a_point_see_the_edge() {
        let mut b = Board::new(9, 9);
        b.set(Point { col: 0, row: 0 }, GoCell::Stone(Color::Black));
        b.set(Point { col: 1, row: 0 }, GoCell::Stone(Color::White));
        let a = Area::around(&b, Point { col: 0, row: 0 }, 1);
        assert_eq!(a.key(), "+++/+xo/+--");
        assert!(a.matches_at(&b, Point { col: 0, row: 0 }));
        assert!(!a.matches_at(&b, Point { col: 1, row: 1 }));
        assert!(
            Area::from_key("###/#1#/###")
                .unwrap()
                .matches_at(&b, Point { col: 0, row: 0 })
        );
        assert!(
            !Area::from_key("###/#2#/###")
                .unwrap()
                .matches_at(&b, Point { col: 0, row: 0 })
        );
    }
}
