//! Level-n structs: level-(n−1) class elements joined by class element links.
//!
//! Implements §3.4.2: "in a level 1 struct, level 0 class elements are 'connected' by a level 1
//! class element link, or CEL^1. A CEL^1 takes the form of a set of one or more shared
//! constraints, on which two level 0 class elements overlap." Generalised to any n: a
//! [`LevelStruct`] has the elements of level n−1 as nodes (typed by their class) and one CEL per
//! application of a level-(n−1) constraint that two or more elements share, labelled by that
//! constraint. It implements [`Host`], so level-n constraints are matched by the very matcher
//! that matches level-0 constraints in structs; and [`Workspace`], so level-n classes generate.

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use super::element::{Application, Element};
use super::generation::Workspace;
use super::matching::{Host, LinkLabel, sort_dedup_tail};
use super::setting::{ConstraintId, Setting};
use super::structs::NodeId;

/// A class element link: elements (≥ 2) that overlap on one application of a constraint.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Cel {
    /// The level-(n−1) constraint the members overlap on.
    pub constraint: ConstraintId,
    /// The member elements (node ids of the level-n struct), ascending.
    pub members: Vec<NodeId>,
}

/// A level-n struct (n ≥ 1).
#[derive(Debug, Clone, Default)]
pub struct LevelStruct {
    /// Its level n.
    pub level: u32,
    kinds: Vec<u32>,
    by_kind: Vec<Vec<NodeId>>,
    links: Vec<Cel>,
    incident: Vec<Vec<u32>>,
    link_index: FxHashMap<Cel, u32>,
}

impl LevelStruct {
    /// An empty level-n struct for a setting with `classes` classes.
    pub fn new(level: u32, classes: usize) -> Self {
        LevelStruct {
            level,
            by_kind: vec![Vec::new(); classes],
            ..Default::default()
        }
    }

    /// The level-n struct over `elements` (the recognised level-(n−1) elements, whose indices
    /// become node ids): one CEL per shared application, merged when the same members share
    /// several applications of the same constraint.
    pub fn from_elements<'a, I>(setting: &Setting, level: u32, elements: I) -> Self
    where
        I: IntoIterator<Item = &'a Element>,
        I::IntoIter: Clone,
    {
        let elements = elements.into_iter();
        let mut s = LevelStruct::new(level, setting.classes().len());
        for e in elements.clone() {
            s.add_node(e.class.0)
                .expect("adding a node to a level-n struct cannot fail");
        }
        let mut by_app: FxHashMap<&Application, Vec<NodeId>> = FxHashMap::default();
        for (i, e) in elements.enumerate() {
            for a in &e.applications {
                let v = by_app.entry(a).or_default();
                if v.last() != Some(&(i as NodeId)) {
                    v.push(i as NodeId);
                }
            }
        }
        let cels: Vec<Cel> = by_app
            .into_iter()
            .filter(|(_, m)| m.len() >= 2)
            .map(|(a, m)| Cel {
                constraint: a.constraint,
                members: m,
            })
            .collect();
        s.insert_cels(cels);
        s
    }

    /// The level-n struct with nodes of the given kinds (classes), in order, and the CELs
    /// `cels` (members ascending, at least two): the same struct as [`LevelStruct::from_elements`]
    /// when the CELs are the applications the elements share.
    pub fn from_parts(level: u32, classes: usize, kinds: impl IntoIterator<Item = u32>, cels: Vec<Cel>) -> Self {
        let mut s = LevelStruct::new(level, classes);
        for k in kinds {
            s.add_node(k).expect("adding a node to a level-n struct cannot fail");
        }
        s.insert_cels(cels);
        s
    }

