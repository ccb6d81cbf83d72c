//! The matches of one level (§3.4.1.1: each a satisfaction of a constraint by part of the observed
//! structure), stored flat as they are found, with the step each was formed at and the elements
//! that hold it as an application.

use smallvec::SmallVec;

use crate::ets::growth::grow;
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

/// The matches of one level.
#[derive(Debug, Clone, Default)]
pub(crate) struct MatchStore {
    constraint: Constraints,
    start: Vec<u32>,
    nodes: Vec<NodeId>,
    /// Per step that formed matches: `(step, its first match)`, in match order (matches are
    /// stored as they are formed, so the step of a match is that of the run holding it).
    formed: Vec<(u32, MatchId)>,
    holder: Vec<u32>,
    /// Pairs of holders; never changed once made (a third holder makes a list).
    pairs: Vec<[ElementId; 2]>,
    multi: Vec<SmallVec<[ElementId; 4]>>,
}

impl MatchStore {
    /// Appends a match formed at step `t`; returns its id.
    pub fn push(&mut self, c: ConstraintId, nodes: &[NodeId], t: u32) -> MatchId {
        if self.start.is_empty() {
            self.start.push(0);
        }
        let id = self.constraint.len() as MatchId;
        grow(&mut self.start, 1);
        grow(&mut self.holder, 1);
        grow(&mut self.nodes, nodes.len());
        self.constraint.push(c);
        self.nodes.extend_from_slice(nodes);
        self.start.push(self.nodes.len() as u32);
        if self.formed.last().is_none_or(|r| r.0 != t) {
            self.formed.push((t, id));
        }
        self.holder.push(NONE);
        id
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
    #[inline]
    pub fn nodes(&self, m: MatchId) -> &[NodeId] {
        &self.nodes[self.start[m as usize] as usize..self.start[m as usize + 1] as usize]
    }
    /// The step match `m` was formed at.
    #[inline]
    pub fn formed(&self, m: MatchId) -> u32 {
        let i = self.formed.partition_point(|r| r.1 <= m);
        self.formed[i - 1].0
    }
    /// Whether element `e` holds match `m`.
    #[inline]
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
    pub fn add_holder(&mut self, m: MatchId, e: ElementId) {
        debug_assert!(e < PAIR, "element ids stay below 2^30");
        let h = self.holder[m as usize];
        if h == NONE {
            self.holder[m as usize] = e;
        } else if h & MULTI != 0 {
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
            self.holder[m as usize] = w;
            return;
        }
        self.add_holder(m, e);
    }
    /// Removes `e` from the holders of `m` (a stillborn element, added at the current step: the
    /// entries before it, which the journal's lengths keep, do not move).
    pub fn remove_holder(&mut self, m: MatchId, e: ElementId) {
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
        self.start.truncate(matches + 1);
        let n = self.start.last().copied().unwrap_or(0) as usize;
        self.nodes.truncate(n);
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
        self.holder[m as usize] = word;
        if let (Some(len), true) = (list_len, word != NONE && word & MULTI != 0) {
            self.multi[(word & INDEX) as usize].truncate(len as usize);
        }
    }
    /// Releases spare capacity.
    pub fn shrink_to_fit(&mut self) {
        self.constraint.shrink_to_fit();
        self.start.shrink_to_fit();
        self.nodes.shrink_to_fit();
        self.formed.shrink_to_fit();
        self.holder.shrink_to_fit();
        self.pairs.shrink_to_fit();
        self.multi.shrink_to_fit();
    }
    /// Heap bytes of the matches themselves: constraint, nodes, and the step each was formed at.
    pub fn match_bytes(&self) -> usize {
        self.constraint.heap_bytes()
            + self.start.capacity() * 4
            + self.nodes.capacity() * 4
            + self.formed.capacity() * 8
    }
    /// Heap bytes of the elements holding each match (a word per match, pairs, longer lists).
    pub fn holder_bytes(&self) -> usize {
        self.holder.capacity() * 4
            + self.pairs.capacity() * 8
            + self.multi.capacity() * std::mem::size_of::<SmallVec<[ElementId; 4]>>()
            + self
                .multi
                .iter()
                .filter(|s| s.spilled())
                .map(|s| s.capacity() * 4)
                .sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ets::ids::ConstraintId;

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
