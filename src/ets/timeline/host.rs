//! A level-n struct over time (§3.4.2): its nodes are the elements of level n−1, each from the
//! step it became complete to the step it ended; its links are class element links CEL^n, one per
//! constraint of level n−1 and set of nodes that share an application of it, each from the step
//! the sharing began. Matching at step t admits the nodes present during t (born by t, not ended
//! before t: an element that ends at t still takes part in what happens at t, as an element that
//! ends and one that begins from its last events do).

use std::sync::atomic::AtomicU32;
use std::sync::atomic::Ordering::Relaxed;

use rustc_hash::FxHashMap;
use smallvec::SmallVec;

use crate::ets::ids::{ConstraintId, ElementId, NONE, NodeId};
use crate::ets::level::{cel_linked, cel_partners};
use crate::ets::matching::{Host, LinkLabel};

/// A class element link of a level-n struct over time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TimedCel {
    /// The shared constraint of level n−1.
    pub constraint: ConstraintId,
    /// Its members (node ids), ascending.
    pub members: SmallVec<[NodeId; 4]>,
    /// The step it was formed at.
    pub formed: u32,
}

/// The links of one constraint incident to a node, in the order they formed.
#[derive(Debug)]
struct Bucket {
    constraint: ConstraintId,
    /// How many of the first links have no other member matchable at any step from the one
    /// that found them so on ([`LevelHost::set_at`]): [`Host::partners`] reads from there (and
    /// moves it on; an atomic, as the matcher reads the host shared, and a host may be read by
    /// several threads at once: any value one of them stores is a dead head).
    dead: AtomicU32,
    links: SmallVec<[u32; 3]>,
}

impl Clone for Bucket {
    fn clone(&self) -> Self {
        Bucket {
            constraint: self.constraint,
            dead: AtomicU32::new(self.dead.load(Relaxed)),
            links: SmallVec::from_slice(&self.links),
        }
    }
}

/// A level-n struct over time.
#[derive(Debug, Clone, Default)]
pub struct LevelHost {
    kinds: Vec<u32>,
    by_kind: Vec<Vec<NodeId>>,
    born: Vec<u32>,
    ended: Vec<u32>,
    below: Vec<ElementId>,
    links: Vec<TimedCel>,
    /// Per node, its incident links by constraint: a reader of one constraint's links reads
    /// only theirs (under sweep attention a long-lived node gathers links at every pass of the
    /// window); within a constraint, in the order they formed.
    incident: Vec<SmallVec<[Bucket; 2]>>,
    pair_index: FxHashMap<(u32, NodeId, NodeId), u32>,
    set_index: FxHashMap<(ConstraintId, SmallVec<[NodeId; 4]>), u32>,
    /// The step matching admits nodes for.
    at: u32,
    /// Whether the step matching is at can be taken back ([`LevelHost::set_at`]).
    settle: bool,
}

