//! The features of a candidate move for the move-prediction ranker: the Forme_K patterns (the
//! largest match, its smoothed `P(i|p)` and its identity), local shape, tactical facts (captures,
//! ataris, extensions out of atari, self-ataris, liberties, connections, ko), distances (to the
//! previous two moves, to the edges) and the phase of the game.
//!
//! Every feature is binary: a candidate has a small set of active feature ids. Ids `0..STATIC`
//! are fixed groups (named by [`FeatureSpace::name`]); ids beyond are local shapes and Forme_K
//! patterns, interned as training meets them.

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use super::classes::ClassKeys;
use super::forme_k::{Stats, Tree};
use super::order::{Sym, distance};
use super::position::{Analysis, Effect, Position};
use crate::go::board::{Cell, Point};

/// A fixed group of features: its name, first id and size.
struct Group {
    name: &'static str,
    first: u32,
    len: u32,
}

macro_rules! groups {
    ($($id:ident = $name:literal : $len:expr),* $(,)?) => {
        #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[repr(usize)]
        enum G { $($id),* }
        const GROUP_LENS: &[(&str, u32)] = &[$(($name, $len)),*];
    };
}

/// Buckets of log₂ of the smoothed Forme_K probability: 0 below 2⁻¹², then steps of ½.
const FK_BUCKETS: u32 = 26;
/// Largest k the features distinguish.
const K_CAP: u32 = 24;

groups! {
    FkP = "fk_p": FK_BUCKETS,
    FkK = "fk_k": K_CAP + 1,
    Capture = "capture": 8,
    CaptureLast = "capture_last": 1,
    Atari = "atari": 6,
    Escape = "escape": 9,
    SelfAtari = "self_atari": 3,
    Libs = "libs": 4,
    Connect = "connect": 16,
    DistPrev = "dist_prev": 16,
    DistPrev2 = "dist_prev2": 16,
    Line = "line": 25,
    Phase = "phase": 31,
}

fn groups() -> &'static [Group] {
    static GS: std::sync::OnceLock<Vec<Group>> = std::sync::OnceLock::new();
    GS.get_or_init(|| {
        let mut first = 0;
        GROUP_LENS
            .iter()
            .map(|&(name, len)| {
                let g = Group { name, first, len };
                first += len;
                g
            })
            .collect()
    })
}

/// Number of fixed feature ids.
pub fn static_len() -> u32 {
    GROUP_LENS.iter().map(|g| g.1).sum()
}

#[inline]
fn id(g: G, v: u32) -> u32 {
    let gr = &groups()[g as usize];
    gr.first + v.min(gr.len - 1)
}

/// What the ranker knows of Forme_K: the tree, each pattern's statistics, and the smoothing.
pub struct PatternModel<'a> {
    /// The tree.
    pub tree: &'a Tree,
    /// Statistics per node (the root's are the totals).
    pub stats: &'a [Stats],
    /// Largest k matched.
    pub kmax: usize,
    /// Prior weight of the parent's estimate in a pattern's smoothed probability.
    pub alpha: f64,
    /// Patterns matched at least this often have a feature of their own.
    pub min_match_id: u64,
}

/// A game's own contribution to the counts (subtracted from the statistics when the game's
/// positions are used for training: leave-one-game-out).
pub type Own = FxHashMap<u32, (u32, u32)>;

