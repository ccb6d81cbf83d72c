//! Repeated perceptions: the shift σ between consecutive steps of a growing struct, and the
//! *clean* nodes, where the matches anchored are the σ-images of those anchored at the node they
//! repeat (§3.3.2 structs, §3.4.1.2 constraint matches; `docs/design-repeats.md`, steps 1–2).
//!
//! - **Shift.** σ maps node x of step s to the node at the same offset in step s+1, when there is
//!   one. A node n of step t *repeats* p = σ⁻¹(n) (of step t−1) when both have the same kind and
//!   each initial site of n is fed as the same site of p is: both free, or fed from the same
//!   terminal site by y and x with y = σ(x). That reads only the in-processes of n and p: no
//!   node's repeat depends on another's, so a change in one step does not spread to the next.
//! - **Clean node.** A repeat n of p such that no node within `reach` processes of n (the level's
//!   pattern reach) fails to repeat its σ-preimage, and no node within `reach` of p fails to have
//!   its σ-image repeat it. Then σ maps the neighbourhood of p (its nodes up to p) onto that of n
//!   (up to n) with kinds and processes (sites included): every process between two of its nodes is
//!   an in-process of one of them, and σ is increasing within a step. A plan reads nothing else,
//!   so the matches anchored at n, as their latest node, are the σ-images of those anchored at p,
//!   in the same order.
//! - **Clean by its matches** (*calm*). A repeat n of p that is not clean so, because a change
//!   lies within `reach` of it or of p, may still have the σ-images of p's matches as its own: the
//!   reach bounds every pattern of the level, and most patterns reach less far from a given node.
//!   Level 0 runs the plans at n and compares; when the matches are those images, in the same
//!   order, n is clean too ([`Repeats::calm`]). Every reader of the clean bits asks only that (the
//!   matches anchored at a clean node are the images of those at its preimage, at the same ranks),
//!   so the two kinds are one to them.
//!
//! Distances are taken in the whole struct (later nodes included): a superset of the nodes a plan
//! can reach, so a node found clean is clean. A step whose nodes mostly do not repeat (a front-end
//! that perceives different places at each step) is kept as one mark, not a list; the nodes near
//! it are never clean.
//!
//! The engine finds σ itself: a front-end that perceives the same things in the same order at
//! each step gets the benefit, one that does not loses nothing but this check.

use super::runs::Anchors;
use crate::ets::ids::{MatchId, NodeId};
use crate::ets::structs::Struct;
use smallvec::SmallVec;

/// Per step: what of it does not repeat the step before.
#[derive(Debug, Clone, Copy)]
struct StepRepeats {
    /// Where its non-repeats begin in `Repeats::bad` (they end where the next step's begin).
    from: u32,
    /// Whether its non-repeats are listed. Not when it repeats nothing: the first step, or one
    /// most of whose nodes do not repeat (no node near it is clean).
    listed: bool,
    /// The oldest step a process into its nodes comes from.
    back: u32,
    /// The least node feeding one of its nodes (its first node if none does), when every node
    /// was looked at (the step is listed).
    least: Option<NodeId>,
}

/// The shift between steps and the clean nodes of the latest step.
#[derive(Debug, Clone, Default)]
pub(crate) struct Repeats {
    /// Off: no node is clean (every node is matched by its plans: the oracle of this module).
    pub off: bool,
    /// Never on: a pattern of the level lies in unconnected parts (each part matches anywhere, so
    /// what a plan reads is not near its anchor).
    pub never: bool,
    steps: Vec<StepRepeats>,
    /// The non-repeats of the listed steps, step after step, each step's in node order.
    bad: Vec<NodeId>,
    /// The latest step's clean nodes, from its first node (bits).
    clean: Vec<u64>,
    /// How many nodes were found clean, and how many nodes were seen, over every step (steps taken
    /// back included).
    pub clean_count: u64,
    pub node_count: u64,
    /// Of the clean nodes, how many were found so by their matches ([`Repeats::calm`]).
    pub calm_count: u64,
    /// Whether the latest step's neighbourhoods were searched (its clean bits are not all unset
    /// for want of a search), and how many of its first nodes have a preimage.
    searched: bool,
    with_preimage: usize,
    /// The latest step's nodes that repeat their preimage, are not clean, and anchor some
    /// σ-images of the matches anchored at their preimage among others (`Repeats::partial`):
    /// per such node, in node order, the rank among its own matches of the image of each of
    /// its preimage's matches, by that match's rank ([`NO_IMAGE`] where it has none).
    partial: Vec<(NodeId, SmallVec<[u32; 8]>)>,
    /// How many nodes were found partial so, over every step.
    pub partial_count: u64,
    /// Scratch: the nodes reached during a search, from its first node.
    seen: Vec<bool>,
    /// The nodes [`Repeats::within`] marked in `seen`, cleared at its end (a list kept between
    /// calls).
    marked: Vec<NodeId>,
    /// Scratch of a search: its frontier and the next one (kept, so that a search does not grow
    /// new lists).
    frontier: Vec<NodeId>,
    next: Vec<NodeId>,
}

