//! Stillborn floods remembered (levels n ≥ 1): a *rebirth* (§5.3.2.1 as `docs/semantics.md`
//! reads it: an element that ended offers its starts again when a node it held ends) begins an
//! element from a start match, derives it at once, and most often drops it at the same step as
//! stillborn (its generating system terminated before it was ever an element of the struct). A
//! space split in two by an earlier move is flooded again, step after step, from the same start
//! to the same end, because old stillborn floods that spanned both pieces hold a node that ends
//! in the other piece.
//!
//! A derivation begun from a start reads only the matches in the index of the nodes it takes in
//! and whether their nodes are present; it reads no other element (unless it forks, or tries a
//! late fork, which asks whether another element holds a match: such derivations are not
//! remembered). Each node carries the last step its neighbourhood changed: a match holding it was
//! found, or a node of a match in its index (itself included) ended. When none of the nodes a
//! stillborn derivation took in has changed at the step it was made at or since, the same start
//! derives the same stillborn element again: same applications in the same order, same end. The
//! memo keeps such derivations of the last few steps by (class, start match, set) and, when one is
//! valid, makes in its place a stillborn element of the same class (the same element id, the same
//! starts covered for the rest of the step) without deriving it. What a later rebirth reads of a
//! stillborn element (`node_stillborn`: its nodes, and its applications of start sets) is not kept
//! for the replica: the derivation it repeats is kept there already, with the same nodes and the
//! same starts, and a rebirth offers each start once whichever elements hold it (`derive`).
//!
//! The integration tests check that the timeline is the one the derivations make: the
//! classification tests (`remembered_stillborn_derivations_are_the_ones_derived`: the timeline
//! with and without the memo) and the live-game tests (moves tried and taken back); so do the
//! byte-identical outputs of `scripts/compare-json.sh`.

use rustc_hash::FxHashMap;

use super::journal::{Entry, Journal};
use super::level::{Elem, Level, StepCtx};
use crate::ets::growth::{cover, vec_bytes};
use crate::ets::ids::{ElementId, MatchId, NONE, NodeId};

/// How many steps a remembered derivation is kept after the step it was last made or replayed at.
const KEPT_STEPS: u32 = 4;

/// How many of the last steps can be taken back with the memo as it was before them (older
/// undos forget more: derivations are then made instead of replayed).
const UNDO_STEPS: u32 = 64;

/// A remembered derivation's key: (class, start match, set).
type FloodKey = (u16, MatchId, u8);

/// A stillborn derivation of a start, as it was made.
#[derive(Debug, Clone)]
pub(crate) struct Flood {
    /// The step it was made at: it holds while none of its nodes has changed since.
    t0: u32,
    /// The step it was last made or replayed at (how long it is kept).
    used: u32,
    /// Its last state.
    state: u32,
    /// Whether it had become complete before it terminated.
    complete: bool,
    /// Its applications, in order.
    apps: Vec<MatchId>,
    /// The nodes it took in, in order.
    nodes: Vec<NodeId>,
}

/// The remembered derivations of a level, and what the current step's replays covered.
#[derive(Debug, Clone)]
pub(crate) struct FloodMemo {
    /// Whether derivations are remembered ([`super::Timeline::remember_floods`]).
    pub(crate) on: bool,
    /// How many elements were made from the memo.
    pub(crate) replays: u64,
    floods: FxHashMap<FloodKey, Flood>,
    /// While the timeline keeps its journal: per step, each remembered derivation the step
    /// dropped or replaced (or `None`: added), in order, for [`FloodMemo::forget_from`]. Kept
    /// apart from the journal (which carries the node marks) so that it stays bounded: nearly
    /// every remembered derivation is dropped [`KEPT_STEPS`] after its last use, with all its
    /// applications and nodes, and the journal keeps every step of a timeline.
    undo: Vec<(u32, FloodKey, Option<Flood>)>,
    /// Whether this step is journaled.
    journaled: bool,
    /// The current step.
    t: u32,
    /// Per node: the last step its neighbourhood changed (a match holding it was found, or a node of
    /// a match in its index ended).
    changed: Vec<u32>,
    /// This step: what the replayed elements and those trials made applied (see
    /// [`Level::covered`]), as [`Covered`].
    covered: Covered,
    /// Set when a derivation forks or tries a late fork: it read other elements.
    pub(crate) impure: bool,
}

