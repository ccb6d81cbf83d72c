//! A class-driven Go player (thesis §5.3.2–5.3.4): the move decision, the GTP engine and the
//! arena.
//!
//! The decision (§5.3.2): the opening book may answer at once (§5.3.3); otherwise the candidate
//! sources propose moves with reasons — the class generating systems of the elements present
//! (§5.3.2.2, [`components::ClassCandidates`]) and, when present, the move-prediction ranker —
//! and the position is evaluated by sample games ([`mcts`], §5.3.2.1) in which the proposals are
//! priors; the most visited move is played, a pass when the opponent has passed and the game,
//! counted with the dead stones the sample games show, is won, and a resignation when the search
//! finds no hope. Every component is switchable ([`Components`]) for ablations.

pub mod arena;
pub mod components;
pub mod gtp;
pub mod mcts;
pub mod ratings;
pub mod state;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::go::board::Color;
use crate::go::fastboard::{Rules, Vtx};
use components::{CandidateSource, ClassCandidates, OpeningBook, Proposal};
use mcts::{Prior, Search, SearchConfig, SearchResult};
use state::GameState;

/// Which components of the decision are on.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Components {
    /// Candidates from the class generating systems of the elements present (§5.3.2.2).
    pub classes: bool,
    /// How many class candidates become priors.
    pub class_top: usize,
    /// Prior virtual visits of a class candidate of weight 1 (scaled by its weight).
    pub class_prior: f32,
    /// Win rate of those virtual visits.
    pub class_prior_value: f32,
    /// Only proposed moves are searched at the root (Indigo's preselection); else they are priors.
    pub restrict_root: bool,
    /// The move-prediction ranker of the knowledge store as a prior (issue 18; needs `store`).
    pub ranker: bool,
    /// Forme_K's best pattern as an opening book (issue 18; needs `store`).
    pub forme_k_book: bool,
    /// Moves for which the book is consulted.
    pub book_moves: usize,
    /// The ACADEMY (Fuseki library; post-mortem after each game) (issue 19; needs `store`).
    pub academy: bool,
    /// Gomi's σ in the playouts (issue 19; needs `store`).
    pub gomi: bool,
}

impl Default for Components {
    fn default() -> Components {
        Components {
            classes: true,
            class_top: 16,
            class_prior: 20.0,
            class_prior_value: 0.6,
            restrict_root: false,
            ranker: false,
            forme_k_book: false,
            book_moves: 20,
            academy: false,
            gomi: false,
        }
    }
}

/// The player's settings (flags and a TOML file; see `docs/player.md`).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PlayerConfig {
    /// The engine's name (GTP `name`).
    pub name: String,
    /// The search.
    pub search: SearchConfig,
    /// Seconds per move at most (0: by playouts only, unless the controller sets a clock).
    pub time_per_move: f64,
    /// Resign when the best move's win rate is below this (0: never).
    pub resign: f32,
    /// Positional superko.
    pub superko: bool,
    /// The components.
    pub components: Components,
    /// The knowledge store (SQLite file) the knowledge components read.
    pub store: Option<PathBuf>,
}

impl Default for PlayerConfig {
    fn default() -> PlayerConfig {
        PlayerConfig {
            name: "ets".into(),
            search: SearchConfig::default(),
            time_per_move: 0.0,
            resign: 0.08,
            superko: true,
            components: Components::default(),
            store: None,
        }
    }
}

impl PlayerConfig {
    /// Reads a TOML settings file.
    pub fn from_toml(text: &str) -> Result<PlayerConfig, String> {
        toml::from_str(text).map_err(|e| e.to_string())
    }
    /// The settings as TOML.
    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("serialisable settings")
    }
}

/// The clock of one side, as GTP's `time_settings` and `time_left` give it.
#[derive(Debug, Clone, Copy, Default)]
pub struct Clock {
    /// Main time (s).
    pub main: f64,
    /// Byo-yomi period (s); 0 with no stones means no byo-yomi.
    pub byo_time: f64,
    /// Stones per byo-yomi period (0: none; Canadian when > 1).
    pub byo_stones: u32,
    /// Time left now (s) and stones left in the period (0: in main time).
    pub left: Option<(f64, u32)>,
    /// Whether the game has a clock at all.
    pub on: bool,
}

/// The player's decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// A move (never a pass).
    Play(Vtx),
    /// A pass.
    Pass,
    /// A resignation.
    Resign,
}

