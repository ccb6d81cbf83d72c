//! A game record read from SGF and replayed: header information, the chosen line of play, and
//! the sequence of positions with every irregularity reported as a warning with its move number.
//!
//! The replay follows the SGF specification's move execution (FF\[4\], "Move properties"); it is
//! the sensor's input of thesis §4.4 (the position an engine "must keep … in memory"). Input is
//! bounded: a line whose positions would hold more than [`MAX_POSITION_CELLS`] board points is
//! refused, and [`check_recording`] refuses a recording (and so a classification) estimated at
//! more than [`MAX_PRIMITIVES`] primitives, so that no record makes the process run out of memory.

use serde::Serialize;
use thiserror::Error;

use super::board::{Board, Cell, Color, MoveEffect, Point};
use super::record::{Attention, RecordOptions};
use super::sgf::{Ident, Sgf, SgfError, Span};

/// The most board points that a replay's positions may hold together (positions × points,
/// about one byte each: 277,000 positions of 19x19, 36,000 of 52x52).
pub const MAX_POSITION_CELLS: u64 = 100_000_000;

/// The most primitives a recording may be estimated at ([`estimated_primitives`]): 1,100
/// positions of a 19x19 board with full attention and one layer. Recording and classifying cost
/// about 0.75 KB per primitive (measured: `ets replay` and `ets classify` on the 256-move game of
/// docs/performance.md), so this keeps them under 1 GB; larger requests are refused with a clear
/// message (choose fewer moves with `--move`, or focus attention).
pub const MAX_PRIMITIVES: u64 = 1_300_000;

/// The primitives a recording of `positions` positions of a `cols × rows` board will hold, about
/// (colour, edge and adjacency primitives of every attended vertex, per layer).
pub fn estimated_primitives(cols: u8, rows: u8, positions: usize, opts: RecordOptions) -> u64 {
    let (c, r) = (cols as u64, rows as u64);
    let per_vertex = 3;
    let layers = positions as u64 * opts.layers.max(1) as u64;
    match opts.attention {
        Attention::Full => layers * (per_vertex * c * r + 2 * (c + r)),
        Attention::Focus { cap, .. } => layers * ((cap as u64 / 4).min(c * r) * (per_vertex + 2)),
        Attention::Sweep { width } => {
            let w = (width as u64).clamp(1, c);
            let windows = (c + 1).saturating_sub(w).max(1);
            layers * windows * (per_vertex * w * r + 2 * (w + r))
        }
    }
}

/// Refuses a recording estimated at more than [`MAX_PRIMITIVES`] primitives.
pub fn check_recording(cols: u8, rows: u8, positions: usize, opts: RecordOptions) -> Result<(), GameError> {
    let est = estimated_primitives(cols, rows, positions, opts);
    if est > MAX_PRIMITIVES {
        return Err(GameError::TooLarge {
            what: format!(
                "recording {positions} positions of a {cols}x{rows} board ({} layer(s) each) would take about {est} primitives, more than the {MAX_PRIMITIVES} ets records at once (about 1 GB); choose fewer moves with --move, or --attention focus",
                opts.layers.max(1)
            ),
        });
    }
    Ok(())
}

/// Header information of a game (root node properties).
#[derive(Debug, Clone, Default, Serialize)]
pub struct GameInfo {
    /// Columns and rows (SZ; default 19).
    pub size: (u8, u8),
    /// Komi (KM).
    pub komi: Option<f64>,
    /// Handicap (HA).
    pub handicap: Option<u32>,
    /// Result (RE).
    pub result: Option<String>,
    /// Black player (PB).
    pub black: Option<String>,
    /// White player (PW).
    pub white: Option<String>,
    /// Black rank (BR).
    pub black_rank: Option<String>,
    /// White rank (WR).
    pub white_rank: Option<String>,
    /// Date (DT).
    pub date: Option<String>,
    /// Event (EV).
    pub event: Option<String>,
    /// Round (RO).
    pub round: Option<String>,
    /// Place (PC).
    pub place: Option<String>,
    /// Rules (RU).
    pub rules: Option<String>,
    /// Game name (GN).
    pub name: Option<String>,
}

