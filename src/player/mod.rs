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
pub mod knowledge;
pub mod mcts;
pub mod patterns;
pub mod ratings;
pub mod state;

use std::path::PathBuf;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::go::board::Color;
use crate::go::fastboard::{Rules, Vtx};
use crate::knowledge::academy::usage::{OpeningBudget, Usage};
use components::{CandidateSource, ClassCandidates, OpeningBook, Proposal};
use knowledge::{FormeKBook, FormeKSource, FusekiBook, GomiBase, GomiSource, Learner, Predictor, RankerSource};
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
    /// The move-prediction ranker of the knowledge store as candidates and priors (issue 18;
    /// needs `store`, made by `ets learn`).
    pub ranker: bool,
    /// How many of the ranker's moves become candidates.
    pub ranker_top: usize,
    /// Prior virtual visits of the ranker's most probable move (the others in proportion).
    pub ranker_prior: f32,
    /// Forme_K as a preselector: its best moves by `P(i|p)` as candidates (issue 18; needs `store`).
    pub forme_k: bool,
    /// How many (the seed's best: 2 of 7 preselected moves).
    pub forme_k_top: usize,
    /// Prior virtual visits of a Forme_K candidate of weight 1.
    pub forme_k_prior: f32,
    /// Forme_K's best pattern as an opening book while it is confident (issue 18; needs `store`).
    pub forme_k_book: bool,
    /// Moves of the game (both colours) for which the books are consulted: the opening.
    pub book_moves: usize,
    /// Forme_K's book: the best pattern matched at least this often …
    pub book_min_matches: u64,
    /// … with `P(i|p)` at least this …
    pub book_min_p: f64,
    /// … and this many times the next move's.
    pub book_margin: f64,
    /// The ACADEMY's Fuseki library as an opening book within the 25% rule (issue 19; needs
    /// `store`); with `learn`, its post-mortem and insertion rules after each game.
    pub academy: bool,
    /// The player's ELO for the ACADEMY (it accepts patterns above this − 200; it posts with it).
    pub academy_elo: f64,
    /// A Fuseki continuation must have been reached by at least this many players.
    pub academy_min_players: u32,
    /// Gomi's σ as a prior: the moves with the largest q_m (issue 19; needs `store`); with
    /// `learn`, its entries updated from each game.
    pub gomi: bool,
    /// How many of σ's moves become candidates.
    pub gomi_top: usize,
    /// Prior virtual visits of σ's most probable move.
    pub gomi_prior: f32,
    /// Learning by playing: after each game (`ets-learn`, sent by `ets arena`) the ACADEMY and
    /// Gomi (those on) learn from it into the store.
    pub learn: bool,
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
            ranker_top: 10,
            ranker_prior: 30.0,
            forme_k: false,
            forme_k_top: 2,
            forme_k_prior: 15.0,
            forme_k_book: false,
            book_moves: 20,
            book_min_matches: 30,
            book_min_p: 0.4,
            book_margin: 2.0,
            academy: false,
            academy_elo: 2000.0,
            academy_min_players: 2,
            gomi: false,
            gomi_top: 8,
            gomi_prior: 10.0,
            learn: false,
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
    /// The opening books, consulted in order (the ACADEMY's within the 25% rule).
    pub books: Vec<Box<dyn OpeningBook>>,
    /// Clocks (black, white).
    pub clocks: [Clock; 2],
    /// The last analysis.
    pub last: Option<Analysis>,
    /// The 25% rule of the ACADEMY over this game's opening.
    pub budget: OpeningBudget,
    /// The player's evaluations in this game: (moves before, its colour, the best move's win rate).
    pub evaluations: Vec<(usize, Color, f32)>,
    /// What learns from finished games (with `components.learn`).
    pub learner: Option<Learner>,
    /// Moves each book answered in this game.
    pub book_moves_played: std::collections::BTreeMap<&'static str, usize>,
    class: Option<std::sync::Arc<ClassCandidates>>,
    predictor: Option<std::sync::Arc<Predictor>>,
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