/// What the player saw when it last decided (for `gogui-analyze_commands`).
#[derive(Debug, Clone, Default)]
pub struct Analysis {
    /// The search.
    pub search: SearchResult,
    /// The proposals, with the component that made each.
    pub proposals: Vec<(&'static str, Proposal)>,
    /// The side that was to move.
    pub color: Option<Color>,
    /// Whether the book answered.
    pub book: bool,
}

/// The player: settings, components, the game, and its last analysis.
pub struct Player {
    /// Settings.
    pub cfg: PlayerConfig,
    /// The game.
    pub game: GameState,
    /// Candidate sources.
    pub sources: Vec<Box<dyn CandidateSource>>,
    /// The opening book.
    pub book: Option<Box<dyn OpeningBook>>,
    /// Clocks (black, white).
    pub clocks: [Clock; 2],
    /// The last analysis.
    pub last: Option<Analysis>,
    class: Option<std::sync::Arc<ClassCandidates>>,
}

struct Shared(std::sync::Arc<ClassCandidates>);

impl CandidateSource for Shared {
    fn name(&self) -> &'static str {
        self.0.name()
    }
    fn propose(&self, game: &GameState, color: Color) -> Vec<Proposal> {
        self.0.propose(game, color)
    }
}

/// The components a build can offer now; the others are named with the issue that brings them.
pub fn unavailable(c: &Components) -> Vec<&'static str> {
    let mut v = Vec::new();
    if c.ranker {
        v.push("ranker (issue 18: the move-prediction ranker)");
    }
    if c.forme_k_book {
        v.push("forme_k_book (issue 18: Forme_K)");
    }
    if c.academy {
        v.push("academy (issue 19: the ACADEMY)");
    }
    if c.gomi {
        v.push("gomi (issue 19: Gomi's sigma)");
    }
    v
}

impl Player {
    /// A player on an empty 19x19 board (komi 7.5) with these settings; an error names a
    /// component that is asked for but not available.
    pub fn new(cfg: PlayerConfig) -> Result<Player, String> {
        let missing = unavailable(&cfg.components);
        if !missing.is_empty() {
            return Err(format!(
                "component(s) not available in this build: {}",
                missing.join("; ")
            ));
        }
        let rules = Rules {
            superko: cfg.superko,
            suicide_allowed: false,
        };
        let mut p = Player {
            game: GameState::new(19, 7.5, rules).expect("19x19"),
            sources: Vec::new(),
            book: None,
            clocks: [Clock::default(); 2],
            last: None,
            class: None,
            cfg,
        };
        if p.cfg.components.classes {
            let c = std::sync::Arc::new(ClassCandidates::new(p.cfg.components.class_top)?);
            p.class = Some(c.clone());
            p.sources.push(Box::new(Shared(c)));
        }
        Ok(p)
    }

    /// The class candidate source, when on.
    pub fn class_source(&self) -> Option<&ClassCandidates> {
        self.class.as_deref()
    }

    /// A new empty board.
    pub fn clear(&mut self, size: usize) -> Result<(), String> {
        let rules = Rules {
            superko: self.cfg.superko,
            suicide_allowed: false,
        };
        let komi = self.game.komi;
        self.game = GameState::new(size, komi, rules).map_err(|e| e.to_string())?;
        self.last = None;
        for c in &mut self.clocks {
            c.left = None;
        }
        Ok(())
    }

    /// The time to think for `color` now, if any limit applies.
    pub fn time_for(&self, color: Color) -> Option<Duration> {
        let cap = (self.cfg.time_per_move > 0.0).then_some(self.cfg.time_per_move);
        let clock = &self.clocks[color_index(color)];
        let by_clock = if clock.on {
            match clock.left {
                Some((t, stones)) if stones > 0 => Some(t / stones as f64 * 0.85 - 0.1),
                Some((t, _)) => {
                    let empties = self.game.board.empty_count() as f64;
                    let moves_left = (empties / 2.5).max(15.0);
                    let main = t / moves_left;
                    // In main time with byo-yomi to come, a byo-yomi period is also ours.
                    let byo = if clock.byo_stones > 0 {
                        clock.byo_time / clock.byo_stones as f64 * 0.85
                    } else {
                        0.0
                    };
                    Some(main.max(byo) - 0.05)
                }
                None if clock.main > 0.0 || clock.byo_time > 0.0 => {
                    let per = if clock.byo_stones > 0 {
                        clock.byo_time / clock.byo_stones as f64 * 0.85
                    } else {
                        0.0
                    };
                    Some((clock.main / 30.0).max(per))
                }
                None => None,
            }
        } else {
            None
        };
        let t = match (cap, by_clock) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        t.map(|s| Duration::from_secs_f64(s.max(0.05)))
    }

    /// The proposals of every candidate source for `color` now.
    pub fn proposals(&self, color: Color) -> Vec<(&'static str, Proposal)> {
        let mut out = Vec::new();
        for s in &self.sources {
            for p in s.propose(&self.game, color) {
                out.push((s.name(), p));
            }
        }
        out
    }