impl Default for FloodMemo {
    fn default() -> Self {
        FloodMemo {
            on: true,
            replays: 0,
            floods: FxHashMap::default(),
            undo: Vec::new(),
            journaled: false,
            t: 0,
            changed: Vec::new(),
            covered: Covered::default(),
            impure: false,
        }
    }
}

impl FloodMemo {
    /// A new step `t` (`journaled`: the timeline keeps its journal): forget what the last step
    /// covered and derivations too old to keep.
    pub(crate) fn begin_step(&mut self, t: u32, journaled: bool) {
        self.covered.clear();
        self.t = t;
        self.journaled = journaled;
        let keep = self.undo.partition_point(|u| u.0 + UNDO_STEPS < t);
        self.undo.drain(..keep);
        if journaled {
            let old: Vec<FloodKey> = self
                .floods
                .iter()
                .filter(|(_, f)| f.used + KEPT_STEPS < t)
                .map(|(k, _)| *k)
                .collect();
            for k in old {
                self.set(k, None);
            }
        } else {
            self.undo.clear();
            self.floods.retain(|_, f| f.used + KEPT_STEPS >= t);
        }
    }
    /// Sets (or drops) the remembered derivation of `key`, logging what it was when journaled.
    fn set(&mut self, key: FloodKey, flood: Option<Flood>) {
        let old = match flood {
            Some(f) => self.floods.insert(key, f),
            None => self.floods.remove(&key),
        };
        if self.journaled {
            self.undo.push((self.t, key, old));
        }
    }
    /// The neighbourhoods of `nodes` (level `n`) changed at step `t`; each mark it moves is
    /// journaled with its old value when `journal` is kept.
    pub(crate) fn changed(&mut self, nodes: &[NodeId], t: u32, journal: &mut Option<&mut Journal>, n: u8) {
        for &x in nodes {
            cover(&mut self.changed, x as usize, 0);
            let old = std::mem::replace(&mut self.changed[x as usize], t);
            if old != t
                && let Some(j) = journal.as_deref_mut()
            {
                j.push(Entry::Changed(n, x, old));
            }
        }
    }
    /// Undo: node `x`'s mark was `old`.
    pub(crate) fn restore_mark(&mut self, x: NodeId, old: u32) {
        self.changed[x as usize] = old;
    }
    /// Whether the neighbourhood of any of `nodes` changed at step `t` or later.
    fn changed_since(&self, nodes: &[NodeId], t: u32) -> bool {
        nodes
            .iter()
            .any(|&x| self.changed.get(x as usize).is_some_and(|&s| s >= t))
    }
    /// Whether a replayed element of class `cls` applied `m` at this step.
    pub(crate) fn covers(&self, m: MatchId, cls: u16) -> bool {
        self.covered.contains(m, cls)
    }
    /// A stillborn element of class `cls` made at this step without entering the holder lists
    /// applied `m` ([`super::trial`]).
    pub(crate) fn cover(&mut self, m: MatchId, cls: u16) {
        self.covered.insert(m, cls);
    }
    /// Undo of step `t`: the remembered derivations are as they were before it (when it was
    /// journaled and is among the last [`UNDO_STEPS`]; otherwise what was derived at it is
    /// forgotten); the journal puts the nodes' marks back as they were.
    pub(crate) fn forget_from(&mut self, t: u32) {
        while self.undo.last().is_some_and(|u| u.0 >= t) {
            let (_, key, old) = self.undo.pop().expect("checked");
            match old {
                Some(f) => self.floods.insert(key, f),
                None => self.floods.remove(&key),
            };
        }
        self.floods.retain(|_, f| f.t0 < t);
        self.covered.clear();
    }
    /// Heap bytes held.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.changed.capacity() * 4
            + self.covered.heap_bytes()
            + self
                .floods
                .values()
                .chain(self.undo.iter().filter_map(|u| u.2.as_ref()))
                .map(|f| (f.apps.capacity() + f.nodes.capacity()) * 4 + 64)
                .sum::<usize>()
            + self.undo.capacity() * std::mem::size_of::<(u32, FloodKey, Option<Flood>)>()
    }
}

/// The (match, class) pairs covered at a step: a word of class bits per match for the first 64
/// classes of a level (read at every start a step tries, [`Level::covered`]), and a set for the
/// rest. The words written are listed, and only they are cleared.
#[derive(Debug, Clone, Default)]
struct Covered {
    /// Per match id, a bit per class below 64.
    bits: Vec<u64>,
    /// The match ids whose word is not zero.
    written: Vec<MatchId>,
    /// The pairs of classes 64 and above.
    high: rustc_hash::FxHashSet<(MatchId, u16)>,
}

