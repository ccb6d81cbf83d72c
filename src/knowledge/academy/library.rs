//! The ACADEMY's three libraries (seed `000_…`, "Pattern Libraries"): the Fuseki library (a tree
//! of opening move sequences), the Chuban library (middle-game patterns, tesuji) and the Yose
//! library (endgame patterns), each with its cap and its removal rule; the post-mortem of the
//! Yose library. Everything here is in memory and deterministic; [`super::db`] keeps the same
//! state in the store, applying the [`Change`]s these functions return.
//!
//! - Chuban and Yose: at most `chuban_cap` (1000) and `yose_cap` (5000) patterns; when a post
//!   leaves a library over its cap, the weakest pattern by `N·E·(0.5 − V)²` is removed (ties: the
//!   newest), which may be the pattern just inserted.
//! - Fuseki: at most `fuseki_cap` (1000) nodes below the per-board-size roots, depth at most
//!   `fuseki_depth`, or ⌊average game length / 3⌋ when that setting is 0. Over the cap, the leaf
//!   with the lowest `V / depth` is removed (ties: the newest) and its win/loss/draw counts go to
//!   its father. Pruning: a node whose children are all leaves (two or more) with values all below
//!   0.5 loses them (their counts go to it) and its value V becomes V². Values are the first
//!   player's (black's) view, like every pattern's; counts are of the games whose stored opening
//!   ends at the node (a node's games are its own counts plus its subtree's).

use std::collections::BTreeMap;

use super::notation::{Area, Game, Pattern, Signature};
use super::posting::{Kind, PostRules, combine, merge, merge_cost};

/// Which library.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Library {
    /// Opening move sequences.
    Fuseki,
    /// Middle-game patterns.
    Chuban,
    /// Endgame patterns.
    Yose,
}

impl Library {
    /// The name used in files and in the store.
    pub fn name(self) -> &'static str {
        match self {
            Library::Fuseki => "fuseki",
            Library::Chuban => "chuban",
            Library::Yose => "yose",
        }
    }
    /// From a name.
    pub fn from_name(s: &str) -> Option<Library> {
        match s.to_ascii_lowercase().as_str() {
            "fuseki" | "opening" => Some(Library::Fuseki),
            "chuban" | "middle" | "middle-game" => Some(Library::Chuban),
            "yose" | "endgame" => Some(Library::Yose),
            _ => None,
        }
    }
}

/// The caps and rules of the libraries (the seed's values by default).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Caps {
    /// Fuseki nodes (1000).
    pub fuseki_cap: usize,
    /// Fuseki depth; 0: a third of the average game length.
    pub fuseki_depth: usize,
    /// Whether the Fuseki pruning of all-negative leaves runs.
    pub fuseki_prune: bool,
    /// Chuban patterns (1000).
    pub chuban_cap: usize,
    /// Yose patterns (5000).
    pub yose_cap: usize,
    /// The fraction of the average game length whose moves feed the Yose library (0.2).
    pub yose_tail: f64,
}

impl Default for Caps {
    fn default() -> Self {
        Caps {
            fuseki_cap: 1000,
            fuseki_depth: 0,
            fuseki_prune: true,
            chuban_cap: 1000,
            yose_cap: 5000,
            yose_tail: 0.2,
        }
    }
}

/// A game's result for the first player.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The first player (black) won.
    Win,
    /// The first player lost.
    Loss,
    /// A draw (jigo).
    Draw,
}

impl Outcome {
    /// The result seen by the other player.
    pub fn flipped(self) -> Outcome {
        match self {
            Outcome::Win => Outcome::Loss,
            Outcome::Loss => Outcome::Win,
            Outcome::Draw => Outcome::Draw,
        }
    }
    /// 1, 0 or ½.
    pub fn value(self) -> f64 {
        match self {
            Outcome::Win => 1.0,
            Outcome::Loss => 0.0,
            Outcome::Draw => 0.5,
        }
    }
}

/// The Yose post-mortem: √V on a win, V² on a loss, (V + ½)/2 on a draw (the result of the
/// player the value is for).
pub fn post_mortem(v: f64, result: Outcome) -> f64 {
    match result {
        Outcome::Win => v.sqrt(),
        Outcome::Loss => v * v,
        Outcome::Draw => (v + 0.5) / 2.0,
    }
}