impl PatternModel<'_> {
    /// The statistics of `node`, less `own`.
    #[inline]
    pub fn stats_of(&self, node: u32, own: Option<&Own>) -> Stats {
        let mut s = self.stats[node as usize];
        if let Some(&(p, m)) = own.and_then(|o| o.get(&node)) {
            s.n_played = s.n_played.saturating_sub(p as u64);
            s.n_match = s.n_match.saturating_sub(m as u64);
        }
        s
    }

    /// The smoothed probability along the path to `node` (`q₀ = P(i)`, `q_k = (n_played + α
    /// q_{k−1}) / (n_match + α)`), the largest k with data, and the pattern that names the
    /// match (the deepest on the path matched at least `min_match_id` times; 0: none).
    pub fn estimate(&self, node: u32, own: Option<&Own>) -> (f64, u32, u32) {
        let root = self.stats_of(0, own);
        let mut q = if root.n_match > 0 {
            root.n_played as f64 / root.n_match as f64
        } else {
            0.005
        };
        let mut k = 0;
        let mut named = 0;
        for id in self.tree.path(node) {
            let s = self.stats_of(id, own);
            if s.n_match == 0 {
                break;
            }
            q = (s.n_played as f64 + self.alpha * q) / (s.n_match as f64 + self.alpha);
            k = self.tree.node(id).k as u32;
            if s.n_match >= self.min_match_id {
                named = id;
            }
        }
        (q, k, named)
    }
}

/// The raw features of a candidate: fixed ids, a local-shape key and a Forme_K pattern.
#[derive(Debug, Clone, Default)]
pub struct Raw {
    /// Fixed feature ids.
    pub fixed: SmallVec<[u32; 14]>,
    /// Canonical 3×3 shape with atari marks.
    pub shape: u32,
    /// The pattern that names the match (0: none).
    pub pattern: u32,
    /// The smoothed Forme_K probability.
    pub q: f32,
    /// The deepest pattern matched.
    pub node: u32,
    /// ETS class features ([`super::classes`]; empty when the classification is not read).
    pub classes: ClassKeys,
}

/// The 3×3 neighbourhood in a fixed order (clockwise from the upper left).
const RING: [(i32, i32); 8] = [(-1, -1), (0, -1), (1, -1), (1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0)];

fn shape_perms() -> &'static [[usize; 8]; 8] {
    static P: std::sync::OnceLock<[[usize; 8]; 8]> = std::sync::OnceLock::new();
    P.get_or_init(|| {
        std::array::from_fn(|s| {
            std::array::from_fn(|i| {
                let (x, y) = Sym(s as u8).apply(RING[i].0, RING[i].1);
                RING.iter()
                    .position(|&r| r == (x, y))
                    .expect("the ring is closed under symmetry")
            })
        })
    })
}

/// The canonical 3×3 shape key around `p`: per neighbour empty, own, opponent, off-board, own in
/// atari, opponent in atari; the least base-6 number over the eight symmetries.
pub fn shape_key(pos: &Position<'_>, an: &Analysis, p: Point) -> u32 {
    let b = pos.board;
    let mut cells = [0u32; 8];
    for (i, &(dx, dy)) in RING.iter().enumerate() {
        let (x, y) = (p.col as i32 + dx, p.row as i32 + dy);
        cells[i] = if x < 0 || y < 0 || x >= b.cols() as i32 || y >= b.rows() as i32 {
            3
        } else {
            let q = Point {
                col: x as u8,
                row: y as u8,
            };
            match b.get(q) {
                Cell::Empty => 0,
                Cell::Stone(c) => {
                    let atari = an.block_at(q).is_some_and(|k| an.liberties(k) == 1);
                    match (c == pos.mover, atari) {
                        (true, false) => 1,
                        (false, false) => 2,
                        (true, true) => 4,
                        (false, true) => 5,
                    }
                }
            }
        };
    }
    shape_perms()
        .iter()
        .map(|perm| {
            let mut k = 0u32;
            for i in 0..8 {
                k = k * 6 + cells[perm[i]];
            }
            k
        })
        .min()
        .unwrap_or(0)
}

/// Coulom's distance bucket (2..16, then 17 and more).
fn dist_bucket(a: Point, b: Point) -> u32 {
    let d = distance(a.col as i32 - b.col as i32, a.row as i32 - b.row as i32);
    d.clamp(2, 17) - 2
}