/// [`Repeats::partial`]: a match of the preimage whose image is not among the node's matches.
pub(crate) const NO_IMAGE: u32 = u32::MAX;

/// How far back (in steps) a neighbourhood may reach before the check gives up (every node of
/// the step is then dirty: a struct whose processes come from far back).
const MAX_SPAN: u32 = 16;

impl Repeats {
    /// Repeats to be found (`never`: a pattern lies in unconnected parts, and none ever is).
    pub(crate) fn new(never: bool) -> Self {
        Repeats {
            never,
            ..Default::default()
        }
    }

    /// Forgets the steps from `steps` on (undo).
    pub(crate) fn truncate(&mut self, steps: usize) {
        if let Some(s) = self.steps.get(steps) {
            self.bad.truncate(s.from as usize);
        }
        self.steps.truncate(steps);
        self.clean.clear();
        self.searched = false;
    }

    /// The non-repeats of step `k`.
    fn bad_of(&self, k: u32) -> &[NodeId] {
        let a = self.steps[k as usize].from as usize;
        let b = self
            .steps
            .get(k as usize + 1)
            .map_or(self.bad.len(), |n| n.from as usize);
        &self.bad[a..b]
    }

    /// The latest step's clean bits, a bit per node from its first ([`Repeats::is_clean`]).
    #[inline]
    pub(crate) fn clean_words(&self) -> &[u64] {
        &self.clean
    }