/// The Chuban/Yose removal value `N·E·(0.5 − V)²` (the weakest is removed first).
pub fn strength(s: &Signature) -> f64 {
    s.n as f64 * s.e * (0.5 - s.v) * (0.5 - s.v)
}

/// The shape of an area whatever its orientation (Go) — areas merge only within one shape.
fn shape_key(a: &Area, game: Game) -> String {
    if game == Game::Go && a.is_rectangular() {
        (0..8).map(|s| a.transformed(s).shape()).min().expect("eight")
    } else {
        a.shape()
    }
}

/// The distinct orientations of a (normalized) pattern: in Go a known pattern takes a new one in
/// whichever of the eight board symmetries merges best.
fn orientations(p: &Pattern, game: Game) -> Vec<Pattern> {
    if game != Game::Go || !p.area.is_rectangular() {
        return vec![p.clone()];
    }
    let mut out: Vec<Pattern> = Vec::new();
    for s in 0..8 {
        let area = p.area.transformed(s);
        if !out.iter().any(|q| q.area == area) {
            out.push(Pattern {
                area,
                sig: p.sig,
                library: None,
            });
        }
    }
    out
}

/// The area's letters as `game` reads them (a table's `B` is a Go stone).
fn in_game(a: &Area, game: Game) -> Area {
    Area {
        rows: a
            .rows
            .iter()
            .map(|r| r.iter().map(|c| c.in_game(game)).collect())
            .collect(),
    }
}

/// A stored pattern.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// Its id (increasing with insertion).
    pub id: u64,
    /// Its library.
    pub library: Library,
    /// The area (normalized).
    pub area: Area,
    /// The signature.
    pub sig: Signature,
}

/// A Fuseki node.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// Id.
    pub id: u64,
    /// Father (`None` for a root).
    pub parent: Option<u64>,
    /// The move (`B dd`, `W pass`), or the board size `19x19` for a root.
    pub mv: String,
    /// Depth (roots 0).
    pub depth: u32,
    /// Signature: players who reached it, their average ELO, the value for the first player.
    pub sig: Signature,
    /// Wins, losses, draws (first player) of the games whose stored opening ends here.
    pub wld: [u32; 3],
}

/// A change to apply to the stored state.
#[derive(Debug, Clone, PartialEq)]
pub enum Change {
    /// A pattern inserted.
    Insert(Entry),
    /// A pattern's area and signature replaced.
    Update(Entry),
    /// A pattern removed.
    Evict(u64),
    /// A Fuseki node inserted or replaced.
    Node(Node),
    /// A Fuseki node removed.
    RemoveNode(u64),
    /// The statistics of posted games: games, total moves.
    Games(u64, u64),
}

/// What became of a posted pattern.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Posted {
    /// Matched exactly pattern `id`.
    Exact(u64),
    /// Merged into `id` by generalization.
    Generalized(u64),
    /// Merged into `id` by specialization.
    Specialized(u64),
    /// Inserted as `id`.
    Inserted(u64),
}

impl Posted {
    /// The pattern's id.
    pub fn id(self) -> u64 {
        match self {
            Posted::Exact(i) | Posted::Generalized(i) | Posted::Specialized(i) | Posted::Inserted(i) => i,
        }
    }
    /// `exact`, `generalized`, `specialized` or `inserted`.
    pub fn name(self) -> &'static str {
        match self {
            Posted::Exact(_) => "exact",
            Posted::Generalized(_) => "generalized",
            Posted::Specialized(_) => "specialized",
            Posted::Inserted(_) => "inserted",
        }
    }
}

/// A leaf's value per depth, ordered totally (eviction order).
#[derive(Debug, Clone, Copy, PartialEq)]
struct LeafKey(f64);

impl Eq for LeafKey {}

impl PartialOrd for LeafKey {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}

impl Ord for LeafKey {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        self.0.total_cmp(&o.0)
    }
}