    /// Inserts `cels` in order, each once (the same members sharing several applications of the
    /// same constraint make one CEL).
    fn insert_cels(&mut self, cels: Vec<Cel>) {
        // The same CEL comes again and again (one constraint between the same elements, applied
        // at step after step): the repeats are dropped first, by hashing, and only the distinct ones are
        // sorted. Equal CELs are equal values, so the list is the sorted, deduplicated one.
        let keep: Vec<bool> = {
            let mut seen: rustc_hash::FxHashSet<&Cel> =
                rustc_hash::FxHashSet::with_capacity_and_hasher(cels.len() / 4, Default::default());
            cels.iter().map(|c| seen.insert(c)).collect()
        };
        let mut cels: Vec<Cel> = cels.into_iter().zip(keep).filter_map(|(c, k)| k.then_some(c)).collect();
        cels.sort_unstable();
        for c in cels {
            self.insert_link(c);
        }
    }

    /// The sub-structure induced by the nodes `keep` (ascending): node k of the result is `keep[k]`;
    /// a CEL survives with its kept members when at least two of them are kept.
    pub fn induced(&self, keep: &[NodeId]) -> LevelStruct {
        let mut s = LevelStruct::new(self.level, self.by_kind.len());
        let mut index = vec![NodeId::MAX; self.len()];
        for (k, &n) in keep.iter().enumerate() {
            index[n as usize] = k as NodeId;
            s.add_node(self.kinds[n as usize])
                .expect("adding a node to a level-n struct cannot fail");
        }
        let mut seen = rustc_hash::FxHashSet::default();
        for &n in keep {
            for &li in &self.incident[n as usize] {
                if !seen.insert(li) {
                    continue;
                }
                let l = &self.links[li as usize];
                let members: Vec<NodeId> = l
                    .members
                    .iter()
                    .filter_map(|&m| (index[m as usize] != NodeId::MAX).then_some(index[m as usize]))
                    .collect();
                if members.len() >= 2 {
                    s.insert_link(Cel {
                        constraint: l.constraint,
                        members,
                    });
                }
            }
        }
        s
    }

    fn insert_link(&mut self, c: Cel) -> u32 {
        if let Some(&i) = self.link_index.get(&c) {
            return i;
        }
        let i = self.links.len() as u32;
        for &m in &c.members {
            self.incident[m as usize].push(i);
        }
        self.link_index.insert(c.clone(), i);
        self.links.push(c);
        i
    }

    /// The class element links.
    pub fn links(&self) -> &[Cel] {
        &self.links
    }
    /// Number of nodes (elements).
    pub fn len(&self) -> usize {
        self.kinds.len()
    }
    /// Whether there are no nodes.
    pub fn is_empty(&self) -> bool {
        self.kinds.is_empty()
    }
    /// The links incident to node `n`.
    pub fn incident(&self, n: NodeId) -> impl Iterator<Item = &Cel> {
        self.incident[n as usize].iter().map(|&i| &self.links[i as usize])
    }
}

impl Host for LevelStruct {
    fn node_count(&self) -> usize {
        self.kinds.len()
    }
    fn node_kind(&self, n: NodeId) -> u32 {
        self.kinds[n as usize]
    }
    fn nodes_of_kind(&self, kind: u32) -> &[NodeId] {
        self.by_kind.get(kind as usize).map(|v| v.as_slice()).unwrap_or(&[])
    }
    fn partners(&self, n: NodeId, label: LinkLabel, _role: u8, _other: u8, out: &mut Vec<NodeId>) {
        let link = |li: u32, c: ConstraintId| {
            let l = &self.links[li as usize];
            (l.constraint == c).then_some(l.members.as_slice())
        };
        cel_partners(&self.incident[n as usize], link, n, label, |_| true, out);
    }
    fn linked(&self, label: LinkLabel, ends: &[(NodeId, u8)]) -> bool {
        let link = |li: u32, c: ConstraintId| {
            let l = &self.links[li as usize];
            (l.constraint == c).then_some(l.members.as_slice())
        };
        ends.first()
            .is_some_and(|&(first, _)| cel_linked(&self.incident[first as usize], link, label, ends))
    }
}

