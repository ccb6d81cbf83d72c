//! The Game API: a game being played, classified move by move (thesis §5.3.2: the class-driven
//! player "first inductively recognizes the various class elements present in the current
//! position", and §5.3.2.1: "the process of recognition need not be done from scratch at every
//! turn").
//!
//! A [`Game`] holds the rules' referee ([`FastBoard`]: legality with suicide and simple ko,
//! positional superko as an option, captures, prisoners, area and territory scores — rule code,
//! not class code) and a [`GoTimeline`] (the sensor and the engine's timeline) that turns each
//! move into one step and keeps the elements of every level, with their lives, up to date. After
//! each move, [`Game::delta`] says which elements of which classes were born, became complete,
//! grew, merged, forked or ended at each level; [`Game::undo`] takes the move back (the timeline
//! keeps a journal) and [`Game::fork`] copies the game for a search (the classification is
//! shared until one of the copies plays).
//!
//! ```
//! use std::sync::Arc;
//! use ets::go::board::Point;
//! use ets::go::classify::embedded_setting;
//! use ets::go::live::{Game, GameOptions};
//!
//! let setting = Arc::new(embedded_setting().1.expect("the embedded setting"));
//! let mut game = Game::new(setting, 9, 9, GameOptions::default()).unwrap();
//! let at = |gtp: &str| Point::from_gtp(gtp, 9).unwrap();
//! game.play(at("E5")).unwrap(); // black
//! game.play(at("E6")).unwrap(); // white
//! game.play(at("D5")).unwrap(); // black: its stone joins the E5 block
//!
//! // The black block of two stones, one element that grew (it kept its identity).
//! let blocks = game.elements(1, "black_block");
//! assert_eq!(blocks.len(), 1);
//! assert_eq!(blocks[0].vertices, vec![at("D5"), at("E5")]);
//! assert!(game.delta(1).extended.contains(&blocks[0].id));
//!
//! // Try a move, look at what it would change, take it back.
//! game.play(at("F5")).unwrap();
//! let born: Vec<String> = game.born(1).into_iter().map(|e| e.class.to_string()).collect();
//! assert!(born.contains(&"white_one_stone_block".to_string()));
//! game.undo().unwrap();
//! assert_eq!(game.moves(), 3);
//! assert!(game.is_legal(at("F5")));
//! assert!(!game.is_legal(at("E5")));
//! ```

use std::sync::Arc;
use thiserror::Error;

use super::board::{Board, Cell, Color, Point};
use super::classify::{ClassifyError, GoTimeline};
use super::fastboard::{BadSize, FastBoard, Illegal, Rules, Undo, Vtx};
use super::game::Replay;
use super::record::{Attention, RecordOptions};
use crate::ets::Setting;
use crate::ets::ids::ElementId;
use crate::ets::timeline::LevelDelta;

/// How a game is classified and refereed.
#[derive(Debug, Clone, Copy)]
pub struct GameOptions {
    /// Where the player's attention goes (§4.4): by default a focus on the last move (three
    /// refresh layers of its neighbourhood, the whole board at the start), which keeps every
    /// element of the board alive (`docs/semantics.md`) at a small cost per move.
    pub record: RecordOptions,
    /// Superko and suicide options.
    pub rules: Rules,
    /// Komi, for the scores.
    pub komi: f32,
    /// The highest level classified (default: every level of the setting).
    pub top: Option<u32>,
}

impl Default for GameOptions {
    fn default() -> Self {
        GameOptions {
            record: RecordOptions {
                attention: Attention::FOCUS,
                layers: 3,
            },
            rules: Rules::default(),
            komi: 6.5,
            top: None,
        }
    }
}

/// A move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Move {
    /// A stone on a point.
    Play(Point),
    /// A pass.
    Pass,
}

/// Why a game could not be made or a move not played.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum GameError {
    /// The board size is not supported (1 to 25 columns and rows).
    #[error("a {0}x{1} board is not supported")]
    BadSize(usize, usize),
    /// The move breaks the rules.
    #[error("{mv:?} is illegal: {why}")]
    Illegal {
        /// The move.
        mv: Move,
        /// Why.
        why: Illegal,
    },
    /// A record position asked for does not exist.
    #[error("the record has {have} moves; position {want} was asked for")]
    NoSuchPosition {
        /// Moves in the record.
        have: usize,
        /// The position asked for.
        want: usize,
    },
    /// Nothing to take back.
    #[error("no move to take back")]
    NothingToUndo,
    /// The classification refused the position.
    #[error(transparent)]
    Classify(#[from] ClassifyError),
}

impl From<BadSize> for GameError {
    fn from(b: BadSize) -> Self {
        GameError::BadSize(b.0, b.1)
    }
}