/// The components asked for that cannot run as configured, each with what it needs.
pub fn unavailable(cfg: &PlayerConfig) -> Vec<String> {
    let c = &cfg.components;
    let mut v = Vec::new();
    if cfg.store.is_none() {
        for (on, name) in [
            (c.ranker, "ranker"),
            (c.forme_k, "forme_k"),
            (c.forme_k_book, "forme_k_book"),
            (c.academy, "academy"),
            (c.gomi, "gomi"),
            (c.learn, "learn"),
        ] {
            if on {
                v.push(knowledge::needs_store(name));
            }
        }
    }
    v
}

impl Player {
    /// A player on an empty 19x19 board (komi 7.5) with these settings; an error names a
    /// component that is asked for but cannot run (a knowledge store missing or without what
    /// the component reads).
    pub fn new(cfg: PlayerConfig) -> Result<Player, String> {
        let missing = unavailable(&cfg);
        if !missing.is_empty() {
            return Err(missing.join("\n"));
        }
        let rules = Rules {
            superko: cfg.superko,
            suicide_allowed: false,
        };
        let mut p = Player {
            game: GameState::new(19, 7.5, rules).expect("19x19"),
            sources: Vec::new(),
            books: Vec::new(),
            clocks: [Clock::default(); 2],
            last: None,
            budget: Usage::default().opening_budget(),
            evaluations: Vec::new(),
            learner: None,
            book_moves_played: Default::default(),
            class: None,
            predictor: None,
            cfg,
        };
        let comp = p.cfg.components.clone();
        if comp.classes {
            let c = std::sync::Arc::new(ClassCandidates::new(comp.class_top)?);
            p.class = Some(c.clone());
            p.sources.push(Box::new(Shared(c)));
        }
        let Some(store) = p.cfg.store.clone() else {
            return Ok(p);
        };
        if comp.ranker || comp.forme_k || comp.forme_k_book {
            let pr = std::sync::Arc::new(Predictor::load(&store).map_err(|e| format!("ranker/Forme_K: {e}"))?);
            p.predictor = Some(pr.clone());
            if comp.ranker {
                p.sources.push(Box::new(RankerSource {
                    predictor: pr.clone(),
                    top: comp.ranker_top,
                }));
            }
            if comp.forme_k {
                p.sources.push(Box::new(FormeKSource {
                    predictor: pr.clone(),
                    top: comp.forme_k_top,
                }));
            }
        }
        if comp.academy {
            let book = FusekiBook::open(&store, comp.academy_elo, comp.academy_min_players)
                .map_err(|e| format!("academy: {}: {e}", store.display()))?;
            p.books.push(Box::new(book));
        }
        if comp.forme_k_book
            && let Some(pr) = &p.predictor
        {
            p.books.push(Box::new(FormeKBook {
                predictor: pr.clone(),
                min_matches: comp.book_min_matches,
                min_p: comp.book_min_p,
                margin: comp.book_margin,
            }));
        }
        let mut gomi = None;
        if comp.gomi {
            let base = std::sync::Arc::new(
                GomiBase::open(&store, p.game.komi).map_err(|e| format!("gomi: {}: {e}", store.display()))?,
            );
            p.sources.push(Box::new(GomiSource {
                base: base.clone(),
                top: comp.gomi_top,
            }));
            gomi = Some(base);
        }
        if comp.learn {
            p.learner = Some(Learner {
                store,
                gomi,
                academy: comp.academy,
                elo: comp.academy_elo,
            });
        }
        Ok(p)
    }

    /// The class candidate source, when on.
    pub fn class_source(&self) -> Option<&ClassCandidates> {
        self.class.as_deref()
    }

