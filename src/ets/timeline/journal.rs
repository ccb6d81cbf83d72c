//! What one step changed in data that existed before it, so that the step can be taken back
//! (`Timeline::undo`): everything a step adds is truncated; everything it changes is written here
//! with its old value first.

use smallvec::SmallVec;

use super::level::ElemSnap;
use super::persist::PersLog;
use crate::ets::ids::{ElementId, MatchId, NodeId};

/// One change to earlier data.
#[derive(Debug, Clone)]
pub(crate) enum Entry {
    /// An element's state before its first change of the step (its index in the step's
    /// [`Journal::snaps`]).
    Elem(u8, ElementId, u32),
    /// The holders of an earlier node had this many entries.
    NodeHolders(u8, NodeId, u32),
    /// The holder word of an earlier match, and the length of the holder list it named.
    MatchHolder(u8, MatchId, u32, Option<u32>),
    /// The match index of an earlier node (level n) had this many entries.
    Index(u8, NodeId, u32),
    /// Match `m` stood at position `i` of the index of an earlier node (level n) before it left
    /// it (one of its nodes ended).
    IndexRemoved(u8, NodeId, u32, MatchId),
    /// An earlier node of a level-n host was not ended.
    HostEnded(u8, NodeId),
    /// The memo's mark of a node (level n) was this step (`memo::FloodMemo::changed`).
    Changed(u8, NodeId, u32),
}

/// The changes a step makes to earlier data, as it makes them: the entries in order, and the
/// elements' states they name, side by side (one list, not an allocation per element).
#[derive(Debug, Clone, Default)]
pub(crate) struct Journal {
    pub entries: Vec<Entry>,
    pub snaps: Vec<ElemSnap>,
}

impl Journal {
    /// Heap bytes held (the lists' capacity).
    pub(crate) fn heap_bytes(&self) -> usize {
        self.entries.capacity() * std::mem::size_of::<Entry>()
            + self.snaps.capacity() * std::mem::size_of::<ElemSnap>()
            + self.snaps.iter().map(ElemSnap::heap_bytes).sum::<usize>()
    }

    /// Writes down one change.
    #[inline]
    pub(crate) fn push(&mut self, e: Entry) {
        self.entries.push(e);
    }

    /// Writes down element `e`'s state (of level `n`) before its first change of the step.
    pub(crate) fn push_elem(&mut self, n: u8, e: ElementId, snap: ElemSnap) {
        self.entries.push(Entry::Elem(n, e, self.snaps.len() as u32));
        self.snaps.push(snap);
    }
}

/// Sizes before a step, and the changes it made to earlier data.
#[derive(Debug, Clone, Default)]
pub(crate) struct StepLog {
    pub nodes: usize,
    /// The struct's count of processes before the step (none of the step's ends before it).
    pub processes: usize,
    /// Per level: matches, holder pairs, multi-holder lists, elements, host nodes, host links.
    pub sizes: SmallVec<[LevelSizes; 4]>,
    /// Per level: the elements due to end at the step.
    pub due: SmallVec<[Vec<ElementId>; 4]>,
    /// The changes, and the elements' states they name.
    pub journal: Journal,
    /// The slots of the terminal sites of earlier primitives the step filled or closed (free
    /// before it): an undo frees them after the journal's changes are taken back.
    pub slots: Vec<u32>,
    /// A step made as a copy of a copy ([`crate::ets::structs::Struct::append_copy_again`]): the
    /// first slot of its source and the source's slots before the step (partners, sites).
    pub refill: Option<(u32, Vec<i16>, Vec<u8>)>,
    /// The struct's record of its last plain copy when the step began (given back by an undo).
    pub last_copy: Option<crate::ets::structs::LastCopy>,
    /// What the step changed of level 0's persisting set (when it was kept).
    pub pers: Option<Box<PersLog>>,
}

impl StepLog {
    /// Heap bytes held (the entries, the elements' states they keep, the sizes and due lists).
    pub fn heap_bytes(&self) -> usize {
        let spilled = |n: usize| if n > 4 { n } else { 0 };
        self.journal.heap_bytes()
            + self.slots.capacity() * 4
            + self
                .refill
                .as_ref()
                .map_or(0, |(_, d, s)| d.capacity() * 2 + s.capacity())
            + self
                .pers
                .as_ref()
                .map_or(0, |p| std::mem::size_of::<PersLog>() + p.heap_bytes())
            + spilled(self.sizes.capacity()) * std::mem::size_of::<LevelSizes>()
            + spilled(self.due.capacity()) * std::mem::size_of::<Vec<ElementId>>()
            + self.due.iter().map(|d| d.capacity() * 4).sum::<usize>()
    }
}

/// The sizes of one level's growing parts before a step.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct LevelSizes {
    pub matches: usize,
    pub pairs: usize,
    pub multi: usize,
    pub elements: usize,
    pub host_nodes: usize,
    pub host_links: usize,
    pub holders_nodes: usize,
    /// Side lists of node holders ([`super::holders::NodeHolders::spilled_len`]).
    pub holders_spilled: usize,
    pub index_nodes: usize,
    pub still_log: usize,
}
