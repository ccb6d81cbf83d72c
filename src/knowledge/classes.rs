//! The ETS class features of a candidate move (issue 18 item 4; thesis §5.3.2.2, "moves proposed
//! by the class generating systems"): which level-1 and level-2 elements of the position's
//! classification the move would extend, merge, save, put in atari, capture, fill or touch.
//!
//! The classes come from the engine: every position of a game is classified by
//! [`classify_game`] (the timeline) over the embedded Go setting (`grammars/go/`), and the elements alive at a
//! position, with their vertices, are read here. A class is named relative to the player to move:
//! a class whose name begins with the mover's colour (`black_…` for Black) reads `own …`, the
//! other colour `opp …`, both colours (`black_white_…`) `mixed …`, none `any …`. What the move
//! does to an element is read from where the candidate stands and from the referee's liberties
//! (principle 7: captures and ataris are rule facts; which elements exist is the engine's):
//!
//! - `fills`: the candidate is an (empty) vertex of the element — the gap of a jump, an eye;
//! - an element with a stone beside the candidate, the mover's: `saves` when one of those stones'
//!   blocks is in atari, else `merges` when the candidate touches another element of the same
//!   level (stone sets disjoint) too, else `extends`;
//! - the opponent's (or mixed): `captures` when a block of those stones has one liberty,
//!   `ataris` when it has two, else `touches`;
//! - `creates`: the candidate touches no stone of any level-1 element of the mover's (a new
//!   one-stone element).
//!
//! A feature is the verb, the level and the relative class name, e.g. `extends L1 own
//! two_stone_block`; its key is a stable hash of that text (names, not class ids, so that a
//! model stays readable when the setting grows).

use std::sync::{Mutex, OnceLock};

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::position::{Analysis, Position};
use crate::ets::Setting;
use crate::ets::ids::ElementId;
use crate::go::board::{Cell, Color, Point};
use crate::go::classify::{GoTimeline, VertexCache, classify_game, embedded_setting};
use crate::go::game::Replay;
use crate::go::record::{Attention, RecordOptions};

/// The attention of the classification the class features read, recorded with a model
/// (`rk_setting` `attention`): a model is ranked with the classification it was trained on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ClassAttention {
    /// Every vertex at every position, one layer (the models trained before 2026-11-27, whose
    /// store records no attention).
    Full,
    /// The player's focus window (radius 2, 50 processes; [`Attention::FOCUS`], §4.4.1–4.4.2), one
    /// layer per position (the live player refreshes three a move; the features read each
    /// position once): about half the cost of full attention (docs/performance.md). The default
    /// of new models.
    #[default]
    Focus,
}

impl ClassAttention {
    /// `full` or `focus`.
    pub fn text(self) -> &'static str {
        match self {
            ClassAttention::Full => "full",
            ClassAttention::Focus => "focus",
        }
    }

    /// Reads [`ClassAttention::text`].
    pub fn parse(s: &str) -> Result<ClassAttention, String> {
        match s.trim() {
            "full" => Ok(ClassAttention::Full),
            "focus" => Ok(ClassAttention::Focus),
            other => Err(format!("unknown class attention `{other}` (full, focus)")),
        }
    }

    /// The recorder's options for it.
    pub fn record_options(self) -> RecordOptions {
        match self {
            ClassAttention::Full => RecordOptions::default(),
            ClassAttention::Focus => RecordOptions {
                attention: Attention::FOCUS,
                layers: 1,
            },
        }
    }
}

/// Class feature keys of one candidate.
pub type ClassKeys = SmallVec<[u32; 8]>;

/// The embedded Go setting, loaded once.
pub fn setting() -> &'static Setting {
    static S: OnceLock<Setting> = OnceLock::new();
    S.get_or_init(|| {
        embedded_setting()
            .1
            .unwrap_or_else(|_| panic!("the embedded Go setting is checked by the test suite"))
    })
}

