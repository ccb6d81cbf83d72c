//! The matches of one level (§3.4.1.1: each a satisfaction of a constraint by part of the observed
//! structure), stored flat as they are found, with the step each was formed at and the elements
//! that hold it as an application.
//!
//! A match's nodes are kept in blocks of [`BLOCK`] consecutive matches: each block names its first
//! node's place and a base node, and every node of its matches is a two-byte offset from that base
//! (the matches of a block are formed at one or two steps, so their nodes lie close together). A
//! match whose nodes do not fit is kept whole beside the blocks. [`MatchStore::nodes`] gives them
//! back as [`MatchNodes`].

use smallvec::SmallVec;

use crate::ets::growth::{grow, lists_bytes};
use crate::ets::ids::{ConstraintId, ElementId, MatchId, NONE, NodeId};

/// A holder word: `NONE`, one element, `PAIR | index` of a pair of elements (most shared
/// matches: 8 bytes each instead of a list's 24), or `MULTI | index` of a list of three or more.
const MULTI: u32 = 1 << 31;
const PAIR: u32 = 1 << 30;
/// The index part of a `PAIR` or `MULTI` word.
const INDEX: u32 = PAIR - 1;

/// The constraint of each match: two bytes each while every constraint id fits (the settings
/// known have hundreds of constraints), four from the first that does not.
#[derive(Debug, Clone)]
enum Constraints {
    Narrow(Vec<u16>),
    Wide(Vec<ConstraintId>),
}

impl Default for Constraints {
    fn default() -> Self {
        Constraints::Narrow(Vec::new())
    }
}

impl Constraints {
    #[inline]
    fn len(&self) -> usize {
        match self {
            Constraints::Narrow(v) => v.len(),
            Constraints::Wide(v) => v.len(),
        }
    }
    #[inline]
    fn get(&self, i: usize) -> ConstraintId {
        match self {
            Constraints::Narrow(v) => ConstraintId(v[i] as u32),
            Constraints::Wide(v) => v[i],
        }
    }
    fn push(&mut self, c: ConstraintId) {
        if let Constraints::Narrow(v) = self {
            match u16::try_from(c.0) {
                Ok(n) => {
                    grow(v, 1);
                    v.push(n);
                    return;
                }
                Err(_) => *self = Constraints::Wide(v.iter().map(|&n| ConstraintId(n as u32)).collect()),
            }
        }
        if let Constraints::Wide(v) = self {
            grow(v, 1);
            v.push(c);
        }
    }
    /// Appends a copy of entries `range` (room made beforehand: [`Constraints::reserve`]).
    #[inline]
    fn extend_from_within(&mut self, range: std::ops::Range<usize>) {
        match self {
            Constraints::Narrow(v) => v.extend_from_within(range),
            Constraints::Wide(v) => v.extend_from_within(range),
        }
    }
    fn reserve(&mut self, extra: usize) {
        match self {
            Constraints::Narrow(v) => grow(v, extra),
            Constraints::Wide(v) => grow(v, extra),
        }
    }
    fn truncate(&mut self, n: usize) {
        match self {
            Constraints::Narrow(v) => v.truncate(n),
            Constraints::Wide(v) => v.truncate(n),
        }
    }
    fn shrink_to_fit(&mut self) {
        match self {
            Constraints::Narrow(v) => v.shrink_to_fit(),
            Constraints::Wide(v) => v.shrink_to_fit(),
        }
    }
    fn heap_bytes(&self) -> usize {
        match self {
            Constraints::Narrow(v) => v.capacity() * 2,
            Constraints::Wide(v) => v.capacity() * 4,
        }
    }
}

/// The nodes of one match, in its constraint's variable order, as the store decodes them
/// ([`super::Level::match_nodes`]).
#[derive(Debug, Clone)]
pub struct MatchNodes<'a> {
    base: NodeId,
    narrow: std::slice::Iter<'a, u16>,
    wide: std::slice::Iter<'a, NodeId>,
}

impl Iterator for MatchNodes<'_> {
    type Item = NodeId;
    #[inline]
    fn next(&mut self) -> Option<NodeId> {
        match self.narrow.next() {
            Some(&o) => Some(self.base + o as NodeId),
            None => self.wide.next().copied(),
        }
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.narrow.len() + self.wide.len();
        (n, Some(n))
    }
    #[inline]
    fn fold<B, F: FnMut(B, NodeId) -> B>(self, init: B, mut f: F) -> B {
        let base = self.base;
        let acc = self.narrow.fold(init, |acc, &o| f(acc, base + o as NodeId));
        self.wide.fold(acc, |acc, &x| f(acc, x))
    }
}

impl ExactSizeIterator for MatchNodes<'_> {}

impl MatchNodes<'_> {
    /// The nodes in a list of their own (inline up to eight), for a caller that changes the
    /// store while it reads them.
    #[inline(always)]
    pub fn to_small(self) -> SmallVec<[NodeId; 8]> {
        let n = self.len();
        if n > 8 {
            return self.collect();
        }
        let mut buf = [0; 8];
        self.fold(0, |i, x| {
            buf[i] = x;
            i + 1
        });
        SmallVec::from_buf_and_len(buf, n)
    }
}

/// Matches per block of the node table.
const BLOCK: usize = 64;
/// `log2(BLOCK)`.
const BLOCK_SHIFT: u32 = 6;
/// The flag of a match end whose nodes are kept whole in [`MatchStore::wide`].
const WIDE: u16 = 1 << 15;
/// A block whose base is not chosen yet (its matches so far have no nodes).
const UNSET: u32 = u32::MAX;
/// How far below the first node of a block its base lies (the nodes of later matches of a
/// block may be older; most are newer).
const SLACK: u32 = 1 << 13;