impl LevelHost {
    /// Adds a node of type `kind` (a class of level n−1) standing for element `below`, present
    /// from step `t`.
    pub fn add_node(&mut self, kind: u32, below: ElementId, t: u32) -> NodeId {
        let n = self.kinds.len() as NodeId;
        self.kinds.push(kind);
        if self.by_kind.len() <= kind as usize {
            self.by_kind.resize(kind as usize + 1, Vec::new());
        }
        self.by_kind[kind as usize].push(n);
        self.born.push(t);
        self.ended.push(NONE);
        self.below.push(below);
        self.incident.push(SmallVec::new());
        n
    }
    /// Ends node `n` at step `t` (it is not present from `t` on).
    pub fn end(&mut self, n: NodeId, t: u32) {
        self.ended[n as usize] = t;
    }
    /// Undo: node `n` not ended.
    pub(crate) fn unend(&mut self, n: NodeId) {
        self.ended[n as usize] = NONE;
    }
    /// The step node `n` was born at.
    pub fn born(&self, n: NodeId) -> u32 {
        self.born[n as usize]
    }
    /// The step node `n` ended at, if it has.
    pub fn ended(&self, n: NodeId) -> Option<u32> {
        let e = self.ended[n as usize];
        (e != NONE).then_some(e)
    }
    /// Whether node `n` is present at step `t` (born by `t`, not ended by `t`).
    #[inline]
    pub fn present(&self, n: NodeId, t: u32) -> bool {
        // (`NONE`, not ended, is the largest step of all.)
        const { assert!(NONE == u32::MAX) };
        self.born[n as usize] <= t && self.ended[n as usize] > t
    }
    /// Whether node `n` takes part in matching at step `t` (present, or ending at `t`).
    #[inline]
    pub fn matchable(&self, n: NodeId, t: u32) -> bool {
        self.born[n as usize] <= t && self.ended[n as usize] >= t
    }
    /// The element of level n−1 that node `n` stands for.
    pub fn below(&self, n: NodeId) -> ElementId {
        self.below[n as usize]
    }
    /// How many incident-link entries the lists' dead heads hold, all told: links passed by for
    /// good at steps that cannot be taken back (see `LevelHost::set_at`; a diagnostic).
    pub fn dead_links(&self) -> usize {
        self.incident
            .iter()
            .flat_map(|v| v.iter())
            .map(|b| b.dead.load(Relaxed) as usize)
            .sum()
    }
    /// Number of nodes ever added.
    pub fn len(&self) -> usize {
        self.kinds.len()
    }
    /// Whether no node was ever added.
    pub fn is_empty(&self) -> bool {
        self.kinds.is_empty()
    }
    /// The links.
    pub fn links(&self) -> &[TimedCel] {
        &self.links
    }
    /// The links incident to node `n`, by constraint, and within one in the order they formed.
    pub fn incident(&self, n: NodeId) -> impl Iterator<Item = &TimedCel> {
        self.incident[n as usize]
            .iter()
            .flat_map(|b| b.links.iter().map(|&i| &self.links[i as usize]))
    }
    /// Node `n`'s incident links of constraint `c`, in the order they formed.
    #[inline]
    fn of_constraint(&self, n: NodeId, c: ConstraintId) -> &[u32] {
        self.incident[n as usize]
            .iter()
            .find(|b| b.constraint == c)
            .map_or(&[], |b| b.links.as_slice())
    }
    /// [`LevelHost::of_constraint`] past the dead head ([`LevelHost::set_at`]), moved on first
    /// when the step cannot be taken back.
    // (Always in line: read at every partner lookup of a plan run.)
    #[inline(always)]
    fn live_of_constraint(&self, n: NodeId, c: ConstraintId) -> &[u32] {
        let Some(b) = self.incident[n as usize].iter().find(|b| b.constraint == c) else {
            return &[];
        };
        let known = b.dead.load(Relaxed) as usize;
        let mut dead = known;
        if self.settle {
            let t = self.at;
            while let Some(&li) = b.links.get(dead) {
                if self.links[li as usize]
                    .members
                    .iter()
                    .any(|&m| m != n && self.ended[m as usize] >= t)
                {
                    break;
                }
                dead += 1;
            }
            if dead > known {
                b.dead.store(dead as u32, Relaxed);
            }
        }
        &b.links[dead..]
    }
    /// Sets the step matching admits nodes for. With `settle` (a step that cannot be taken
    /// back, nor any before it), a link none of whose other members is matchable from `t` on
    /// (each ended before it, for good) may be passed by from then on: [`Host::partners`] moves
    /// the dead head of each list it reads past such links.
    pub(crate) fn set_at(&mut self, t: u32, settle: bool) {
        self.at = t;
        self.settle = settle;
    }
    /// The link of `constraint` over `members` (ascending, ≥ 2), made at step `t` if it is new;
    /// returns its index and whether it is new.
    pub(crate) fn link(&mut self, constraint: ConstraintId, members: &[NodeId], t: u32) -> (u32, bool) {
        let li = self.links.len() as u32;
        if let [a, b] = members {
            match self.pair_index.entry((constraint.0, *a, *b)) {
                std::collections::hash_map::Entry::Occupied(e) => return (*e.get(), false),
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(li);
                }
            }
        } else {
            match self.set_index.entry((constraint, SmallVec::from_slice(members))) {
                std::collections::hash_map::Entry::Occupied(e) => return (*e.get(), false),
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(li);
                }
            }
        }
        for &m in members {
            let v = &mut self.incident[m as usize];
            match v.iter_mut().find(|b| b.constraint == constraint) {
                Some(b) => b.links.push(li),
                None => v.push(Bucket {
                    constraint,
                    dead: AtomicU32::new(0),
                    links: smallvec::smallvec![li],
                }),
            }
        }
        self.links.push(TimedCel {
            constraint,
            members: SmallVec::from_slice(members),
            formed: t,
        });
        (li, true)
    }
    /// Undo: the host as it was with `nodes` nodes and `links` links.
    pub(crate) fn truncate(&mut self, nodes: usize, links: usize) {
        // The members of the links taken out that stay nodes, each once: a node of many of them
        // has its lists cut back once, not once per link (those of the nodes taken out are dropped whole).
        let mut kept: SmallVec<[NodeId; 32]> = SmallVec::new();
        for l in self.links.drain(links..) {
            if let [a, b] = l.members[..] {
                self.pair_index.remove(&(l.constraint.0, a, b));
            } else {
                self.set_index.remove(&(l.constraint, l.members.clone()));
            }
            kept.extend(l.members.iter().copied().filter(|&m| (m as usize) < nodes));
        }
        kept.sort_unstable();
        kept.dedup();
        for m in kept {
            if let Some(v) = self.incident.get_mut(m as usize) {
                for b in v.iter_mut() {
                    b.links.retain(|&mut i| (i as usize) < links);
                    b.dead.store(0, Relaxed);
                }
                v.retain(|b| !b.links.is_empty());
            }
        }
        for n in nodes..self.kinds.len() {
            let k = self.kinds[n] as usize;
            if self.by_kind[k].last() == Some(&(n as NodeId)) {
                self.by_kind[k].pop();
            }
        }
        self.kinds.truncate(nodes);
        self.born.truncate(nodes);
        self.ended.truncate(nodes);
        self.below.truncate(nodes);
        self.incident.truncate(nodes);
    }
    /// Heap bytes held (roughly: vectors and the link indices).
    pub fn heap_bytes(&self) -> usize {
        self.kinds.capacity() * 16
            + self.links.capacity() * std::mem::size_of::<TimedCel>()
            + self.incident.capacity() * std::mem::size_of::<SmallVec<[Bucket; 2]>>()
            + self
                .incident
                .iter()
                .map(|v| {
                    let spilled = if v.spilled() {
                        v.capacity() * std::mem::size_of::<Bucket>()
                    } else {
                        0
                    };
                    let links: usize = v
                        .iter()
                        .filter(|b| b.links.spilled())
                        .map(|b| b.links.capacity() * 4)
                        .sum();
                    spilled + links
                })
                .sum::<usize>()
            + (self.pair_index.capacity() + self.set_index.capacity()) * 32
    }
}