/// Readable names of the keys met so far (and read back from stores).
fn labels() -> &'static Mutex<FxHashMap<u32, String>> {
    static L: OnceLock<Mutex<FxHashMap<u32, String>>> = OnceLock::new();
    L.get_or_init(Default::default)
}

/// FNV-1a over a label: the key of a class feature.
pub fn key_of(label: &str) -> u32 {
    let mut h: u32 = 0x811c_9dc5;
    for b in label.bytes() {
        h ^= b as u32;
        h = h.wrapping_mul(0x0100_0193);
    }
    h
}

/// Registers a label and returns its key.
pub fn register(label: &str) -> u32 {
    let k = key_of(label);
    labels()
        .lock()
        .expect("no panics while holding the labels")
        .entry(k)
        .or_insert_with(|| label.to_string());
    k
}

/// The label of a key (`None`: never met in this process).
pub fn label(key: u32) -> Option<String> {
    labels()
        .lock()
        .expect("no panics while holding the labels")
        .get(&key)
        .cloned()
}

/// What a move does to an element, in the order of [`Named::keys`].
const VERBS: [&str; 7] = ["fills", "saves", "merges", "extends", "captures", "ataris", "touches"];
const FILLS: usize = 0;
const SAVES: usize = 1;
const MERGES: usize = 2;
const EXTENDS: usize = 3;
const CAPTURES: usize = 4;
const ATARIS: usize = 5;
const TOUCHES: usize = 6;

/// An element of the game's classification as the features name it: per mover colour its role
/// and the key of each verb (`{verb} L{level} {relative name}`), registered once per element.
#[derive(Clone, Copy)]
struct Named {
    /// Role per mover (0 own, 1 opp, 2 mixed, 3 any).
    role: [u8; 2],
    /// Per mover, per verb of [`VERBS`], the feature key.
    keys: [[u32; 7]; 2],
}

impl Named {
    fn new(level: u32, name: &str) -> Named {
        let (rel, role) = relative(name);
        let keys = [0, 1].map(|side| VERBS.map(|verb| register(&format!("{verb} L{level} {}", rel[side]))));
        Named { role, keys }
    }
}

/// The key of `creates L1 own element`.
fn creates_key() -> u32 {
    static K: OnceLock<u32> = OnceLock::new();
    *K.get_or_init(|| register("creates L1 own element"))
}

/// An element alive at a position: its level, names and vertices.
struct Alive {
    level: u32,
    named: Named,
    vertices: Vec<Point>,
}

fn relative(name: &str) -> ([String; 2], [u8; 2]) {
    if let Some(rest) = name.strip_prefix("black_white_") {
        let s = format!("mixed {rest}");
        return ([s.clone(), s], [2, 2]);
    }
    if let Some(rest) = name.strip_prefix("black_") {
        return ([format!("own {rest}"), format!("opp {rest}")], [0, 1]);
    }
    if let Some(rest) = name.strip_prefix("white_") {
        return ([format!("opp {rest}"), format!("own {rest}")], [1, 0]);
    }
    let s = format!("any {name}");
    ([s.clone(), s], [3, 3])
}

/// The classification of a game, position by position, as the class features read it.
pub struct GameClasses {
    timeline: GoTimeline,
    /// Per level 1..=2, per element/instance: its roles and feature keys.
    names: Vec<Vec<Named>>,
    /// The elements' vertices, kept while they hold (positions are read in order).
    cache: VertexCache,
    /// Per level 1..=2, the elements that ever become complete (not stillborn), ascending: the
    /// only ones a position may show.
    complete: Vec<Vec<ElementId>>,
}