/// The ACADEMY in memory: the pattern libraries and the Fuseki tree.
#[derive(Debug, Clone, Default)]
pub struct Academy {
    /// Settings.
    pub caps: Caps,
    /// Matching rules.
    pub rules: PostRules,
    /// The game (alphabet, normalization).
    pub game: Game,
    /// Patterns by id.
    pub entries: BTreeMap<u64, Entry>,
    /// Pattern ids by (library, shape).
    by_shape: BTreeMap<(Library, String), Vec<u64>>,
    /// Fuseki nodes by id.
    pub nodes: BTreeMap<u64, Node>,
    /// Children of each node.
    children: BTreeMap<u64, BTreeMap<String, u64>>,
    /// The next id (patterns and nodes share the sequence).
    pub next_id: u64,
    /// Games posted and their total moves (for the average game length).
    pub games: (u64, u64),
}

impl Academy {
    /// An empty ACADEMY.
    pub fn new(caps: Caps, rules: PostRules, game: Game) -> Academy {
        Academy {
            caps,
            rules,
            game,
            next_id: 1,
            ..Academy::default()
        }
    }

    /// The average game length of the posted games (`None` before any).
    pub fn average_length(&self) -> Option<f64> {
        (self.games.0 > 0).then(|| self.games.1 as f64 / self.games.0 as f64)
    }

    /// The patterns of a library.
    pub fn library(&self, l: Library) -> impl Iterator<Item = &Entry> {
        self.entries.values().filter(move |e| e.library == l)
    }

    /// Applies a change (as read back from the store, or as returned by a post).
    pub fn apply(&mut self, c: &Change) {
        match c {
            Change::Insert(e) | Change::Update(e) => {
                if let Some(old) = self.entries.get(&e.id).cloned() {
                    self.unindex(&old);
                }
                self.by_shape
                    .entry((e.library, shape_key(&e.area, self.game)))
                    .or_default()
                    .push(e.id);
                self.entries.insert(e.id, e.clone());
                self.next_id = self.next_id.max(e.id + 1);
            }
            Change::Evict(id) => {
                if let Some(old) = self.entries.remove(id) {
                    self.unindex(&old);
                }
            }
            Change::Node(n) => {
                if let Some(p) = n.parent {
                    self.children.entry(p).or_default().insert(n.mv.clone(), n.id);
                }
                self.nodes.insert(n.id, n.clone());
                self.next_id = self.next_id.max(n.id + 1);
            }
            Change::RemoveNode(id) => {
                if let Some(n) = self.nodes.remove(id)
                    && let Some(p) = n.parent
                    && let Some(ch) = self.children.get_mut(&p)
                {
                    ch.remove(&n.mv);
                }
                self.children.remove(id);
            }
            Change::Games(g, m) => self.games = (*g, *m),
        }
    }

    fn unindex(&mut self, e: &Entry) {
        if let Some(v) = self.by_shape.get_mut(&(e.library, shape_key(&e.area, self.game))) {
            v.retain(|&i| i != e.id);
        }
    }

