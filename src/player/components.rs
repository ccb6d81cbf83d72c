//! The switchable components of the move decision (thesis §5.3.2–5.3.3, and the seeds): each is
//! a small trait, so that a component can be turned off for an ablation or replaced when a better
//! one lands.
//!
//! - [`CandidateSource`]: moves proposed with a reason — by the class generating systems of the
//!   elements present (§5.3.2.2, [`ClassCandidates`]), or by a move-prediction ranker (issue 18);
//!   the search gives them prior visits.
//! - [`OpeningBook`]: a move played without search in the opening (§5.3.3; Forme_K as Katia's book,
//!   the ACADEMY's Fuseki library).
//! - [`PostMortem`]: what a knowledge base learns from a finished game (the ACADEMY's post-mortem
//!   and insertion rules, Gomi's entries).

use std::sync::Mutex;

use crate::ets::Setting;
use crate::go::board::{Board, Cell, Color, Point};
use crate::go::classify::{class_name, classify, embedded_setting};
use crate::go::fastboard::Vtx;
use crate::go::record::RecordOptions;

use super::state::GameState;

/// A move proposed by a component, with its weight in `[0, 1]` and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Proposal {
    /// The move.
    pub mv: Vtx,
    /// How strongly it is proposed, in `[0, 1]`.
    pub weight: f32,
    /// Why (for people and for `gogui-analyze_commands`).
    pub reason: String,
}

/// A source of candidate moves.
pub trait CandidateSource: Send + Sync {
    /// The component's name (as in the settings).
    fn name(&self) -> &'static str;
    /// Moves for `color` in the game's current position, strongest first.
    fn propose(&self, game: &GameState, color: Color) -> Vec<Proposal>;
}

/// An opening book.
pub trait OpeningBook: Send + Sync {
    /// The component's name.
    fn name(&self) -> &'static str;
    /// The book's move for `color`, if it is confident.
    fn lookup(&self, game: &GameState, color: Color) -> Option<Proposal>;
}

/// A knowledge base fed after each finished game.
pub trait PostMortem: Send + Sync {
    /// The component's name.
    fn name(&self) -> &'static str;
    /// Learns from a finished game: its moves and the winner (None: a draw or no result).
    fn learn(&self, game: &GameState, winner: Option<Color>) -> Result<(), String>;
}

/// One element of the classification of a position, as the player reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeenElement {
    /// Level (1 or 2).
    pub level: u32,
    /// The class's name in the setting (e.g. `black_one_point_jump`).
    pub class: String,
    /// The vertices it involves.
    pub vertices: Vec<Point>,
}

/// The classes' view of a position: every level-1 and level-2 element present, from the generic
/// engine over the Go class setting (`go::classify`).
pub fn elements_of(setting: &Setting, game: &GameState) -> Result<Vec<SeenElement>, String> {
    let (boards, last) = game.history_boards();
    let c = classify(setting, &boards, &last, RecordOptions::default(), Some(2)).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    for (level, res) in c.hierarchy.levels.iter().enumerate().skip(1) {
        for (i, e) in res.elements.iter().enumerate() {
            let Some(named) = c.named.get(level).and_then(|n| n.get(i)) else {
                continue;
            };
            out.push(SeenElement {
                level: level as u32,
                class: class_name(setting, e).to_string(),
                vertices: named.vertices.clone(),
            });
        }
    }
    Ok(out)
}

/// Candidates from the class generating systems of the elements present (§5.3.2.2): an element
/// of a level-1 or level-2 class grows to its next stage by a constraint applied at its
/// **frontier** — an empty vertex that its colour primitives meet through adjacency primitives
/// (or that it holds), where a colour primitive changes from π3 to π1/π2 (Fig. 4.14) — a block
/// extends into a liberty, a jump is connected or cut at its empty point, a stone in atari is
/// saved or captured at its last liberty, an eye space is made or destroyed. So the candidates are
/// the frontier vertices of the elements present; an element of the mover's colour proposes to further it, one
/// of the opponent's to disrupt it, one of both colours (interfaces) both. A vertex's weight is
/// the number of elements proposing it, normalised to the largest; the reason names the classes.
/// Nothing here knows what a block or a jump is: the classes and their vertices come from the
/// engine.
pub struct ClassCandidates {
    setting: Setting,
    /// How many candidates to return at most.
    pub top: usize,
    cache: Mutex<Option<(u64, Color, Vec<Proposal>)>>,
}