/// The raw features of the candidate `p` whose deepest Forme_K pattern is `node`.
pub fn raw(pos: &Position<'_>, an: &Analysis, pm: &PatternModel<'_>, own: Option<&Own>, p: Point, node: u32) -> Raw {
    let mut f: SmallVec<[u32; 14]> = SmallVec::new();
    let (q, k, named) = pm.estimate(node, own);
    let lq = q.max(1e-12).log2();
    let bucket = if lq < -12.0 { 0 } else { ((lq + 12.0) * 2.0) as u32 + 1 };
    f.push(id(G::FkP, bucket));
    f.push(id(G::FkK, k));
    let e: Effect = an.effect(pos, p);
    if e.captured > 0 {
        let s = match e.captured {
            1 => 0,
            2 => 1,
            3..=5 => 2,
            _ => 3,
        };
        f.push(id(G::Capture, s * 2 + e.capture_saves as u32));
        if e.captures_last {
            f.push(id(G::CaptureLast, 0));
        }
    }
    if e.ataris > 0 && e.libs_after >= 2 {
        let s = match e.atari_size {
            1 => 0,
            2..=3 => 1,
            _ => 2,
        };
        f.push(id(G::Atari, s * 2 + pos.ko.is_some() as u32));
    }
    if e.in_atari_joined > 0 && e.libs_after >= 2 {
        let l = e.libs_after.clamp(2, 4) as u32 - 2;
        let s = match e.in_atari_joined {
            1 => 0,
            2..=4 => 1,
            _ => 2,
        };
        f.push(id(G::Escape, l * 3 + s));
    }
    if e.libs_after <= 1 {
        let s = match e.size_after {
            1 => 0,
            2..=4 => 1,
            _ => 2,
        };
        f.push(id(G::SelfAtari, s));
    } else {
        f.push(id(G::Libs, e.libs_after.min(5) as u32 - 2));
    }
    f.push(id(
        G::Connect,
        (e.own_blocks.min(3) as u32) * 4 + e.opp_blocks.min(3) as u32,
    ));
    if let Some(q) = pos.last[0] {
        f.push(id(G::DistPrev, dist_bucket(p, q)));
    }
    if let Some(q) = pos.last[1] {
        f.push(id(G::DistPrev2, dist_bucket(p, q)));
    }
    let b = pos.board;
    let lx = (p.col as u32 + 1).min(b.cols() as u32 - p.col as u32);
    let ly = (p.row as u32 + 1).min(b.rows() as u32 - p.row as u32);
    let (lo, hi) = (lx.min(ly).min(5), lx.max(ly).min(5));
    f.push(id(G::Line, (lo - 1) * 5 + hi - 1));
    f.push(id(G::Phase, (pos.number as u32 / 10).min(30)));
    Raw {
        fixed: f,
        shape: shape_key(pos, an, p),
        pattern: named,
        q: q as f32,
        node,
        classes: ClassKeys::new(),
    }
}

/// The feature families a ranker uses (the ablations of issue 18 item 4).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Families {
    /// Forme_K: the bucketed smoothed P(i|p), the k of the largest match, the pattern's own id.
    pub patterns: bool,
    /// Local shape, tactical facts, distances, lines, phase.
    pub base: bool,
    /// The ETS class features ([`super::classes`]).
    pub classes: bool,
}

impl Default for Families {
    fn default() -> Self {
        Families {
            patterns: true,
            base: true,
            classes: true,
        }
    }
}

impl Families {
    /// Parses `patterns,base,classes` (any non-empty subset; `all`).
    pub fn parse(s: &str) -> Result<Families, String> {
        let mut f = Families {
            patterns: false,
            base: false,
            classes: false,
        };
        for w in s.split(',').map(str::trim).filter(|w| !w.is_empty()) {
            match w {
                "all" => f = Families::default(),
                "patterns" => f.patterns = true,
                "base" => f.base = true,
                "classes" => f.classes = true,
                _ => return Err(format!("unknown feature family `{w}` (patterns, base, classes, all)")),
            }
        }
        if f == (Families {
            patterns: false,
            base: false,
            classes: false,
        }) {
            return Err("no feature family chosen".into());
        }
        Ok(f)
    }

    /// `patterns,base,classes` as chosen.
    pub fn text(&self) -> String {
        let mut v = Vec::new();
        if self.patterns {
            v.push("patterns");
        }
        if self.base {
            v.push("base");
        }
        if self.classes {
            v.push("classes");
        }
        v.join(",")
    }