impl Covered {
    #[inline]
    fn contains(&self, m: MatchId, cls: u16) -> bool {
        if cls < 64 {
            self.bits.get(m as usize).is_some_and(|&w| w >> cls & 1 == 1)
        } else {
            !self.high.is_empty() && self.high.contains(&(m, cls))
        }
    }
    fn insert(&mut self, m: MatchId, cls: u16) {
        if cls >= 64 {
            self.high.insert((m, cls));
            return;
        }
        let i = m as usize;
        cover(&mut self.bits, i, 0);
        if self.bits[i] == 0 {
            self.written.push(m);
        }
        self.bits[i] |= 1 << cls;
    }
    fn clear(&mut self) {
        for &m in &self.written {
            self.bits[m as usize] = 0;
        }
        self.written.clear();
        self.high.clear();
    }
    fn heap_bytes(&self) -> usize {
        vec_bytes(&self.bits) + vec_bytes(&self.written) + self.high.capacity() * std::mem::size_of::<(MatchId, u16)>()
    }
}

impl Level {
    /// Makes, without deriving it, the stillborn element that class `cls` would derive from start
    /// `m` through `set` at this step, if a remembered derivation is still valid. Returns whether
    /// it did.
    pub(crate) fn replay_flood(&mut self, cx: &mut StepCtx, cls: u16, m: MatchId, set: u8) -> bool {
        let key = (cls, m, set);
        if !self.memo.on {
            return false;
        }
        let Some(f) = self.memo.floods.get(&key) else {
            return false;
        };
        // Nothing changed around it at its step or since (at its step: a node ending then was
        // still there for it, and is not now).
        let valid = f.t0 < cx.t && !self.memo.changed_since(&f.nodes, f.t0);
        if !valid {
            self.memo.set(key, None);
            return false;
        }
        self.memo.replays += 1;
        let t = cx.t;
        let f = self.memo.floods.get_mut(&key).expect("found above");
        f.used = t;
        let el = Elem::stillborn_at(cls, self.table.classes[cls as usize].class, f.state, f.complete, t);
        let apps = std::mem::take(&mut f.apps);
        // (What it shares with other elements is not handed up: as for a trial's element.)
        for &a in &apps {
            self.memo.cover(a, cls);
        }
        self.memo.floods.get_mut(&key).expect("found above").apps = apps;
        self.push_element(el);
        true
    }

    /// Remembers the derivation of element `e`, begun at this step from start `m` through `set`
    /// (the level had `before` elements when it began), if it was stillborn and read no other
    /// element.
    pub(crate) fn remember_flood(&mut self, cx: &StepCtx, e: ElementId, m: MatchId, set: u8, before: usize) {
        let el = &self.elems[e as usize];
        let key = (el.cls, m, set);
        if !self.memo.on {
            return;
        }
        if !el.stillborn || self.memo.impure || self.elems.len() != before + 1 {
            if self.memo.floods.contains_key(&key) {
                self.memo.set(key, None);
            }
            return;
        }
        if self.memo.changed_since(&el.nodes, cx.t) {
            // What it read changes at this step: it would not be valid at any later step.
            if self.memo.floods.contains_key(&key) {
                self.memo.set(key, None);
            }
            return;
        }
        let flood = Flood {
            t0: cx.t,
            used: cx.t,
            state: el.state,
            complete: el.complete_at != NONE,
            apps: el.apps.clone(),
            nodes: el.nodes.clone(),
        };
        self.memo.set(key, Some(flood));
    }
}

#[cfg(test)]
mod tests {
    use super::Covered;
    use crate::ets::ids::MatchId;

    proptest::proptest! {
        /// `Covered` answers as a set of (match, class) pairs does, through inserts and clears, for
        /// classes on both sides of 64.
        #[test]
        #[cfg_attr(miri, ignore = "hundreds of random sequences")]
        fn covered_pairs_are_those_a_set_holds(
            ops in proptest::collection::vec((0u32..40, 0u16..80, 0u8..10), 0..60),
        ) {
            let (mut covered, mut set) = (Covered::default(), std::collections::HashSet::new());
            for (m, cls, op) in ops {
                if op == 0 {
                    covered.clear();
                    set.clear();
                } else {
                    covered.insert(m, cls);
                    set.insert((m, cls));
                }
                for m in 0..41 as MatchId {
                    for cls in 0..80 {
                        proptest::prop_assert_eq!(covered.contains(m, cls), set.contains(&(m, cls)));
                    }
                }
            }
        }
    }
}