/// An irregularity met while reading or replaying; never fatal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Warning {
    /// The move being executed (1-based), or 0 before the first move.
    pub move_number: usize,
    /// Byte offset of the node in the source.
    pub offset: usize,
    /// What happened.
    pub message: String,
}

/// Why a game could not be read at all.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum GameError {
    /// The SGF itself is malformed.
    #[error(transparent)]
    Sgf(#[from] SgfError),
    /// The collection has fewer games.
    #[error("the file holds {have} game(s); game {want} was asked for")]
    NoSuchGame {
        /// Games in the file.
        have: usize,
        /// The 1-based game asked for.
        want: usize,
    },
    /// The variation path names a child that does not exist.
    #[error("the variation path leaves the game tree")]
    NoSuchVariation,
    /// The game is not Go (GM other than 1).
    #[error("not a Go game (GM[{0}])")]
    NotGo(String),
    /// A board size beyond what SGF points can address.
    #[error("unsupported board size `SZ[{0}]` (1 to 52 per side)")]
    BadSize(String),
    /// More than ets holds in memory at once.
    #[error("{what}")]
    TooLarge {
        /// What was asked for, and the limit.
        what: String,
    },
}

/// One executed move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MoveRecord {
    /// Who moved.
    pub color: Color,
    /// Where (`None`: a pass).
    pub point: Option<Point>,
    /// What the execution did.
    pub effect: MoveEffect,
    /// Byte offset of the node.
    pub offset: usize,
}

/// A replayed game: positions after 0, 1, …, N moves.
#[derive(Debug, Clone)]
pub struct Replay {
    /// Header information.
    pub info: GameInfo,
    /// `positions[k]`: the board after k moves (setup included).
    pub positions: Vec<Board>,
    /// `to_move[k]`: who is to play after k moves.
    pub to_move: Vec<Color>,
    /// The moves.
    pub moves: Vec<MoveRecord>,
    /// Irregularities.
    pub warnings: Vec<Warning>,
}

const B: Ident = Ident::new("B");
const W: Ident = Ident::new("W");
const AB: Ident = Ident::new("AB");
const AW: Ident = Ident::new("AW");
const AE: Ident = Ident::new("AE");
const PL: Ident = Ident::new("PL");
const SZ: Ident = Ident::new("SZ");
const GM: Ident = Ident::new("GM");

fn coord(b: u8) -> Option<u8> {
    match b {
        b'a'..=b'z' => Some(b - b'a'),
        b'A'..=b'Z' => Some(b - b'A' + 26),
        _ => None,
    }
}

fn point(raw: &[u8]) -> Option<Point> {
    match raw {
        [c, r] => Some(Point {
            col: coord(*c)?,
            row: coord(*r)?,
        }),
        _ => None,
    }
}

fn size_of(text: &str) -> Option<(u8, u8)> {
    let t = text.trim();
    let parse = |s: &str| s.trim().parse::<u8>().ok().filter(|&v| (1..=52).contains(&v));
    match t.split_once(':') {
        Some((c, r)) => Some((parse(c)?, parse(r)?)),
        None => parse(t).map(|v| (v, v)),
    }
}