impl GameClasses {
    /// Classifies every position of a replayed game (levels 0–2) with `attention`.
    pub fn new(replay: &Replay, attention: ClassAttention) -> Result<GameClasses, String> {
        let st = setting();
        let mut last = vec![None];
        last.extend(replay.moves.iter().map(|m| m.point));
        let timeline = classify_game(
            std::sync::Arc::new(st.clone()),
            &replay.positions,
            &last,
            attention.record_options(),
            Some(2),
        )
        .map_err(|e| e.to_string())?;
        // One Named per class and level, shared by its elements.
        let mut by_class: FxHashMap<(u32, String), Named> = FxHashMap::default();
        let names = timeline.timeline().levels()[1..]
            .iter()
            .enumerate()
            .map(|(i, lv)| {
                let level = i as u32 + 1;
                lv.elements()
                    .iter()
                    .map(|e| {
                        let name = &st.class(e.class()).name;
                        *by_class
                            .entry((level, name.clone()))
                            .or_insert_with(|| Named::new(level, name))
                    })
                    .collect()
            })
            .collect();
        let complete = timeline.timeline().levels()[1..]
            .iter()
            .map(|lv| {
                (0..lv.elements().len() as ElementId)
                    .filter(|&e| {
                        let el = lv.element(e);
                        !el.is_stillborn() && el.completed().is_some()
                    })
                    .collect()
            })
            .collect();
        Ok(GameClasses {
            timeline,
            names,
            cache: VertexCache::default(),
            complete,
        })
    }

    /// The elements of levels 1 and 2 alive at position `k` (the board after `k` moves), indexed
    /// by vertex. Cheapest when called for positions in increasing order.
    pub fn at(&mut self, k: usize) -> PositionClasses {
        let (cols, rows) = self.timeline.sensor().size();
        let mut alive = Vec::new();
        let mut by_point: Vec<SmallVec<[u32; 6]>> = vec![SmallVec::new(); cols as usize * rows as usize];
        let t = k as u32;
        for level in 1..self.timeline.timeline().levels().len() {
            let lv = self.timeline.timeline().level(level as u32);
            // `GoTimeline::present(level, k, false)`, from the elements that ever complete.
            for &e in &self.complete[level - 1] {
                let el = lv.element(e);
                if !(el.present_at(t) && el.completed().is_some_and(|c| c <= t)) {
                    continue;
                }
                let buf = self
                    .timeline
                    .vertices_cached(level as u32, e, k as u32, &mut self.cache);
                let named = self.names[level - 1][e as usize];
                let id = alive.len() as u32;
                for &v in buf {
                    if let Some(h) = by_point.get_mut(slot(cols, v)) {
                        h.push(id);
                    }
                }
                alive.push(Alive {
                    level: level as u32,
                    named,
                    vertices: buf.to_vec(),
                });
            }
        }
        PositionClasses { alive, by_point, cols }
    }
}

/// The index of vertex `p` in a row-major table of a board `cols` wide.
fn slot(cols: u8, p: Point) -> usize {
    p.row as usize * cols as usize + p.col as usize
}

/// The elements alive at one position, indexed by vertex.
pub struct PositionClasses {
    alive: Vec<Alive>,
    /// Per vertex ([`slot`]), the elements holding it.
    by_point: Vec<SmallVec<[u32; 6]>>,
    cols: u8,
}

impl PositionClasses {
    /// The elements holding vertex `p`.
    fn holding(&self, p: Point) -> Option<&[u32]> {
        self.by_point.get(slot(self.cols, p)).map(|v| v.as_slice())
    }