    /// Posts a pattern to a pattern library (Chuban or Yose): normalizes it, matches it against
    /// the library (exact, generalization, specialization) or inserts it, then removes the
    /// weakest pattern while the library is over its cap. Returns what happened and the changes.
    pub fn post(&mut self, pattern: &Pattern, library: Library) -> (Posted, Vec<Change>) {
        assert!(
            library != Library::Fuseki,
            "the Fuseki library takes games, not patterns"
        );
        let p = pattern.normalized(self.game);
        let shape = shape_key(&p.area, self.game);
        // the best merge: least (rule, changed cells, id), the first orientation on ties; counted
        // without building areas (`merge_cost`), the winner's merge built once
        let mut best: Option<(u8, usize, u64, usize)> = None;
        let orientations = orientations(&p, self.game);
        if let Some(ids) = self.by_shape.get(&(library, shape)) {
            for &id in ids {
                let e = &self.entries[&id];
                for (oi, q) in orientations.iter().enumerate() {
                    let bound = best.map(|b| (b.0, b.1));
                    let Some((kind, changed)) = merge_cost((&q.area, q.sig), (&e.area, e.sig), &self.rules, bound)
                    else {
                        continue;
                    };
                    let rank = match kind {
                        Kind::Exact => 0,
                        Kind::Generalized => 1,
                        Kind::Specialized => 2,
                    };
                    let key = (rank, changed, id);
                    if best.is_none_or(|b| key < (b.0, b.1, b.2)) {
                        best = Some((rank, changed, id, oi));
                    }
                }
            }
        }
        let best = best.map(|(r, c, id, oi)| {
            let e = &self.entries[&id];
            let known = Pattern {
                area: e.area.clone(),
                sig: e.sig,
                library: None,
            };
            let mut m = merge(&orientations[oi], &known, &self.rules).expect("merge_cost said it merges");
            m.area = in_game(&m.area, self.game);
            (r, c, id, m)
        });
        let mut changes = Vec::new();
        let posted = match best {
            Some((_, _, id, m)) => {
                let area = if self.game == Game::Go {
                    m.area.canonical()
                } else {
                    m.area
                };
                let e = Entry {
                    id,
                    library,
                    area,
                    sig: m.sig,
                };
                changes.push(Change::Update(e));
                match m.kind {
                    Kind::Exact => Posted::Exact(id),
                    Kind::Generalized => Posted::Generalized(id),
                    Kind::Specialized => Posted::Specialized(id),
                }
            }
            None => {
                let id = self.next_id;
                changes.push(Change::Insert(Entry {
                    id,
                    library,
                    area: p.area,
                    sig: p.sig,
                }));
                Posted::Inserted(id)
            }
        };
        for c in &changes {
            self.apply(c);
        }
        let cap = match library {
            Library::Chuban => self.caps.chuban_cap,
            _ => self.caps.yose_cap,
        };
        let mut count = self.library(library).count();
        while count > cap {
            let weakest = self
                .library(library)
                .min_by(|a, b| strength(&a.sig).total_cmp(&strength(&b.sig)).then(b.id.cmp(&a.id)))
                .map(|e| e.id)
                .expect("a library over its cap is not empty");
            let c = Change::Evict(weakest);
            self.apply(&c);
            changes.push(c);
            count -= 1;
        }
        (posted, changes)
    }

    /// The Fuseki depth in force for a game of `len` moves about to be posted.
    pub fn fuseki_depth(&self, len: usize) -> usize {
        if self.caps.fuseki_depth > 0 {
            return self.caps.fuseki_depth;
        }
        let (g, m) = self.games;
        ((m + len as u64) as f64 / (g + 1) as f64 / 3.0).floor() as usize
    }

    /// Posts a game's opening to the Fuseki library: `moves` are move keys (already in the
    /// canonical orientation, e.g. from [`super::games::opening_keys`]) under the root `root`
    /// (the board size), `len` the game's length, `players` each posting player's ELO and value
    /// for the first player, `result` the first player's. Every node of the stored opening (at
    /// most the Fuseki depth) takes each player's signature; the last one takes the result.
    pub fn post_opening(
        &mut self,
        root: &str,
        moves: &[String],
        len: usize,
        players: &[(f64, f64)],
        result: Option<Outcome>,
    ) -> Vec<Change> {
        let depth = self.fuseki_depth(len).min(moves.len());
        let mut changes = Vec::new();
        let games = Change::Games(self.games.0 + 1, self.games.1 + len as u64);
        self.apply(&games);
        changes.push(games);
        let root_id = match self.nodes.values().find(|n| n.parent.is_none() && n.mv == root) {
            Some(n) => n.id,
            None => {
                let n = Node {
                    id: self.next_id,
                    parent: None,
                    mv: root.to_string(),
                    depth: 0,
                    sig: Signature {
                        n: 0,
                        e: 0.0,
                        v: 0.5,
                        p: 1,
                    },
                    wld: [0; 3],
                };
                let c = Change::Node(n.clone());
                self.apply(&c);
                changes.push(c);
                n.id
            }
        };
        let mut path = vec![root_id];
        let mut at = root_id;
        for (d, mv) in moves.iter().take(depth).enumerate() {
            let existing = self.children.get(&at).and_then(|c| c.get(mv)).copied();
            let mut node = match existing {
                Some(id) => self.nodes[&id].clone(),
                None => Node {
                    id: self.next_id,
                    parent: Some(at),
                    mv: mv.clone(),
                    depth: d as u32 + 1,
                    sig: Signature {
                        n: 0,
                        e: 0.0,
                        v: 0.5,
                        p: 1,
                    },
                    wld: [0; 3],
                },
            };
            for &(e, v) in players {
                let new = Signature { n: 1, e, v, p: 1 };
                node.sig = if node.sig.n == 0 { new } else { combine(node.sig, new) };
            }
            let c = Change::Node(node.clone());
            self.apply(&c);
            changes.push(c);
            at = node.id;
            path.push(at);
        }
        if let Some(r) = result {
            let mut n = self.nodes[&at].clone();
            n.wld[r as usize] += 1;
            let c = Change::Node(n);
            self.apply(&c);
            changes.push(c);
        }
        if self.caps.fuseki_prune {
            for &u in path.iter().rev() {
                if self.nodes.contains_key(&u) {
                    self.prune(u, &mut changes);
                }
            }
        }
        self.evict_nodes(&mut changes);
        changes
    }