    /// Whether the fixed id belongs to a chosen family.
    fn keeps_fixed(&self, id: u32) -> bool {
        let fk_end = groups()[G::FkK as usize].first + groups()[G::FkK as usize].len;
        if id < fk_end { self.patterns } else { self.base }
    }
}

/// The kind of a dynamic feature id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A canonical 3×3 shape (its key).
    Shape,
    /// A Forme_K pattern (its `fk_pattern` id).
    Pattern,
    /// An ETS class feature (the key of its label, [`super::classes::key_of`]).
    Class,
}

/// Maps raw features to ids: the fixed groups, then interned shapes, patterns and class features.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FeatureSpace {
    shapes: FxHashMap<u32, u32>,
    patterns: FxHashMap<u32, u32>,
    classes: FxHashMap<u32, u32>,
    /// Per dynamic id (from `static_len()`): its kind and key.
    dynamic: Vec<(Kind, u32)>,
    /// The families used (`None`: all).
    families: Option<Families>,
}

impl FeatureSpace {
    /// An empty space using `families`.
    pub fn with_families(families: Families) -> FeatureSpace {
        FeatureSpace {
            families: Some(families),
            ..Default::default()
        }
    }

    /// The families used.
    pub fn families(&self) -> Families {
        self.families.unwrap_or_default()
    }

    /// Number of ids.
    pub fn len(&self) -> usize {
        static_len() as usize + self.dynamic.len()
    }

    /// Only the fixed groups.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The ids of a candidate; shapes, patterns and class features not yet known are interned
    /// when `grow`.
    pub fn ids(&mut self, r: &Raw, grow: bool, out: &mut SmallVec<[u32; 16]>) {
        let fam = self.families();
        out.clear();
        out.extend(r.fixed.iter().copied().filter(|&i| fam.keeps_fixed(i)));
        let base = static_len();
        let n = &mut self.dynamic;
        let mut intern = |map: &mut FxHashMap<u32, u32>, key: u32, kind: Kind| -> Option<u32> {
            if let Some(&i) = map.get(&key) {
                return Some(i);
            }
            if !grow {
                return None;
            }
            let i = base + n.len() as u32;
            n.push((kind, key));
            map.insert(key, i);
            Some(i)
        };
        if fam.base
            && let Some(i) = intern(&mut self.shapes, r.shape, Kind::Shape)
        {
            out.push(i);
        }
        if fam.patterns
            && r.pattern != 0
            && let Some(i) = intern(&mut self.patterns, r.pattern, Kind::Pattern)
        {
            out.push(i);
        }
        if fam.classes {
            for &k in &r.classes {
                if let Some(i) = intern(&mut self.classes, k, Kind::Class) {
                    out.push(i);
                }
            }
        }
    }

    /// The ids of a candidate (nothing interned).
    pub fn lookup(&self, r: &Raw, out: &mut SmallVec<[u32; 16]>) {
        let fam = self.families();
        out.clear();
        out.extend(r.fixed.iter().copied().filter(|&i| fam.keeps_fixed(i)));
        if fam.base
            && let Some(&i) = self.shapes.get(&r.shape)
        {
            out.push(i);
        }
        if fam.patterns
            && r.pattern != 0
            && let Some(&i) = self.patterns.get(&r.pattern)
        {
            out.push(i);
        }
        if fam.classes {
            out.extend(r.classes.iter().filter_map(|k| self.classes.get(k).copied()));
        }
    }

    /// Every dynamic id's kind and key, in id order (for storing).
    pub fn dynamic(&self) -> &[(Kind, u32)] {
        &self.dynamic
    }

    /// Rebuilds a space from stored dynamic ids.
    pub fn from_dynamic(d: Vec<(Kind, u32)>, families: Families) -> FeatureSpace {
        let base = static_len();
        let mut s = FeatureSpace::with_families(families);
        for (i, &(kind, key)) in d.iter().enumerate() {
            let id = base + i as u32;
            match kind {
                Kind::Shape => s.shapes.insert(key, id),
                Kind::Pattern => s.patterns.insert(key, id),
                Kind::Class => s.classes.insert(key, id),
            };
        }
        s.dynamic = d;
        s
    }