    /// Searches the current position for `color` (proposals as priors), with `playouts` and an
    /// optional time limit.
    pub fn analyse(&mut self, color: Color, playouts: usize, time: Option<Duration>) -> Analysis {
        let proposals = self.proposals(color);
        let comp = &self.cfg.components;
        let root_priors: std::collections::HashMap<Vtx, Prior> = proposals
            .iter()
            .map(|(_, p)| {
                (
                    p.mv,
                    Prior {
                        visits: comp.class_prior * p.weight.max(0.25),
                        value: comp.class_prior_value,
                    },
                )
            })
            .collect();
        let root_hash = self.game.board.hash();
        let root_moves_n = self.game.board.move_count();
        let prior = move |b: &crate::go::fastboard::FastBoard, _c: Color, v: Vtx| -> Option<Prior> {
            // Proposals are for the root position only.
            if b.hash() == root_hash && b.move_count() == root_moves_n {
                root_priors.get(&v).copied()
            } else {
                None
            }
        };
        let mut cfg = self.cfg.search.clone();
        cfg.playouts = playouts;
        cfg.seed = cfg.seed.wrapping_add(self.game.moves.len() as u64);
        let board = self.game.board.clone();
        let mut search = Search::new(&cfg, &board, color, self.game.komi, &prior);
        if comp.restrict_root && !proposals.is_empty() {
            let mut ms: Vec<Vtx> = proposals.iter().map(|(_, p)| p.mv).collect();
            ms.sort();
            ms.dedup();
            search = search.with_root_moves(ms);
        }
        let deadline = time.map(|t| Instant::now() + t);
        let result = search.run(deadline);
        let a = Analysis {
            search: result,
            proposals,
            color: Some(color),
            book: false,
        };
        self.last = Some(a.clone());
        a
    }

    /// Decides the move of `color` now (it is not played).
    pub fn genmove(&mut self, color: Color) -> Decision {
        let n = self.game.moves.len();
        if let Some(book) = &self.book
            && n < self.cfg.components.book_moves
            && let Some(p) = book.lookup(&self.game, color)
            && self.game.board.is_legal(color, p.mv)
        {
            self.last = Some(Analysis {
                proposals: vec![(book.name(), p.clone())],
                color: Some(color),
                book: true,
                ..Analysis::default()
            });
            return Decision::Play(p.mv);
        }
        let time = self.time_for(color);
        // With a time limit, time decides; otherwise the playout count.
        let playouts = if time.is_some() {
            usize::MAX / 2
        } else {
            self.cfg.search.playouts
        };
        let a = self.analyse(color, playouts, time);
        let Some(best) = a.search.best() else {
            return Decision::Pass;
        };
        if best.mv.is_pass() {
            return Decision::Pass;
        }
        // The opponent passed: pass if the count with the sample games' dead stones wins.
        let opp_passed = self.game.moves.last().is_some_and(|&(c, v)| c != color && v.is_pass());
        if opp_passed {
            let dead = self.dead_stones_from(&a.search);
            let s = self.game.board.area_score(self.game.komi, &dead);
            if (color == Color::Black && s > 0.0) || (color == Color::White && s < 0.0) {
                return Decision::Pass;
            }
        }
        if self.cfg.resign > 0.0 && best.value < self.cfg.resign && best.visits >= 200.0 && n >= 10 {
            return Decision::Resign;
        }
        Decision::Play(best.mv)
    }

    /// The stones the sample games of `search` say are dead (owned by the other colour in at
    /// least 70% of the playouts).
    pub fn dead_stones_from(&self, search: &SearchResult) -> Vec<Vtx> {
        let b = &self.game.board;
        if search.black_ownership.is_empty() {
            return Vec::new();
        }
        b.points()
            .filter(|&v| match b.color_at(v) {
                Some(Color::Black) => search.black_ownership[v.0 as usize] < 0.3,
                Some(Color::White) => search.black_ownership[v.0 as usize] > 0.7,
                None => false,
            })
            .collect()
    }

    /// The dead stones of the current position, from a fresh search by the sample games.
    pub fn dead_stones(&mut self) -> Vec<Vtx> {
        let color = self.game.to_move();
        // After two passes the sample games must still be played out from the final position.
        let saved = self.game.board.clone();
        self.game.board.reset_passes();
        let a = self.analyse(color, self.cfg.search.playouts.clamp(2000, 10000), None);
        self.game.board = saved;
        self.dead_stones_from(&a.search)
    }
}

/// 0 for Black, 1 for White.
pub fn color_index(c: Color) -> usize {
    match c {
        Color::Black => 0,
        Color::White => 1,
    }
}