    fn prune(&mut self, u: u64, changes: &mut Vec<Change>) {
        let kids: Vec<u64> = self
            .children
            .get(&u)
            .map(|c| c.values().copied().collect())
            .unwrap_or_default();
        if kids.len() < 2 {
            return;
        }
        let all_negative_leaves = kids
            .iter()
            .all(|k| self.children.get(k).is_none_or(|c| c.is_empty()) && self.nodes[k].sig.v < 0.5);
        if !all_negative_leaves {
            return;
        }
        let mut node = self.nodes[&u].clone();
        for k in kids {
            let kid = &self.nodes[&k];
            for i in 0..3 {
                node.wld[i] += kid.wld[i];
            }
            let c = Change::RemoveNode(k);
            self.apply(&c);
            changes.push(c);
        }
        node.sig.v *= node.sig.v;
        let c = Change::Node(node);
        self.apply(&c);
        changes.push(c);
    }

    /// Evicts leaves while the tree is over its cap: each time the leaf with the lowest
    /// value/depth (the latest on ties), its win/loss/draw counts going to its father. The leaves
    /// are kept ordered in a set (a father whose last child goes becomes a leaf).
    fn evict_nodes(&mut self, changes: &mut Vec<Change>) {
        let mut count = self.nodes.values().filter(|n| n.parent.is_some()).count();
        if count <= self.caps.fuseki_cap {
            return;
        }
        let key = |n: &Node| (LeafKey(n.sig.v / n.depth as f64), std::cmp::Reverse(n.id));
        let mut leaves: std::collections::BTreeSet<_> = self
            .nodes
            .values()
            .filter(|n| n.parent.is_some() && self.children.get(&n.id).is_none_or(|c| c.is_empty()))
            .map(key)
            .collect();
        while count > self.caps.fuseki_cap {
            count -= 1;
            let (_, std::cmp::Reverse(id)) = leaves.pop_first().expect("a tree over its cap has a leaf");
            let leaf = &self.nodes[&id];
            let (parent, wld) = (leaf.parent.expect("not a root"), leaf.wld);
            let mut father = self.nodes[&parent].clone();
            for (f, w) in father.wld.iter_mut().zip(wld) {
                *f += w;
            }
            for c in [Change::RemoveNode(id), Change::Node(father)] {
                self.apply(&c);
                changes.push(c);
            }
            let f = &self.nodes[&parent];
            if f.parent.is_some() && self.children.get(&parent).is_none_or(|c| c.is_empty()) {
                leaves.insert(key(f));
            }
        }
    }

    /// The children of a Fuseki node, by move.
    pub fn children(&self, id: u64) -> Vec<&Node> {
        self.children
            .get(&id)
            .map(|c| c.values().map(|i| &self.nodes[i]).collect())
            .unwrap_or_default()
    }

    /// The Fuseki node reached by `moves` from root `root`, if stored.
    pub fn find_opening(&self, root: &str, moves: &[String]) -> Option<&Node> {
        let mut at = self.nodes.values().find(|n| n.parent.is_none() && n.mv == root)?.id;
        for m in moves {
            at = *self.children.get(&at)?.get(m)?;
        }
        self.nodes.get(&at)
    }