impl Replay {
    /// Reads game `game` (0-based) of a collection along variation `path` (see [`Sgf::line`]) and
    /// replays it.
    pub fn from_sgf(sgf: &Sgf, game: usize, path: &[usize]) -> Result<Replay, GameError> {
        let line = sgf.line(game, path).ok_or(if game >= sgf.games().len() {
            GameError::NoSuchGame {
                have: sgf.games().len(),
                want: game + 1,
            }
        } else {
            GameError::NoSuchVariation
        })?;
        let root = line[0];
        let mut warnings = Vec::new();
        if let Some(gm) = sgf.text_of(root, GM)
            && gm.trim() != "1"
        {
            return Err(GameError::NotGo(gm));
        }
        let size = match sgf.text_of(root, SZ) {
            Some(t) => size_of(&t).ok_or(GameError::BadSize(t))?,
            None => (19, 19),
        };
        let t = |id: &str| {
            sgf.text_of(root, Ident::new(id))
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
        };
        let info = GameInfo {
            size,
            komi: t("KM").and_then(|k| k.replace(',', ".").parse().ok()),
            handicap: t("HA").and_then(|h| h.parse().ok()),
            result: t("RE"),
            black: t("PB"),
            white: t("PW"),
            black_rank: t("BR"),
            white_rank: t("WR"),
            date: t("DT"),
            event: t("EV"),
            round: t("RO"),
            place: t("PC"),
            rules: t("RU"),
            name: t("GN"),
        };
        let area = size.0 as u64 * size.1 as u64;
        // Refuse an over-long line before replaying any of it.
        let moves_in_line: u64 = line
            .iter()
            .map(|&n| sgf.props(n).iter().filter(|p| p.ident == B || p.ident == W).count() as u64)
            .sum();
        if (moves_in_line + 1) * area > MAX_POSITION_CELLS {
            return Err(GameError::TooLarge {
                what: format!(
                    "the line has {moves_in_line} moves on a {}x{} board; ets replays at most {} positions of this board ({MAX_POSITION_CELLS} board points)",
                    size.0,
                    size.1,
                    MAX_POSITION_CELLS / area
                ),
            });
        }
        let mut board = Board::new(size.0, size.1);
        let first = if info.handicap.unwrap_or(0) >= 2 {
            Color::White
        } else {
            Color::Black
        };
        let mut positions = Vec::new();
        let mut to_move = vec![];
        let mut moves: Vec<MoveRecord> = Vec::new();
        let mut next = first;
        let mut prev_board: Option<Board> = None; // position before the last move (for ko)
        for &n in &line {
            let at = sgf.node(n).at as usize;
            let mv_no = moves.len();
            let mut setup = false;
            // Setup first.
            for (id, cell) in [
                (AE, Cell::Empty),
                (AB, Cell::Stone(Color::Black)),
                (AW, Cell::Stone(Color::White)),
            ] {
                for p in sgf.props(n).iter().filter(|p| p.ident == id) {
                    setup = true;
                    for &s in sgf.raw_values(p) {
                        for q in expand(sgf, s, &board, mv_no, at, &mut warnings) {
                            board.set(q, cell);
                        }
                    }
                }
            }
            if let Some(pl) = sgf.text_of(n, PL) {
                match pl.trim().to_ascii_uppercase().as_str() {
                    "B" | "1" => next = Color::Black,
                    "W" | "2" => next = Color::White,
                    other => warnings.push(Warning {
                        move_number: mv_no,
                        offset: at,
                        message: format!("PL[{other}] is neither B nor W"),
                    }),
                }
            }
            let mut mv: Vec<(Color, Span)> = Vec::new();
            for p in sgf.props(n) {
                let c = if p.ident == B {
                    Color::Black
                } else if p.ident == W {
                    Color::White
                } else {
                    continue;
                };
                if let Some(&s) = sgf.raw_values(p).first() {
                    mv.push((c, s));
                }
            }
            if mv.len() > 1 {
                warnings.push(Warning {
                    move_number: mv_no + 1,
                    offset: at,
                    message: "a node holds more than one move; executing them in order".into(),
                });
            }
            if mv.is_empty() && moves.is_empty() && setup {
                positions.clear();
                to_move.clear();
            }
            if positions.is_empty() {
                positions.push(board.clone());
                to_move.push(next);
            }
            for (color, s) in mv {
                let number = moves.len() + 1;
                if (number as u64 + 1) * area > MAX_POSITION_CELLS {
                    return Err(GameError::TooLarge {
                        what: format!(
                            "the line has more than {} moves on a {}x{} board; ets replays at most {} board points of positions ({} positions of this board)",
                            number - 1,
                            size.0,
                            size.1,
                            MAX_POSITION_CELLS,
                            MAX_POSITION_CELLS / area
                        ),
                    });
                }
                let raw = sgf.raw(s);
                let trimmed: Vec<u8> = raw.iter().copied().filter(|b| !b.is_ascii_whitespace()).collect();
                if color != next && !moves.is_empty() {
                    warnings.push(Warning {
                        move_number: number,
                        offset: at,
                        message: format!("{} moves twice in a row", color_name(color)),
                    });
                }
                let pt = if trimmed.is_empty() || (trimmed == b"tt" && size.0 <= 19 && size.1 <= 19) {
                    None
                } else {
                    match point(&trimmed) {
                        Some(p) if board.contains(p) => Some(p),
                        _ => {
                            warnings.push(Warning {
                                move_number: number,
                                offset: at,
                                message: format!(
                                    "move `{}` is not a point of this board; played as a pass",
                                    String::from_utf8_lossy(raw)
                                ),
                            });
                            None
                        }
                    }
                };
                let before = board.clone();
                let effect = match pt {
                    Some(p) => {
                        let e = board.play(color, p);
                        if let Some(c) = e.occupied {
                            let what = match c {
                                Cell::Stone(Color::Black) => "a black stone",
                                Cell::Stone(Color::White) => "a white stone",
                                Cell::Empty => "nothing",
                            };
                            warnings.push(Warning {
                                move_number: number,
                                offset: at,
                                message: format!(
                                    "{} plays {} onto {what}; executed as the SGF specification says",
                                    color_name(color),
                                    p.gtp(size.1)
                                ),
                            });
                        }
                        if !e.suicide.is_empty() {
                            warnings.push(Warning {
                                move_number: number,
                                offset: at,
                                message: format!(
                                    "{} {} is suicide ({} stone(s) removed)",
                                    color_name(color),
                                    p.gtp(size.1),
                                    e.suicide.len()
                                ),
                            });
                        }
                        if !e.captured.is_empty() && prev_board.as_ref().is_some_and(|pb| pb.same_stones(&board)) {
                            warnings.push(Warning {
                                move_number: number,
                                offset: at,
                                message: format!(
                                    "{} {} retakes a ko at once (the position repeats)",
                                    color_name(color),
                                    p.gtp(size.1)
                                ),
                            });
                        }
                        e
                    }
                    None => MoveEffect::default(),
                };
                prev_board = Some(before);
                moves.push(MoveRecord {
                    color,
                    point: pt,
                    effect,
                    offset: at,
                });
                next = color.other();
                positions.push(board.clone());
                to_move.push(next);
            }
            // Setup and PL in a node after the last move belong to the position after that move.
            if let Some(last) = to_move.last_mut() {
                *last = next;
            }
            if setup
                && let Some(last) = positions.last_mut()
                && *last != board
            {
                *last = board.clone();
            }
        }
        if positions.is_empty() {
            positions.push(board.clone());
            to_move.push(next);
        }
        Ok(Replay {
            info,
            positions,
            to_move,
            moves,
            warnings,
        })
    }

