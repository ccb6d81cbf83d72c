//! Level 0's seed index: per primitive, the matches of the step holding it at a seed position
//! (§3.4.1.2 constraint matches; a context part seeds the search of §3.4.2's generating system),
//! kept from one step to the next in a form the shift σ leaves unchanged
//! (`docs/design-repeats.md`, "As built (fortieth session)").
//!
//! - **What it answers.** For a node x from the earliest primitive a match of the step holds on:
//!   the step's new matches holding x at a seed position (a context position, or any without a
//!   context part), or at any position for a constraint some class records, latest match first.
//!   The routing marks, the nodes joined by elements that are not quiet and the catch-up around a
//!   new primitive read it ([`StepSeeds::each`]).
//! - **Entries relative to the node.** An entry names its match as (anchor − x, rank among the
//!   anchor's matches): a match is anchored at its latest primitive, and the matches anchored at
//!   a primitive are consecutive ([`Anchors`]). Where σ is one translation across the steps an
//!   entry spans (consecutive steps of one size), the list of a node is then the list of its
//!   σ-preimage, entry for entry, unless a match anchored near it changed: a match anchored at a
//!   clean primitive is the image of the match at the same rank at the primitive it repeats, with
//!   σ of its nodes at the same positions (`repeats.rs`).
//! - **A step's index from the step before's.** Each step's lists are appended to one arena and
//!   never changed, so a list is shared by every later step that repeats it: the step's heads are
//!   the step before's, moved by the step's size, and only the nodes a match anchored at a
//!   primitive that is not clean holds, now or σ of it at the step before, get a new list (those
//!   of their old entries whose anchor is clean, with the new matches' entries). The first step,
//!   a step of another size, one after a step taken back past the one kept, or an arena grown
//!   to twice its last whole build is built whole. Debug builds compare every list with its
//!   definition (each new match at each of its seed positions, read match by match).
//! - **Steps taken back.** The heads of the step before are kept beside the step's, so an undo of
//!   the step gives them back and drops the step's entries; an undo past them forgets the index
//!   (the next step builds it whole).

use super::classes::ClassTable;
use super::holders::low_bits;
use super::runs::Anchors;
use super::store::MatchStore;
use crate::ets::ids::{ConstraintId, MatchId, NONE, NodeId};

/// An entry of a node's list: its match as (its anchor − the node, its rank among the anchor's
/// matches), and the node's entry before it in the arena (`NONE`: none). The match's id at the
/// step the entry was written for is kept too: a reader of that step's lists takes it as it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Entry {
    m: MatchId,
    d: u32,
    rank: u32,
    before: u32,
}

/// The heads of one step's lists.
#[derive(Debug, Clone, Default)]
struct Heads {
    /// The step, its first node, and the struct's length then.
    t: u32,
    first: NodeId,
    len: NodeId,
    /// The store's length after the step's matches.
    end: MatchId,
    /// The earliest primitive a match of the step holds: `head[i]` is node `least + i`'s last
    /// entry.
    least: NodeId,
    head: Vec<u32>,
    /// Where the step's own entries begin in the arena (those after were written for it), and
    /// the arena's length once they were written.
    arena_from: u32,
    arena_end: u32,
    /// Whether the lists were built from the step before's (what the tests ask).
    #[cfg_attr(not(test), allow(dead_code))]
    stepped: bool,
}

/// The seed index kept between steps: the arena, the heads of the latest step and of the one
/// before it.
#[derive(Debug, Clone, Default)]
pub(crate) struct SeedIndex {
    arena: Vec<Entry>,
    cur: Option<Heads>,
    old: Option<Heads>,
    /// Entries the last whole build wrote (the arena is built whole again past a multiple).
    built: usize,
    /// A head list to reuse.
    spare: Vec<u32>,
    /// Scratch of a step built from the step before.
    adds: Vec<(NodeId, u32, u32)>,
    touched: Vec<NodeId>,
    slow_bits: Vec<u64>,
    list: Vec<(u32, u32)>,
}

/// What a step's index is built from.
pub(crate) struct StepIn<'a> {
    pub t: u32,
    /// Every step's first node (the step's included).
    pub starts: &'a [NodeId],
    pub len: NodeId,
    pub first_new: MatchId,
    pub least: NodeId,
    pub store: &'a MatchStore,
    pub table: &'a ClassTable,
    pub anchors: &'a Anchors,
    /// The step's primitives whose matches are not the images of their preimages' at the same
    /// ranks (neither clean nor calm), ascending; `None` when the step has no repeats.
    pub slow: Option<&'a [NodeId]>,
}