    /// Whether node `n` of the latest step is clean (after [`Repeats::step`]).
    #[inline]
    pub(crate) fn is_clean(&self, first: NodeId, n: NodeId) -> bool {
        let i = (n - first) as usize;
        self.clean.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1)
    }

    /// Finds which nodes of step `t` (the latest: `starts[t]..s.len()`) repeat the step before,
    /// and which of them are clean for patterns reaching `reach` processes.
    ///
    /// `copy`: the step is one copy of the whole step before ([`Struct::append_copy`]) but for
    /// the kinds at these offsets (sorted). Its other nodes are then fed as their originals at the
    /// same offsets are, one translation on, so each repeats its original whenever every node
    /// feeding the step before lies where σ is that translation: no site needs reading.
    pub(crate) fn step(&mut self, s: &Struct, starts: &[NodeId], reach: usize, copy: Option<&[u32]>) {
        let t = starts.len() as u32 - 1;
        debug_assert_eq!(self.steps.len() as u32, t);
        let first = starts[t as usize];
        let len = s.len() as NodeId;
        let nn = (len - first) as usize;
        self.clean.clear();
        self.clean.resize(nn.div_ceil(64), 0);
        self.partial.clear();
        self.node_count += nn as u64;
        self.searched = false;
        let step_of = |x: NodeId| step_of(starts, x) as u32;
        let end_of = |k: u32| -> NodeId { starts.get(k as usize + 1).copied().unwrap_or(len) };
        // σ(x): the node at x's offset in the next step, if that step has one there.
        let sg = Sigma::new(starts, len);
        let sigma = |x: NodeId| sg.next(x);
        // 1. Which nodes of step t repeat (a step most of whose nodes do not is not listed: the
        // count stops there), and how far back the processes into a listed step come from.
        let from = self.bad.len();
        let prev = t.checked_sub(1).map(|p| starts[p as usize]);
        let mut listed = prev.is_some() && !self.off && !self.never;
        // The least node feeding a node of t (`first` if none does).
        let mut least = first;
        let mut whole = false;
        if listed {
            let p0 = prev.expect("a step before");
            // Where σ shifts every node feeding p by n − p: from t−1 (and from t−2 as well when
            // t−2 and t−1 are of one size).
            let shift_from = if t >= 2 && sg.d1 == sg.d2 { sg.s2 } else { sg.s1 };
            // A copy of the step before: its nodes of the same kinds are fed alike when every
            // node feeding the step before is at `shift_from` or later (`Struct::fed_alike`);
            // its others differ in kind.
            if let Some(changed) = copy
                && first - p0 == len - first
                && let Some(l) = self.steps[t as usize - 1].least
                && l >= shift_from
                && changed.len() <= nn / 2
            {
                debug_assert!((first..len).all(|n| changed.contains(&(n - first))
                    || s.fed_alike(n, n - first + p0, shift_from).is_some()));
                self.bad.extend(changed.iter().map(|&o| first + o));
                least = l + (first - p0);
                whole = true;
            }
            // (Each node's sites are read unless the step is such a copy.)
            for n in if whole { len } else { first }..len {
                let p = n - first + p0;
                if p < first
                    && let Some(l) = s.fed_alike(n, p, shift_from)
                {
                    least = least.min(l);
                    continue;
                }
                let mut site = 0;
                while let Some(f) = s.predecessor_or_free(n, site) {
                    if let Some((x, _)) = f {
                        least = least.min(x);
                    }
                    site += 1;
                }
                let repeat = p < first && s.kind_of(p) == s.kind_of(n) && {
                    let mut site = 0;
                    loop {
                        match (s.predecessor_or_free(n, site), s.predecessor_or_free(p, site)) {
                            (None, None) => break true,
                            (Some(None), Some(None)) => {}
                            (Some(Some((y, a))), Some(Some((x, b)))) if a == b && sigma(x) == Some(y) => {}
                            _ => break false,
                        }
                        site += 1;
                    }
                };
                if !repeat {
                    self.bad.push(n);
                    if self.bad.len() - from > nn / 2 {
                        listed = false;
                        break;
                    }
                }
            }
        }
        let back = step_of(least).min(t);
        if !listed {
            self.bad.truncate(from);
        }
        self.steps.push(StepRepeats {
            from: from as u32,
            listed,
            back,
            least: listed.then_some(least),
        });
        // 2. The steps the neighbourhoods of `reach` processes around the nodes of t and t−1 can
        // reach: every one of them must be listed.
        let Some(pfirst) = prev else { return };
        let mut lo = t - 1;
        for _ in 0..reach {
            let l = (lo..=t).map(|k| self.steps[k as usize].back).min().unwrap_or(lo);
            if l == lo {
                break;
            }
            lo = l;
        }
        if lo == 0 || t - lo > MAX_SPAN || (lo..=t).any(|k| !self.steps[k as usize].listed) {
            return;
        }
        // 3. The non-repeats in reach (for the nodes of t), and the nodes without a repeat (for
        // their preimages in t−1): those whose image does not repeat them, or that have none.
        let mut not_repeat: Vec<NodeId> = Vec::new();
        let mut no_image: Vec<NodeId> = Vec::new();
        for k in lo..=t {
            let list = self.bad_of(k);
            not_repeat.extend_from_slice(list);
            let (a, b) = (starts[k as usize - 1], starts[k as usize]);
            // (A primitive past the previous step's length is the image of none.)
            no_image.extend(list.iter().map(|&y| y - b + a).filter(|&x| x < b));
            let size_k = end_of(k) - b;
            if b - a > size_k {
                no_image.extend(a + size_k..b);
            }
        }
        // 4. How far they are from the nodes of t and t−1.
        let base = starts[lo as usize - 1];
        let near_t = self.within(s, base, &not_repeat, reach, first, len);
        let near_p = self.within(s, base, &no_image, reach, pfirst, first);
        // Clean: a node n of t with a preimage p (at the same offset: a node of t−1), neither
        // near (a word of bits at a time, by offset).
        let with_preimage = ((first - pfirst) as usize).min(nn);
        self.clean[..with_preimage / 64].fill(u64::MAX);
        if !with_preimage.is_multiple_of(64) {
            self.clean[with_preimage / 64] = (1 << (with_preimage % 64)) - 1;
        }
        for &n in &near_t {
            let i = (n - first) as usize;
            self.clean[i / 64] &= !(1 << (i % 64));
        }
        for &p in &near_p {
            let i = (p - pfirst) as usize;
            if i < nn {
                self.clean[i / 64] &= !(1 << (i % 64));
            }
        }
        self.clean_count += self.clean.iter().map(|w| w.count_ones() as u64).sum::<u64>();
        self.searched = true;
        self.with_preimage = with_preimage;
    }

    /// Whether node `n` of the latest step (from `first`), not clean, may yet be found clean by
    /// its matches ([`Repeats::calm`]): the step's neighbourhoods were searched, and `n` repeats
    /// its preimage.
    pub(crate) fn may_calm(&self, first: NodeId, n: NodeId) -> bool {
        // (A search is made only at a step after the first: the latest step is listed.)
        self.searched
            && ((n - first) as usize) < self.with_preimage
            && self.bad_of(self.steps.len() as u32 - 1).binary_search(&n).is_err()
    }

    /// Node `n` of the latest step, a repeat of p that is neither clean nor calm, anchors the
    /// σ-image of the match of rank r anchored at p at its own rank `ranks[r]` ([`NO_IMAGE`]
    /// where none of its matches is that image): its caller compared them. Called in node order.
    pub(crate) fn partial(&mut self, n: NodeId, ranks: SmallVec<[u32; 8]>) {
        debug_assert!(self.partial.last().is_none_or(|&(m, _)| m < n));
        self.partial.push((n, ranks));
        self.partial_count += 1;
    }

    /// The rank at node `n` of the latest step of the image of the match of rank `rank` at its
    /// preimage, when `n` is partial ([`Repeats::partial`]) and that match has an image.
    #[inline]
    fn partial_rank(&self, n: NodeId, rank: u32) -> Option<u32> {
        if self.partial.is_empty() {
            return None;
        }
        let i = self.partial.binary_search_by_key(&n, |p| p.0).ok()?;
        self.partial[i].1.get(rank as usize).copied().filter(|&r| r != NO_IMAGE)
    }

    /// Node `n` of the latest step, a repeat of p that is not clean by its neighbourhood
    /// ([`Repeats::may_calm`]), is clean after all: the matches anchored at it are the σ-images
    /// of those anchored at p, in the same order (its caller compared them).
    pub(crate) fn calm(&mut self, first: NodeId, n: NodeId) {
        let i = (n - first) as usize;
        debug_assert!(self.clean[i / 64] >> (i % 64) & 1 == 0);
        self.clean[i / 64] |= 1 << (i % 64);
        self.clean_count += 1;
        self.calm_count += 1;
    }

    /// The nodes in `a..b` within `radius` processes of a node of `sources`, sorted (searching the
    /// nodes from `base` on).
    fn within(
        &mut self,
        s: &Struct,
        base: NodeId,
        sources: &[NodeId],
        radius: usize,
        a: NodeId,
        b: NodeId,
    ) -> Vec<NodeId> {
        // (The marks are left all false by the call before: only the nodes this one marks are
        // cleared at its end, not the whole span, several steps of primitives.)
        if self.seen.len() < s.len() - base as usize {
            self.seen.resize(s.len() - base as usize, false);
        }
        debug_assert!(self.seen.iter().all(|&b| !b), "marks left by an earlier search");
        let (mut frontier, mut next) = (std::mem::take(&mut self.frontier), std::mem::take(&mut self.next));
        let mut marked = std::mem::take(&mut self.marked);
        frontier.clear();
        marked.clear();
        let mut hit: Vec<NodeId> = Vec::new();
        for &x in sources {
            if x >= base && !std::mem::replace(&mut self.seen[(x - base) as usize], true) {
                frontier.push(x);
            }
        }
        marked.extend_from_slice(&frontier);
        for d in 0..=radius {
            hit.extend(frontier.iter().filter(|x| (a..b).contains(*x)));
            if d == radius {
                break;
            }
            next.clear();
            let seen = &mut self.seen;
            for &x in &frontier {
                s.for_each_adjacent(x, |z| {
                    if z >= base && !std::mem::replace(&mut seen[(z - base) as usize], true) {
                        next.push(z);
                    }
                });
            }
            marked.extend_from_slice(&next);
            std::mem::swap(&mut frontier, &mut next);
        }
        for &x in &marked {
            self.seen[(x - base) as usize] = false;
        }
        (self.frontier, self.next, self.marked) = (frontier, next, marked);
        hit.sort_unstable();
        hit
    }
}

