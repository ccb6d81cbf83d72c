//! The matches of one level (§3.4.1.1: each a satisfaction of a constraint by part of the observed
//! structure), stored flat as they are found, with the step each was formed at and the elements
//! that hold it as an application.

use smallvec::SmallVec;

use crate::ets::growth::grow;
use crate::ets::ids::{ConstraintId, ElementId, MatchId, NONE, NodeId};

/// A holder word: `NONE`, one element, or `MULTI | index` of a list of several.
const MULTI: u32 = 1 << 31;

/// The matches of one level.
#[derive(Debug, Clone, Default)]
pub(crate) struct MatchStore {
    constraint: Vec<ConstraintId>,
    start: Vec<u32>,
    nodes: Vec<NodeId>,
    /// Per step that formed matches: `(step, its first match)`, in match order (matches are
    /// stored as they are formed, so the step of a match is that of the run holding it).
    formed: Vec<(u32, MatchId)>,
    holder: Vec<u32>,
    multi: Vec<SmallVec<[ElementId; 4]>>,
}

impl MatchStore {
    /// Appends a match formed at step `t`; returns its id.
    pub fn push(&mut self, c: ConstraintId, nodes: &[NodeId], t: u32) -> MatchId {
        if self.start.is_empty() {
            self.start.push(0);
        }
        let id = self.constraint.len() as MatchId;
        grow(&mut self.constraint, 1);
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
        self.constraint[m as usize]
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
        } else if h & MULTI == 0 {
            h == e
        } else {
            self.multi[(h & !MULTI) as usize].contains(&e)
        }
    }
    /// The elements holding match `m`.
    #[inline]
    pub fn holders(&self, m: MatchId) -> &[ElementId] {
        let h = &self.holder[m as usize];
        if *h == NONE {
            &[]
        } else if *h & MULTI == 0 {
            std::slice::from_ref(h)
        } else {
            &self.multi[(*h & !MULTI) as usize]
        }
    }
    /// The raw holder word of `m` (for the journal).
    #[inline]
    pub fn holder_word(&self, m: MatchId) -> u32 {
        self.holder[m as usize]
    }
    /// Length of multi-holder list `i` (for the journal), when `word` names one.
    pub fn multi_len(&self, word: u32) -> Option<(u32, u32)> {
        (word != NONE && word & MULTI != 0).then(|| (word & !MULTI, self.multi[(word & !MULTI) as usize].len() as u32))
    }
    /// Adds `e` to the holders of `m` (it must not hold it yet).
    pub fn add_holder(&mut self, m: MatchId, e: ElementId) {
        let h = self.holder[m as usize];
        if h == NONE {
            self.holder[m as usize] = e;
        } else if h & MULTI == 0 {
            let i = self.multi.len() as u32;
            let mut v = SmallVec::new();
            v.push(h);
            v.push(e);
            grow(&mut self.multi, 1);
            self.multi.push(v);
            self.holder[m as usize] = MULTI | i;
        } else {
            self.multi[(h & !MULTI) as usize].push(e);
        }
    }
    /// Removes `e` from the holders of `m` (a stillborn element, added at the current step: the
    /// entries before it, which the journal's lengths keep, do not move).
    pub fn remove_holder(&mut self, m: MatchId, e: ElementId) {
        let h = self.holder[m as usize];
        if h == e {
            self.holder[m as usize] = NONE;
        } else if h != NONE && h & MULTI != 0 {
            let v = &mut self.multi[(h & !MULTI) as usize];
            if let Some(i) = v.iter().rposition(|&f| f == e) {
                v.remove(i);
            }
        }
    }
    /// Undo: the store as it was with `matches` matches and `multi` multi-holder lists.
    pub fn truncate(&mut self, matches: usize, multi: usize) {
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
    /// Undo: restores the holder word of `m` and the length of the list it names.
    pub fn restore_holder(&mut self, m: MatchId, word: u32, list_len: Option<u32>) {
        self.holder[m as usize] = word;
        if let (Some(len), true) = (list_len, word != NONE && word & MULTI != 0) {
            self.multi[(word & !MULTI) as usize].truncate(len as usize);
        }
    }
    /// Releases spare capacity.
    pub fn shrink_to_fit(&mut self) {
        self.constraint.shrink_to_fit();
        self.start.shrink_to_fit();
        self.nodes.shrink_to_fit();
        self.formed.shrink_to_fit();
        self.holder.shrink_to_fit();
        self.multi.shrink_to_fit();
    }
    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.constraint.capacity() * 4
            + self.start.capacity() * 4
            + self.nodes.capacity() * 4
            + self.formed.capacity() * 8
            + self.holder.capacity() * 4
            + self.multi.capacity() * std::mem::size_of::<SmallVec<[ElementId; 4]>>()
    }
}