/// [`Host::partners`] over class element links: the other members of the links of `label`'s
/// constraint among `incident` (the links of `n`; `link` gives a link's members when it is of the
/// constraint asked), those `keep` admits,
/// ascending and distinct. Shared by every level-n struct.
// (In line: a level-n plan run asks it at nearly every step, most finding one partner or none.)
#[inline]
pub(crate) fn cel_partners<'a, I: Copy>(
    incident: &[I],
    link: impl Fn(I, ConstraintId) -> Option<&'a [NodeId]>,
    n: NodeId,
    label: LinkLabel,
    keep: impl Fn(NodeId) -> bool,
    out: &mut Vec<NodeId>,
) {
    let LinkLabel::Cel(c) = label else { return };
    let start = out.len();
    for &li in incident {
        // (Most links are pairs: their other end is read without a loop.)
        match link(li, c) {
            None => {}
            Some(&[a, b]) => {
                let m = if a == n { b } else { a };
                if keep(m) {
                    out.push(m);
                }
            }
            Some(members) => {
                for &m in members {
                    if m != n && keep(m) {
                        out.push(m);
                    }
                }
            }
        }
    }
    sort_dedup_tail(out, start);
}

/// [`Host::linked`] over class element links: whether one link of `label`'s constraint among
/// `incident` (the links of the first end) holds every end.
pub(crate) fn cel_linked<'a, I: Copy>(
    incident: &[I],
    link: impl Fn(I, ConstraintId) -> Option<&'a [NodeId]>,
    label: LinkLabel,
    ends: &[(NodeId, u8)],
) -> bool {
    let LinkLabel::Cel(c) = label else { return false };
    incident
        .iter()
        .any(|&li| link(li, c).is_some_and(|members| ends.iter().all(|(m, _)| members.contains(m))))
}

impl Workspace for LevelStruct {
    fn add_node(&mut self, kind: u32) -> Result<NodeId, String> {
        let n = self.kinds.len() as NodeId;
        self.kinds.push(kind);
        if self.by_kind.len() <= kind as usize {
            self.by_kind.resize(kind as usize + 1, Vec::new());
        }
        self.by_kind[kind as usize].push(n);
        self.incident.push(Vec::new());
        Ok(n)
    }
    fn can_link(&self, label: LinkLabel, ends: &[(NodeId, u8)]) -> bool {
        matches!(label, LinkLabel::Cel(_)) && ends.iter().all(|e| (e.0 as usize) < self.len())
    }
    fn add_link(&mut self, label: LinkLabel, ends: &[(NodeId, u8)]) -> Result<(), String> {
        let LinkLabel::Cel(c) = label else {
            return Err("a level-n struct holds only class element links".into());
        };
        if self.linked(label, ends) {
            return Ok(());
        }
        let mut members: Vec<NodeId> = ends.iter().map(|e| e.0).collect();
        members.sort_unstable();
        members.dedup();
        self.insert_link(Cel { constraint: c, members });
        Ok(())
    }
}

/// An overlap graph (Fig. 3.8, 4.32): elements as nodes, an edge between two elements for the
/// constraints they overlap on. Temporal information is absent, as the thesis notes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OverlapGraph {
    /// Edges `(a, b, constraints)` with `a < b`, constraints ascending; edges ascending.
    pub edges: Vec<(NodeId, NodeId, Vec<ConstraintId>)>,
}

impl OverlapGraph {
    /// The overlap graph of a level-n struct: each CEL contributes its constraint to the edge of
    /// every pair of its members.
    pub fn of(level: &LevelStruct) -> Self {
        let mut m: std::collections::BTreeMap<(NodeId, NodeId), Vec<ConstraintId>> = Default::default();
        for l in level.links() {
            for (i, &a) in l.members.iter().enumerate() {
                for &b in &l.members[i + 1..] {
                    m.entry((a, b)).or_default().push(l.constraint);
                }
            }
        }
        OverlapGraph {
            edges: m
                .into_iter()
                .map(|((a, b), mut v)| {
                    v.sort_unstable();
                    v.dedup();
                    (a, b, v)
                })
                .collect(),
        }
    }
}