/// The matches of one level.
#[derive(Debug, Clone, Default)]
pub(crate) struct MatchStore {
    constraint: Constraints,
    /// Per match: where its nodes end, counted from its block's first node in `nodes`; `WIDE`
    /// set when they are kept in `wide` instead (then it is where they would have begun).
    end: Vec<u16>,
    /// Per block of `BLOCK` matches: the place of its first node in `nodes`, and its base node.
    blocks: Vec<(u32, u32)>,
    /// The nodes, each as an offset from its block's base.
    nodes: Vec<u16>,
    /// The matches whose nodes do not fit their block: `(match, first place in wide_nodes)`, in
    /// match order.
    wide: Vec<(MatchId, u32)>,
    wide_nodes: Vec<NodeId>,
    /// Per step that formed matches: `(step, its first match)`, in match order (matches are
    /// stored as they are formed, so the step of a match is that of the run holding it).
    formed: Vec<(u32, MatchId)>,
    holder: Vec<u32>,
    /// The matches of one step whose holders the persisting set copied, unchanged since.
    pub(crate) kept: super::holders::Kept,
    /// Pairs of holders; never changed once made (a third holder makes a list).
    pairs: Vec<[ElementId; 2]>,
    multi: crate::ets::growth::Lists<ElementId, 4>,
}

/// The least and the greatest of `v` (`(u16::MAX, 0)` when empty). Compared as signed after
/// flipping the top bit: the baseline x86-64 instructions compare two-byte lanes signed only, so
/// the loop is made wide.
#[inline]
fn min_max(v: &[u16]) -> (u16, u16) {
    let (mut mn, mut mx) = (i16::MAX, i16::MIN);
    for &o in v {
        let s = (o ^ 0x8000) as i16;
        mn = mn.min(s);
        mx = mx.max(s);
    }
    ((mn as u16) ^ 0x8000, (mx as u16) ^ 0x8000)
}

/// Whether every holder in holder word `w` (its pairs and lists in `pairs` and `multi`) passes
/// `f`, and whether one does (`(false, false)`: held by no one).
#[inline(always)]
fn word_test(
    w: u32,
    pairs: &[[ElementId; 2]],
    multi: &crate::ets::growth::Lists<ElementId, 4>,
    f: impl Fn(ElementId) -> bool,
) -> (bool, bool) {
    if w & (MULTI | PAIR) == 0 {
        // One holder (`NONE` has both flags).
        let a = f(w);
        (a, a)
    } else if w == NONE {
        (false, false)
    } else if w & PAIR != 0 {
        let [a, b] = pairs[(w & INDEX) as usize];
        let (a, b) = (f(a), f(b));
        (a & b, a | b)
    } else {
        let (mut all, mut any) = (true, false);
        for &e in &multi[(w & INDEX) as usize] {
            let b = f(e);
            all &= b;
            any |= b;
        }
        (all, any)
    }
}