/// σ⁻¹ of node `n` of the latest step t (`starts[t]..`): the node at its offset in step t−1.
#[inline]
pub(crate) fn original(starts: &[NodeId], n: NodeId) -> NodeId {
    let t = starts.len() - 1;
    n - starts[t] + starts[t - 1]
}

/// σ of node `x` of a step before the latest: the node at its offset in the next step.
#[inline]
pub(crate) fn image(starts: &[NodeId], x: NodeId) -> NodeId {
    let k = step_of(starts, x);
    x - starts[k] + starts[k + 1]
}

/// The images at the latest step t of the matches formed at t−1: the match at the same rank
/// among those anchored at the image of its anchor, when that image is clean.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Images<'a> {
    repeats: &'a Repeats,
    anchors: &'a Anchors,
    /// The first node of step t−1, of step t, and the node after the last of t.
    s1: NodeId,
    s0: NodeId,
    len: NodeId,
}

impl<'a> Images<'a> {
    /// For the latest step of `starts` (at least one step before it), which ends before node
    /// `len`, with the clean nodes `repeats` found and each node's first anchored match.
    pub(crate) fn new(repeats: &'a Repeats, anchors: &'a Anchors, starts: &[NodeId], len: NodeId) -> Self {
        let t = starts.len() - 1;
        Images {
            repeats,
            anchors,
            s1: starts[t - 1],
            s0: starts[t],
            len,
        }
    }
    /// The image at step t of primitive `p` of step t−1, when it is clean.
    #[inline]
    #[cfg_attr(not(debug_assertions), allow(dead_code))]
    pub(crate) fn clean_image(&self, p: NodeId) -> Option<NodeId> {
        if p < self.s1 || p >= self.s0 {
            return None;
        }
        let n = p - self.s1 + self.s0;
        (n < self.len && self.repeats.is_clean(self.s0, n)).then_some(n)
    }
    /// The next run of clean images from offset `from` on, below `limit` (offsets in step t−1
    /// and t alike): `(first, end)`, the first with a clean image and the first without after it.
    #[inline]
    pub(crate) fn clean_run(&self, from: usize, limit: usize) -> Option<(usize, usize)> {
        run_from(&self.repeats.clean, from, limit)
    }
    /// Whether the images of the `c` primitives of step t−1 from offset `i` on (at most 64) are
    /// clean, a bit each ([`Images::clean_image`] of each).
    #[inline]
    pub(crate) fn clean_mask(&self, i: usize, c: usize) -> u64 {
        let room = (self.len - self.s0) as usize;
        let c = c.min(room.saturating_sub(i));
        super::holders::bits_at(&self.repeats.clean, i) & super::holders::low_bits(c)
    }
    /// The first node of step t−1 and of step t, and the node after the last of t.
    #[inline]
    pub(crate) fn bounds(&self) -> (NodeId, NodeId, NodeId) {
        (self.s1, self.s0, self.len)
    }
    /// The image at step t of the match formed at t−1 anchored (its latest node) at `p` with
    /// rank `rank` there (the match `rank` places after the first anchored at `p`), when the
    /// image of `p` is clean.
    #[inline]
    pub(crate) fn image(&self, rank: u32, p: NodeId) -> Option<MatchId> {
        if p < self.s1 || p >= self.s0 {
            return None;
        }
        let n = p - self.s1 + self.s0;
        (n < self.len && self.repeats.is_clean(self.s0, n)).then(|| self.anchors.get(n as usize) + rank)
    }
    /// [`Images::image`], or else, when the image n of `p` is partial ([`Repeats::partial`]),
    /// the image of that match among the matches anchored at n if it has one: the image and its
    /// rank at n.
    #[inline]
    pub(crate) fn image_any(&self, rank: u32, p: NodeId) -> Option<(MatchId, u32)> {
        if p < self.s1 || p >= self.s0 {
            return None;
        }
        let n = p - self.s1 + self.s0;
        if n >= self.len {
            return None;
        }
        let r = if self.repeats.is_clean(self.s0, n) {
            rank
        } else {
            self.repeats.partial_rank(n, rank)?
        };
        Some((self.anchors.get(n as usize) + r, r))
    }
    /// Calls `f` with each primitive of step t−1, in order, that has no clean image
    /// ([`Images::clean_image`]) or whose image is set in `dirty` (a bit per primitive of t, by
    /// its offset there): read a word of 64 primitives at a time.
    #[inline]
    pub(crate) fn each_unsettled(&self, dirty: &[u64], mut f: impl FnMut(NodeId)) {
        let n = (self.s0 - self.s1) as usize;
        // (The clean bits are set only for primitives of t, which have a preimage.)
        let clean = self.repeats.clean_words();
        for w in 0..n.div_ceil(64) {
            let settled = clean.get(w).copied().unwrap_or(0) & !dirty.get(w).copied().unwrap_or(0);
            let mut not = !settled;
            if (w + 1) * 64 > n {
                not &= (1 << (n - w * 64)) - 1;
            }
            while not != 0 {
                let b = not.trailing_zeros() as usize;
                not &= not - 1;
                f(self.s1 + (w * 64 + b) as NodeId);
            }
        }
    }
}