/// One move played, and what undo needs.
#[derive(Debug, Clone)]
struct Played {
    before: Before,
    /// [`Game::synced`] before the move.
    synced: bool,
    to_move: Color,
    mv: Move,
    captured: Vec<Point>,
}

/// How the referee is taken back to the position before a move.
#[derive(Debug, Clone)]
enum Before {
    /// A move played on it: its writes, undone.
    Undo(Undo),
    /// A move of the record a game started from, which the referee did not play: the position
    /// before it, which the referee is made from again.
    Position(Board),
}

/// The moves played, newest first, as a persistent list: a fork shares its history with the game
/// it came from (O(1)), and a move taken back is moved out when no fork shares it (copied
/// otherwise).
#[derive(Clone, Default)]
struct History {
    head: Option<Arc<HistoryNode>>,
    len: usize,
}

struct HistoryNode {
    played: Played,
    prev: Option<Arc<HistoryNode>>,
}

impl History {
    fn push(&mut self, played: Played) {
        let prev = self.head.take();
        self.head = Some(Arc::new(HistoryNode { played, prev }));
        self.len += 1;
    }
    fn last(&self) -> Option<&Played> {
        self.head.as_deref().map(|n| &n.played)
    }
    fn pop(&mut self) -> Option<Played> {
        let node = self.head.take()?;
        self.len -= 1;
        match Arc::try_unwrap(node) {
            Ok(mut n) => {
                self.head = n.prev.take();
                Some(n.played)
            }
            Err(shared) => {
                self.head = shared.prev.clone();
                Some(shared.played.clone())
            }
        }
    }
}

impl Drop for History {
    /// Iteratively, so that a history of any length drops without deep recursion.
    fn drop(&mut self) {
        let mut next = self.head.take();
        while let Some(node) = next {
            match Arc::try_unwrap(node) {
                Ok(mut n) => next = n.prev.take(),
                Err(_) => break,
            }
        }
    }
}

impl std::fmt::Debug for History {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "History({} moves)", self.len)
    }
}

/// An element as a player reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ElementView<'a> {
    /// Its level.
    pub level: u32,
    /// Its id in its level (stable while the game goes on).
    pub id: ElementId,
    /// Its class's name.
    pub class: &'a str,
    /// The thesis's symbol of its class, if any.
    pub thesis: Option<&'a str>,
    /// The vertices it involves now (see [`GoTimeline::vertices`]).
    pub vertices: Vec<Point>,
    /// The move it began at.
    pub born: u32,
    /// Whether its schedule may end where it stands (false: still forming, §5.3.2.1).
    pub complete: bool,
    /// The first position it is no longer present in, if it has ended.
    pub ended: Option<u32>,
}

/// A game being played, classified move by move.
#[derive(Debug, Clone)]
pub struct Game {
    board: FastBoard,
    /// Whether the classification's last position is the referee's (stones and prisoners), so
    /// that a move is perceived from what it changed. Not so at the start of a record's game
    /// whose position holds chains without liberties, which the referee removed: the next move
    /// is then perceived from the referee's whole position, and every position taken back is
    /// the referee's.
    synced: bool,
    to_move: Color,
    komi: f32,
    played: History,
    classes: Arc<GoTimeline>,
}

impl Game {
    /// An empty `cols` × `rows` board, Black to move.
    pub fn new(setting: Arc<Setting>, cols: u8, rows: u8, opts: GameOptions) -> Result<Game, GameError> {
        let board = FastBoard::with_rules(cols as usize, rows as usize, opts.rules)?;
        let mut g = GoTimeline::new(setting, (cols, rows), opts.record, opts.top)?;
        g.keep_journal(true);
        g.push(&board.to_board(), None)?;
        Ok(Game {
            board,
            synced: true,
            to_move: Color::Black,
            komi: opts.komi,
            played: History::default(),
            classes: Arc::new(g),
        })
    }

    /// The game of a record at position `at` (after `at` moves), every position before it
    /// classified on the way; the record's player to move is to move. (The referee starts from the
    /// position's stones and prisoners: a ko of the record's last move is not known to it.)
    pub fn from_replay(
        setting: Arc<Setting>,
        replay: &Replay,
        at: usize,
        opts: GameOptions,
    ) -> Result<Game, GameError> {
        if at > replay.len() {
            return Err(GameError::NoSuchPosition {
                have: replay.len(),
                want: at,
            });
        }
        let first = &replay.positions[0];
        let mut g = GoTimeline::new(setting, (first.cols(), first.rows()), opts.record, opts.top)?;
        g.keep_journal(true);
        let mut played = History::default();
        for k in 0..=at {
            let last = if k == 0 { None } else { replay.moves[k - 1].point };
            g.push(&replay.positions[k], last)?;
            if k > 0 {
                let m = &replay.moves[k - 1];
                played.push(Played {
                    before: Before::Position(replay.positions[k - 1].clone()),
                    synced: false,
                    to_move: replay.to_move[k - 1],
                    mv: m.point.map_or(Move::Pass, Move::Play),
                    captured: m.effect.captured.clone(),
                });
            }
        }
        let board = FastBoard::from_board(&replay.positions[at], opts.rules)?;
        Ok(Game {
            // A position whose chains without liberties the referee removed is not its own.
            synced: board.to_board() == replay.positions[at],
            board,
            to_move: replay.to_move[at],
            komi: opts.komi,
            played,
            classes: Arc::new(g),
        })
    }

