//! The board and the rules of move execution: the non-ETS record of the position that the thesis
//! says a Go engine "must keep … in memory" beside its structs (§4.4.2), from which the recorder
//! takes what the player's attention perceives.
//!
//! Move execution follows the SGF specification (FF\[4\], "Move properties"): a move is executed
//! even when illegal — the stone is placed (replacing what was there), opponent blocks left
//! without liberties are removed, then the mover's own block if it has none (suicide); prisoners
//! are counted. Setup (AB/AW/AE) places or clears stones and never captures.

use serde::Serialize;

/// A stone colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Color {
    /// Black.
    Black,
    /// White.
    White,
}

impl Color {
    /// The other colour.
    pub fn other(self) -> Color {
        match self {
            Color::Black => Color::White,
            Color::White => Color::Black,
        }
    }
    /// `B` or `W`.
    pub fn letter(self) -> &'static str {
        match self {
            Color::Black => "B",
            Color::White => "W",
        }
    }
}

/// What a vertex holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Cell {
    /// Nothing.
    #[default]
    Empty,
    /// A stone.
    Stone(Color),
}

/// A vertex: column from the left and row from the top, both from 0 (SGF's orientation).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Point {
    /// Column, 0 = leftmost.
    pub col: u8,
    /// Row, 0 = top.
    pub row: u8,
}

const GTP_COLUMNS: &[u8] = b"ABCDEFGHJKLMNOPQRSTUVWXYZ";

impl Point {
    /// The vertex as GTP names it on a board with `rows` rows (columns A–Z without I, row 1 at
    /// the bottom); boards wider than 25 use `c{col}` for the rest.
    pub fn gtp(self, rows: u8) -> String {
        let row = rows as i32 - self.row as i32;
        match GTP_COLUMNS.get(self.col as usize) {
            Some(&c) => format!("{}{}", c as char, row),
            None => format!("c{}-{}", self.col + 1, row),
        }
    }
    /// Parses a GTP vertex name.
    pub fn from_gtp(s: &str, rows: u8) -> Option<Point> {
        let s = s.trim();
        let mut ch = s.chars();
        let c = ch.next()?.to_ascii_uppercase();
        let col = GTP_COLUMNS.iter().position(|&x| x as char == c)? as u8;
        let r: i32 = ch.as_str().parse().ok()?;
        if r < 1 || r > rows as i32 {
            return None;
        }
        Some(Point {
            col,
            row: (rows as i32 - r) as u8,
        })
    }
}

/// A board of `cols × rows` vertices with prisoner counts.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Board {
    cols: u8,
    rows: u8,
    cells: Vec<Cell>,
    /// Stones captured by Black.
    pub captured_by_black: u32,
    /// Stones captured by White.
    pub captured_by_white: u32,
}

/// What happened when a move was executed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MoveEffect {
    /// The point already held a stone (which was replaced).
    pub occupied: Option<Cell>,
    /// Opponent stones removed.
    pub captured: Vec<Point>,
    /// Own stones removed (suicide).
    pub suicide: Vec<Point>,
}