impl MatchStore {
    /// Appends a match formed at step `t`; returns its id.
    pub fn push(&mut self, c: ConstraintId, nodes: &[NodeId], t: u32) -> MatchId {
        let id = self.constraint.len() as MatchId;
        let b = id as usize >> BLOCK_SHIFT;
        if id as usize & (BLOCK - 1) == 0 {
            grow(&mut self.blocks, 1);
            self.blocks.push((self.nodes.len() as u32, UNSET));
        }
        let (first, mut base) = self.blocks[b];
        if base == UNSET && !nodes.is_empty() {
            base = nodes.iter().copied().min().unwrap_or(0).saturating_sub(SLACK);
            self.blocks[b].1 = base;
        }
        let lo = self.nodes.len() - first as usize;
        let fits = lo + nodes.len() < WIDE as usize && nodes.iter().all(|&x| x >= base && x - base <= u16::MAX as u32);
        grow(&mut self.end, 1);
        grow(&mut self.holder, 1);
        self.constraint.push(c);
        if fits {
            grow(&mut self.nodes, nodes.len());
            self.nodes.extend(nodes.iter().map(|&x| (x - base) as u16));
            self.end.push((lo + nodes.len()) as u16);
        } else {
            grow(&mut self.wide, 1);
            grow(&mut self.wide_nodes, nodes.len());
            self.wide.push((id, self.wide_nodes.len() as u32));
            self.wide_nodes.extend_from_slice(nodes);
            self.end.push(lo as u16 | WIDE);
        }
        if self.formed.last().is_none_or(|r| r.0 != t) {
            self.formed.push((t, id));
        }
        self.holder.push(NONE);
        id
    }
    /// Appends, formed at step `t`, the images of the earlier matches `from`: each with the
    /// constraint of its original and its nodes mapped by `img`, stored as [`MatchStore::push`]
    /// stores them one at a time (the same blocks, bases and offsets). Returns the least node of
    /// the images, or `least` if that is less.
    ///
    /// Most images are re-encoded offset by offset: an original whose nodes are offsets in its
    /// block gives offsets in the current block without being decoded into a list. `shift` =
    /// `(lo, d)` says that `img(x)` is `x + d` for every `x ≥ lo` (where that does not overflow):
    /// a chunk whose nodes all lie there is copied as it stands and moved by one amount.
    pub fn push_images(
        &mut self,
        from: std::ops::Range<MatchId>,
        img: impl Fn(NodeId) -> NodeId,
        shift: (NodeId, NodeId),
        t: u32,
        mut least: NodeId,
    ) -> NodeId {
        let k = from.len();
        if k == 0 {
            return least;
        }
        grow(&mut self.end, k);
        grow(&mut self.holder, k);
        self.constraint.reserve(k);
        if self.formed.last().is_none_or(|r| r.0 != t) {
            self.formed.push((t, self.len() as MatchId));
        }
        let mut buf: SmallVec<[NodeId; 8]> = SmallVec::new();
        let mut m = from.start;
        while m < from.end {
            let i = m as usize;
            let id = self.end.len();
            let (first, base) = self.blocks.get(id >> BLOCK_SHIFT).copied().unwrap_or((0, UNSET));
            // A chunk of originals within one block, copied into one block: in a block begun
            // (a new block's base is chosen by its first match, as `push` does) and with a base.
            let c = (from.end - m)
                .min((BLOCK - (id & (BLOCK - 1))) as MatchId)
                .min((BLOCK - (i & (BLOCK - 1))) as MatchId) as usize;
            if id & (BLOCK - 1) != 0 && base != UNSET {
                let (ofirst, obase) = self.blocks[i >> BLOCK_SHIFT];
                let lo = self.begin_in_block(i) as u16;
                let ends = &self.end[i..i + c];
                // Originals kept whole stop the chunk before them.
                // (Looked for only when one is there: an `or` of the ends is made wide.)
                let c = if ends.iter().fold(0, |a, &e| a | e) & WIDE == 0 {
                    c
                } else {
                    ends.iter().position(|&e| e & WIDE != 0).unwrap_or(c)
                };
                let hi = if c == 0 { lo } else { self.end[i + c - 1] };
                let (src, n) = (ofirst as usize + lo as usize, (hi - lo) as usize);
                let at = self.nodes.len() - first as usize;
                if c > 0 && at + n < WIDE as usize {
                    grow(&mut self.nodes, n);
                    // Every node at or past `from_node`: the offsets copied, then moved by one amount;
                    // otherwise each node through `img`, as long as the images fit the block.
                    let (mn, mx) = min_max(&self.nodes[src..src + n]);
                    let (from_node, d) = shift;
                    let fits = if n > 0
                        && obase + mn as NodeId >= from_node
                        && let Some(top) = (obase + mx as NodeId).checked_add(d)
                        && obase + mn as NodeId + d >= base
                        && top - base <= u16::MAX as u32
                    {
                        least = least.min(obase + mn as NodeId + d);
                        let by = (obase + d).wrapping_sub(base) as u16;
                        let start = self.nodes.len();
                        self.nodes.extend_from_within(src..src + n);
                        for o in &mut self.nodes[start..] {
                            *o = o.wrapping_add(by);
                        }
                        true
                    } else {
                        let mut fits = true;
                        for j in src..src + n {
                            let y = img(obase + self.nodes[j] as NodeId);
                            least = least.min(y);
                            if y < base || y - base > u16::MAX as u32 {
                                fits = false;
                                break;
                            }
                            self.nodes.push((y - base) as u16);
                        }
                        fits
                    };
                    if fits {
                        // Each end moves by where the chunk begins in the two blocks (copied,
                        // then moved by one amount: no end of the chunk is marked `WIDE`, and
                        // each moved stays below it, `at + n` does).
                        let e0 = self.end.len();
                        self.end.extend_from_within(i..i + c);
                        let by = (at as u16).wrapping_sub(lo);
                        for e in &mut self.end[e0..] {
                            *e = e.wrapping_add(by);
                        }
                        self.constraint.extend_from_within(i..i + c);
                        self.holder.resize(self.holder.len() + c, NONE);
                        m += c as MatchId;
                        continue;
                    }
                    self.nodes.truncate(first as usize + at);
                }
            }
            // One match as `push` stores it.
            buf.clear();
            buf.extend(self.nodes(m).map(&img));
            least = buf.iter().copied().fold(least, NodeId::min);
            let c = self.constraint(m);
            self.push(c, &buf, t);
            m += 1;
        }
        least
    }
    /// Calls `f` with every match from `from` on, in order: its id, its constraint, and its
    /// nodes, either as offsets from a base (`base`, `narrow`) or whole (`wide`; the other part
    /// is then empty). The blocks are walked in turn, so that a match's nodes are found without
    /// looking its block up ([`MatchStore::nodes`] does, for one match).
    #[inline(always)]
    pub fn each_from(&self, from: MatchId, f: impl FnMut(MatchId, ConstraintId, NodeId, &[u16], &[NodeId])) {
        // (The constraints' width read once, not once a match.)
        match &self.constraint {
            Constraints::Narrow(v) => self.each_from_with(from, |j| ConstraintId(v[j] as u32), f),
            Constraints::Wide(v) => self.each_from_with(from, |j| v[j], f),
        }
    }
    /// [`MatchStore::each_from`] with the constraint of match `j` read by `constraint`.
    #[inline(always)]
    fn each_from_with(
        &self,
        from: MatchId,
        constraint: impl Fn(usize) -> ConstraintId,
        mut f: impl FnMut(MatchId, ConstraintId, NodeId, &[u16], &[NodeId]),
    ) {
        let len = self.len();
        let mut i = from as usize;
        // The matches kept whole from `from` on, in match order.
        let mut w = self.wide.partition_point(|w| w.0 < from);
        while i < len {
            let b = i >> BLOCK_SHIFT;
            let (first, base) = self.blocks[b];
            let stop = ((b + 1) << BLOCK_SHIFT).min(len);
            let mut lo = self.begin_in_block(i);
            let nodes = &self.nodes[first as usize..];
            for (j, &e) in (i..stop).zip(&self.end[i..stop]) {
                let c = constraint(j);
                if e & WIDE == 0 {
                    let hi = e as usize;
                    f(j as MatchId, c, base, &nodes[lo..hi], &[]);
                    lo = hi;
                } else {
                    let s = self.wide[w].1 as usize;
                    let end = self.wide.get(w + 1).map_or(self.wide_nodes.len(), |x| x.1 as usize);
                    w += 1;
                    f(j as MatchId, c, 0, &[], &self.wide_nodes[s..end]);
                }
            }
            i = stop;
        }
    }
    /// How many nodes the matches from `from` on have, all told.
    pub fn nodes_from(&self, from: MatchId) -> usize {
        let i = from as usize;
        if i >= self.len() {
            return 0;
        }
        let (first, _) = self.blocks[i >> BLOCK_SHIFT];
        let lo = self.begin_in_block(i);
        let w = self.wide.partition_point(|w| w.0 < from);
        let wide = self.wide.get(w).map_or(0, |x| self.wide_nodes.len() - x.1 as usize);
        self.nodes.len() - first as usize - lo + wide
    }
    /// Where the nodes of match `i` begin, counted from its block's first node in `nodes` (the
    /// end of the match before it in the block, or 0 for a block's first).
    #[inline(always)]
    fn begin_in_block(&self, i: usize) -> usize {
        if i & (BLOCK - 1) == 0 {
            0
        } else {
            (self.end[i - 1] & !WIDE) as usize
        }
    }
    /// Number of matches.
    #[inline]
    pub fn len(&self) -> usize {
        self.constraint.len()
    }
    /// The constraint of match `m`.
    #[inline]
    pub fn constraint(&self, m: MatchId) -> ConstraintId {
        self.constraint.get(m as usize)
    }
    /// The nodes of match `m`, in its constraint's variable order.
    #[inline(always)]
    pub fn nodes(&self, m: MatchId) -> MatchNodes<'_> {
        let i = m as usize;
        let end = self.end[i];
        if end & WIDE != 0 {
            return self.wide_of(m);
        }
        let (first, base) = self.blocks[i >> BLOCK_SHIFT];
        let lo = self.begin_in_block(i);
        MatchNodes {
            base,
            narrow: self.nodes[first as usize + lo..first as usize + end as usize].iter(),
            wide: [].iter(),
        }
    }
    /// The nodes of a match kept whole.
    #[cold]
    fn wide_of(&self, m: MatchId) -> MatchNodes<'_> {
        let k = self.wide.partition_point(|w| w.0 < m);
        let s = self.wide[k].1 as usize;
        let e = self.wide.get(k + 1).map_or(self.wide_nodes.len(), |w| w.1 as usize);
        MatchNodes {
            base: 0,
            narrow: [].iter(),
            wide: self.wide_nodes[s..e].iter(),
        }
    }
    /// The step match `m` was formed at.
    #[inline]
    pub fn formed(&self, m: MatchId) -> u32 {
        let i = self.formed.partition_point(|r| r.1 <= m);
        self.formed[i - 1].0
    }
    /// Whether element `e` holds match `m`.
    // (Always in line: the derivations ask it at every match they read — a catch-up, an offer —
    // and most answers are the first word read.)
    #[inline(always)]
    pub fn held_by(&self, m: MatchId, e: ElementId) -> bool {
        let h = self.holder[m as usize];
        if h == NONE {
            false
        } else if h & MULTI != 0 {
            self.multi[(h & INDEX) as usize].contains(&e)
        } else if h & PAIR != 0 {
            self.pairs[(h & INDEX) as usize].contains(&e)
        } else {
            h == e
        }
    }
    /// The elements holding match `m`.
    #[inline]
    pub fn holders(&self, m: MatchId) -> &[ElementId] {
        let h = &self.holder[m as usize];
        if *h == NONE {
            &[]
        } else if *h & MULTI != 0 {
            &self.multi[(*h & INDEX) as usize]
        } else if *h & PAIR != 0 {
            &self.pairs[(*h & INDEX) as usize]
        } else {
            std::slice::from_ref(h)
        }
    }
    /// The raw holder word of `m` (for the journal).
    #[inline]
    pub fn holder_word(&self, m: MatchId) -> u32 {
        self.holder[m as usize]
    }
    /// Length of multi-holder list `i` (for the journal), when `word` names one.
    pub fn multi_len(&self, word: u32) -> Option<(u32, u32)> {
        (word != NONE && word & MULTI != 0).then(|| (word & INDEX, self.multi[(word & INDEX) as usize].len() as u32))
    }
    /// Adds `e` to the holders of `m` (it must not hold it yet).
    #[inline]
    pub fn add_holder(&mut self, m: MatchId, e: ElementId) {
        debug_assert!(e < PAIR, "element ids stay below 2^30");
        self.kept.clear(m);
        let h = &mut self.holder[m as usize];
        if *h == NONE {
            *h = e;
        } else {
            self.add_another_holder(m, e);
        }
    }
    /// [`MatchStore::add_holder`] to a match held already.
    #[inline(never)]
    fn add_another_holder(&mut self, m: MatchId, e: ElementId) {
        let h = self.holder[m as usize];
        if h & MULTI != 0 {
            self.multi[(h & INDEX) as usize].push(e);
        } else if h & PAIR != 0 {
            // A third holder: a list (the pair stays as it was, for an undo to name again).
            let [a, b] = self.pairs[(h & INDEX) as usize];
            let i = self.multi.len() as u32;
            grow(&mut self.multi, 1);
            self.multi.push(SmallVec::from_slice(&[a, b, e]));
            self.holder[m as usize] = MULTI | i;
        } else {
            let i = self.pairs.len() as u32;
            grow(&mut self.pairs, 1);
            self.pairs.push([h, e]);
            self.holder[m as usize] = PAIR | i;
        }
    }
    /// Adds `e` to the holders of `m`, as [`MatchStore::add_holder`] does, where match `like`
    /// already has the pair `m` would get: `m` names that pair too (pairs never change once made,
    /// so two matches can name one; an image and its original held by the same two elements,
    /// most pairs at level 0).
    #[inline]
    pub fn add_holder_like(&mut self, m: MatchId, e: ElementId, like: MatchId) {
        let h = self.holder[m as usize];
        let w = self.holder[like as usize];
        if h != NONE
            && h & (MULTI | PAIR) == 0
            && w != NONE
            && w & MULTI == 0
            && w & PAIR != 0
            && self.pairs[(w & INDEX) as usize] == [h, e]
        {
            self.kept.clear(m);
            self.holder[m as usize] = w;
            return;
        }
        self.add_holder(m, e);
    }
    /// A run of matches' holders copied where every holder passes `f` (`Level::persist_bulk`):
    /// match `from + k`, for `k` below `n`, gives its holders, in the same order, to `to + k`
    /// (held by no one, after the run's originals) when every one of them passes `f` — the same
    /// word for one holder or a pair (pairs never change once made), a list of its own for more;
    /// one with some holders passing and others not goes to `mixed`. `copied(k0, word)` is called
    /// for each 64 matches from `k0` (the last ones fewer) with a bit per match copied, after
    /// [`MatchStore::kept`] has them.
    ///
    /// `carried(k0, c)` names, a bit each, matches of the `c` from `k0` known to have every
    /// holder passing `f` without a test: their holders were copied at the step before and
    /// none has been written or has left the set since (`Level::persist_bulk`). A chunk of 64
    /// carried matches, none with a list, is copied as a block. `verify` tests them anyway and
    /// panics on one that does not pass.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub fn copy_holders_run(
        &mut self,
        from: MatchId,
        to: MatchId,
        n: u32,
        carried: impl Fn(u32, usize) -> u64,
        verify: bool,
        f: impl Fn(ElementId) -> bool,
        mut copied: impl FnMut(u32, u64),
        mut mixed: impl FnMut(MatchId),
    ) {
        debug_assert!(from + n <= to, "the copies come after their originals");
        let (lo, hi) = self.holder.split_at_mut(to as usize);
        let (src, dst) = (&lo[from as usize..(from + n) as usize], &mut hi[..n as usize]);
        // 64 matches at a time, a bit each.
        for (c, (src, dst)) in src.chunks(64).zip(dst.chunks_mut(64)).enumerate() {
            let k0 = c as u32 * 64;
            let car = carried(k0, src.len());
            if verify {
                for (j, &w) in src.iter().enumerate() {
                    assert!(
                        car >> j & 1 == 0 || word_test(w, &self.pairs, &self.multi, &f) == (true, true),
                        "match {} carried as held by persisting elements only",
                        from + k0 + j as MatchId
                    );
                }
            }
            // (A carried word is never `NONE`: one with a list has `MULTI`.)
            let word = if car == super::holders::low_bits(src.len()) && src.iter().fold(0, |a, &w| a | w) & MULTI == 0 {
                debug_assert!(dst.iter().all(|&d| d == NONE), "matches held already");
                dst.copy_from_slice(src);
                car
            } else {
                let mut word = 0u64;
                for (j, (&w, d)) in src.iter().zip(dst.iter_mut()).enumerate() {
                    if car >> j & 1 == 0 {
                        let (all, any) = word_test(w, &self.pairs, &self.multi, &f);
                        if !all {
                            if any {
                                mixed(from + k0 + j as MatchId);
                            }
                            continue;
                        }
                    }
                    word |= 1 << j;
                    debug_assert_eq!(*d, NONE, "a match held already");
                    if w & MULTI == 0 {
                        *d = w;
                    } else {
                        let v = self.multi[(w & INDEX) as usize].clone();
                        let i = self.multi.len() as u32;
                        grow(&mut self.multi, 1);
                        self.multi.push(v);
                        *d = MULTI | i;
                    }
                }
                word
            };
            self.kept.set_word(to + k0, word);
            copied(k0, word);
        }
    }
    /// Removes `e` from the holders of `m` (a stillborn element, added at the current step: the
    /// entries before it, which the journal's lengths keep, do not move).
    pub fn remove_holder(&mut self, m: MatchId, e: ElementId) {
        self.kept.clear(m);
        let h = self.holder[m as usize];
        if h == e {
            self.holder[m as usize] = NONE;
        } else if h != NONE && h & MULTI != 0 {
            let v = &mut self.multi[(h & INDEX) as usize];
            if let Some(i) = v.iter().rposition(|&f| f == e) {
                v.remove(i);
            }
        } else if h != NONE && h & PAIR != 0 {
            // The other one holds it alone (the pair stays as it was).
            let [a, b] = self.pairs[(h & INDEX) as usize];
            if b == e {
                self.holder[m as usize] = a;
            } else if a == e {
                self.holder[m as usize] = b;
            }
        }
    }
    /// Undo: the store as it was with `matches` matches, `pairs` holder pairs and `multi`
    /// multi-holder lists.
    pub fn truncate(&mut self, matches: usize, pairs: usize, multi: usize) {
        self.pairs.truncate(pairs);
        self.constraint.truncate(matches);
        while self.formed.last().is_some_and(|r| r.1 as usize >= matches) {
            self.formed.pop();
        }
        self.holder.truncate(matches);
        self.end.truncate(matches);
        self.blocks.truncate(matches.div_ceil(BLOCK));
        let n = match matches.checked_sub(1) {
            Some(m) => self.blocks[m >> BLOCK_SHIFT].0 as usize + (self.end[m] & !WIDE) as usize,
            None => 0,
        };
        self.nodes.truncate(n);
        while let Some(&(m, s)) = self.wide.last() {
            if (m as usize) < matches {
                break;
            }
            self.wide.pop();
            self.wide_nodes.truncate(s as usize);
        }
        self.multi.truncate(multi);
    }
    /// Number of multi-holder lists (for the journal).
    pub fn multi_count(&self) -> usize {
        self.multi.len()
    }
    /// Number of holder pairs (for the journal).
    pub fn pair_count(&self) -> usize {
        self.pairs.len()
    }
    /// Undo: restores the holder word of `m` and the length of the list it names.
    pub fn restore_holder(&mut self, m: MatchId, word: u32, list_len: Option<u32>) {
        self.kept.clear(m);
        self.holder[m as usize] = word;
        if let (Some(len), true) = (list_len, word != NONE && word & MULTI != 0) {
            self.multi[(word & INDEX) as usize].truncate(len as usize);
        }
    }
    /// Releases spare capacity.
    pub fn shrink_to_fit(&mut self) {
        self.constraint.shrink_to_fit();
        self.end.shrink_to_fit();
        self.blocks.shrink_to_fit();
        self.nodes.shrink_to_fit();
        self.wide.shrink_to_fit();
        self.wide_nodes.shrink_to_fit();
        self.formed.shrink_to_fit();
        self.holder.shrink_to_fit();
        self.pairs.shrink_to_fit();
        self.multi.shrink_to_fit();
    }
    /// Heap bytes of the matches themselves: constraint, nodes, and the step each was formed at.
    pub fn match_bytes(&self) -> usize {
        self.constraint.heap_bytes()
            + self.end.capacity() * 2
            + self.blocks.capacity() * 8
            + self.nodes.capacity() * 2
            + self.wide.capacity() * 8
            + self.wide_nodes.capacity() * 4
            + self.formed.capacity() * 8
    }
    /// Heap bytes of the elements holding each match (a word per match, pairs, longer lists).
    pub fn holder_bytes(&self) -> usize {
        self.holder.capacity() * 4 + self.pairs.capacity() * 8 + lists_bytes(&self.multi.0) + self.kept.heap_bytes()
    }
}