    /// The ranker's (and Forme_K's) view of the position, when the store's model is loaded.
    pub fn predictor(&self) -> Option<&Predictor> {
        self.predictor.as_deref()
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
        self.budget = Usage::default().opening_budget();
        self.evaluations.clear();
        self.book_moves_played.clear();
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

    /// The prior a proposal gives its move: (virtual visits, their win rate).
    fn prior_of(&self, source: &str, p: &Proposal) -> (f32, f32) {
        let c = &self.cfg.components;
        match source {
            "classes" => (c.class_prior * p.weight.max(0.25), c.class_prior_value),
            "ranker" => (c.ranker_prior * p.weight, c.class_prior_value),
            "forme_k" => (c.forme_k_prior * p.weight, c.class_prior_value),
            "gomi" => (c.gomi_prior * p.weight, c.class_prior_value),
            _ => (c.class_prior * p.weight, c.class_prior_value),
        }
    }

    /// Searches the current position for `color` (proposals as priors), with `playouts` and an
    /// optional time limit.
    pub fn analyse(&mut self, color: Color, playouts: usize, time: Option<Duration>) -> Analysis {
        let proposals = self.proposals(color);
        let comp = &self.cfg.components;
        // Priors of a move proposed by several sources add up (visits; wins weighted).
        let mut root_priors: std::collections::HashMap<Vtx, Prior> = Default::default();
        for (src, p) in &proposals {
            let (n, v) = self.prior_of(src, p);
            if n <= 0.0 {
                continue;
            }
            let e = root_priors.entry(p.mv).or_insert(Prior {
                visits: 0.0,
                value: 0.0,
            });
            let total = e.visits + n;
            e.value = (e.value * e.visits + v * n) / total;
            e.visits = total;
        }
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

    /// The books' move for `color` now, if one answers (the ACADEMY's only within the 25% rule);
    /// records the opening move decided.
    fn book_move(&mut self, color: Color) -> Option<(&'static str, Proposal)> {
        if self.game.moves.len() >= self.cfg.components.book_moves {
            return None;
        }
        let mut found = None;
        for book in &self.books {
            let library = book.name() == "academy";
            if library && !self.budget.may_consult() {
                continue;
            }
            if let Some(p) = book.lookup(&self.game, color)
                && self.game.board.is_legal(color, p.mv)
            {
                found = Some((book.name(), p));
                break;
            }
        }
        self.budget.record(found.as_ref().is_some_and(|(n, _)| *n == "academy"));
        found
    }

    /// Decides the move of `color` now (it is not played).
    pub fn genmove(&mut self, color: Color) -> Decision {
        let n = self.game.moves.len();
        if let Some((name, p)) = self.book_move(color) {
            *self.book_moves_played.entry(name).or_default() += 1;
            self.last = Some(Analysis {
                proposals: vec![(name, p.clone())],
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
        self.evaluations.push((n, color, best.value));
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

    /// The player's expected value (its colour `me`) after each number of moves of this game:
    /// after its own move, the win rate of the move it chose; after the opponent's, unchanged
    /// (what it expected after its previous move; 0.5 at the start). Book moves keep the value.
    pub fn values(&self, me: Color) -> Vec<f64> {
        let n = self.game.moves.len();
        let mut v = vec![0.5; n + 1];
        for k in 0..n {
            v[k + 1] = v[k];
            if let Some(&(_, _, val)) = self.evaluations.iter().rev().find(|e| e.0 == k && e.1 == me)
                && self.game.moves[k].0 == me
            {
                v[k + 1] = val as f64;
            }
        }
        v
    }

    /// Learns from the game just finished with SGF result `result` (the ACADEMY's post-mortem and
    /// insertion rules, Gomi's entries), when learning is on.
    pub fn learn(&mut self, result: &str) -> Result<String, String> {
        let Some(learner) = &self.learner else {
            return Ok("learning is off (components.learn)".into());
        };
        // The colour it played: that of its last evaluation (else of its last book move).
        let me = self
            .evaluations
            .last()
            .map(|e| e.1)
            .or(self.last.as_ref().and_then(|a| a.color))
            .ok_or("the player made no move in this game")?;
        let values = self.values(me);
        let elements: Vec<(String, Vec<crate::go::board::Point>)> = match &self.class {
            Some(c) => components::elements_of(c.setting(), &self.game)
                .unwrap_or_default()
                .into_iter()
                .map(|e| (e.class, e.vertices))
                .collect(),
            None => Vec::new(),
        };
        let said = learner.learn(
            &self.game,
            result,
            me,
            &values,
            &elements,
            self.cfg.search.seed ^ self.game.moves.len() as u64,
        )?;
        let books: Vec<String> = self.book_moves_played.iter().map(|(k, v)| format!("{k} {v}")).collect();
        Ok(format!(
            "{said}; book moves this game: {}",
            if books.is_empty() {
                "none".into()
            } else {
                books.join(", ")
            }
        ))
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
