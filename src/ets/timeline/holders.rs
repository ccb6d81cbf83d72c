//! Per node of a level, the elements holding it (§3.4.1.1: a node belongs to each class element
//! one of whose applications holds it), in the order they joined it.
//!
//! Most nodes have one to five holders (at level 0 of the settings measured, nearly all have three or
//! five), so each node has a slot of five inline ids and a length, 24 bytes, instead of a small
//! vector of 32. A node that gets a sixth holder moves its list to a side table (`spilled`); a
//! truncation back to five or fewer (an undo) moves it inline again, so that the side entries
//! made by a step that is taken back are released with it.

use crate::ets::growth::grow;
use crate::ets::ids::ElementId;

/// Inline ids per node.
const INLINE: usize = 5;
/// A slot's `len` when its list is in the side table at index `ids[0]`.
const SPILLED: u8 = u8::MAX;

#[derive(Debug, Clone, Copy, Default)]
struct Slot {
    ids: [ElementId; INLINE],
    len: u8,
}

/// The holders of each node.
#[derive(Debug, Clone, Default)]
pub(crate) struct NodeHolders {
    slots: Vec<Slot>,
    spilled: Vec<Vec<ElementId>>,
}

impl NodeHolders {
    /// Number of nodes with a slot (each node below it has one, perhaps empty).
    #[inline]
    pub fn len(&self) -> usize {
        self.slots.len()
    }
    /// Number of side lists (for the undo of a step: [`NodeHolders::truncate`]).
    pub fn spilled_len(&self) -> usize {
        self.spilled.len()
    }
    /// The holders of node `x`, in the order they joined it (none for a node without a slot).
    #[inline]
    pub fn get(&self, x: usize) -> &[ElementId] {
        match self.slots.get(x) {
            None => &[],
            Some(s) if s.len == SPILLED => &self.spilled[s.ids[0] as usize],
            Some(s) => &s.ids[..s.len as usize],
        }
    }
    /// Whether `e` holds node `x`.
    #[inline]
    pub fn contains(&self, x: usize, e: ElementId) -> bool {
        self.get(x).contains(&e)
    }
    /// Gives every node up to `x` a slot.
    #[inline]
    pub fn cover(&mut self, x: usize) {
        if self.slots.len() <= x {
            let extra = x + 1 - self.slots.len();
            grow(&mut self.slots, extra);
            self.slots.resize(x + 1, Slot::default());
        }
    }
    /// `e` joins node `x` (last).
    #[inline]
    pub fn push(&mut self, x: usize, e: ElementId) {
        self.cover(x);
        let s = &mut self.slots[x];
        if s.len == SPILLED {
            self.spilled[s.ids[0] as usize].push(e);
        } else if (s.len as usize) < INLINE {
            s.ids[s.len as usize] = e;
            s.len += 1;
        } else {
            let mut v = Vec::with_capacity(INLINE * 2);
            v.extend_from_slice(&s.ids);
            v.push(e);
            s.ids[0] = self.spilled.len() as ElementId;
            s.len = SPILLED;
            self.spilled.push(v);
        }
    }
    /// Keeps the first `len` holders of node `x`.
    pub fn truncate_node(&mut self, x: usize, len: usize) {
        let Some(s) = self.slots.get_mut(x) else {
            return;
        };
        if s.len != SPILLED {
            s.len = s.len.min(len as u8);
            return;
        }
        let i = s.ids[0] as usize;
        let v = &mut self.spilled[i];
        v.truncate(len);
        if v.len() <= INLINE {
            let v = std::mem::take(v);
            s.ids[..v.len()].copy_from_slice(&v);
            s.len = v.len() as u8;
        }
    }
    /// Removes the last occurrence of `e` from the holders of node `x`, if any; the others keep
    /// their order.
    pub fn remove_last(&mut self, x: usize, e: ElementId) {
        let Some(s) = self.slots.get_mut(x) else {
            return;
        };
        if s.len == SPILLED {
            let v = &mut self.spilled[s.ids[0] as usize];
            if let Some(i) = v.iter().rposition(|&f| f == e) {
                v.remove(i);
            }
        } else if let Some(i) = s.ids[..s.len as usize].iter().rposition(|&f| f == e) {
            s.ids.copy_within(i + 1..s.len as usize, i);
            s.len -= 1;
        }
    }
    /// Keeps the slots of the first `nodes` nodes and the first `spilled` side lists (the sizes
    /// before a step that is taken back, its per-node truncations already undone: a list that
    /// moved aside at that step is inline again).
    pub fn truncate(&mut self, nodes: usize, spilled: usize) {
        self.slots.truncate(nodes);
        self.spilled.truncate(spilled);
    }
    /// Releases spare capacity.
    pub fn shrink_to_fit(&mut self) {
        self.slots.shrink_to_fit();
        self.spilled.shrink_to_fit();
        for v in &mut self.spilled {
            v.shrink_to_fit();
        }
    }
    /// Heap bytes held.
    pub fn heap_bytes(&self) -> usize {
        self.slots.capacity() * std::mem::size_of::<Slot>()
            + self.spilled.capacity() * std::mem::size_of::<Vec<ElementId>>()
            + self.spilled.iter().map(|v| v.capacity() * 4).sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_slot_is_24_bytes() {
        assert_eq!(std::mem::size_of::<Slot>(), 24);
    }

    #[derive(Debug, Clone)]
    enum Op {
        Push(usize, ElementId),
        TruncateNode(usize, usize),
        RemoveLast(usize, ElementId),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            4 => (0..6usize, 0..9u32).prop_map(|(x, e)| Op::Push(x, e)),
            1 => (0..6usize, 0..9usize).prop_map(|(x, l)| Op::TruncateNode(x, l)),
            1 => (0..6usize, 0..9u32).prop_map(|(x, e)| Op::RemoveLast(x, e)),
        ]
    }