/// A set of matches of one store, each known by its constraint and nodes (level n ≥ 1: the
/// matches found so far, so that none is stored twice). Only match ids are kept; the key of each
/// is read from the store, so the set costs a slot of four bytes and a control byte a match (at
/// the table's load) and a copy of it is one copy of its table.
#[derive(Debug, Clone, Default)]
pub(crate) struct MatchSet(hashbrown::HashTable<MatchId>);

impl MatchSet {
    /// The hash of a match's key.
    fn hash(c: ConstraintId, nodes: impl Iterator<Item = NodeId>) -> u64 {
        use std::hash::Hasher;
        let mut h = rustc_hash::FxHasher::default();
        h.write_u32(c.0);
        for x in nodes {
            h.write_u32(x);
        }
        h.finish()
    }

    /// Whether a match of `store` in the set has constraint `c` and nodes `nodes`.
    #[cfg(test)]
    pub(crate) fn contains(&self, store: &MatchStore, c: ConstraintId, nodes: &[NodeId]) -> bool {
        let h = Self::hash(c, nodes.iter().copied());
        self.0
            .find(h, |&m| {
                store.constraint(m) == c && store.nodes(m).eq(nodes.iter().copied())
            })
            .is_some()
    }

    /// Unless a match of `store` in the set has constraint `c` and nodes `nodes`, stores one in
    /// `store` (at step `t`) and adds it: its id, or `None` when the set held one already.
    pub(crate) fn add_new(
        &mut self,
        store: &mut MatchStore,
        c: ConstraintId,
        nodes: &[NodeId],
        t: u32,
    ) -> Option<MatchId> {
        let h = Self::hash(c, nodes.iter().copied());
        let entry = {
            let s = &*store;
            self.0.entry(
                h,
                |&m| s.constraint(m) == c && s.nodes(m).eq(nodes.iter().copied()),
                |&x| Self::hash(s.constraint(x), s.nodes(x)),
            )
        };
        match entry {
            hashbrown::hash_table::Entry::Occupied(_) => None,
            hashbrown::hash_table::Entry::Vacant(v) => {
                let m = store.push(c, nodes, t);
                v.insert(m);
                Some(m)
            }
        }
    }