    /// Number of moves.
    pub fn len(&self) -> usize {
        self.moves.len()
    }
    /// Whether the game has no move.
    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }
}

fn color_name(c: Color) -> &'static str {
    match c {
        Color::Black => "Black",
        Color::White => "White",
    }
}

/// Expands a point or a compressed point list `ul:lr` (a rectangle).
fn expand(sgf: &Sgf, s: Span, board: &Board, mv: usize, at: usize, warnings: &mut Vec<Warning>) -> Vec<Point> {
    let raw: Vec<u8> = sgf
        .raw(s)
        .iter()
        .copied()
        .filter(|b| !b.is_ascii_whitespace())
        .collect();
    let bad = |warnings: &mut Vec<Warning>| {
        warnings.push(Warning {
            move_number: mv,
            offset: at,
            message: format!(
                "setup point `{}` is not on the board; ignored",
                String::from_utf8_lossy(&raw)
            ),
        })
    };
    let (a, b) = match raw.iter().position(|&c| c == b':') {
        Some(i) => (point(&raw[..i]), point(&raw[i + 1..])),
        None => {
            let p = point(&raw);
            (p, p)
        }
    };
    match (a, b) {
        (Some(a), Some(b)) if board.contains(a) && board.contains(b) => {
            let (c0, c1) = (a.col.min(b.col), a.col.max(b.col));
            let (r0, r1) = (a.row.min(b.row), a.row.max(b.row));
            (r0..=r1)
                .flat_map(|row| (c0..=c1).map(move |col| Point { col, row }))
                .collect()
        }
        _ => {
            bad(warnings);
            Vec::new()
        }
    }
}

impl Board {
    /// Whether two boards hold the same stones (prisoners aside).
    pub fn same_stones(&self, other: &Board) -> bool {
        self.same_cells(other)
    }
}