/// σ for the nodes of the three steps before the latest, t (where nearly every node of a match
/// copied as an image lies, and every in-process of step t−1 comes from; the third for the
/// matches of t−2 an element's last runs are compared with), each a constant shift; [`image`]
/// for the others.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sigma<'a> {
    starts: &'a [NodeId],
    /// The first node of step t, and the node after its last.
    s0: NodeId,
    len: NodeId,
    /// The first node of step t−1 and its shift to step t.
    s1: NodeId,
    d1: NodeId,
    /// The first node of step t−2 and its shift to step t−1.
    s2: NodeId,
    d2: NodeId,
    /// The first node of step t−3 and its shift to step t−2.
    s3: NodeId,
    d3: NodeId,
}

impl<'a> Sigma<'a> {
    /// σ for the steps of `starts`, the latest ending before node `len`.
    pub(crate) fn new(starts: &'a [NodeId], len: NodeId) -> Self {
        let t = starts.len() - 1;
        let s0 = starts[t];
        // A step missing: no node lies in it (its first node is past every node before it).
        let (s1, d1) = if t >= 1 {
            (starts[t - 1], s0 - starts[t - 1])
        } else {
            (s0, 0)
        };
        let (s2, d2) = if t >= 2 {
            (starts[t - 2], s1 - starts[t - 2])
        } else {
            (s1, 0)
        };
        let (s3, d3) = if t >= 3 {
            (starts[t - 3], s2 - starts[t - 3])
        } else {
            (s2, 0)
        };
        Sigma {
            starts,
            s0,
            len,
            s1,
            d1,
            s2,
            d2,
            s3,
            d3,
        }
    }
    /// σ(x), for a node `x` of a step before the latest (at its offset in the next step, which
    /// need not have a node there).
    #[inline(always)]
    pub(crate) fn image(&self, x: NodeId) -> NodeId {
        if x >= self.s1 {
            x + self.d1
        } else if x >= self.s2 {
            x + self.d2
        } else if x >= self.s3 {
            x + self.d3
        } else {
            image(self.starts, x)
        }
    }
    /// `(lo, d)`: σ(x) = x + d for every node x from `lo` up to the latest step (both steps before
    /// it when they have one size, the step before alone otherwise).
    pub(crate) fn constant(&self) -> (NodeId, NodeId) {
        if self.d1 == self.d2 {
            (self.s2, self.d1)
        } else {
            (self.s1, self.d1)
        }
    }
    /// σ(x) when `x` is of a step before the latest and the next step has a node at its offset.
    #[inline(always)]
    pub(crate) fn next(&self, x: NodeId) -> Option<NodeId> {
        let (y, end) = if x >= self.s0 {
            return None;
        } else if x >= self.s1 {
            (x + self.d1, self.len)
        } else if x >= self.s2 {
            (x + self.d2, self.s0)
        } else {
            let k = step_of(self.starts, x);
            (image(self.starts, x), self.starts[k + 2])
        };
        (y < end).then_some(y)
    }
}