/// Whether variable position `i` of a match of constraint `c` is a seed position.
#[inline]
fn seeds_at(table: &ClassTable, c: ConstraintId, i: usize) -> bool {
    match table.seed_mask[c.0 as usize] {
        Some(mask) => i < 64 && mask >> i & 1 == 1,
        None => table.part(c).seeds_at(i) || !table.recorders[c.0 as usize].is_empty(),
    }
}

/// The nodes match `m` holds at a seed position, in position order.
#[inline]
fn seed_nodes(s: &StepIn, m: MatchId, mut f: impl FnMut(NodeId)) {
    let c = s.store.constraint(m);
    for (i, x) in s.store.nodes(m).enumerate() {
        if seeds_at(s.table, c, i) {
            f(x);
        }
    }
}

impl SeedIndex {
    /// Builds step `s.t`'s index: from the step before's where σ allows, else whole.
    pub(crate) fn build(&mut self, s: &StepIn) {
        if !self.step_from_before(s) {
            self.build_whole(s);
        }
        #[cfg(debug_assertions)]
        self.check(s.store, s.table, s.anchors, s.starts, s.len);
    }

    /// The index as a reader sees it.
    pub(crate) fn seeds<'a>(&'a self, anchors: &'a Anchors) -> StepSeeds<'a> {
        let h = self.cur.as_ref().expect("the step's seed index is built");
        StepSeeds {
            least: h.least,
            head: &h.head,
            arena: &self.arena,
            fresh: h.arena_from,
            anchors,
        }
    }

    /// Step `t` is taken back: the step before's heads are the index again, if kept.
    pub(crate) fn undo(&mut self, t: u32) {
        match self.cur.take() {
            Some(c) if c.t == t => {
                self.spare = c.head;
                self.cur = self.old.take().filter(|o| o.t + 1 == t);
                match &self.cur {
                    Some(o) => self.arena.truncate(o.arena_end as usize),
                    None => self.arena.clear(),
                }
            }
            _ => {
                self.old = None;
                self.arena.clear();
            }
        }
    }