    /// Whether the classification remembers stillborn derivations ([`GoTimeline::remember_floods`];
    /// on by default). Turning it off changes no result, only the time a move takes.
    pub fn remember_floods(&mut self, on: bool) {
        Arc::make_mut(&mut self.classes).remember_floods(on);
    }

    /// Whether the classification derives starts first as trials
    /// ([`GoTimeline::trial_derivations`]; on by default). Turning it off changes no result, only
    /// the time a move takes.
    pub fn trial_derivations(&mut self, on: bool) {
        Arc::make_mut(&mut self.classes).trial_derivations(on);
    }

    /// Plays a stone for the player to move.
    pub fn play(&mut self, p: Point) -> Result<&[crate::ets::timeline::Level], GameError> {
        self.play_move(Move::Play(p))
    }

    /// Passes for the player to move.
    pub fn pass(&mut self) -> Result<&[crate::ets::timeline::Level], GameError> {
        self.play_move(Move::Pass)
    }

    /// Plays `mv` for the player to move; returns the levels (their deltas say what the move
    /// changed).
    pub fn play_move(&mut self, mv: Move) -> Result<&[crate::ets::timeline::Level], GameError> {
        let color = self.to_move;
        let (v, last) = match mv {
            Move::Play(p) => {
                if p.col as usize >= self.board.cols() || p.row as usize >= self.board.rows() {
                    return Err(GameError::Illegal {
                        mv,
                        why: Illegal::OffBoard,
                    });
                }
                (self.board.vtx(p), Some(p))
            }
            Move::Pass => (Vtx::PASS, None),
        };
        let undo = self
            .board
            .play_undoable(color, v)
            .map_err(|why| GameError::Illegal { mv, why })?;
        // The points the move changed (from the referee's own writes, not a look at every
        // point): what the classification perceives, and the captures.
        let mut changes: Vec<(Point, Cell)> = Vec::new();
        let mut captured = Vec::new();
        for (w, before) in undo.changed(&self.board) {
            let Some(p) = self.board.point(w) else { continue };
            let now = self.board.color_at(w);
            changes.push((p, now.map_or(Cell::Empty, Cell::Stone)));
            if before == Some(color.other()) && now.is_none() {
                captured.push(p);
            }
        }
        let g = Arc::make_mut(&mut self.classes);
        let pushed = if self.synced {
            g.push_changes(&changes, self.board.prisoners(), last).map(|_| ())
        } else {
            g.push(&self.board.to_board(), last).map(|_| ())
        };
        if let Err(e) = pushed {
            self.board.undo(&undo);
            return Err(e.into());
        }
        self.played.push(Played {
            before: Before::Undo(undo),
            synced: self.synced,
            to_move: color,
            mv,
            captured,
        });
        self.synced = true;
        self.to_move = color.other();
        Ok(self.classes.timeline().levels())
    }

    /// Takes the last move back.
    pub fn undo(&mut self) -> Result<(), GameError> {
        let Some(last) = self.played.last() else {
            return Err(GameError::NothingToUndo);
        };
        // The referee before the move, and the position the classification compares the next
        // move with: what its journal puts back when that was the referee's, the referee's
        // otherwise. Made before anything is taken back, so that an error leaves the game as it
        // was.
        let (board, previous) = match &last.before {
            Before::Undo(_) if last.synced => (None, None),
            Before::Undo(u) => {
                let mut b = self.board.clone();
                b.undo(u);
                let previous = b.to_board();
                (Some(b), Some(previous))
            }
            Before::Position(p) => {
                let b = FastBoard::from_board(p, self.board.rules())?;
                let previous = b.to_board();
                (Some(b), Some(previous))
            }
        };
        Arc::make_mut(&mut self.classes).undo(previous.as_ref())?;
        let p = self.played.pop().expect("a move to take back");
        match (board, &p.before) {
            (Some(b), _) => self.board = b,
            (None, Before::Undo(u)) => self.board.undo(u),
            (None, Before::Position(_)) => {}
        }
        self.synced = true;
        self.to_move = p.to_move;
        Ok(())
    }