impl Board {
    /// An empty board.
    pub fn new(cols: u8, rows: u8) -> Board {
        Board {
            cols,
            rows,
            cells: vec![Cell::Empty; cols as usize * rows as usize],
            captured_by_black: 0,
            captured_by_white: 0,
        }
    }
    /// Whether two boards have the same size and hold the same stones (prisoners aside).
    pub fn same_cells(&self, other: &Board) -> bool {
        self.cols == other.cols && self.rows == other.rows && self.cells == other.cells
    }
    /// Columns.
    pub fn cols(&self) -> u8 {
        self.cols
    }
    /// Rows.
    pub fn rows(&self) -> u8 {
        self.rows
    }
    /// Whether `p` is on the board.
    pub fn contains(&self, p: Point) -> bool {
        p.col < self.cols && p.row < self.rows
    }
    fn idx(&self, p: Point) -> usize {
        p.row as usize * self.cols as usize + p.col as usize
    }
    /// What `p` holds.
    pub fn get(&self, p: Point) -> Cell {
        self.cells[self.idx(p)]
    }
    /// Sets `p` (setup: never captures).
    pub fn set(&mut self, p: Point, c: Cell) {
        let i = self.idx(p);
        self.cells[i] = c;
    }
    /// What every vertex holds, row by row from the top.
    pub fn cells(&self) -> &[Cell] {
        &self.cells
    }
    /// Every vertex, row by row from the top.
    pub fn points(&self) -> impl Iterator<Item = Point> + '_ {
        (0..self.rows).flat_map(move |row| (0..self.cols).map(move |col| Point { col, row }))
    }
    /// The on-board neighbours of `p`, in the order left, up, down, right.
    pub fn neighbours(&self, p: Point) -> impl Iterator<Item = Point> + '_ {
        let (c, r) = (p.col as i16, p.row as i16);
        [(c - 1, r), (c, r - 1), (c, r + 1), (c + 1, r)]
            .into_iter()
            .filter(|&(c, r)| c >= 0 && r >= 0 && c < self.cols as i16 && r < self.rows as i16)
            .map(|(c, r)| Point {
                col: c as u8,
                row: r as u8,
            })
    }
    /// The block containing `p` and whether it has a liberty.
    fn block(&self, p: Point) -> (Vec<Point>, bool) {
        let color = self.get(p);
        let mut seen = vec![false; self.cells.len()];
        let mut stack = vec![p];
        seen[self.idx(p)] = true;
        let mut out = Vec::new();
        let mut free = false;
        while let Some(q) = stack.pop() {
            out.push(q);
            for n in self.neighbours(q) {
                let c = self.get(n);
                if c == Cell::Empty {
                    free = true;
                } else if c == color && !seen[self.idx(n)] {
                    seen[self.idx(n)] = true;
                    stack.push(n);
                }
            }
        }
        (out, free)
    }
    /// Executes a move as the SGF specification says (see the module documentation).
    pub fn play(&mut self, color: Color, p: Point) -> MoveEffect {
        let mut eff = MoveEffect::default();
        let before = self.get(p);
        if before != Cell::Empty {
            eff.occupied = Some(before);
        }
        self.set(p, Cell::Stone(color));
        let opp = Cell::Stone(color.other());
        let ns: Vec<Point> = self.neighbours(p).collect();
        for n in ns {
            if self.get(n) == opp {
                let (blk, free) = self.block(n);
                if !free {
                    for q in blk {
                        self.set(q, Cell::Empty);
                        eff.captured.push(q);
                    }
                }
            }
        }
        let (own, free) = self.block(p);
        if !free {
            for q in own {
                self.set(q, Cell::Empty);
                eff.suicide.push(q);
            }
        }
        let (mine, theirs) = (eff.captured.len() as u32, eff.suicide.len() as u32);
        match color {
            Color::Black => {
                self.captured_by_black += mine;
                self.captured_by_white += theirs;
            }
            Color::White => {
                self.captured_by_white += mine;
                self.captured_by_black += theirs;
            }
        }
        eff
    }
    /// The stones of one colour, row by row.
    pub fn stones(&self, color: Color) -> Vec<Point> {
        self.points().filter(|&p| self.get(p) == Cell::Stone(color)).collect()
    }
    /// An ASCII diagram (`X` black, `O` white, `.` empty), with GTP coordinates.
    pub fn ascii(&self) -> String {
        let mut s = String::new();
        let header: String = (0..self.cols)
            .map(|c| format!(" {}", Point { col: c, row: 0 }.gtp(1).chars().next().unwrap_or('?')))
            .collect();
        s.push_str(&format!("   {header}\n"));
        for r in 0..self.rows {
            s.push_str(&format!("{:>2} ", self.rows - r));
            for c in 0..self.cols {
                s.push(' ');
                s.push(match self.get(Point { col: c, row: r }) {
                    Cell::Empty => '.',
                    Cell::Stone(Color::Black) => 'X',
                    Cell::Stone(Color::White) => 'O',
                });
            }
            s.push('\n');
        }
        s
    }
}