    /// Heap bytes held.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.arena.capacity() * size_of::<Entry>()
            + [&self.cur, &self.old]
                .into_iter()
                .flatten()
                .map(|h| h.head.capacity() * 4)
                .sum::<usize>()
            + self.spare.capacity() * 4
            + self.adds.capacity() * 12
            + self.touched.capacity() * 4
            + self.slow_bits.capacity() * 8
            + self.list.capacity() * 8
    }

    /// A head list of `n` entries, all `NONE`.
    fn fresh_head(&mut self, n: usize) -> Vec<u32> {
        let mut head = std::mem::take(&mut self.spare);
        head.clear();
        head.resize(n, NONE);
        head
    }

    /// Makes `head` step `s.t`'s heads, its lists written; `stepped`: built from the step before's,
    /// whose heads are kept (a whole build drops them: their lists are gone).
    fn push_heads(&mut self, s: &StepIn, head: Vec<u32>, arena_from: usize, stepped: bool) {
        let heads = Heads {
            t: s.t,
            first: s.starts[s.t as usize],
            len: s.len,
            end: s.store.len() as MatchId,
            least: s.least,
            head,
            arena_from: arena_from as u32,
            arena_end: self.arena.len() as u32,
            stepped,
        };
        let before = self.cur.take();
        let dropped = if stepped {
            std::mem::replace(&mut self.old, before)
        } else {
            self.old.take().or(before)
        };
        if let Some(d) = dropped {
            self.spare = d.head;
        }
        self.cur = Some(heads);
    }

    /// Every list of the step written anew (the arena with them only).
    fn build_whole(&mut self, s: &StepIn) {
        let (first, len) = (s.starts[s.t as usize], s.len);
        let mut head = self.fresh_head((len - s.least) as usize);
        // (Entries written in place, room for every node of the step's matches; the arena is
        // then cut to those written.)
        let arena = &mut self.arena;
        let room = s.store.nodes_from(s.first_new);
        if arena.len() < room {
            arena.resize(room, Entry::default());
        }
        let mut k = 0;
        let seed_mask = &s.table.seed_mask[..];
        // The anchor of the match read, and where its matches begin and end.
        let (mut a, mut a_from) = (first, s.anchors.try_get(first as usize).unwrap_or(0));
        let mut a_to = s.anchors.try_get(first as usize + 1).unwrap_or(MatchId::MAX);
        let mut put = |m: MatchId, x: NodeId, a: NodeId, a_from: MatchId| {
            let h = &mut head[(x - s.least) as usize];
            arena[k] = Entry {
                m,
                d: a - x,
                rank: m - a_from,
                before: *h,
            };
            *h = k as u32;
            k += 1;
        };
        s.store.each_from(
            s.first_new,
            #[inline(always)]
            |m, c, base, narrow, wide| {
                while m >= a_to {
                    a += 1;
                    a_from = a_to;
                    a_to = s.anchors.get(a as usize + 1);
                }
                let Some(mask) = seed_mask[c.0 as usize] else {
                    let nodes = narrow.iter().map(|&o| base + o as NodeId).chain(wide.iter().copied());
                    for (i, x) in nodes.enumerate() {
                        if seeds_at(s.table, c, i) {
                            put(m, x, a, a_from);
                        }
                    }
                    return;
                };
                let mut bits = mask & low_bits(narrow.len());
                while bits != 0 {
                    let i = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    put(m, base + narrow[i] as NodeId, a, a_from);
                }
                let mut bits = mask & low_bits(wide.len());
                while bits != 0 {
                    let i = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    put(m, wide[i], a, a_from);
                }
            },
        );
        self.arena.truncate(k);
        self.built = k;
        // (The arena holds this step's lists only: the step before's are gone.)
        self.push_heads(s, head, 0, false);
    }

    /// The step's index from the step before's, when σ is one translation across the steps its
    /// entries span and the step repeats most of the one before; whether it was.
    fn step_from_before(&mut self, s: &StepIn) -> bool {
        let Some(slow) = s.slow else { return false };
        let Some(prev) = self.cur.as_ref() else { return false };
        let t = s.t as usize;
        if t < 1 || prev.t as usize + 1 != t {
            return false;
        }
        let (first, len) = (s.starts[t], s.len);
        let d1 = first - s.starts[t - 1];
        // The step one size with the step before, which is the one the heads are of.
        if len - first != d1 || prev.first != s.starts[t - 1] || prev.len != first || prev.end != s.first_new {
            return false;
        }
        // Each step an entry of either index spans is of that size: every node of either shifts
        // by d1.
        let earliest = prev.least.min(s.least.saturating_sub(d1));
        let mut k = t - 1;
        while k > 0 && s.starts[k] > earliest {
            k -= 1;
            if s.starts[k + 1] - s.starts[k] != d1 {
                return false;
            }
        }
        if s.starts[k] > earliest {
            return false;
        }
        // Most of the step repeats (else a whole build is cheaper), and the arena has not grown
        // past twice its last whole build.
        if slow.len() * 8 > d1 as usize || self.arena.len() > 2 * self.built.max(4096) {
            return false;
        }
        // Heads moved by d1: node x's list is that of x − d1 (`head[i]` is `prev.head[i + off]`).
        let prev = self.cur.as_ref().expect("checked above");
        let n = (len - s.least) as i64;
        let off = s.least as i64 - d1 as i64 - prev.least as i64;
        let lo = (-off).clamp(0, n);
        let hi = (prev.head.len() as i64 - off).clamp(lo, n);
        let mut head = std::mem::take(&mut self.spare);
        head.clear();
        head.reserve(n as usize);
        head.resize(lo as usize, NONE);
        head.extend_from_slice(&prev.head[(lo + off) as usize..(hi + off) as usize]);
        head.resize(n as usize, NONE);
        // The primitives that are not clean, a bit each; the entries of their new matches; the
        // nodes those hold, and σ of those their preimages' matches held.
        let words = (d1 as usize).div_ceil(64);
        self.slow_bits.clear();
        self.slow_bits.resize(words, 0);
        self.adds.clear();
        self.touched.clear();
        for &n in slow {
            let i = (n - first) as usize;
            self.slow_bits[i / 64] |= 1 << (i % 64);
            let (from, to) = (s.anchors.get(n as usize), s.anchors.get(n as usize + 1));
            for m in from..to {
                seed_nodes(s, m, |x| {
                    self.adds.push((x, n - x, m - from));
                    self.touched.push(x);
                });
            }
            let p = n - d1;
            for m in s.anchors.get(p as usize)..s.anchors.get(p as usize + 1) {
                seed_nodes(s, m, |y| self.touched.push(y + d1));
            }
        }
        self.touched.sort_unstable();
        self.touched.dedup();
        self.adds.sort_unstable();
        // Each node touched: its old entries whose anchor is clean, and its new ones.
        let mut ai = 0;
        let own_from = self.arena.len();
        let (adds, touched, slow_bits, list) = (&self.adds, &self.touched, &self.slow_bits, &mut self.list);
        for &x in touched {
            if x < s.least || x >= len {
                continue;
            }
            list.clear();
            let mut e = head[(x - s.least) as usize];
            while e != NONE {
                let Entry { d, rank, before, .. } = self.arena[e as usize];
                let i = (x + d - first) as usize;
                if slow_bits[i / 64] >> (i % 64) & 1 == 0 {
                    list.push((d, rank));
                }
                e = before;
            }
            list.reverse();
            while adds.get(ai).is_some_and(|a| a.0 < x) {
                ai += 1;
            }
            let from = ai;
            while adds.get(ai).is_some_and(|a| a.0 == x) {
                ai += 1;
            }
            list.extend(adds[from..ai].iter().map(|&(_, d, r)| (d, r)));
            // Written earliest match first (by anchor, then rank: by d, then rank), so that the
            // list, read from its head, gives the latest first.
            list.sort_unstable();
            let mut last = NONE;
            for &(d, rank) in list.iter() {
                let k = self.arena.len() as u32;
                let m = s.anchors.get((x + d) as usize) + rank;
                self.arena.push(Entry {
                    m,
                    d,
                    rank,
                    before: last,
                });
                last = k;
            }
            head[(x - s.least) as usize] = last;
        }
        self.push_heads(s, head, own_from, true);
        true
    }

    /// Every list of the latest step is the one its definition gives (each new match at each of
    /// its seed positions), and its least node is the earliest primitive a match of the step
    /// holds. Debug builds check it at every step; the tests call it after steps taken back too.
    #[cfg(any(test, debug_assertions))]
    pub(crate) fn check(
        &self,
        store: &MatchStore,
        table: &ClassTable,
        anchors: &Anchors,
        starts: &[NodeId],
        len: NodeId,
    ) {
        let t = starts.len() - 1;
        let first = starts[t];
        let first_new = anchors.get(first as usize);
        let mut least = first;
        store.each_from(first_new, |_, _, base, narrow, wide| {
            for x in narrow.iter().map(|&o| base + o as NodeId).chain(wide.iter().copied()) {
                least = least.min(x);
            }
        });
        let s = StepIn {
            t: t as u32,
            starts,
            len,
            first_new,
            least,
            store,
            table,
            anchors,
            slow: None,
        };
        let cur = self.cur.as_ref().expect("the step's seed index is built");
        assert_eq!(
            (cur.t, cur.least),
            (s.t, least),
            "seed index: the step and its least node"
        );
        // The lists as their definition gives them: each new match at each of its seed positions
        // (read match by match, not as a build reads the store), latest first.
        let mut want: Vec<Vec<MatchId>> = vec![Vec::new(); (len - least) as usize];
        for m in first_new..store.len() as MatchId {
            seed_nodes(&s, m, |x| want[(x - least) as usize].push(m));
        }
        let seeds = self.seeds(anchors);
        let mut got = Vec::new();
        for (x, want) in (least..len).zip(&mut want) {
            got.clear();
            seeds.each(x, |m| got.push(m));
            want.reverse();
            assert_eq!(&got, want, "seed index: the list of node {x} at step {t}");
        }
    }

    /// Whether the latest step's index is kept (the tests ask).
    #[cfg(test)]
    pub(crate) fn built(&self) -> bool {
        self.cur.is_some()
    }

    /// Whether the latest step's index was built from the step before's (the tests ask).
    #[cfg(test)]
    pub(crate) fn stepped(&self) -> bool {
        self.cur.as_ref().is_some_and(|c| c.stepped)
    }
}