    /// Games counted at a node and below: wins, losses, draws.
    pub fn games_through(&self, id: u64) -> [u32; 3] {
        let mut t = self.nodes.get(&id).map(|n| n.wld).unwrap_or_default();
        for k in self.children(id).iter().map(|n| n.id).collect::<Vec<_>>() {
            let s = self.games_through(k);
            for i in 0..3 {
                t[i] += s[i];
            }
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::knowledge::academy::notation::parse;

    fn pat(text: &str) -> Pattern {
        parse(text, Game::Go).unwrap().remove(0)
    }

    #[test]
    fn post_mortem_hand_computed() {
        assert_eq!(post_mortem(0.64, Outcome::Win), 0.8);
        assert!((post_mortem(0.7, Outcome::Loss) - 0.49).abs() < 1e-15);
        assert_eq!(post_mortem(0.9, Outcome::Draw), 0.7);
        assert_eq!(post_mortem(0.2, Outcome::Draw), 0.35);
    }

    #[test]
    fn strength_is_n_e_half_minus_v_squared() {
        let s = Signature {
            n: 3,
            e: 165.0,
            v: 0.78,
            p: 1,
        };
        // 3 · 165 · 0.28² = 38.808
        assert!((strength(&s) - 38.808).abs() < 1e-9);
    }

    #[test]
    fn posts_match_exactly_generalize_specialize_or_insert() {
        let mut a = Academy::new(Caps::default(), PostRules::default(), Game::Go);
        let (p, _) = a.post(&pat("x -\n- -\n< 1; 1000; 0.5; 1 >"), Library::Chuban);
        assert_eq!(p, Posted::Inserted(1));
        // a rotation and a colour swap of the same pattern (addressed to white) matches exactly
        let (p, _) = a.post(&pat("- -\n- o\n< 1; 1000; 0.7; 2 >"), Library::Chuban);
        assert_eq!(p, Posted::Exact(1));
        assert_eq!(a.entries[&1].sig.n, 2);
        assert!((a.entries[&1].sig.v - 0.6).abs() < 1e-12);
        // another library does not see it
        let (p, _) = a.post(&pat("x -\n- -\n< 1; 1000; 0.5; 1 >"), Library::Yose);
        assert_eq!(p, Posted::Inserted(2));
        // x against - within the ELO band: generalized to 1
        let (p, _) = a.post(&pat("x x\n- -\n< 1; 1100; 0.5; 1 >"), Library::Chuban);
        assert_eq!(p, Posted::Generalized(1));
        assert_eq!(a.entries[&1].area.key(), "--/1x");
        // a much stronger player specializes it back
        let (p, _) = a.post(&pat("x x\n- -\n< 1; 1400; 0.5; 1 >"), Library::Chuban);
        assert_eq!(p, Posted::Specialized(1));
        assert_eq!(a.entries[&1].area.key(), "--/xx");
        // a much weaker player's different pattern is inserted
        let (p, _) = a.post(&pat("x o\n- -\n< 1; 100; 0.5; 1 >"), Library::Chuban);
        assert_eq!(p, Posted::Inserted(3));
    }

    #[test]
    fn a_full_library_loses_its_weakest_pattern() {
        let caps = Caps {
            chuban_cap: 2,
            ..Caps::default()
        };
        let mut a = Academy::new(caps, PostRules::default(), Game::Go);
        // strengths: 1·1000·0.4² = 160, 1·1000·0.1² = 10, 1·1000·0.3² = 90
        // (shapes differ, so nothing merges)
        a.post(&pat("x\n< 1; 1000; 0.9; 1 >"), Library::Chuban);
        a.post(&pat("x x\n< 1; 1000; 0.6; 1 >"), Library::Chuban);
        let (p, ch) = a.post(&pat("x x x\n< 1; 1000; 0.2; 1 >"), Library::Chuban);
        assert_eq!(p, Posted::Inserted(3));
        assert!(ch.contains(&Change::Evict(2)));
        assert_eq!(a.library(Library::Chuban).map(|e| e.id).collect::<Vec<_>>(), vec![1, 3]);
        // the newcomer itself goes when it is the weakest (0.55: 1000 · 0.05² = 2.5)
        let (_, ch) = a.post(&pat("x x x x\n< 1; 1000; 0.55; 1 >"), Library::Chuban);
        assert!(ch.contains(&Change::Evict(4)));
    }

    fn keys(s: &str) -> Vec<String> {
        s.split(',').map(str::to_string).collect()
    }

    #[test]
    fn fuseki_tree_counts_depth_and_caps() {
        let caps = Caps {
            fuseki_depth: 3,
            fuseki_prune: false,
            ..Caps::default()
        };
        let mut a = Academy::new(caps, PostRules::default(), Game::Go);
        a.post_opening(
            "19x19",
            &keys("B dd,W pp,B dp,W pd"),
            200,
            &[(2000.0, 1.0), (2100.0, 1.0)],
            Some(Outcome::Win),
        );
        a.post_opening(
            "19x19",
            &keys("B dd,W pp,B pd"),
            100,
            &[(2000.0, 0.0)],
            Some(Outcome::Loss),
        );
        // depth 3: 4 nodes below the root (dd, pp, dp, pd)
        assert_eq!(a.nodes.values().filter(|n| n.parent.is_some()).count(), 4);
        let pp = a.find_opening("19x19", &keys("B dd,W pp")).unwrap();
        // 3 players: E = (2000 + 2100 + 2000)/3, V = (2000·1 + 2100·1 + 2000·0)/6100
        assert_eq!(pp.sig.n, 3);
        assert!((pp.sig.v - 4100.0 / 6100.0).abs() < 1e-12);
        assert_eq!(a.games_through(pp.id), [1, 1, 0]);
        assert_eq!(a.find_opening("19x19", &keys("B dd,W pp,B dp")).unwrap().wld, [1, 0, 0]);
        assert_eq!(a.average_length(), Some(150.0));
        // derived depth: ⌊average length / 3⌋, the game being posted included
        let b = Academy::new(Caps::default(), PostRules::default(), Game::Go);
        assert_eq!(b.fuseki_depth(31), 10);
    }

    #[test]
    fn fuseki_eviction_removes_the_lowest_value_per_depth_leaf() {
        let caps = Caps {
            fuseki_cap: 2,
            fuseki_depth: 5,
            fuseki_prune: false,
            ..Caps::default()
        };
        let mut a = Academy::new(caps, PostRules::default(), Game::Go);
        a.post_opening("9x9", &keys("B ee,W cc"), 60, &[(2000.0, 0.9)], Some(Outcome::Win));
        // a second line: ee → gg; 3 nodes > 2: leaves cc (0.9/2 = 0.45) and gg (0.6/2 = 0.3)
        let ch = a.post_opening("9x9", &keys("B ee,W gg"), 60, &[(2000.0, 0.6)], Some(Outcome::Draw));
        let gg = a.nodes.values().find(|n| n.mv == "W gg");
        assert!(gg.is_none(), "gg (0.3) evicted");
        assert!(ch.iter().any(|c| matches!(c, Change::RemoveNode(_))));
        // its draw went to its father ee
        let ee = a.find_opening("9x9", &keys("B ee")).unwrap();
        assert_eq!(ee.wld, [0, 0, 1]);
        assert_eq!(a.games_through(ee.id), [1, 0, 1]);
    }

    #[test]
    fn fuseki_pruning_erases_all_negative_leaves_and_squares_the_value() {
        let caps = Caps {
            fuseki_depth: 2,
            ..Caps::default()
        };
        let mut a = Academy::new(caps, PostRules::default(), Game::Go);
        a.post_opening("9x9", &keys("B ee,W cc"), 60, &[(2000.0, 0.4)], Some(Outcome::Loss));
        // one negative leaf: no pruning (two or more are needed)
        assert!(a.find_opening("9x9", &keys("B ee,W cc")).is_some());
        a.post_opening("9x9", &keys("B ee,W gg"), 60, &[(2000.0, 0.2)], Some(Outcome::Loss));
        // ee had V = (0.4 + 0.2)/2 = 0.3 → both leaves negative → erased, V(ee) = 0.09
        let ee = a.find_opening("9x9", &keys("B ee")).unwrap();
        assert!(a.children(ee.id).is_empty());
        assert!((ee.sig.v - 0.09).abs() < 1e-12);
        assert_eq!(ee.wld, [0, 2, 0]);
    }
}