impl ClassCandidates {
    /// Over the embedded Go setting.
    pub fn new(top: usize) -> Result<ClassCandidates, String> {
        let (_, s) = embedded_setting();
        let setting = s.map_err(|e| format!("the embedded Go setting does not load: {} error(s)", e.len()))?;
        Ok(ClassCandidates {
            setting,
            top,
            cache: Mutex::new(None),
        })
    }

    /// The setting.
    pub fn setting(&self) -> &Setting {
        &self.setting
    }
}

fn colour_of_class(name: &str) -> Option<Color> {
    let has_b = name.contains("black");
    let has_w = name.contains("white");
    match (has_b, has_w) {
        (true, false) => Some(Color::Black),
        (false, true) => Some(Color::White),
        _ => None,
    }
}

impl CandidateSource for ClassCandidates {
    fn name(&self) -> &'static str {
        "classes"
    }

    fn propose(&self, game: &GameState, color: Color) -> Vec<Proposal> {
        let key = game.board.hash() ^ game.moves.len() as u64;
        if let Some((k, c, p)) = &*self.cache.lock().expect("cache")
            && *k == key
            && *c == color
        {
            return p.clone();
        }
        let Ok(elements) = elements_of(&self.setting, game) else {
            return Vec::new();
        };
        let b = &game.board;
        // Per vertex: count and the classes (with further/disrupt) that propose it.
        let mut count: std::collections::BTreeMap<Vtx, (f32, Vec<String>)> = Default::default();
        for e in &elements {
            let why = match colour_of_class(&e.class) {
                Some(c) if c == color => "further",
                Some(_) => "disrupt",
                None => "contest",
            };
            // The element's frontier: its empty vertices and the empty vertices its stones meet
            // through adjacency primitives (where its next constraint would add a colour
            // primitive).
            let mut frontier: Vec<Vtx> = Vec::new();
            for &p in &e.vertices {
                if !b.contains_point(p) {
                    continue;
                }
                let v = b.vtx(p);
                if b.is_empty(v) {
                    frontier.push(v);
                } else {
                    frontier.extend(b.neighbours(v).filter(|&n| b.is_empty(n)));
                }
            }
            frontier.sort();
            frontier.dedup();
            for v in frontier {
                if !b.is_legal(color, v) || b.is_eye(color, v) {
                    continue;
                }
                let entry = count.entry(v).or_default();
                // Level-2 elements (groups, eyes) weigh more: they are what the level-1 ones serve.
                entry.0 += if e.level >= 2 { 2.0 } else { 1.0 };
                let label = format!("{why} {}", e.class);
                if !entry.1.contains(&label) {
                    entry.1.push(label);
                }
            }
        }
        let max = count.values().map(|x| x.0).fold(0.0f32, f32::max);
        let mut out: Vec<Proposal> = count
            .into_iter()
            .map(|(mv, (n, why))| Proposal {
                mv,
                weight: if max > 0.0 { n / max } else { 0.0 },
                reason: why.join(", "),
            })
            .collect();
        out.sort_by(|a, b| b.weight.total_cmp(&a.weight).then(a.mv.cmp(&b.mv)));
        out.truncate(self.top);
        *self.cache.lock().expect("cache") = Some((key, color, out.clone()));
        out
    }
}

/// The stones of a [`Board`] as a string (for tests and diagnostics).
pub fn stones_string(b: &Board) -> String {
    b.points()
        .map(|p| match b.get(p) {
            Cell::Empty => '.',
            Cell::Stone(Color::Black) => 'X',
            Cell::Stone(Color::White) => 'O',
        })
        .collect()
}