    fn apply(h: &mut NodeHolders, m: &mut Vec<Vec<ElementId>>, o: &Op) {
        match *o {
            Op::Push(x, e) => {
                h.push(x, e);
                if m.len() <= x {
                    m.resize(x + 1, Vec::new());
                }
                m[x].push(e);
            }
            Op::TruncateNode(x, l) => {
                h.truncate_node(x, l);
                if let Some(v) = m.get_mut(x) {
                    v.truncate(l);
                }
            }
            Op::RemoveLast(x, e) => {
                h.remove_last(x, e);
                if let Some(v) = m.get_mut(x)
                    && let Some(i) = v.iter().rposition(|&f| f == e)
                {
                    v.remove(i);
                }
            }
        }
    }

    fn same(h: &NodeHolders, m: &[Vec<ElementId>]) -> Result<(), TestCaseError> {
        prop_assert_eq!(h.len(), m.len());
        for (x, v) in m.iter().enumerate() {
            prop_assert_eq!(h.get(x), v.as_slice());
            for e in 0..9 {
                prop_assert_eq!(h.contains(x, e), v.contains(&e));
            }
        }
        Ok(())
    }

    proptest! {
        /// The table holds what a list per node holds, through pushes, truncations and removals,
        /// and a step taken back (its per-node truncations in reverse, then the sizes) leaves it
        /// as it was, with no side list the step made.
        #[test]
        fn holders_are_a_list_per_node(before in prop::collection::vec(op(), 0..40), step in prop::collection::vec(op(), 0..40)) {
            let (mut h, mut m) = (NodeHolders::default(), Vec::new());
            for o in &before {
                apply(&mut h, &mut m, o);
                same(&h, &m)?;
            }
            let (nodes, spilled, kept) = (h.len(), h.spilled_len(), m.clone());
            // The journal of the step: a node's length before each push to a node it had.
            let mut log = Vec::new();
            for o in &step {
                if let Op::Push(x, _) = *o && x < nodes {
                    log.push((x, h.get(x).len()));
                }
                // Only pushes in the step: removals are not taken back this way.
                if let Op::Push(..) = o {
                    apply(&mut h, &mut m, o);
                    same(&h, &m)?;
                }
            }
            for &(x, len) in log.iter().rev() {
                h.truncate_node(x, len);
            }
            h.truncate(nodes, spilled);
            same(&h, &kept)?;
            prop_assert!(h.spilled_len() <= spilled);
        }
    }
}