/// The step of node `x` (`starts`: each step's first node), read at once for the last three
/// steps, where nearly every node asked about lies (the matches copied as images at step t are
/// those of step t−1, whose nodes reach into t−2).
#[inline]
pub(crate) fn step_of(starts: &[NodeId], x: NodeId) -> usize {
    let Some(t) = starts.len().checked_sub(1) else {
        return 0;
    };
    if x >= starts[t] {
        t
    } else if t > 0 && x >= starts[t - 1] {
        t - 1
    } else if t > 1 && x >= starts[t - 2] {
        t - 2
    } else {
        starts.partition_point(|&a| a <= x).saturating_sub(1)
    }
}

/// The next run of set bits in `bits` from offset `from` on, below `limit`: its first offset and
/// the first after it that is clear or at `limit`.
#[inline]
fn run_from(bits: &[u64], from: usize, limit: usize) -> Option<(usize, usize)> {
    let i0 = next_bit(bits, from, true)?;
    if i0 >= limit {
        return None;
    }
    let i1 = next_bit(bits, i0, false).unwrap_or(limit).min(limit);
    Some((i0, i1))
}

/// The first offset at or after `from` whose bit in `bits` is `set` (`None` past the words, for
/// a set bit; the first offset past them, for a clear one).
#[inline]
fn next_bit(bits: &[u64], from: usize, set: bool) -> Option<usize> {
    let mut w = from / 64;
    let flip = if set { 0 } else { u64::MAX };
    let mut word = match bits.get(w) {
        Some(&b) => (b ^ flip) & (u64::MAX << (from % 64)),
        None => return (!set).then_some(from),
    };
    loop {
        if word != 0 {
            return Some(w * 64 + word.trailing_zeros() as usize);
        }
        w += 1;
        match bits.get(w) {
            Some(&b) => word = b ^ flip,
            None => return (!set).then_some(w * 64),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Repeats, Sigma, Struct, run_from, step_of};
    use crate::ets::ids::NodeId;

    /// The step a node belongs to: the last step whose first node is at or before it.
    fn searched(starts: &[NodeId], x: NodeId) -> usize {
        starts.partition_point(|&a| a <= x).saturating_sub(1)
    }

    proptest::proptest! {
        /// The runs of clean images read a word at a time (`Images::clean_run`) are those read
        /// a bit at a time.
        #[test]
        fn runs_of_set_bits_a_word_at_a_time(
            words in proptest::collection::vec(proptest::prelude::any::<u64>(), 0..5),
            sparse in proptest::collection::vec(0usize..320, 0..8),
            limit in 0usize..400,
        ) {
            // (Words of all ones and of none as often as mixed ones.)
            let mut bits = words;
            for (k, w) in bits.iter_mut().enumerate() {
                match k % 3 {
                    0 => *w = u64::MAX,
                    1 => *w = 0,
                    _ => {}
                }
            }
            for i in sparse {
                if let Some(w) = bits.get_mut(i / 64) {
                    *w ^= 1 << (i % 64);
                }
            }
            let set = |i: usize| bits.get(i / 64).is_some_and(|w| w >> (i % 64) & 1 == 1);
            let mut want = Vec::new();
            let mut i = 0;
            while i < limit {
                if set(i) {
                    let j = (i..limit).find(|&j| !set(j)).unwrap_or(limit);
                    want.push((i, j));
                    i = j;
                } else {
                    i += 1;
                }
            }
            let mut got = Vec::new();
            let mut from = 0;
            while let Some((i0, i1)) = run_from(&bits, from, limit) {
                proptest::prop_assert!(i1 > i0, "an empty run at {}", i0);
                got.push((i0, i1));
                from = i1;
            }
            proptest::prop_assert_eq!(got, want);
        }

        /// The primitives of t−1 read a word at a time as unsettled are those without a clean
        /// image or with a dirty one, read one by one, in order: steps of any sizes (the latest
        /// longer or shorter than the one before), any clean and dirty bits.
        #[test]
        fn the_unsettled_primitives_read_by_words_are_those_read_one_by_one(
            (prev, latest) in (0u32..200, 0u32..200),
            clean in proptest::collection::vec(proptest::num::u64::ANY, 0..5),
            dirty in proptest::collection::vec(proptest::num::u64::ANY, 0..5),
        ) {
            let starts = [0, 7, 7 + prev];
            let len = 7 + prev + latest;
            let nn = latest as usize;
            let with_preimage = (prev as usize).min(nn);
            // Clean bits as `Repeats::step` leaves them: only for primitives with a preimage.
            let mut c = vec![0u64; nn.div_ceil(64)];
            for (i, w) in c.iter_mut().enumerate() {
                let have = with_preimage.saturating_sub(i * 64).min(64);
                let mask = if have == 64 { u64::MAX } else { (1u64 << have) - 1 };
                *w = clean.get(i).copied().unwrap_or(u64::MAX) & mask;
            }
            let mut d = vec![0u64; nn.div_ceil(64)];
            for (i, w) in d.iter_mut().enumerate() {
                *w = dirty.get(i).copied().unwrap_or(0);
            }
            let repeats = Repeats { clean: c, ..Repeats::default() };
            let anchors = super::super::runs::Anchors::new();
            let image = super::Images::new(&repeats, &anchors, &starts, len);
            let mut words = Vec::new();
            image.each_unsettled(&d, |x| words.push(x));
            let one_by_one: Vec<NodeId> = (7..7 + prev)
                .filter(|&x| {
                    !image.clean_image(x).is_some_and(|y| {
                        let i = (y - 7 - prev) as usize;
                        d[i / 64] >> (i % 64) & 1 == 0
                    })
                })
                .collect();
            proptest::prop_assert_eq!(words, one_by_one);
        }
    }

    #[test]
    fn the_step_of_a_node_read_at_once_is_the_one_searched() {
        // No step yet, one step, empty steps (equal first nodes) at the end and before it.
        let cases: [&[NodeId]; 6] = [&[], &[0], &[0, 5], &[0, 5, 5], &[0, 0, 3, 3, 9], &[0, 4, 8, 12, 12, 20]];
        for starts in cases {
            for x in 0..25 {
                assert_eq!(step_of(starts, x), searched(starts, x), "{starts:?}, node {x}");
            }
        }
    }

    #[test]
    fn sigma_read_at_once_is_the_shift_to_the_same_offset_of_the_next_step() {
        // Steps of equal and of different sizes, empty ones, and a latest step shorter or longer
        // than the one before.
        let cases: [(&[NodeId], NodeId); 8] = [
            (&[0], 4),
            (&[0, 4, 8, 12], 15),
            (&[0, 5], 9),
            (&[0, 5, 5], 7),
            (&[0, 0, 3, 3, 9], 16),
            (&[0, 4, 8, 12, 12, 20], 23),
            (&[0, 6, 9, 16, 20], 30),
            // Steps of different sizes, four or more before the latest.
            (&[0, 3, 7, 12, 18, 25, 33], 40),
        ];
        for (starts, len) in cases {
            let sg = Sigma::new(starts, len);
            let t = starts.len() - 1;
            let end = |k: usize| starts.get(k + 1).copied().unwrap_or(len);
            for x in 0..len {
                let k = searched(starts, x);
                // The node at x's offset in the next step, if x is of a step before the latest
                // and the next step is long enough.
                let want = (k < t)
                    .then(|| x - starts[k] + starts[k + 1])
                    .filter(|&y| y < end(k + 1));
                assert_eq!(sg.next(x), want, "{starts:?}, node {x}");
                if k < t {
                    assert_eq!(sg.image(x), x - starts[k] + starts[k + 1], "{starts:?}, node {x}");
                    // One shift from `lo` on: what `MatchStore::push_images` copies as it stands.
                    let (lo, d) = sg.constant();
                    if x >= lo {
                        assert_eq!(sg.image(x), x + d, "{starts:?}, node {x}");
                    }
                }
            }
            // It spans the two steps before the latest when they have one size.
            if t >= 2 && starts[t] - starts[t - 1] == starts[t - 1] - starts[t - 2] {
                assert_eq!(sg.constant().0, starts[t - 2], "{starts:?}");
            }
        }
    }

    proptest::proptest! {
        /// A step named a copy of the step before (`Repeats::step`'s `copy`) leaves what reading
        /// every node's sites leaves: the same non-repeats, how far back each step reaches, and
        /// the same clean nodes; on structs grown step by step, some steps copies of the one
        /// before (`Struct::append_copy`, kinds changed for others of the same sites), others
        /// fed at random and of other sizes.
        #[test]
        fn a_step_named_a_copy_finds_what_its_sites_say(
            sources in 1usize..5,
            plan in proptest::collection::vec((0usize..3, proptest::collection::vec(proptest::num::u16::ANY, 2)), 1..8),
            steps in proptest::collection::vec(
                (proptest::bool::weighted(0.7), proptest::collection::vec(proptest::num::u16::ANY, 0..3), 0usize..3),
                1..12,
            ),
            reach in 1usize..4,
        ) {
            use crate::ets::primitive::{Alphabet, PrimitiveKind};
            use std::sync::Arc;
            let mut al = Alphabet::new();
            let c = al.add_primal_class("c").unwrap();
            let a = al.add_uniform_primitive("a", c, &["i"], &["o", "p"]).unwrap();
            let b = al.add_uniform_primitive("b", c, &["i"], &["o", "p"]).unwrap();
            let j = al.add_uniform_primitive("j", c, &["i", "k"], &["o"]).unwrap();
            let src = al.add_uniform_primitive("s", c, &[], &["o", "p"]).unwrap();
            let mut s = Struct::new(Arc::new(al));
            let (mut hinted, mut read) = (Repeats::new(false), Repeats::new(false));
            let mut starts: Vec<NodeId> = vec![0];
            for _ in 0..sources {
                s.add_primitive(src).unwrap();
            }
            hinted.step(&s, &starts, reach, None);
            read.step(&s, &starts, reach, None);
            // A step fed from the step before and from earlier in itself, `extra` more of its
            // plan over again.
            let general = |s: &mut Struct, from: NodeId, extra: usize| {
                for &(k, ref choice) in plan.iter().chain(plan.iter().take(extra)) {
                    let kind = [a, b, j][k];
                    let n = s.add_primitive(kind).unwrap();
                    for (site, &ch) in choice.iter().enumerate().take(if kind == j { 2 } else { 1 }) {
                        let open: Vec<_> = s.open_terminals().into_iter().filter(|o| o.node >= from && o.node != n).collect();
                        if ch % 4 != 0 && !open.is_empty() {
                            let o = open[ch as usize % open.len()];
                            s.connect(o.node, o.site as usize, n, site).unwrap();
                        }
                    }
                }
            };
            for &(copy, ref flips, extra) in &steps {
                let t = starts.len();
                let (p0, first) = (starts[t - 1], s.len() as NodeId);
                starts.push(first);
                let hint = if copy && t >= 2 {
                    let size = first - p0;
                    let mut kinds: Vec<(u32, PrimitiveKind)> = flips
                        .iter()
                        .map(|&f| f as u32 % size)
                        .filter_map(|o| match s.kind_of(p0 + o) {
                            k if k == a => Some((o, b)),
                            k if k == b => Some((o, a)),
                            _ => None,
                        })
                        .collect();
                    kinds.sort_by_key(|k| k.0);
                    kinds.dedup_by_key(|k| k.0);
                    // (A copy that cannot be made, its processes translated onto sites that do
                    // not take them, changes nothing: the step is made at random then.)
                    match s.append_copy(p0..first, &kinds, |_, _, _, _| {}) {
                        Ok(_) => Some(kinds.iter().map(|k| k.0).collect::<Vec<u32>>()),
                        Err(_) => {
                            proptest::prop_assert_eq!(s.len() as NodeId, first);
                            general(&mut s, p0, extra);
                            None
                        }
                    }
                } else {
                    general(&mut s, p0, extra);
                    None
                };
                hinted.step(&s, &starts, reach, hint.as_deref());
                read.step(&s, &starts, reach, None);
                let state = |r: &Repeats| {
                    let steps: Vec<_> = r.steps.iter().map(|x| (x.from, x.listed, x.back, x.least)).collect();
                    (steps, r.bad.clone(), r.clean.clone(), r.clean_count, r.node_count)
                };
                proptest::prop_assert_eq!(state(&hinted), state(&read), "step {}", t);
            }
        }
    }
}