    /// A readable name for an id.
    pub fn name(&self, id: u32) -> String {
        if id >= static_len() {
            return match self.dynamic.get((id - static_len()) as usize) {
                Some((Kind::Shape, key)) => format!("shape:{}", shape_text(*key)),
                Some((Kind::Pattern, node)) => format!("pattern:{node}"),
                Some((Kind::Class, key)) => match super::classes::label(*key) {
                    Some(l) => format!("class:{l}"),
                    None => format!("class:#{key:08x}"),
                },
                None => format!("unknown:{id}"),
            };
        }
        let g = groups()
            .iter()
            .rev()
            .find(|g| g.first <= id)
            .expect("id 0 is in a group");
        let v = id - g.first;
        let detail = match g.name {
            "fk_p" if v == 0 => "<2^-12".to_string(),
            "fk_p" => format!("~2^{:.1}", (v as f64 - 1.0) / 2.0 - 12.0),
            "fk_k" => format!("k={v}"),
            "capture" => format!(
                "{}{}",
                ["1 stone", "2 stones", "3-5 stones", "6+ stones"][(v / 2) as usize],
                if v % 2 == 1 { ", saving a block in atari" } else { "" }
            ),
            "capture_last" => "the last move".to_string(),
            "atari" => format!(
                "{}{}",
                ["1 stone", "2-3 stones", "4+ stones"][(v / 2) as usize],
                if v % 2 == 1 { " (a ko on the board)" } else { "" }
            ),
            "escape" => format!(
                "{} liberties, {} saved",
                ["2", "3", "4+"][(v / 3) as usize],
                ["1 stone", "2-4 stones", "5+ stones"][(v % 3) as usize]
            ),
            "self_atari" => ["1 stone", "2-4 stones", "5+ stones"][v as usize].to_string(),
            "libs" => ["2", "3", "4", "5+"][v as usize].to_string(),
            "connect" => format!("{} own, {} opponent blocks beside", v / 4, v % 4),
            "dist_prev" | "dist_prev2" => {
                if v == 15 {
                    "17+".to_string()
                } else {
                    (v + 2).to_string()
                }
            }
            "line" => format!("{}-{}", v / 5 + 1, v % 5 + 1),
            "phase" => format!("moves {}-{}", v * 10 + 1, v * 10 + 10),
            _ => v.to_string(),
        };
        format!("{}:{detail}", g.name)
    }
}

/// A shape key as nine characters (the centre `*`): `.` empty, `X` own, `O` opponent, `#` off
/// the board, `x`/`o` a stone in atari.
pub fn shape_text(mut key: u32) -> String {
    let mut cells = [0u32; 8];
    for i in (0..8).rev() {
        cells[i] = key % 6;
        key /= 6;
    }
    let c = |v: u32| ['.', 'X', 'O', '#', 'x', 'o'][v as usize];
    // RING order: ul, u, ur, r, dr, d, dl, l.
    let grid = [
        [c(cells[0]), c(cells[1]), c(cells[2])],
        [c(cells[7]), '*', c(cells[3])],
        [c(cells[6]), c(cells[5]), c(cells[4])],
    ];
    grid.iter()
        .map(|r| r.iter().collect::<String>())
        .collect::<Vec<_>>()
        .join("/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_cover_distinct_ids_with_names() {
        let space = FeatureSpace::default();
        let mut names = std::collections::BTreeSet::new();
        for i in 0..static_len() {
            assert!(names.insert(space.name(i)), "{}", space.name(i));
        }
        assert_eq!(
            space.name(id(G::Capture, 3)),
            "capture:2 stones, saving a block in atari"
        );
        assert_eq!(space.name(id(G::DistPrev, 0)), "dist_prev:2");
        assert_eq!(shape_text(0), ".../.*./...");
    }
}