/// Level 0: this step's seed index as its readers see it. Per node from `least` (the earliest
/// primitive a match of the step holds) on, the matches of the step holding it at a seed position
/// (a context position, or any without a context part), or at any position for a constraint some
/// class records.
#[derive(Clone, Copy)]
pub(crate) struct StepSeeds<'a> {
    pub least: NodeId,
    /// Per node from `least`: its last entry in `arena` (`NONE`: none).
    head: &'a [u32],
    arena: &'a [Entry],
    /// Where the step's own entries begin in `arena`: their match ids are the step's.
    fresh: u32,
    /// Each primitive's first anchored match (what an entry's anchor and rank are read by).
    anchors: &'a Anchors,
}

impl StepSeeds<'_> {
    /// Calls `f` with each match of the step holding `x` at a seed position, latest first.
    #[inline]
    pub(crate) fn each(&self, x: NodeId, mut f: impl FnMut(MatchId)) {
        let Some(&h) = x.checked_sub(self.least).and_then(|i| self.head.get(i as usize)) else {
            return;
        };
        let mut k = h;
        while k != NONE {
            let Entry { m, d, rank, before } = self.arena[k as usize];
            f(if k >= self.fresh {
                m
            } else {
                self.anchors.get((x + d) as usize) + rank
            });
            k = before;
        }
    }
}