impl Host for LevelHost {
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
        let LinkLabel::Cel(c) = label else { return };
        // (The list read is of the constraint asked already, past its dead head.)
        let link = |li: u32, _: ConstraintId| Some(self.links[li as usize].members.as_slice());
        let t = self.at;
        cel_partners(
            self.live_of_constraint(n, c),
            link,
            n,
            label,
            |m| self.matchable(m, t),
            out,
        );
    }
    fn linked(&self, label: LinkLabel, ends: &[(NodeId, u8)]) -> bool {
        // (The lists read are of the constraint asked already.)
        let link = |li: u32, _: ConstraintId| Some(self.links[li as usize].members.as_slice());
        // A link holding every end is incident to each: the shortest list is scanned.
        let LinkLabel::Cel(c) = label else { return false };
        ends.iter()
            .map(|&(n, _)| self.of_constraint(n, c))
            .min_by_key(|v| v.len())
            .is_some_and(|incident| cel_linked(incident, link, label, ends))
    }
}

/// A level-n struct without the links whose indices lie in `skip`: a plan run seeded at the
/// members of a link formed at this step reads the links formed before the step and those
/// formed at it from the seed's on, so that a new match is found from the first new link it
/// must use, not once from each ([`super::derive_n`]).
pub(crate) struct Without<'a> {
    /// The host.
    pub host: &'a LevelHost,
    /// The indices of the links left out.
    pub skip: std::ops::Range<u32>,
}

impl Host for Without<'_> {
    fn node_count(&self) -> usize {
        self.host.node_count()
    }
    fn node_kind(&self, n: NodeId) -> u32 {
        self.host.node_kind(n)
    }
    fn nodes_of_kind(&self, kind: u32) -> &[NodeId] {
        self.host.nodes_of_kind(kind)
    }
    fn partners(&self, n: NodeId, label: LinkLabel, _role: u8, _other: u8, out: &mut Vec<NodeId>) {
        let LinkLabel::Cel(c) = label else { return };
        let (h, skip) = (self.host, &self.skip);
        let link = |li: u32, _: ConstraintId| (!skip.contains(&li)).then(|| h.links[li as usize].members.as_slice());
        let t = h.at;
        cel_partners(h.live_of_constraint(n, c), link, n, label, |m| h.matchable(m, t), out);
    }
    fn linked(&self, label: LinkLabel, ends: &[(NodeId, u8)]) -> bool {
        let (h, skip) = (self.host, &self.skip);
        let link = |li: u32, _: ConstraintId| (!skip.contains(&li)).then(|| h.links[li as usize].members.as_slice());
        let LinkLabel::Cel(c) = label else { return false };
        ends.iter()
            .map(|&(n, _)| h.of_constraint(n, c))
            .min_by_key(|v| v.len())
            .is_some_and(|incident| cel_linked(incident, link, label, ends))
    }
}