    /// Removes match `m` of `store`, if the set holds it (before the store forgets it).
    pub(crate) fn remove(&mut self, store: &MatchStore, m: MatchId) {
        let h = Self::hash(store.constraint(m), store.nodes(m));
        if let Ok(e) = self.0.find_entry(h, |&x| x == m) {
            e.remove();
        }
    }

    /// Heap bytes held (the table's slots and control bytes, as allocated).
    pub(crate) fn heap_bytes(&self) -> usize {
        self.0.allocation_size()
    }

    /// Drops spare room.
    pub(crate) fn shrink_to_fit(&mut self, store: &MatchStore) {
        self.0
            .shrink_to_fit(|&x| Self::hash(store.constraint(x), store.nodes(x)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ets::ids::ConstraintId;
    use proptest::prelude::*;

    /// Nodes near one another (most matches), far apart or far below the block's first (kept
    /// whole), or none.
    fn nodes() -> impl Strategy<Value = Vec<NodeId>> {
        prop_oneof![
            4 => (0u32..200_000, prop::collection::vec(0u32..3_000, 0..6))
                .prop_map(|(x, d)| d.into_iter().map(|d| x + d).collect()),
            1 => prop::collection::vec(0u32..4_000_000, 0..5),
            1 => prop::collection::vec(prop_oneof![Just(0u32), Just(u32::MAX - 1), 65_000u32..140_000], 1..4),
        ]
    }

    /// The least and greatest two-byte offsets found as signed lanes are those of the values.
    #[test]
    fn min_max_compares_unsigned() {
        assert_eq!(min_max(&[]), (u16::MAX, 0));
        for v in [
            vec![0u16],
            vec![u16::MAX],
            vec![0x7FFF, 0x8000],
            vec![5, 0xFFFE, 0x8001, 3, 0x7FFF],
        ] {
            let (a, b) = (*v.iter().min().unwrap(), *v.iter().max().unwrap());
            assert_eq!(min_max(&v), (a, b), "{v:?}");
        }
    }

    proptest! {
        /// The set of matches found answers as a set of their keys (constraint, nodes) does, with
        /// constraint ids that fit two bytes and ids that do not (the store widens its table), while
        /// matches are pushed when new, and after the latest are taken back (as an undo does:
        /// removed from the set, then truncated from the store) and others pushed again; a copy
        /// made before the undo still answers for what it had.
        #[test]
        fn match_set_answers_as_a_set_of_keys(
            found in prop::collection::vec((prop_oneof![0u32..4, 70_000u32..70_004], nodes()), 0..300),
            cut in 0usize..300,
            then in prop::collection::vec((prop_oneof![0u32..4, 70_000u32..70_004], nodes()), 0..100),
        ) {
            let mut s = MatchStore::default();
            let mut set = MatchSet::default();
            let mut keys = std::collections::HashSet::default();
            let mut kept: Vec<(u32, Vec<NodeId>)> = Vec::new();
            type Keys = std::collections::HashSet<(u32, Vec<NodeId>)>;
            // One match found: stored and added when new, as the level does.
            fn find(
                s: &mut MatchStore,
                set: &mut MatchSet,
                keys: &mut Keys,
                kept: &mut Vec<(u32, Vec<NodeId>)>,
                c: u32,
                ns: &[NodeId],
            ) -> Result<(), TestCaseError> {
                let known = set.contains(s, ConstraintId(c), ns);
                prop_assert_eq!(known, keys.contains(&(c, ns.to_vec())));
                let len = s.len();
                let added = set.add_new(s, ConstraintId(c), ns, 0);
                prop_assert_eq!(added, (!known).then_some(len as MatchId));
                prop_assert_eq!(s.len(), len + usize::from(!known));
                if !known {
                    prop_assert!(s.nodes(len as MatchId).eq(ns.iter().copied()));
                    keys.insert((c, ns.to_vec()));
                    kept.push((c, ns.to_vec()));
                }
                Ok(())
            }
            for (c, ns) in &found {
                find(&mut s, &mut set, &mut keys, &mut kept, *c, ns)?;
            }
            let (copy, copy_store, copy_keys) = (set.clone(), s.clone(), keys.clone());
            let cut = cut.min(s.len());
            for m in cut..s.len() {
                set.remove(&s, m as MatchId);
            }
            s.truncate(cut, 0, 0);
            for k in kept.drain(cut..) {
                keys.remove(&k);
            }
            set.shrink_to_fit(&s);
            for (c, ns) in &then {
                find(&mut s, &mut set, &mut keys, &mut kept, *c, ns)?;
            }
            for (c, ns) in found.iter().chain(&then) {
                prop_assert_eq!(set.contains(&s, ConstraintId(*c), ns), keys.contains(&(*c, ns.clone())));
                prop_assert_eq!(copy.contains(&copy_store, ConstraintId(*c), ns), copy_keys.contains(&(*c, ns.clone())));
            }
        }

        /// The images copied at once are stored as pushing them one at a time stores them: the
        /// same blocks, bases, offsets, matches kept whole and steps formed, and the same least
        /// node.
        #[test]
        fn images_copied_at_once_are_stored_as_pushed_one_by_one(
            first in prop::collection::vec(nodes(), 1..300),
            from in 0usize..300,
            len in 0usize..300,
            (cut, d1, d2) in (0u32..300_000, 0u32..70_000, 0u32..70_000),
        ) {
            let mut s = MatchStore::default();
            for (i, ns) in first.iter().enumerate() {
                s.push(ConstraintId(i as u32 % 7), ns, i as u32 / 10);
            }
            let from = from.min(first.len());
            let range = from as MatchId..(from + len).min(first.len()) as MatchId;
            // A shift by one amount below `cut` and another from it on, as from one step to the next.
            let img = |x: NodeId| if x < cut { x.saturating_add(d1) } else { x.saturating_add(d2) };
            let t = 1_000;
            let mut one = s.clone();
            let mut least = u32::MAX - 7;
            for m in range.clone() {
                let ns: Vec<NodeId> = one.nodes(m).map(img).collect();
                least = ns.iter().copied().fold(least, NodeId::min);
                one.push(one.constraint(m), &ns, t);
            }
            let got = s.push_images(range, img, (cut, d2), t, u32::MAX - 7);
            prop_assert_eq!(got, least);
            prop_assert_eq!(format!("{s:?}"), format!("{one:?}"));
        }

        /// A run of holder words copied with some carried (known to pass, not tested) gives the
        /// images, the matches named mixed, the bits per 64 and the kept bits that testing every
        /// word gives; a carried chunk of single holders and pairs is copied as a block. A write
        /// to a copied match's holders afterwards clears its kept bit, and only its.
        #[test]
        fn carried_holder_words_copy_as_tested_ones_and_writes_clear_their_kept_bits(
            holders in prop::collection::vec(prop::collection::vec(0u32..12, 0..5), 1..200),
            set in 0u64..(1 << 12),
            carry in prop::collection::vec(any::<bool>(), 200),
            writes in prop::collection::vec((0usize..200, 0u32..3, 0u32..12), 0..6),
        ) {
            let n = holders.len() as u32;
            let mut s = MatchStore::default();
            for (i, hs) in holders.iter().enumerate() {
                let m = s.push(ConstraintId(0), &[i as NodeId], 0);
                for &e in hs.iter().collect::<std::collections::BTreeSet<_>>() {
                    s.add_holder(m, e);
                }
            }
            for i in 0..n {
                s.push(ConstraintId(0), &[n + i], 1);
            }
            let f = |e: ElementId| set >> e & 1 == 1;
            let passes = |m: MatchId| {
                let hs = s.holders(m);
                !hs.is_empty() && hs.iter().all(|&e| f(e))
            };
            // Carried: some of those whose every holder passes (all of them half of the time).
            let every = carry[0];
            let carried: Vec<bool> = (0..n).map(|m| passes(m) && (every || carry[m as usize])).collect();
            let run = |mut s: MatchStore, with: bool| {
                s.kept.begin(1, n, n as usize);
                let (mut words, mut mixed) = (Vec::new(), Vec::new());
                s.copy_holders_run(
                    0,
                    n,
                    n,
                    |k0, c| {
                        if !with {
                            return 0;
                        }
                        (0..c).fold(0, |w, j| w | (carried[k0 as usize + j] as u64) << j)
                    },
                    true,
                    f,
                    |k0, w| words.push((k0, w)),
                    |m| mixed.push(m),
                );
                (s, words, mixed)
            };
            let (a, wa, ma) = run(s.clone(), false);
            let (mut b, wb, mb) = run(s.clone(), true);
            prop_assert_eq!(format!("{a:?}"), format!("{b:?}"));
            prop_assert_eq!(wa, wb);
            prop_assert_eq!(ma, mb);
            for m in 0..n {
                prop_assert_eq!(b.kept.mask(n + m, 1) == 1, passes(m), "kept bit of {}", n + m);
                let expect: Vec<ElementId> = if passes(m) { s.holders(m).to_vec() } else { Vec::new() };
                prop_assert_eq!(b.holders(n + m).to_vec(), expect);
            }
            // Writes clear the kept bit of the match written, and no other.
            let mut written = vec![false; n as usize];
            for &(i, how, e) in &writes {
                let m = n + i as u32 % n;
                match how {
                    0 if !b.holders(m).contains(&e) => b.add_holder(m, e),
                    1 => b.remove_holder(m, e),
                    _ => b.restore_holder(m, b.holder_word(m), None),
                }
                written[(m - n) as usize] = true;
            }
            for m in 0..n {
                prop_assert_eq!(b.kept.mask(n + m, 1) == 1, passes(m) && !written[m as usize]);
            }
        }

        /// The nodes read back are those pushed, across blocks, for matches kept whole, and after
        /// undoing to any length and pushing again.
        #[test]
        fn nodes_read_back_as_pushed(
            first in prop::collection::vec(nodes(), 0..300),
            cut in 0usize..300,
            then in prop::collection::vec(nodes(), 0..100),
        ) {
            let mut s = MatchStore::default();
            let mut model: Vec<Vec<NodeId>> = Vec::new();
            for (i, ns) in first.iter().enumerate() {
                prop_assert_eq!(s.push(ConstraintId(i as u32 % 7), ns, i as u32 / 10) as usize, model.len());
                model.push(ns.clone());
            }
            let cut = cut.min(model.len());
            s.truncate(cut, 0, 0);
            model.truncate(cut);
            for ns in &then {
                s.push(ConstraintId(1), ns, 1_000);
                model.push(ns.clone());
            }
            prop_assert_eq!(s.len(), model.len());
            for (m, ns) in model.iter().enumerate() {
                let got: Vec<NodeId> = s.nodes(m as MatchId).collect();
                prop_assert_eq!(&got, ns);
                prop_assert_eq!(s.nodes(m as MatchId).len(), ns.len());
            }
            // The walk from any match on gives each match's constraint and nodes as one read
            // gives them, in order; the count of their nodes is theirs.
            for from in [0, cut / 2, cut, model.len()] {
                let mut walked = Vec::new();
                let mut both = false;
                s.each_from(from as MatchId, |m, c, base, narrow, wide| {
                    both |= !narrow.is_empty() && !wide.is_empty();
                    let ns = narrow.iter().map(|&o| base + o as NodeId).chain(wide.iter().copied());
                    walked.push((m, c, ns.collect::<Vec<NodeId>>()));
                });
                prop_assert!(!both, "a match read in two parts");
                let read: Vec<_> = (from..model.len())
                    .map(|m| (m as MatchId, s.constraint(m as MatchId), model[m].clone()))
                    .collect();
                prop_assert_eq!(&walked, &read);
                prop_assert_eq!(s.nodes_from(from as MatchId), model[from..].iter().map(Vec::len).sum::<usize>());
            }
        }
    }

    #[test]
    fn nearby_nodes_take_two_bytes_and_far_ones_are_kept_whole() {
        let mut s = MatchStore::default();
        for i in 0..640u32 {
            s.push(ConstraintId(0), &[100_000 + i, 100_001 + i, 99_000 + i], i / 64);
        }
        let near = s.match_bytes();
        assert!(s.wide.is_empty());
        // Two bytes a node, two for the end, two for the constraint, the blocks and the steps.
        assert!(near < 640 * (3 * 4 + 4 + 2), "{near}");
        let m = s.push(ConstraintId(0), &[5, 3_000_000], 10);
        assert_eq!((s.wide.len(), s.nodes(m).collect::<Vec<_>>()), (1, vec![5, 3_000_000]));
        s.truncate(640, 0, 0);
        assert!(s.wide.is_empty() && s.wide_nodes.is_empty());
        assert_eq!(s.nodes(639).collect::<Vec<_>>(), [100_639, 100_640, 99_639]);
    }

    #[test]
    fn constraint_ids_past_two_bytes_widen_the_column_and_keep_the_others() {
        let mut s = MatchStore::default();
        let a = s.push(ConstraintId(65_535), &[1], 0);
        let narrow = s.match_bytes();
        let b = s.push(ConstraintId(65_536), &[2], 1);
        let c = s.push(ConstraintId(3), &[3], 1);
        assert_eq!(
            [a, b, c].map(|m| s.constraint(m)),
            [ConstraintId(65_535), ConstraintId(65_536), ConstraintId(3)]
        );
        assert!(s.match_bytes() > narrow);
        // The walk reads the widened column as a read of one match does.
        let mut walked = Vec::new();
        s.each_from(0, |m, c, _, _, _| walked.push((m, c)));
        assert_eq!(walked, [a, b, c].map(|m| (m, s.constraint(m))));
        s.truncate(2, 0, 0);
        assert_eq!((s.len(), s.constraint(1)), (2, ConstraintId(65_536)));
    }

    #[test]
    fn holders_pass_from_one_to_a_pair_to_a_list_and_back() {
        let mut s = MatchStore::default();
        let m = s.push(ConstraintId(0), &[1, 2], 0);
        let k = s.push(ConstraintId(1), &[2, 3], 0);
        assert!(s.holders(m).is_empty());
        s.add_holder(m, 7);
        assert_eq!(s.holders(m), &[7]);
        s.add_holder(m, 9);
        assert_eq!(s.holders(m), &[7, 9]);
        assert!(s.held_by(m, 9) && s.held_by(m, 7) && !s.held_by(m, 8));
        assert_eq!((s.pair_count(), s.multi_count()), (1, 0));
        // A third holder makes a list; the journal's word for the pair still names it.
        let word = s.holder_word(m);
        assert_eq!(s.multi_len(word), None);
        s.add_holder(m, 11);
        assert_eq!(s.holders(m), &[7, 9, 11]);
        assert_eq!(s.multi_len(s.holder_word(m)), Some((0, 3)));
        s.restore_holder(m, word, None);
        s.truncate(2, 1, 0);
        assert_eq!(s.holders(m), &[7, 9]);
        // A stillborn holder leaves a pair to the other one, whichever it is.
        s.remove_holder(m, 7);
        assert_eq!(s.holders(m), &[9]);
        s.add_holder(k, 3);
        s.add_holder(k, 4);
        s.remove_holder(k, 4);
        assert_eq!(s.holders(k), &[3]);
        s.remove_holder(k, 3);
        assert!(s.holders(k).is_empty());
        // Undo of the step that made the pairs.
        s.truncate(2, 0, 0);
        assert_eq!(s.pair_count(), 0);
    }

    #[test]
    fn a_match_held_by_the_pair_another_has_names_that_pair() {
        let mut s = MatchStore::default();
        let m = s.push(ConstraintId(0), &[1, 2], 0);
        s.add_holder(m, 7);
        s.add_holder(m, 9);
        let (a, b, c) = (
            s.push(ConstraintId(0), &[3, 4], 1),
            s.push(ConstraintId(0), &[5, 6], 1),
            s.push(ConstraintId(0), &[7, 8], 1),
        );
        for (k, [x, y]) in [(a, [7, 9]), (b, [9, 7]), (c, [7, 11])] {
            s.add_holder_like(k, x, m);
            s.add_holder_like(k, y, m);
            assert_eq!(s.holders(k), &[x, y]);
        }
        // `a` names the pair of `m`; `b` (another order) and `c` (another element) got their own.
        assert_eq!(s.holder_word(a), s.holder_word(m));
        assert_eq!(s.pair_count(), 3);
        // A holder leaving one leaves the pair, and the other match, as they were.
        s.remove_holder(a, 7);
        assert_eq!((s.holders(a), s.holders(m)), (&[9][..], &[7, 9][..]));
        // A third holder makes a list of its own.
        s.add_holder(m, 12);
        assert_eq!(s.holders(m), &[7, 9, 12]);
        s.add_holder_like(a, 5, m);
        assert_eq!(s.holders(a), &[9, 5]);
    }
}