    /// The class feature keys of the mover's move at the empty point `p`.
    pub fn keys(&self, pos: &Position<'_>, an: &Analysis, p: Point) -> ClassKeys {
        let b = pos.board;
        let side = (pos.mover == Color::White) as usize;
        let mut out = ClassKeys::new();
        let emit = |verb: usize, e: u32, out: &mut ClassKeys| {
            let k = self.alive[e as usize].named.keys[side][verb];
            if !out.contains(&k) {
                out.push(k);
            }
        };
        if let Some(es) = self.holding(p) {
            for &e in es {
                emit(FILLS, e, &mut out);
            }
        }
        // Elements with a stone beside p, and the least liberties of those stones' blocks.
        let mut touched: SmallVec<[(u32, u16); 12]> = SmallVec::new();
        for n in b.neighbours(p) {
            let Cell::Stone(_) = b.get(n) else { continue };
            let libs = an.block_at(n).map_or(u16::MAX, |k| an.liberties(k));
            for &e in self.holding(n).unwrap_or(&[]) {
                match touched.iter_mut().find(|t| t.0 == e) {
                    Some(t) => t.1 = t.1.min(libs),
                    None => touched.push((e, libs)),
                }
            }
        }
        let mut own_level1 = false;
        for &(e, libs) in &touched {
            let a = &self.alive[e as usize];
            let own = a.named.role[side] == 0;
            if own && a.level == 1 {
                own_level1 = true;
            }
            let verb = if own {
                if libs == 1 {
                    SAVES
                } else if touched.iter().any(|&(f, _)| {
                    let c = &self.alive[f as usize];
                    f != e
                        && c.level == a.level
                        && c.named.role[side] == 0
                        && disjoint_stones(b, &a.vertices, &c.vertices)
                }) {
                    MERGES
                } else {
                    EXTENDS
                }
            } else if libs == 1 {
                CAPTURES
            } else if libs == 2 {
                ATARIS
            } else {
                TOUCHES
            };
            emit(verb, e, &mut out);
        }
        if !own_level1 {
            let k = creates_key();
            if !out.contains(&k) {
                out.push(k);
            }
        }
        out
    }
}

/// Whether two elements share no stone.
fn disjoint_stones(b: &crate::go::board::Board, x: &[Point], y: &[Point]) -> bool {
    !x.iter().any(|p| matches!(b.get(*p), Cell::Stone(_)) && y.contains(p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::sgf::Sgf;
    use crate::knowledge::position::positions;

    #[test]
    fn relative_names_follow_the_mover() {
        let (r, role) = relative("black_two_stone_block");
        assert_eq!(
            r,
            ["own two_stone_block".to_string(), "opp two_stone_block".to_string()]
        );
        assert_eq!(role, [0, 1]);
        assert_eq!(relative("white_group").0[1], "own group");
        assert_eq!(relative("black_white_knights_jump").1, [2, 2]);
        assert_eq!(relative("block_interface").0[0], "any block_interface");
    }

    /// On a real game: a move beside the mover's own one-stone block extends it, the capture of
    /// a stone in atari reads `captures`, and the keys name classes of the setting.
    #[test]
    fn class_features_read_the_classification_of_real_positions() {
        let text = "(;GM[1]SZ[9];B[ee];W[ef];B[fe];W[ff];B[de];W[df];B[ce];W[cf];B[ge];W[gf];B[be];W[bf];B[he];W[hf])";
        let replay = Replay::from_sgf(&Sgf::parse(text).expect("parses"), 0, &[]).expect("replays");
        let mut gc = GameClasses::new(&replay, ClassAttention::Focus).expect("classifies");
        let ps = positions(&replay);
        // Black's second move (move 3, F5 beside E5): extends a one-stone block of its own.
        let pos = &ps[2];
        let an = Analysis::new(pos.board);
        let pc = gc.at(pos.number);
        let keys = pc.keys(pos, &an, pos.played);
        let names: Vec<String> = keys.iter().filter_map(|&k| label(k)).collect();
        assert!(names.iter().any(|n| n == "extends L1 own one_stone_block"), "{names:?}");
        assert!(!names.iter().any(|n| n.starts_with("creates")), "{names:?}");
        // A point far from every stone creates a new element and touches nothing.
        let far = Point { col: 0, row: 8 };
        let names: Vec<String> = pc.keys(pos, &an, far).iter().filter_map(|&k| label(k)).collect();
        assert!(names.iter().any(|n| n == "creates L1 own element"), "{names:?}");
        assert!(!names.iter().any(|n| n.starts_with("extends")), "{names:?}");
    }
}