    /// A copy for a search: the referee is copied, the history of moves shared (a persistent
    /// list), the classification shared until one of the two plays (then that one copies it).
    pub fn fork(&self) -> Game {
        self.clone()
    }

    /// The player to move.
    pub fn to_move(&self) -> Color {
        self.to_move
    }
    /// Moves played (the position's number).
    pub fn moves(&self) -> u32 {
        self.classes.position().unwrap_or(0)
    }
    /// The last move, if any.
    pub fn last_move(&self) -> Option<Move> {
        self.played.last().map(|p| p.mv)
    }
    /// The stones the last move captured.
    pub fn last_captures(&self) -> &[Point] {
        self.played.last().map_or(&[], |p| p.captured.as_slice())
    }
    /// Prisoners: stones captured by Black, by White.
    pub fn prisoners(&self) -> (u32, u32) {
        self.board.prisoners()
    }
    /// The position.
    pub fn board(&self) -> Board {
        self.board.to_board()
    }
    /// The referee.
    pub fn referee(&self) -> &FastBoard {
        &self.board
    }
    /// Whether the player to move may play on `p`.
    pub fn is_legal(&self, p: Point) -> bool {
        self.check(p).is_ok()
    }
    /// Why the player to move may not play on `p`, if not.
    pub fn check(&self, p: Point) -> Result<(), Illegal> {
        if p.col as usize >= self.board.cols() || p.row as usize >= self.board.rows() {
            return Err(Illegal::OffBoard);
        }
        self.board.check(self.to_move, self.board.vtx(p))
    }
    /// The points the player to move may play on, row by row.
    pub fn legal_moves(&self) -> Vec<Point> {
        let mut v: Vec<Point> = self
            .board
            .legal_moves(self.to_move)
            .into_iter()
            .filter_map(|x| self.board.point(x))
            .collect();
        v.sort_by_key(|p| (p.row, p.col));
        v
    }
    /// Area score (Tromp–Taylor, `dead` stones removed first): Black's area − White's − komi.
    pub fn area_score(&self, dead: &[Point]) -> f32 {
        let d: Vec<_> = dead.iter().map(|&p| self.board.vtx(p)).collect();
        self.board.area_score(self.komi, &d)
    }
    /// Territory score (`dead` stones taken as prisoners): Black's territory and prisoners −
    /// White's − komi.
    pub fn territory_score(&self, dead: &[Point]) -> f32 {
        let d: Vec<_> = dead.iter().map(|&p| self.board.vtx(p)).collect();
        self.board.territory_score(self.komi, &d)
    }

    /// The classification: the sensor and the timeline.
    pub fn classification(&self) -> &GoTimeline {
        &self.classes
    }
    /// What the last move changed at `level`.
    pub fn delta(&self, level: u32) -> &LevelDelta {
        self.classes.timeline().level(level).delta()
    }
    /// Element `id` of `level`, as it stands now.
    pub fn element(&self, level: u32, id: ElementId) -> ElementView<'_> {
        let g = &*self.classes;
        let t = self.moves();
        let el = g.timeline().level(level).element(id);
        let cl = g.setting().class(el.class());
        ElementView {
            level,
            id,
            class: &cl.name,
            thesis: cl.symbol.as_deref(),
            vertices: g.vertices(level, id, t.min(el.ended().map_or(t, |d| d.saturating_sub(1)))),
            born: el.born(),
            complete: el.completed().is_some(),
            ended: el.ended(),
        }
    }
    /// The complete elements of `level` present now, of the class named `class` (every class
    /// when empty).
    pub fn elements(&self, level: u32, class: &str) -> Vec<ElementView<'_>> {
        self.present(level, class, false)
    }
    /// The elements of `level` present now and still forming (their schedule cannot end where
    /// they stand, §5.3.2.1), of the class named `class` (every class when empty).
    pub fn forming(&self, level: u32, class: &str) -> Vec<ElementView<'_>> {
        self.present(level, class, true)
            .into_iter()
            .filter(|e| !e.complete)
            .collect()
    }
    fn present(&self, level: u32, class: &str, forming: bool) -> Vec<ElementView<'_>> {
        let t = self.moves();
        self.classes
            .present(level, t, forming)
            .into_iter()
            .map(|e| self.element(level, e))
            .filter(|e| class.is_empty() || e.class == class)
            .collect()
    }
    /// The elements of `level` born at the last move.
    pub fn born(&self, level: u32) -> Vec<ElementView<'_>> {
        self.delta(level).born.iter().map(|&e| self.element(level, e)).collect()
    }
    /// The elements of `level` that ended at the last move.
    pub fn ended(&self, level: u32) -> Vec<ElementView<'_>> {
        self.delta(level)
            .ended
            .iter()
            .map(|&e| self.element(level, e))
            .collect()
    }
}
