//! Structs: concrete primitives joined by primal processes, a temporal DAG.
//!
//! Implements §3.3.2 ("Structs", Figs. 3.3–3.4): a struct records observed events; a terminal
//! site of an earlier primitive is attached to an initial site of a later one by a primal process
//! of the sites' common primal class. The invariants are kept by the type — every mutator returns
//! a `Result` and leaves the struct unchanged on error:
//! - site typing: a process joins a terminal and an initial site of the same primal class;
//! - at most one process per site;
//! - acyclicity (time runs one way), kept incrementally by a dynamic topological order
//!   (Pearce–Kelly, the algorithm behind petgraph's `Acyclic`, kept here so a struct stays `Sync`
//!   and can be matched from several threads).
//!
//! Queries: [`Struct::precedes`] and [`Struct::concurrent`] (the discussion of Fig. 3.3), open
//! sites, and the current frontier (the open terminal sites, where the struct can grow).
//!
//! Storage is by *site slots* (a slot per site, holding the partner of its process), so that
//! following a process from a site — the step of every anchored match — is one lookup; petgraph's
//! graph traits are implemented, so its algorithms run on a struct as they are.

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::sync::{Arc, OnceLock};

use super::error::StructError;
use super::growth::grow;
use super::primitive::{Alphabet, ConcretePrimitive, PrimalClassId, PrimitiveKind};

pub use super::ids::NodeId;

/// A primal process joining terminal site `from_site` of its source to initial site `to_site` of
/// its target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Process {
    /// Terminal site index on the earlier primitive.
    pub from_site: u16,
    /// Initial site index on the later primitive.
    pub to_site: u16,
}

/// One open site: a primitive and a site index on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OpenSite {
    /// The primitive.
    pub node: NodeId,
    /// The site index (initial or terminal, as the query says).
    pub site: u16,
}

/// No process at a site.
const FREE: NodeId = NodeId::MAX;
/// A terminal site closed: no process will ever leave it (the process it emits ends unobserved).
const CLOSED: NodeId = NodeId::MAX - 1;

/// The partner of each site slot, as an offset from the slot's own node in two bytes (a process
/// joins primitives recorded close together: a struct observed in time order joins each to one
/// of the last few hundred or thousand), or a mark: free, closed, or too far (kept in `far`).
#[derive(Clone, Default)]
struct Partners {
    delta: Vec<i16>,
    /// The partners more than two bytes away, by slot.
    far: FxHashMap<u32, NodeId>,
}

/// No process at the slot.
const D_FREE: i16 = i16::MIN;
/// A closed terminal site.
const D_CLOSED: i16 = i16::MIN + 1;
/// The partner is in `Partners::far`.
const D_FAR: i16 = i16::MIN + 2;
/// A partner this many nodes later, or more, may not fit two bytes (a bound on the forward
/// distances [`Struct::append_copy_again`] copies, well inside `i16::MAX`).
const D_NEAR: NodeId = 1 << 14;

impl Partners {
    /// The partner of slot `k` of node `owner` (or `FREE`, `CLOSED`).
    #[inline(always)]
    fn get(&self, k: usize, owner: NodeId) -> NodeId {
        Self::decode(self.delta[k], k, owner, &self.far)
    }
    /// [`Partners::get`] without the bound check.
    ///
    /// # Safety
    /// `k < self.delta.len()`.
    #[inline(always)]
    unsafe fn get_unchecked(&self, k: usize, owner: NodeId) -> NodeId {
        // SAFETY: `k < self.delta.len()` by this function's contract.
        Self::decode(unsafe { *self.delta.get_unchecked(k) }, k, owner, &self.far)
    }
    #[inline(always)]
    fn decode(d: i16, k: usize, owner: NodeId, far: &FxHashMap<u32, NodeId>) -> NodeId {
        if d > D_FAR {
            owner.wrapping_add_signed(d as i32)
        } else if d == D_FREE {
            FREE
        } else if d == D_CLOSED {
            CLOSED
        } else {
            Self::far_of(far, k)
        }
    }
    #[cold]
    fn far_of(far: &FxHashMap<u32, NodeId>, k: usize) -> NodeId {
        far.get(&(k as u32)).copied().unwrap_or(FREE)
    }
    /// Sets the partner of slot `k` of node `owner` to `m` (or `FREE`, `CLOSED`).
    #[inline]
    fn set(&mut self, k: usize, owner: NodeId, m: NodeId) {
        let d = match m {
            FREE => D_FREE,
            CLOSED => D_CLOSED,
            _ => match i16::try_from(m as i64 - owner as i64) {
                Ok(d) if d > D_FAR => d,
                _ => {
                    self.far.insert(k as u32, m);
                    D_FAR
                }
            },
        };
        if self.delta[k] == D_FAR && d != D_FAR {
            self.far.remove(&(k as u32));
        }
        self.delta[k] = d;
    }
    /// Sets free slot `k` of node `owner` to node `m` ([`Partners::set`] where the slot is known
    /// to be free and `m` to be a node: no mark to write, no far partner to drop).
    #[inline]
    fn set_free(&mut self, k: usize, owner: NodeId, m: NodeId) {
        debug_assert!(self.delta[k] == D_FREE && m < CLOSED);
        match i16::try_from(m as i64 - owner as i64) {
            Ok(d) if d > D_FAR => self.delta[k] = d,
            _ => self.set(k, owner, m),
        }
    }
    /// Whether slot `k` is free.
    #[inline]
    fn is_free(&self, k: usize) -> bool {
        self.delta[k] == D_FREE
    }
    /// How many of the slots `range` hold a process.
    fn processes_in(&self, range: std::ops::Range<usize>) -> usize {
        self.delta[range]
            .iter()
            .filter(|&&d| d != D_FREE && d != D_CLOSED)
            .count()
    }
    /// How many of the slots `range` are free.
    fn free_in(&self, range: std::ops::Range<usize>) -> usize {
        self.delta[range].iter().filter(|&&d| d == D_FREE).count()
    }
    /// Whether one of the slots `range` is free.
    #[inline]
    fn any_free_in(&self, range: std::ops::Range<usize>) -> bool {
        // (A fold, not `contains` or `any`: measured, a node's few sites read without an early
        // exit take fewer instructions over a whole game.)
        self.delta[range].iter().fold(false, |o, &d| o | (d == D_FREE))
    }
    #[inline]
    fn len(&self) -> usize {
        self.delta.len()
    }
    /// Room for `n` more slots, then `n` free ones.
    #[inline]
    fn push_free(&mut self, n: usize) {
        grow(&mut self.delta, n);
        if n <= 8 {
            // Copies of a short constant: cheaper than a fill loop for the usual few sites.
            self.delta.extend_from_slice(&[D_FREE; 8][..n]);
        } else {
            self.delta.resize(self.delta.len() + n, D_FREE);
        }
    }
    fn truncate(&mut self, len: usize) {
        self.delta.truncate(len);
        if !self.far.is_empty() {
            self.far.retain(|&k, _| (k as usize) < len);
        }
    }
    fn shrink_to_fit(&mut self) {
        self.delta.shrink_to_fit();
        self.far.shrink_to_fit();
    }
    fn heap_bytes(&self) -> usize {
        self.delta.capacity() * 2 + self.far.capacity() * (std::mem::size_of::<(u32, NodeId)>() + 1)
    }
}

/// A struct (§3.3.2): a temporal DAG of concrete primitives over an [`Alphabet`].
///
/// Stored as site slots: every primitive owns one slot per initial site, then one per terminal
/// site (how many is fixed by its abstract primitive), and a process is written into the slots of
/// its two sites (the partner and the partner's site). Since a site holds at most one process,
/// following a process from a site is one lookup — the step every anchored match takes.
#[derive(Clone)]
pub struct Struct {
    alphabet: Arc<Alphabet>,
    /// Per abstract primitive: (initial sites, terminal sites).
    shape: Vec<(u16, u16)>,
    /// Per abstract primitive: the primal class of each initial site, then of each terminal site.
    site_class: Vec<Vec<PrimalClassId>>,
    /// Whether every site of every abstract primitive is of one primal class (then any terminal
    /// site may meet any initial site, and `connect` need not compare classes).
    one_class: bool,
    /// Abstract primitive of each node (an alphabet has at most 65,536 primitives).
    kinds: Vec<u16>,
    /// First slot of each node, and one past the last slot at the end.
    first_slot: Vec<u32>,
    /// Per slot: the partner node, or `FREE`, `CLOSED`.
    slot_node: Partners,
    /// Per slot: the partner's site (a side of a primitive has at most 256 sites).
    slot_site: Vec<u8>,
    processes: usize,
    /// Topological rank of each node: a permutation of `0..len`, every process goes up in rank.
    /// Empty while node order itself is such a permutation (every process so far joins an earlier
    /// node to a later one, as a struct recorded in time order does): the rank of `n` is then `n`.
    rank: Vec<u32>,
    /// Node → id, once an id differs from its node index; empty while ids are dense.
    ids: Vec<u64>,
    /// Id → node, once an id differs from its node index; empty while ids are dense.
    by_id: FxHashMap<u64, NodeId>,
    /// Whether every primitive's id equals its node index (then `ids` and `by_id` are not needed).
    dense: bool,
    /// Per abstract primitive, its nodes in insertion order: built when first asked for
    /// ([`Struct::nodes_of`]) and kept up to date from then on (an anchored search never asks).
    by_kind: OnceLock<Vec<Vec<NodeId>>>,
    next_id: u64,
    /// The last plain copy ([`Struct::append_copy`]), while nothing else has changed the struct
    /// since (every other change forgets it): what [`Struct::append_copy_again`] reads.
    last_copy: Option<LastCopy>,
}

/// A plain copy ([`Struct::append_copy`]) of the whole last nodes `src..n0` into `n0..n0 +
/// (n0 - src)`: the first slot of each, the count of slots, and whether every process into the
/// source from an earlier node came from the nodes just before it, as many (so the copy filled
/// terminal sites of the source only), each within two bytes of its partner.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LastCopy {
    src: NodeId,
    n0: NodeId,
    src_slot: u32,
    slot: u32,
    slots: u32,
    /// How many processes the copy added (as many as a copy of it adds).
    processes: u32,
    from_prev: bool,
}

/// What [`Struct::append_copy_again`] made: the slots of the copy's source, whose terminal sites
/// it filled, and of the copy (the source's as they were before, at the same offsets).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Again {
    /// The first node of the copy.
    pub n0: NodeId,
    /// The source's first slot.
    pub src_slot: u32,
    /// The copy's first slot.
    pub slot: u32,
    /// How many slots each has.
    pub slots: u32,
}

impl std::fmt::Debug for Struct {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Struct")
            .field("primitives", &self.len())
            .field("processes", &self.process_count())
            .finish()
    }
}

impl Struct {
    /// An empty struct over `alphabet`.
    pub fn new(alphabet: Arc<Alphabet>) -> Self {
        Self::with_capacity(alphabet, 0, 0)
    }

    /// An empty struct with room for `primitives` primitives and `processes` processes.
    pub fn with_capacity(alphabet: Arc<Alphabet>, primitives: usize, processes: usize) -> Self {
        let kinds = alphabet.len();
        debug_assert!(kinds <= 1 << 16, "an alphabet holds at most 65,536 primitives");
        let shape = (0..kinds as u32)
            .map(|k| {
                let p = alphabet.primitive(PrimitiveKind(k));
                (p.initials.len() as u16, p.terminals.len() as u16)
            })
            .collect();
        let site_class: Vec<Vec<PrimalClassId>> = (0..kinds as u32)
            .map(|k| {
                let p = alphabet.primitive(PrimitiveKind(k));
                p.initials.iter().chain(&p.terminals).map(|s| s.class).collect()
            })
            .collect();
        let first_class = site_class.iter().flatten().next();
        let one_class = site_class.iter().flatten().all(|c| Some(c) == first_class);
        let mut first_slot = Vec::with_capacity(primitives + 1);
        first_slot.push(0);
        Struct {
            alphabet,
            shape,
            site_class,
            one_class,
            kinds: Vec::with_capacity(primitives),
            first_slot,
            slot_node: Partners {
                delta: Vec::with_capacity(processes * 2),
                far: FxHashMap::default(),
            },
            slot_site: Vec::with_capacity(processes * 2),
            processes: 0,
            rank: Vec::new(),
            ids: Vec::new(),
            by_id: FxHashMap::default(),
            dense: true,
            by_kind: OnceLock::new(),
            next_id: 0,
            last_copy: None,
        }
    }

    /// The alphabet the struct is written over.
    pub fn alphabet(&self) -> &Arc<Alphabet> {
        &self.alphabet
    }

    /// Number of primitives.
    pub fn len(&self) -> usize {
        self.kinds.len()
    }
    /// Whether the struct holds no primitive.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Number of processes.
    pub fn process_count(&self) -> usize {
        self.processes
    }

    /// Adds a concrete primitive of `kind` with a fresh id; returns its node index.
    pub fn add_primitive(&mut self, kind: PrimitiveKind) -> Result<NodeId, StructError> {
        self.last_copy = None;
        if self.dense && self.next_id == self.len() as u64 {
            return self.push_dense(kind);
        }
        while self.node_of_id(self.next_id).is_some() {
            self.next_id += 1;
        }
        self.add_primitive_with_id(kind, self.next_id)
    }

    /// [`Struct::add_primitive`] while ids are node indices and the next id is the next index (a
    /// struct built by appending): no id can clash, so no id bookkeeping.
    #[inline]
    fn push_dense(&mut self, kind: PrimitiveKind) -> Result<NodeId, StructError> {
        let n = self.append(kind)?;
        self.next_id = n as u64 + 1;
        Ok(n)
    }

    /// The storage part of adding a primitive of `kind`: its kind, free slots, rank and kind
    /// list (the one place `kinds` and the slots grow). Returns its node.
    #[inline]
    fn append(&mut self, kind: PrimitiveKind) -> Result<NodeId, StructError> {
        let Some(&(ni, nt)) = self.shape.get(kind.0 as usize) else {
            return Err(StructError::UnknownKind(kind.0));
        };
        if self.len() >= NodeId::MAX as usize - 1 {
            return Err(StructError::UnknownNode(NodeId::MAX));
        }
        let n = self.len() as NodeId;
        let slots = (ni + nt) as usize;
        let end = self.slot_node.len() + slots;
        if end > u32::MAX as usize {
            return Err(StructError::UnknownNode(NodeId::MAX));
        }
        grow(&mut self.kinds, 1);
        grow(&mut self.first_slot, 1);
        grow(&mut self.slot_site, slots);
        self.kinds.push(kind.0 as u16);
        self.slot_node.push_free(slots);
        if slots <= 8 {
            // Copies of a short constant: cheaper than a fill loop for the usual few sites.
            self.slot_site.extend_from_slice(&[0; 8][..slots]);
        } else {
            self.slot_site.resize(end, 0);
        }
        self.first_slot.push(end as u32);
        if !self.rank.is_empty() {
            self.rank.push(n);
        }
        if let Some(by_kind) = self.by_kind.get_mut() {
            by_kind[kind.0 as usize].push(n);
        }
        Ok(n)
    }

    /// Adds a concrete primitive of `kind` with the given identity.
    pub fn add_primitive_with_id(&mut self, kind: PrimitiveKind, id: u64) -> Result<NodeId, StructError> {
        self.last_copy = None;
        if self.shape.get(kind.0 as usize).is_none() {
            return Err(StructError::UnknownKind(kind.0));
        }
        if self.node_of_id(id).is_some() {
            return Err(StructError::DuplicateId(id));
        }
        let n = self.append(kind)?;
        if self.dense && id != n as u64 {
            self.dense = false;
            self.ids = (0..n as u64).collect();
            self.by_id = (0..n).map(|m| (m as u64, m)).collect();
        }
        if !self.dense {
            self.ids.push(id);
            self.by_id.insert(id, n);
        }
        if id >= self.next_id {
            self.next_id = id + 1;
        }
        Ok(n)
    }

    fn check_node(&self, n: NodeId) -> Result<(), StructError> {
        if (n as usize) < self.len() {
            Ok(())
        } else {
            Err(StructError::UnknownNode(n))
        }
    }

    /// The slot of initial site `site` of `n`, if the site exists.
    #[inline]
    fn initial_slot(&self, n: NodeId, site: usize) -> Option<usize> {
        let (ni, _) = self.shape[self.kinds[n as usize] as usize];
        (site < ni as usize).then(|| self.first_slot[n as usize] as usize + site)
    }

    /// The slot of terminal site `site` of `n`, if the site exists.
    #[inline]
    fn terminal_slot(&self, n: NodeId, site: usize) -> Option<usize> {
        let slots = self.terminal_slots(n);
        (site < slots.len()).then(|| slots.start + site)
    }

    /// The slots of the terminal sites of `n`, in site order.
    #[inline]
    fn terminal_slots(&self, n: NodeId) -> std::ops::Range<usize> {
        let (ni, nt) = self.shape[self.kinds[n as usize] as usize];
        let base = self.first_slot[n as usize] as usize + ni as usize;
        base..base + nt as usize
    }

    /// The concrete primitive at node `n`.
    ///
    /// # Panics
    /// If `n` is not a node of this struct (node indices come from this struct's own methods).
    pub fn primitive(&self, n: NodeId) -> ConcretePrimitive {
        let kind = PrimitiveKind(self.kinds[n as usize] as u32);
        let id = if self.dense { n as u64 } else { self.ids[n as usize] };
        ConcretePrimitive { kind, id }
    }
    /// The abstract primitive kind of node `n`.
    #[inline]
    pub fn kind_of(&self, n: NodeId) -> PrimitiveKind {
        PrimitiveKind(self.kinds[n as usize] as u32)
    }
    /// The node holding the primitive with identity `id`.
    pub fn node_of_id(&self, id: u64) -> Option<NodeId> {
        if self.dense {
            (id < self.len() as u64).then_some(id as NodeId)
        } else {
            self.by_id.get(&id).copied()
        }
    }
    /// The nodes of one abstract primitive, in insertion order.
    pub fn nodes_of(&self, kind: PrimitiveKind) -> &[NodeId] {
        let by_kind = self.by_kind.get_or_init(|| {
            let mut v = vec![Vec::new(); self.shape.len()];
            for (n, &k) in self.kinds.iter().enumerate() {
                v[k as usize].push(n as NodeId);
            }
            v
        });
        by_kind.get(kind.0 as usize).map(|v| v.as_slice()).unwrap_or(&[])
    }

    /// The topological rank of node `n` (see the field `rank`).
    #[inline]
    fn rank_of(&self, n: NodeId) -> u32 {
        if self.rank.is_empty() { n } else { self.rank[n as usize] }
    }
    /// All node indices.
    pub fn nodes(&self) -> impl Iterator<Item = NodeId> + '_ {
        0..self.len() as NodeId
    }

    /// Joins terminal site `from_site` of `from` to initial site `to_site` of `to` by a primal
    /// process. Fails, leaving the struct unchanged, if a site does not exist, the sites' primal
    /// classes differ, a site already holds a process, or the process would close a cycle.
    pub fn connect(&mut self, from: NodeId, from_site: usize, to: NodeId, to_site: usize) -> Result<(), StructError> {
        self.last_copy = None;
        // The common case (a later primitive fed by an earlier one, both sites free and of one
        // class) in a few lookups; anything else takes the checked path below.
        if let Some((a, b)) = self.free_pair(from, from_site, to, to_site)
            && self.rank_of(from) < self.rank_of(to)
        {
            self.slot_node.set_free(a, from, to);
            self.slot_site[a] = to_site as u8;
            self.slot_node.set_free(b, to, from);
            self.slot_site[b] = from_site as u8;
            self.processes += 1;
            return Ok(());
        }
        self.connect_checked(from, from_site, to, to_site)
    }

    /// Appends a copy of the nodes `src`, each fed as its original is, one translation on: where
    /// initial site `s` of original `p` is fed from terminal site `ts` of `x`, site `s` of the copy
    /// of `p` is fed from site `ts` of `x + shift`, `shift` being how far the copy lies from `src`
    /// (the struct's length before the call, less `src.start`). So a process between two nodes of
    /// `src` joins their copies, and one from an earlier node `x` fills site `ts` of `x + shift`,
    /// after which `fed(self, x + shift, ts, open)` is called, `open` saying whether `x + shift`
    /// has a terminal site still free (node by node, site by site: the order in
    /// which [`Struct::add_primitive`] and [`Struct::connect`] would make the same copy). The copy
    /// of `src.start + k` is of its original's kind, or of `kind` where `(k, kind)` is in
    /// `kinds` (sorted by `k`), which must have the same sites, each of the same primal class.
    /// What a struct observed again one step on looks like when little changed (§3.3.2: the
    /// processes of the same events, later); returns the copy's first node.
    ///
    /// Fails, leaving the struct unchanged, when `src` is not a range of nodes, a kind does not
    /// exist or has other sites than its original, or a process cannot be made (its terminal site
    /// missing, of another class, already feeding a process or closed).
    pub fn append_copy(
        &mut self,
        src: std::ops::Range<NodeId>,
        kinds: &[(u32, PrimitiveKind)],
        mut fed: impl FnMut(&Struct, NodeId, usize, bool),
    ) -> Result<NodeId, StructError> {
        self.append_copy_slots(src, kinds, |st, x, site, _, open| fed(st, x, site, open))
    }

    /// The kinds of a copy of `src` with `kinds` changed (offset in `src`, new kind: in offset
    /// order, each of the same sites as the kind it replaces).
    fn copy_kinds(
        &self,
        src: std::ops::Range<NodeId>,
        kinds: &[(u32, PrimitiveKind)],
    ) -> Result<Vec<u16>, StructError> {
        let count = (src.end - src.start) as usize;
        let mut copy_kinds: Vec<u16> = self.kinds[src.start as usize..src.end as usize].to_vec();
        let mut last = None;
        for &(k, kind) in kinds {
            if k as usize >= count || last.is_some_and(|l| l >= k) {
                return Err(StructError::CopyKinds);
            }
            last = Some(k);
            let old = copy_kinds[k as usize] as usize;
            let new = kind.0 as usize;
            if new >= self.shape.len() {
                return Err(StructError::UnknownKind(kind.0));
            }
            if self.shape[new] != self.shape[old] || self.site_class[new] != self.site_class[old] {
                return Err(StructError::CopyKindSites {
                    from: self.alphabet.primitive(PrimitiveKind(old as u32)).name.clone(),
                    to: self.alphabet.primitive(kind).name.clone(),
                });
            }
            copy_kinds[k as usize] = new as u16;
        }
        Ok(copy_kinds)
    }

    /// The storage part of a copy of the last nodes' `src` with kinds `copy_kinds`, its slots
    /// `slots` (theirs) copied as they stand: kinds, first slots (the originals', one translation
    /// on) and slots appended. Returns how far the slots moved.
    fn extend_copied(
        &mut self,
        src: std::ops::Range<NodeId>,
        copy_kinds: &[u16],
        slots: std::ops::Range<usize>,
    ) -> usize {
        let (count, n) = (copy_kinds.len(), slots.end - slots.start);
        let slot_shift = self.slot_node.len() - slots.start;
        grow(&mut self.kinds, count);
        grow(&mut self.first_slot, count);
        grow(&mut self.slot_node.delta, n);
        grow(&mut self.slot_site, n);
        self.kinds.extend_from_slice(copy_kinds);
        // (Each copy's first slot is its original's, one translation on: copied, then moved.)
        let at = self.first_slot.len();
        self.first_slot
            .extend_from_within(src.start as usize + 1..src.end as usize + 1);
        for f in &mut self.first_slot[at..] {
            *f += slot_shift as u32;
        }
        self.slot_node.delta.extend_from_within(slots.clone());
        self.slot_site.extend_from_within(slots);
        self.next_id = self.len() as u64;
        slot_shift
    }

    /// Whether nodes are appended as plainly as a copy assumes: ids are node indices (the next
    /// one `n0`), node order is a topological order, and no list by kind is kept.
    fn appends_plainly(&self, n0: NodeId) -> bool {
        self.dense && self.next_id == n0 as u64 && self.rank.is_empty() && self.by_kind.get().is_none()
    }

    /// [`Struct::append_copy`] of the whole last nodes `src` when they are themselves the last
    /// plain copy of the nodes just before them, every process into those from the nodes before
    /// them, and nothing else changed since ([`LastCopy`]): the copy's slots are the source's as
    /// they are, and the source's terminal sites are then filled as the copy of it filled those
    /// of its own source, one translation on (the processes into the source are those into its
    /// source, shifted, so the ones into the copy are too). So the source's slots become its
    /// source's, copied whole: no process is written one by one. Returns `None`, with nothing
    /// changed, when this does not apply (the caller copies the general way); the terminal sites
    /// it fills are those of the source that [`Struct::has_open_terminal`] finds open in the
    /// copy and not in the source.
    pub(crate) fn append_copy_again(
        &mut self,
        src: std::ops::Range<NodeId>,
        kinds: &[(u32, PrimitiveKind)],
    ) -> Result<Option<Again>, StructError> {
        let n0 = self.len() as NodeId;
        let Some(lc) = self.last_copy else {
            return Ok(None);
        };
        let count = src.end.wrapping_sub(src.start);
        let plain = self.appends_plainly(n0);
        if !(plain
            && lc.from_prev
            && src.start == lc.n0
            && src.end == n0
            && lc.n0 - lc.src == count
            && lc.slot == self.first_slot[src.start as usize]
            && self.first_slot[n0 as usize] - lc.slot == lc.slots)
        {
            return Ok(None);
        }
        if self.len() + count as usize >= NodeId::MAX as usize - 1
            || self.slot_node.len() + lc.slots as usize > u32::MAX as usize
        {
            return Ok(None);
        }
        let copy_kinds = self.copy_kinds(src.clone(), kinds)?;
        #[cfg(debug_assertions)]
        let expected = {
            let mut slow = self.clone();
            slow.append_copy_slots(src.clone(), kinds, |_, _, _, _, _| {})
                .map(|_| slow)
        };
        let (a, b, len) = (lc.src_slot as usize, lc.slot as usize, lc.slots as usize);
        let c = self.slot_node.len();
        self.extend_copied(src.clone(), &copy_kinds, b..b + len);
        // As many processes end at the copy's initial sites as at its source's.
        self.processes += lc.processes as usize;
        self.slot_node.delta.copy_within(a..a + len, b);
        self.slot_site.copy_within(a..a + len, b);
        self.last_copy = Some(LastCopy {
            src: src.start,
            n0,
            src_slot: b as u32,
            slot: c as u32,
            slots: len as u32,
            processes: lc.processes,
            from_prev: true,
        });
        #[cfg(debug_assertions)]
        if let Ok(slow) = expected {
            debug_assert!(
                slow.slot_node.delta == self.slot_node.delta
                    && slow.slot_site == self.slot_site
                    && slow.first_slot == self.first_slot
                    && slow.kinds == self.kinds
                    && slow.processes == self.processes,
                "a copy of a copy made whole as the general copy makes it"
            );
        }
        Ok(Some(Again {
            n0,
            src_slot: b as u32,
            slot: c as u32,
            slots: len as u32,
        }))
    }

    /// Undo of [`Struct::append_copy_again`] (before the copy is truncated away): the source's
    /// slots from `from` on as they were (`delta`, `site`, as [`Struct::slots_of`] read them).
    pub(crate) fn restore_slots(&mut self, from: u32, delta: &[i16], site: &[u8]) {
        self.last_copy = None;
        let from = from as usize;
        self.slot_node.delta[from..from + delta.len()].copy_from_slice(delta);
        self.slot_site[from..from + site.len()].copy_from_slice(site);
    }

    /// The slots `from..from + len` as they are (partners as two-byte offsets, sites), appended
    /// to `delta` and `site`.
    pub(crate) fn slots_of(&self, from: u32, len: u32, delta: &mut Vec<i16>, site: &mut Vec<u8>) {
        let r = from as usize..(from + len) as usize;
        delta.extend_from_slice(&self.slot_node.delta[r.clone()]);
        site.extend_from_slice(&self.slot_site[r]);
    }

    /// The last plain copy's record (kept by a timeline's step, to be given back when the step is
    /// taken back: the struct is then as it was when the step began).
    pub(crate) fn last_copy(&self) -> Option<LastCopy> {
        self.last_copy
    }

    /// Gives back a record [`Struct::last_copy`] read.
    pub(crate) fn set_last_copy(&mut self, lc: Option<LastCopy>) {
        self.last_copy = lc;
    }

    /// [`Struct::append_copy`], `fed` told also the slot it fills ([`Struct::free_slot`] frees
    /// it again).
    pub(crate) fn append_copy_slots(
        &mut self,
        src: std::ops::Range<NodeId>,
        kinds: &[(u32, PrimitiveKind)],
        mut fed: impl FnMut(&Struct, NodeId, usize, u32, bool),
    ) -> Result<NodeId, StructError> {
        self.last_copy = None;
        let n0 = self.len() as NodeId;
        if src.end > n0 || src.start > src.end {
            return Err(StructError::UnknownNode(src.end.max(src.start)));
        }
        let count = (src.end - src.start) as usize;
        if self.len() + count >= NodeId::MAX as usize - 1 {
            return Err(StructError::UnknownNode(NodeId::MAX));
        }
        let shift = n0 - src.start;
        // The copy's kinds, checked; then its processes from earlier nodes (their terminal
        // sites), before anything is written.
        let copy_kinds = self.copy_kinds(src.clone(), kinds)?;
        let (slot_from, slot_to) = (
            self.first_slot[src.start as usize] as usize,
            self.first_slot[src.end as usize] as usize,
        );
        if self.slot_node.len() + (slot_to - slot_from) > u32::MAX as usize {
            return Err(StructError::UnknownNode(NodeId::MAX));
        }
        // A partner too far for two bytes, or a closed site: the copy takes the general path.
        // (`D_CLOSED` and `D_FAR` are the two marks after `D_FREE`: one comparison, folded so
        // that it runs over many slots at once.)
        let odd = self.slot_node.delta[slot_from..slot_to]
            .iter()
            .fold(0u16, |acc, &d| acc | ((d.wrapping_sub(D_CLOSED) as u16) < 2) as u16)
            != 0;
        let plain = self.appends_plainly(n0);
        if plain && !odd {
            return self.append_copy_plain(src, copy_kinds, slot_from..slot_to, fed);
        }
        // The processes from earlier nodes checked (their terminal sites), then the copy made
        // one primitive and process at a time.
        for (k, &kind) in copy_kinds.iter().enumerate() {
            let p = src.start + k as NodeId;
            let (ni, _) = self.shape[kind as usize];
            let pb = self.first_slot[p as usize] as usize;
            for s in 0..ni as usize {
                let x = self.slot_node.get(pb + s, p);
                if x >= CLOSED {
                    continue;
                }
                if x >= src.start {
                    continue;
                }
                self.feed_slots(x + shift, self.slot_site[pb + s], kind, s)?;
            }
        }
        for (k, &kind) in copy_kinds.iter().enumerate() {
            let p = src.start + k as NodeId;
            let n = self.add_primitive(PrimitiveKind(kind as u32))?;
            debug_assert_eq!(n, p + shift);
            let (ni, _) = self.shape[kind as usize];
            let (pb, nb) = (
                self.first_slot[p as usize] as usize,
                self.first_slot[n as usize] as usize,
            );
            for s in 0..ni as usize {
                let x = self.slot_node.get(pb + s, p);
                if x >= CLOSED {
                    continue;
                }
                let ts = self.slot_site[pb + s] as usize;
                let xs = x + shift;
                let a = self.first_slot[xs as usize] as usize
                    + self.shape[self.kinds[xs as usize] as usize].0 as usize
                    + ts;
                self.slot_node.set_free(a, xs, n);
                self.slot_site[a] = s as u8;
                self.slot_node.set_free(nb + s, n, xs);
                self.slot_site[nb + s] = ts as u8;
                self.processes += 1;
                if x < src.start {
                    let open = self.has_open_terminal(xs);
                    fed(self, xs, ts, a as u32, open);
                }
            }
        }
        Ok(n0)
    }

    /// [`Struct::append_copy`] of a dense struct (ids are node indices, no ranks, no index by
    /// kind) whose copied slots hold no closed site and no partner too far for two bytes, with
    /// `copy_kinds` checked: the slots are copied as they are (a partner's offset is the same one
    /// translation on). A terminal site feeding a node beyond `src` is free in the copy (with
    /// `src` the last nodes, no site of theirs feeds a later one), and a process from an earlier
    /// node is written into that node's terminal site too.
    fn append_copy_plain(
        &mut self,
        src: std::ops::Range<NodeId>,
        copy_kinds: Vec<u16>,
        slots: std::ops::Range<usize>,
        mut fed: impl FnMut(&Struct, NodeId, usize, u32, bool),
    ) -> Result<NodeId, StructError> {
        let n0 = self.len() as NodeId;
        let shift = n0 - src.start;
        // The processes of the copy, and those from earlier nodes as they will be written, checked
        // before anything is: each fills terminal slot `a` (site `ts`) of node `x`, whose
        // terminal slots are `tb..tb + nt`, from initial site `s` of the copy's node `n`.
        struct Fill {
            a: u32,
            tb: u32,
            nt: u16,
            s: u8,
            ts: u8,
            x: NodeId,
            n: NodeId,
        }
        let mut processes = 0;
        // Whether every process from an earlier node comes from the `count` nodes before `src`
        // (the whole copy's record, [`LastCopy`]).
        let mut from_prev = src.end == n0;
        // (About as many processes come from earlier nodes as the copy has initial sites.)
        let mut fills: Vec<Fill> = Vec::with_capacity(slots.end - slots.start);
        let delta = &self.slot_node.delta;
        for (k, &kind) in copy_kinds.iter().enumerate() {
            let p = src.start + k as NodeId;
            let ni = self.shape[kind as usize].0 as usize;
            let pb = self.first_slot[p as usize] as usize;
            for (s, &d) in delta[pb..pb + ni].iter().enumerate() {
                // (No closed site and no far partner among these slots.)
                if d == D_FREE {
                    continue;
                }
                processes += 1;
                let x = p.wrapping_add_signed(d as i32);
                if x >= src.start {
                    continue;
                }
                let (xs, ts) = (x + shift, self.slot_site[pb + s]);
                from_prev &= xs >= src.start && (p + shift - xs) < D_NEAR;
                let (tb, ntx) = self.feed_slots(xs, ts, kind, s)?;
                let a = tb + ts as u32;
                fills.push(Fill {
                    a,
                    tb,
                    nt: ntx,
                    s: s as u8,
                    ts,
                    x: xs,
                    n: p + shift,
                });
            }
        }
        let (slot_from, slot_to) = (slots.start, slots.end);
        let slot_shift = self.extend_copied(src.clone(), &copy_kinds, slots);
        self.processes += processes;
        let record = LastCopy {
            src: src.start,
            n0,
            src_slot: slot_from as u32,
            slot: (slot_from + slot_shift) as u32,
            slots: (slot_to - slot_from) as u32,
            processes: processes as u32,
            from_prev,
        };
        // The processes from earlier nodes: their terminal sites filled, in the copy's order.
        for f in fills {
            self.slot_node.set_free(f.a as usize, f.x, f.n);
            self.slot_site[f.a as usize] = f.s;
            let open = self.slot_node.any_free_in(f.tb as usize..f.tb as usize + f.nt as usize);
            fed(self, f.x, f.ts as usize, f.a, open);
        }
        if src.end < n0 {
            for (k, &kind) in copy_kinds.iter().enumerate() {
                let n = n0 + k as NodeId;
                let (ni, nt) = self.shape[kind as usize];
                let nb = self.first_slot[n as usize] as usize;
                for t in nb + ni as usize..nb + (ni + nt) as usize {
                    let m = self.slot_node.get(t, n);
                    if m < CLOSED && m >= src.end + shift {
                        self.slot_node.delta[t] = D_FREE;
                        self.slot_site[t] = 0;
                    }
                }
            }
        }
        self.last_copy = Some(record);
        Ok(n0)
    }

    /// A copy's process from an earlier node, checked before anything is written: terminal site
    /// `ts` of `xs` is to feed initial site `s` of a primitive of kind `kind`. Returns the first
    /// terminal slot of `xs` and how many it has, or the error [`Struct::check_feed`] names (the
    /// site missing, of another class, or not free).
    #[inline(always)]
    fn feed_slots(&self, xs: NodeId, ts: u8, kind: u16, s: usize) -> Result<(u32, u16), StructError> {
        let kx = self.kinds[xs as usize] as usize;
        let (nix, ntx) = self.shape[kx];
        let tb = self.first_slot[xs as usize] + nix as u32;
        let ok = (ts as u16) < ntx
            && (self.one_class || self.site_class[kx][nix as usize + ts as usize] == self.site_class[kind as usize][s])
            && self.slot_node.is_free((tb + ts as u32) as usize);
        if ok {
            return Ok((tb, ntx));
        }
        Err(match self.check_feed(xs, ts as usize, PrimitiveKind(kind as u32), s) {
            Err(e) => e,
            Ok(()) => StructError::UnknownNode(xs),
        })
    }

    /// Whether terminal site `from_site` of `from` can feed initial site `to_site` of a primitive
    /// of kind `to`: both sites exist, are of one primal class, and the terminal one is free
    /// (what [`Struct::check_connect`] checks of a process but the initial site's being free).
    fn check_feed(&self, from: NodeId, from_site: usize, to: PrimitiveKind, to_site: usize) -> Result<(), StructError> {
        let pf = self.primitive(from);
        let (af, at) = (self.alphabet.primitive(pf.kind), self.alphabet.primitive(to));
        let sf = af.terminals.get(from_site).ok_or_else(|| StructError::NoSuchSite {
            primitive: af.name.clone(),
            side: "terminal",
            site: from_site,
        })?;
        let st = at.initials.get(to_site).ok_or_else(|| StructError::NoSuchSite {
            primitive: at.name.clone(),
            side: "initial",
            site: to_site,
        })?;
        if sf.class != st.class {
            return Err(StructError::SiteTypeMismatch {
                from: format!("{}.{}", af.name, sf.name),
                from_class: self.alphabet.primal(sf.class).name.clone(),
                to: format!("{}.{}", at.name, st.name),
                to_class: self.alphabet.primal(st.class).name.clone(),
            });
        }
        if self.successor(from, from_site).is_some() {
            return Err(StructError::SiteOccupied {
                id: pf.id,
                side: "terminal",
                site: sf.name.clone(),
            });
        }
        if !self.terminal_open(from, from_site) {
            return Err(StructError::SiteClosed {
                id: pf.id,
                site: sf.name.clone(),
            });
        }
        Ok(())
    }

    /// [`Struct::connect`] off its common case: checked, and reordering ranks when needed.
    #[cold]
    #[inline(never)]
    fn connect_checked(
        &mut self,
        from: NodeId,
        from_site: usize,
        to: NodeId,
        to_site: usize,
    ) -> Result<(), StructError> {
        self.check_connect(from, from_site, to, to_site)?;
        self.reorder(from, to).map_err(|()| StructError::Cycle {
            from: self.primitive(from).id,
            to: self.primitive(to).id,
        })?;
        let a = self.terminal_slot(from, from_site).expect("checked");
        let b = self.initial_slot(to, to_site).expect("checked");
        self.slot_node.set(a, from, to);
        self.slot_site[a] = to_site as u8;
        self.slot_node.set(b, to, from);
        self.slot_site[b] = from_site as u8;
        self.processes += 1;
        Ok(())
    }

    /// Pearce–Kelly: before adding `a → b`, make rank(a) < rank(b) or report a cycle.
    fn reorder(&mut self, a: NodeId, b: NodeId) -> Result<(), ()> {
        let (ra, rb) = (self.rank_of(a), self.rank_of(b));
        if ra < rb {
            return Ok(());
        }
        if self.rank.is_empty() {
            // Node order stops being a topological order here (or a cycle is refused below):
            // the ranks are kept from now on.
            self.rank = (0..self.len() as u32).collect();
        }
        // Forward from b among ranks ≤ ra; reaching a is a cycle.
        let mut fwd = vec![b];
        let mut seen = rustc_hash::FxHashSet::default();
        seen.insert(b);
        let mut i = 0;
        while i < fwd.len() {
            let n = fwd[i];
            i += 1;
            for (_, m) in self.outgoing(n) {
                if m == a {
                    return Err(());
                }
                if self.rank[m as usize] <= ra && seen.insert(m) {
                    fwd.push(m);
                }
            }
        }
        let mut back = vec![a];
        seen.insert(a);
        let mut i = 0;
        while i < back.len() {
            let n = back[i];
            i += 1;
            for (m, _) in self.incoming(n) {
                if self.rank[m as usize] >= rb && seen.insert(m) {
                    back.push(m);
                }
            }
        }
        let key = |v: &mut Vec<NodeId>, rank: &[u32]| v.sort_unstable_by_key(|&n| rank[n as usize]);
        key(&mut fwd, &self.rank);
        key(&mut back, &self.rank);
        let mut pool: Vec<u32> = back.iter().chain(fwd.iter()).map(|&n| self.rank[n as usize]).collect();
        pool.sort_unstable();
        for (n, r) in back.iter().chain(fwd.iter()).zip(pool) {
            self.rank[*n as usize] = r;
        }
        Ok(())
    }

    /// Checks everything [`Struct::connect`] checks except acyclicity.
    pub fn check_connect(&self, from: NodeId, from_site: usize, to: NodeId, to_site: usize) -> Result<(), StructError> {
        self.check_node(from)?;
        self.check_node(to)?;
        // The common case in a few lookups; the detailed checks below name what is wrong.
        if self.free_pair(from, from_site, to, to_site).is_some() {
            return Ok(());
        }
        self.check_feed(from, from_site, self.kind_of(to), to_site)?;
        let pt = self.primitive(to);
        if self.predecessor(to, to_site).is_some() {
            return Err(StructError::SiteOccupied {
                id: pt.id,
                side: "initial",
                site: self.alphabet.primitive(pt.kind).initials[to_site].name.clone(),
            });
        }
        if from == to {
            let pf = self.primitive(from);
            return Err(StructError::Cycle { from: pf.id, to: pt.id });
        }
        Ok(())
    }

    /// The slots of terminal site `from_site` of `from` and initial site `to_site` of `to`, when
    /// both exist, are free and of one primal class, and the nodes differ (a process may join them
    /// unless it closes a cycle). `from` and `to` must be nodes.
    #[inline(always)]
    fn free_pair(&self, from: NodeId, from_site: usize, to: NodeId, to_site: usize) -> Option<(usize, usize)> {
        if from == to {
            return None;
        }
        let kf = (*self.kinds.get(from as usize)?) as usize;
        let kt = (*self.kinds.get(to as usize)?) as usize;
        let (nif, ntf) = self.shape[kf];
        let (nit, _) = self.shape[kt];
        if from_site >= ntf as usize || to_site >= nit as usize {
            return None;
        }
        let a = self.first_slot[from as usize] as usize + nif as usize + from_site;
        let b = self.first_slot[to as usize] as usize + to_site;
        ((self.one_class || self.site_class[kf][nif as usize + from_site] == self.site_class[kt][to_site])
            && self.slot_node.is_free(a)
            && self.slot_node.is_free(b))
        .then_some((a, b))
    }

    /// The primitive (and its initial site) that terminal site `site` of `n` feeds, if any (none
    /// when `n` is not a node).
    #[inline]
    pub fn successor(&self, n: NodeId, site: usize) -> Option<(NodeId, usize)> {
        self.follow(n, site, true)
    }

    /// The primitive (and its terminal site) that feeds initial site `site` of `n`, if any (none
    /// when `n` is not a node).
    #[inline]
    pub fn predecessor(&self, n: NodeId, site: usize) -> Option<(NodeId, usize)> {
        self.follow(n, site, false)
    }

    /// The partner across the process at a terminal (`terminal`) or initial site of `n`: the step
    /// of every anchored match, so one checked read (the node) and the rest unchecked by the
    /// storage's invariants ([`Struct::follow_unchecked`]).
    #[inline(always)]
    fn follow(&self, n: NodeId, site: usize, terminal: bool) -> Option<(NodeId, usize)> {
        let kind = (*self.kinds.get(n as usize)?) as usize;
        // SAFETY: `n` is a node (its kind was just read) and `kind` is its kind.
        unsafe { self.follow_unchecked(n as usize, kind, site, terminal) }
    }

    /// [`Struct::follow`] past the node check, reading the node's shape, its first slot and the
    /// slot without bounds checks (bounds-checked reads here measured +27% and +38% on level-0
    /// recognition relative to the build peer in the same run, `cargo bench --bench recognition`,
    /// 2026-11-23; a noisy machine, but above its noise).
    ///
    /// # Safety
    /// `n < self.kinds.len()` and `kind == self.kinds[n]`. Then, by the storage's invariants:
    /// `kind < self.shape.len()` (a node's kind is checked against the alphabet when the node is
    /// added, the only way `kinds` grows); `first_slot` has one entry per node and one more; and
    /// the node's slots `first_slot[n] .. first_slot[n] + ni + nt` were all pushed onto
    /// `slot_node` and `slot_site` when it was added (slots are never removed).
    #[inline(always)]
    unsafe fn follow_unchecked(&self, n: usize, kind: usize, site: usize, terminal: bool) -> Option<(NodeId, usize)> {
        debug_assert!(kind < self.shape.len() && n + 1 < self.first_slot.len());
        // SAFETY: `kind < shape.len()` and `n < first_slot.len()` by this function's contract.
        let ((ni, nt), first) = unsafe {
            (
                *self.shape.get_unchecked(kind),
                *self.first_slot.get_unchecked(n) as usize,
            )
        };
        let (count, offset) = if terminal { (nt, ni) } else { (ni, 0) };
        if site >= count as usize {
            return None;
        }
        let k = first + offset as usize + site;
        debug_assert!(k < self.slot_node.len() && k < self.slot_site.len());
        // SAFETY: `offset + site < ni + nt`, so `k` is one of the node's slots, all pushed when it
        // was added (this function's contract).
        let (m, s) = unsafe {
            (
                self.slot_node.get_unchecked(k, n as NodeId),
                *self.slot_site.get_unchecked(k),
            )
        };
        (m < CLOSED).then_some((m, s as usize))
    }

    /// Whether `n` and `p` have the same kind and each initial site of `n` is fed as the same
    /// site of `p` is, from as many nodes back and through the same terminal site (or both are
    /// free), with every node feeding `p` at `from` or later. Then the least node feeding `n`
    /// (`n` itself when none does); `None` otherwise, and also where a partner lies too far
    /// away to be read at once (a caller then compares them site by site).
    pub fn fed_alike(&self, n: NodeId, p: NodeId, from: NodeId) -> Option<NodeId> {
        let (kn, kp) = (*self.kinds.get(n as usize)?, *self.kinds.get(p as usize)?);
        if kn != kp {
            return None;
        }
        let ni = self.shape[kn as usize].0 as usize;
        let (a, b) = (
            self.first_slot[n as usize] as usize,
            self.first_slot[p as usize] as usize,
        );
        let d = &self.slot_node.delta;
        if d[a..a + ni] != d[b..b + ni] || self.slot_site[a..a + ni] != self.slot_site[b..b + ni] {
            return None;
        }
        let mut least = n;
        for &o in &d[a..a + ni] {
            if o == D_FREE {
                continue;
            }
            // (An initial site is never closed; a far partner is not read here.)
            if o <= D_FAR || p.wrapping_add_signed(o as i32) < from {
                return None;
            }
            least = least.min(n.wrapping_add_signed(o as i32));
        }
        Some(least)
    }

    /// For initial site `site` of `n`: `None` when the site does not exist, else what feeds it
    /// (`Some(None)`: nothing).
    #[inline]
    pub fn predecessor_or_free(&self, n: NodeId, site: usize) -> Option<Option<(NodeId, usize)>> {
        let (ni, _) = *self.shape.get((*self.kinds.get(n as usize)?) as usize)?;
        (site < ni as usize).then(|| self.predecessor(n, site))
    }

    /// Every process as `(from, process, to)`, by source node, then terminal site.
    pub fn processes(&self) -> impl Iterator<Item = (NodeId, Process, NodeId)> + '_ {
        self.nodes()
            .flat_map(move |n| self.outgoing(n).map(move |(p, m)| (n, p, m)))
    }

    /// Outgoing processes of `n`, by terminal site.
    pub fn outgoing(&self, n: NodeId) -> impl Iterator<Item = (Process, NodeId)> + '_ {
        let slots = self.terminal_slots(n);
        let base = slots.start;
        (0..slots.len()).filter_map(move |s| {
            let m = self.slot_node.get(base + s, n);
            (m < CLOSED).then(|| {
                (
                    Process {
                        from_site: s as u16,
                        to_site: self.slot_site[base + s] as u16,
                    },
                    m,
                )
            })
        })
    }

    /// The nodes joined to `n` by a process, either way: its terminal sites' partners, then its
    /// initial sites' ([`Struct::outgoing`] then [`Struct::incoming`], without the processes),
    /// read from its slots as two ranges (`for_each_adjacent` reads them as one pass).
    pub fn adjacent(&self, n: NodeId) -> impl Iterator<Item = NodeId> + '_ {
        let (ni, nt) = self.shape[self.kinds[n as usize] as usize];
        let base = self.first_slot[n as usize] as usize;
        let (ni, nt) = (ni as usize, nt as usize);
        (ni..ni + nt)
            .chain(0..ni)
            .map(move |s| self.slot_node.get(base + s, n))
            .filter(|&m| m < CLOSED)
    }

    /// Calls `f` with each node joined to `n` by a process, either way, as [`Struct::adjacent`]
    /// yields them but in slot order (initial sites first): one pass over the node's slots, for
    /// a search that visits many nodes.
    #[inline]
    pub(crate) fn for_each_adjacent(&self, n: NodeId, mut f: impl FnMut(NodeId)) {
        let (ni, nt) = self.shape[self.kinds[n as usize] as usize];
        let base = self.first_slot[n as usize] as usize;
        let slots = &self.slot_node.delta[base..base + ni as usize + nt as usize];
        // (`Partners::decode` then a test against `CLOSED` would do the same with one more
        // comparison a slot: 10% more for the repeats' search, the main reader.)
        for (k, &d) in slots.iter().enumerate() {
            if d > D_FAR {
                f(n.wrapping_add_signed(d as i32));
            } else if d == D_FAR {
                let m = Partners::far_of(&self.slot_node.far, base + k);
                if m < CLOSED {
                    f(m);
                }
            }
        }
    }

    /// Incoming processes of `n`, by initial site.
    pub fn incoming(&self, n: NodeId) -> impl Iterator<Item = (NodeId, Process)> + '_ {
        let (ni, _) = self.shape[self.kinds[n as usize] as usize];
        let base = self.first_slot[n as usize] as usize;
        (0..ni as usize).filter_map(move |s| {
            let m = self.slot_node.get(base + s, n);
            (m < CLOSED).then(|| {
                (
                    m,
                    Process {
                        from_site: self.slot_site[base + s] as u16,
                        to_site: s as u16,
                    },
                )
            })
        })
    }

    /// Whether `a` temporally precedes `b`: a chain of processes leads from `a` to `b` (Fig. 3.3:
    /// π_{1b} precedes π_{3n} because it initiates a process that π_{3n} consumes).
    pub fn precedes(&self, a: NodeId, b: NodeId) -> bool {
        if a == b || (a as usize) >= self.len() || (b as usize) >= self.len() {
            return false;
        }
        let rb = self.rank_of(b);
        if self.rank_of(a) >= rb {
            return false; // a path a→b needs rank(a) < rank(b)
        }
        // Forward search from a, pruned to ranks below rank(b).
        let mut stack = vec![a];
        let mut seen = rustc_hash::FxHashSet::default();
        while let Some(n) = stack.pop() {
            for (_, m) in self.outgoing(n) {
                if m == b {
                    return true;
                }
                if self.rank_of(m) < rb && seen.insert(m) {
                    stack.push(m);
                }
            }
        }
        false
    }

    /// Whether `a` and `b` are concurrent: neither precedes the other, so the struct does not
    /// determine their order (Fig. 3.3: π_{2e} and π_{1b}).
    pub fn concurrent(&self, a: NodeId, b: NodeId) -> bool {
        a != b && !self.precedes(a, b) && !self.precedes(b, a)
    }

    /// Initial sites that no process feeds.
    pub fn open_initials(&self) -> Vec<OpenSite> {
        let mut out = Vec::new();
        for n in self.nodes() {
            let (ni, _) = self.shape[self.kind_of(n).0 as usize];
            for s in 0..ni as usize {
                if self.predecessor(n, s).is_none() {
                    out.push(OpenSite {
                        node: n,
                        site: s as u16,
                    });
                }
            }
        }
        out
    }

    /// Terminal sites that feed no process and are not closed: the struct's current frontier,
    /// where later events attach.
    pub fn open_terminals(&self) -> Vec<OpenSite> {
        let mut out = Vec::new();
        for n in self.nodes() {
            let (_, nt) = self.shape[self.kind_of(n).0 as usize];
            for s in 0..nt as usize {
                if self.terminal_open(n, s) {
                    out.push(OpenSite {
                        node: n,
                        site: s as u16,
                    });
                }
            }
        }
        out
    }

    /// Whether terminal site `site` of `n` is open: it feeds no process and is not closed.
    #[inline]
    pub fn terminal_open(&self, n: NodeId, site: usize) -> bool {
        self.terminal_slot(n, site).is_some_and(|k| self.slot_node.is_free(k))
    }

    /// How many terminal sites of `n` are open.
    #[inline]
    pub fn open_terminal_count(&self, n: NodeId) -> usize {
        self.slot_node.free_in(self.terminal_slots(n))
    }

    /// Per node from `from` on, a bit (`i % 64` of word `i / 64` for node `from + i`): whether it
    /// has an open terminal site ([`Struct::has_open_terminal`] of each, read in one pass).
    pub fn open_terminal_bits(&self, from: NodeId) -> Vec<u64> {
        let from = from.min(self.len() as NodeId);
        let mut out = vec![0u64; (self.len() - from as usize).div_ceil(64)];
        for (i, n) in (from..self.len() as NodeId).enumerate() {
            out[i / 64] |= (self.has_open_terminal(n) as u64) << (i % 64);
        }
        out
    }

    /// Whether a terminal site of `n` is open (`open_terminal_count(n) > 0`, without counting).
    #[inline]
    pub fn has_open_terminal(&self, n: NodeId) -> bool {
        self.slot_node.any_free_in(self.terminal_slots(n))
    }

    /// Closes terminal site `site` of `n`: no process will leave it (what it emits ends
    /// unobserved). Fails if the site does not exist or already feeds a process.
    pub fn close_terminal(&mut self, n: NodeId, site: usize) -> Result<(), StructError> {
        self.last_copy = None;
        self.check_node(n)?;
        let Some(k) = self.terminal_slot(n, site) else {
            let p = self.alphabet.primitive(self.kind_of(n));
            return Err(StructError::NoSuchSite {
                primitive: p.name.clone(),
                side: "terminal",
                site,
            });
        };
        match self.slot_node.get(k, n) {
            FREE => {
                self.slot_node.set(k, n, CLOSED);
                Ok(())
            }
            CLOSED => Ok(()),
            _ => Err(StructError::SiteOccupied {
                id: self.primitive(n).id,
                side: "terminal",
                site: self.alphabet.primitive(self.kind_of(n)).terminals[site].name.clone(),
            }),
        }
    }

    /// The slot of terminal site `site` of `n` ([`Struct::free_slot`] frees it).
    pub(crate) fn terminal_slot_of(&self, n: NodeId, site: usize) -> Option<u32> {
        self.terminal_slot(n, site).map(|k| k as u32)
    }

    /// Undo: frees slot `k` (a terminal site's, as [`Struct::terminal_slot_of`] or
    /// [`Struct::append_copy_slots`] named it).
    #[inline]
    pub(crate) fn free_slot(&mut self, k: u32) {
        self.last_copy = None;
        // (The owner is not read when the slot is set free.)
        self.slot_node.set(k as usize, 0, FREE);
        self.slot_site[k as usize] = 0;
    }

    /// Undo: the struct as it was with its first `len` primitives, every process into a later
    /// primitive removed (the caller frees the terminal sites of earlier primitives that fed
    /// them), when the count of processes with `len` nodes is known to be `processes` (a
    /// timeline's step taken back: every process of a step ends at one of its nodes): the nodes
    /// past `len` are not read one by one unless they are kept by kind.
    pub(crate) fn truncate_known(&mut self, len: usize, processes: usize) {
        if len >= self.len() {
            return;
        }
        if self.by_kind.get().is_some() {
            self.forget_processes(len);
            debug_assert_eq!(self.processes, processes, "the count of processes before the step");
        } else {
            debug_assert_eq!(
                self.processes - (len..self.len()).map(|n| self.processes_at(n)).sum::<usize>(),
                processes,
                "the count of processes before the step"
            );
            self.processes = processes;
        }
        self.truncate_rest(len);
    }

    /// The processes into node `n` (at its initial sites).
    fn processes_at(&self, n: usize) -> usize {
        let (ni, _) = self.shape[self.kinds[n] as usize];
        let base = self.first_slot[n] as usize;
        self.slot_node.processes_in(base..base + ni as usize)
    }

    /// Nodes past `len` leave the count of processes and the lists by kind.
    fn forget_processes(&mut self, len: usize) {
        for n in len..self.len() {
            self.processes -= self.processes_at(n);
            let k = self.kinds[n] as usize;
            if let Some(by_kind) = self.by_kind.get_mut()
                && by_kind[k].last() == Some(&(n as NodeId))
            {
                by_kind[k].pop();
            }
        }
    }

    /// [`Struct::truncate_known`] past the count of processes and the lists by kind.
    fn truncate_rest(&mut self, len: usize) {
        self.last_copy = None;
        let slots = self.first_slot[len] as usize;
        self.kinds.truncate(len);
        self.first_slot.truncate(len + 1);
        self.slot_node.truncate(slots);
        self.slot_site.truncate(slots);
        self.rank.truncate(len);
        if !self.dense {
            for id in self.ids.drain(len..) {
                self.by_id.remove(&id);
            }
        }
        self.next_id = if self.dense {
            len as u64
        } else {
            self.ids.iter().copied().max().map_or(0, |m| m + 1)
        };
        if self.rank.iter().any(|&r| r as usize >= len) {
            // Ranks stay a permutation of 0..len: renumber in order.
            let mut order: Vec<NodeId> = (0..len as NodeId).collect();
            order.sort_unstable_by_key(|&n| self.rank[n as usize]);
            for (r, n) in order.into_iter().enumerate() {
                self.rank[n as usize] = r as u32;
            }
        }
    }

    /// The frontier: primitives with at least one open terminal site, in node order.
    pub fn frontier(&self) -> Vec<NodeId> {
        let mut v: Vec<NodeId> = self.open_terminals().into_iter().map(|o| o.node).collect();
        v.dedup();
        v
    }

    /// The nodes in a topological order (each before every primitive it precedes).
    pub fn topological_order(&self) -> Vec<NodeId> {
        let mut v: Vec<NodeId> = self.nodes().collect();
        if !self.rank.is_empty() {
            v.sort_unstable_by_key(|&n| self.rank[n as usize]);
        }
        v
    }

    /// Releases spare capacity.
    pub fn shrink_to_fit(&mut self) {
        self.kinds.shrink_to_fit();
        self.first_slot.shrink_to_fit();
        self.slot_node.shrink_to_fit();
        self.slot_site.shrink_to_fit();
        self.rank.shrink_to_fit();
        self.ids.shrink_to_fit();
        self.by_id.shrink_to_fit();
        if let Some(by_kind) = self.by_kind.get_mut() {
            for v in by_kind {
                v.shrink_to_fit();
            }
        }
    }

    /// Heap bytes held by the struct (site slots, kinds, ranks, indices).
    pub fn heap_bytes(&self) -> usize {
        self.kinds.capacity() * 2
            + self.first_slot.capacity() * 4
            + self.slot_node.heap_bytes()
            + self.slot_site.capacity()
            + self.rank.capacity() * 4
            + self.ids.capacity() * 8
            + self.by_id.capacity() * 16
            + self
                .by_kind
                .get()
                .map_or(0, |b| b.iter().map(|v| v.capacity() * 4).sum::<usize>())
    }
}

impl super::matching::Host for Struct {
    fn node_count(&self) -> usize {
        self.len()
    }
    fn node_kind(&self, n: NodeId) -> u32 {
        self.kind_of(n).0
    }
    fn nodes_of_kind(&self, kind: u32) -> &[NodeId] {
        self.nodes_of(PrimitiveKind(kind))
    }
    fn partners(&self, n: NodeId, label: super::matching::LinkLabel, role: u8, other: u8, out: &mut Vec<NodeId>) {
        if let Some(m) = self.partner(n, label, role, other) {
            out.push(m);
        }
    }
    fn single_partner(&self) -> bool {
        true
    }
    #[inline]
    fn partner(&self, n: NodeId, label: super::matching::LinkLabel, role: u8, other: u8) -> Option<NodeId> {
        let super::matching::LinkLabel::Process { from_site, to_site } = label else {
            return None;
        };
        match (role, other) {
            (0, 1) => self
                .successor(n, from_site as usize)
                .and_then(|(m, s)| (s == to_site as usize).then_some(m)),
            (1, 0) => self
                .predecessor(n, to_site as usize)
                .and_then(|(m, s)| (s == from_site as usize).then_some(m)),
            _ => None,
        }
    }
    fn linked(&self, label: super::matching::LinkLabel, ends: &[(NodeId, u8)]) -> bool {
        let super::matching::LinkLabel::Process { from_site, to_site } = label else {
            return false;
        };
        let from = ends.iter().find(|e| e.1 == 0).map(|e| e.0);
        let to = ends.iter().find(|e| e.1 == 1).map(|e| e.0);
        match (from, to) {
            (Some(a), Some(b)) => self.successor(a, from_site as usize) == Some((b, to_site as usize)),
            _ => false,
        }
    }
}

// petgraph's graph traits, so that its algorithms (traversals, topological sort, reachability) run
// on a struct directly: nodes are node ids, edges are processes (the source and its terminal site).
impl petgraph::visit::GraphBase for Struct {
    type NodeId = NodeId;
    type EdgeId = (NodeId, u16);
}

impl petgraph::visit::NodeCount for Struct {
    fn node_count(&self) -> usize {
        self.len()
    }
}

impl petgraph::visit::Visitable for Struct {
    type Map = std::collections::HashSet<NodeId>;
    fn visit_map(&self) -> Self::Map {
        std::collections::HashSet::with_capacity(self.len())
    }
    fn reset_map(&self, map: &mut Self::Map) {
        map.clear();
    }
}

impl<'a> petgraph::visit::IntoNeighbors for &'a Struct {
    type Neighbors = Box<dyn Iterator<Item = NodeId> + 'a>;
    fn neighbors(self, n: NodeId) -> Self::Neighbors {
        Box::new(self.outgoing(n).map(|(_, m)| m))
    }
}

impl<'a> petgraph::visit::IntoNeighborsDirected for &'a Struct {
    type NeighborsDirected = Box<dyn Iterator<Item = NodeId> + 'a>;
    fn neighbors_directed(self, n: NodeId, d: petgraph::Direction) -> Self::NeighborsDirected {
        match d {
            petgraph::Direction::Outgoing => Box::new(self.outgoing(n).map(|(_, m)| m)),
            petgraph::Direction::Incoming => Box::new(self.incoming(n).map(|(m, _)| m)),
        }
    }
}

impl petgraph::visit::IntoNodeIdentifiers for &Struct {
    type NodeIdentifiers = std::ops::Range<NodeId>;
    fn node_identifiers(self) -> Self::NodeIdentifiers {
        0..self.len() as NodeId
    }
}

#[cfg(test)]
mod tests {
    //! Unit tests of the storage by site slots (the unchecked reads of `follow_unchecked` that
    //! the matcher's every step goes through), small enough to run under Miri (`ARCHITECTURE.md`,
    //! "Miri").
    use super::*;
    use crate::demo::bank;

    /// Undo of the nodes from `len` on, with the count of processes found as a timeline's
    /// journal keeps it (the processes into those nodes, read one by one).
    fn truncate(s: &mut Struct, len: usize) {
        let processes = s.process_count() - (len..s.len()).map(|n| s.processes_at(n)).sum::<usize>();
        s.truncate_known(len, processes);
    }

    fn kind(al: &Alphabet, name: &str) -> PrimitiveKind {
        al.kind(name).expect("a bank primitive")
    }

    #[test]
    fn successor_and_predecessor_follow_each_process_both_ways() {
        let al = Arc::new(bank::alphabet());
        let mut s = Struct::with_capacity(al.clone(), 2, 2);
        let (w, sp) = (kind(&al, "withdraw"), kind(&al, "spend"));
        let a = s.add_primitive(w).unwrap();
        let b = s.add_primitive(sp).unwrap();
        let money = al.primitive(w).terminal_index("money").unwrap();
        let into = al.primitive(sp).initial_index("money").unwrap();
        assert_eq!(s.successor(a, money), None);
        s.connect(a, money, b, into).unwrap();
        assert_eq!(s.successor(a, money), Some((b, into)));
        assert_eq!(s.predecessor(b, into), Some((a, money)));
        // a site past the primitive's sites, and a node that does not exist: none, no panic
        assert_eq!(s.successor(a, 99), None);
        assert_eq!(s.predecessor(b, 99), None);
        assert_eq!(s.successor(7, 0), None);
        assert_eq!(s.predecessor_or_free(b, 99), None);
        assert_eq!(s.predecessor_or_free(a, 0), Some(None));
        // a closed terminal is no process
        let other = s.terminal_open(b, 0);
        s.close_terminal(b, 0).unwrap();
        assert!(other && !s.terminal_open(b, 0));
        assert_eq!(s.successor(b, 0), None);
        assert_eq!(s.outgoing(a).count(), 1);
        assert_eq!(s.incoming(b).count(), 1);
    }

    #[test]
    #[cfg_attr(miri, ignore = "forty thousand primitives")]
    fn partners_too_far_for_two_bytes_are_kept_whole() {
        let al = Arc::new(bank::alphabet());
        let mut s = Struct::new(al.clone());
        let (w, sp, arrive) = (kind(&al, "withdraw"), kind(&al, "spend"), kind(&al, "arrive"));
        let money = al.primitive(w).terminal_index("money").unwrap();
        let into = al.primitive(sp).initial_index("money").unwrap();
        let a = s.add_primitive(w).unwrap();
        for _ in 0..40_000 {
            s.add_primitive(arrive).unwrap();
        }
        let near = s.add_primitive(w).unwrap();
        let b = s.add_primitive(sp).unwrap();
        s.connect(a, money, b, into).unwrap();
        // Both slots of the process are forty thousand nodes from their own: kept whole.
        assert_eq!(s.slot_node.far.len(), 2);
        assert_eq!(s.successor(a, money), Some((b, into)));
        assert_eq!(s.predecessor(b, into), Some((a, money)));
        assert_eq!(s.outgoing(a).map(|(_, m)| m).collect::<Vec<_>>(), [b]);
        assert_eq!(s.incoming(b).map(|(m, _)| m).collect::<Vec<_>>(), [a]);
        // Read in one pass over the slots as well.
        let adjacent = |n: NodeId| {
            let mut v = Vec::new();
            s.for_each_adjacent(n, |m| v.push(m));
            v
        };
        assert_eq!((adjacent(a), adjacent(b), adjacent(near)), (vec![b], vec![a], vec![]));
        assert!(!s.terminal_open(a, money));
        let open_agree = |s: &Struct, n: NodeId| s.has_open_terminal(n) == (s.open_terminal_count(n) > 0);
        assert!(open_agree(&s, a) && open_agree(&s, b) && open_agree(&s, near));
        // Undo of `b`: the far partners leave with it, and the site of `a` is free again.
        truncate(&mut s, b as usize);
        s.free_slot(s.terminal_slot_of(a, money).unwrap());
        assert!(s.slot_node.far.is_empty());
        assert_eq!(s.process_count(), 0);
        assert!(s.terminal_open(a, money) && s.has_open_terminal(a) && open_agree(&s, a));
        let b = s.add_primitive(sp).unwrap();
        s.connect(near, money, b, into).unwrap();
        assert!(s.slot_node.far.is_empty());
        assert_eq!(s.predecessor(b, into), Some((near, money)));
        s.close_terminal(a, money).unwrap();
        assert!(!s.terminal_open(a, money) && s.successor(a, money).is_none());
        assert!(open_agree(&s, a) && open_agree(&s, near));
        // Every terminal site of `a` closed: none is open.
        for site in 0..8 {
            if s.terminal_open(a, site) {
                s.close_terminal(a, site).unwrap();
            }
        }
        assert!(!s.has_open_terminal(a) && s.open_terminal_count(a) == 0);
    }

    #[test]
    fn ranks_are_stored_only_once_a_process_goes_back_in_node_order() {
        let al = Arc::new(bank::alphabet());
        let mut s = Struct::new(al.clone());
        let (arrive, leave) = (kind(&al, "arrive"), kind(&al, "leave"));
        // Recorded in time order: node order is the topological order, no rank is stored.
        let a = s.add_primitive(arrive).unwrap();
        let l = s.add_primitive(leave).unwrap();
        s.connect(a, 0, l, 0).unwrap();
        assert!(s.rank.is_empty());
        assert_eq!(s.topological_order(), vec![a, l]);
        // A later node feeding an earlier one: ranks are kept from then on.
        let l2 = s.add_primitive(leave).unwrap();
        let a2 = s.add_primitive(arrive).unwrap();
        s.connect(a2, 0, l2, 0).unwrap();
        assert_eq!(s.rank.len(), 4);
        assert!(s.precedes(a2, l2) && !s.precedes(l2, a2));
        let order = s.topological_order();
        let at = |n: NodeId| order.iter().position(|&m| m == n).unwrap();
        assert!(at(a) < at(l) && at(a2) < at(l2));
        // A node added afterwards takes the next rank.
        let a3 = s.add_primitive(arrive).unwrap();
        assert_eq!(s.rank.len(), 5);
        assert_eq!(s.rank_of(a3), 4);
    }

    #[test]
    fn the_kind_index_is_built_when_asked_and_kept_up_to_date() {
        let al = Arc::new(bank::alphabet());
        let mut s = Struct::new(al.clone());
        let (arrive, leave) = (kind(&al, "arrive"), kind(&al, "leave"));
        let a = s.add_primitive(arrive).unwrap();
        let l = s.add_primitive(leave).unwrap();
        assert!(s.by_kind.get().is_none());
        assert_eq!(s.nodes_of(arrive), &[a]);
        assert_eq!(s.nodes_of(leave), &[l]);
        let a2 = s.add_primitive(arrive).unwrap();
        assert_eq!(s.nodes_of(arrive), &[a, a2]);
        truncate(&mut s, 2);
        assert_eq!(s.nodes_of(arrive), &[a]);
        assert_eq!(s.kind_of(l), leave);
    }

    #[test]
    fn a_small_observation_is_recognised_through_the_slots() {
        let st = bank::setting();
        let s = bank::large_observation(&st, 2, 2);
        let mut processes = 0;
        for n in s.nodes() {
            for site in 0..8 {
                if let Some((m, t)) = s.successor(n, site) {
                    assert_eq!(s.predecessor(m, t), Some((n, site)));
                    processes += 1;
                }
            }
        }
        assert_eq!(processes, s.process_count());
        let found = crate::ets::recognize_level(&st, 0, &s);
        assert!(!found.is_empty());
    }

    /// Everything a struct holds that a reader can see: its primitives (kinds and ids), its
    /// processes, and which terminal sites are open.
    type Contents = (Vec<ConcretePrimitive>, Vec<(NodeId, Process, NodeId)>, Vec<bool>, usize);

    fn contents(s: &Struct) -> Contents {
        let prims = s.nodes().map(|n| s.primitive(n)).collect();
        let open = s
            .nodes()
            .flat_map(|n| (0..s.terminal_slots(n).len()).map(move |t| s.terminal_open(n, t)))
            .collect();
        (prims, s.processes().collect(), open, s.process_count())
    }

    #[test]
    fn a_copy_that_cannot_be_made_leaves_the_struct_as_it_was() {
        let al = Arc::new(bank::alphabet());
        let (w, sp) = (kind(&al, "withdraw"), kind(&al, "spend"));
        let mut s = Struct::new(al.clone());
        let a = s.add_primitive(w).unwrap();
        let b = s.add_primitive(sp).unwrap();
        let money = al.primitive(w).terminal_index("money").unwrap();
        let into = al.primitive(sp).initial_index("money").unwrap();
        s.connect(a, money, b, into).unwrap();
        let before = contents(&s);
        // beyond the nodes, kinds not sorted or past the copy, a kind of other sites
        assert_eq!(
            s.append_copy(1..3, &[], |_, _, _, _| {}),
            Err(StructError::UnknownNode(3))
        );
        assert_eq!(
            s.append_copy(0..2, &[(1, sp), (0, w)], |_, _, _, _| {}),
            Err(StructError::CopyKinds)
        );
        assert_eq!(
            s.append_copy(0..2, &[(2, w)], |_, _, _, _| {}),
            Err(StructError::CopyKinds)
        );
        assert!(matches!(
            s.append_copy(0..2, &[(0, sp)], |_, _, _, _| {}),
            Err(StructError::CopyKindSites { .. })
        ));
        assert_eq!(contents(&s), before);
        // `b` alone, one on: fed from `a + 1`, which is `b` (no such terminal site) — refused too
        let r = s.append_copy(1..2, &[], |_, _, _, _| {});
        assert!(r.is_err(), "{r:?}");
        assert_eq!(contents(&s), before);
        // the pair again: a copy of each, the copy of `b` fed by the copy of `a`
        let mut fed = Vec::new();
        assert_eq!(s.append_copy(0..2, &[], |_, x, t, _| fed.push((x, t))), Ok(2));
        assert_eq!(s.predecessor(3, into), Some((2, money)));
        assert_eq!(s.process_count(), 2);
        assert!(fed.is_empty());
    }

    proptest::proptest! {
        /// A copy (`append_copy`) is the struct that adding each primitive and joining each of
        /// its processes one by one makes, in the order the copy reports its processes from
        /// earlier nodes; when that order fails somewhere, the copy fails and changes nothing.
        #[test]
        #[cfg_attr(miri, ignore = "hundreds of random structs")]
        fn a_copy_is_the_struct_made_one_primitive_and_process_at_a_time(
            kinds in proptest::collection::vec(0usize..16, 2..40),
            joins in proptest::collection::vec((0usize..40, 1usize..6, 0usize..4, 0usize..4), 0..80),
            closes in proptest::collection::vec((0usize..40, 0usize..4), 0..6),
            range in (0usize..40, 0usize..40),
            changes in proptest::collection::vec((0u32..40, 0usize..16), 0..4),
            sparse in proptest::bool::ANY,
        ) {
            let al = Arc::new(bank::alphabet());
            let mut s = Struct::new(al.clone());
            for (i, k) in kinds.iter().enumerate() {
                let kind = PrimitiveKind((k % al.len()) as u32);
                // ids off their node indices: the copy's path for a struct of any ids
                if sparse && i == 0 {
                    s.add_primitive_with_id(kind, 1000).unwrap();
                } else {
                    s.add_primitive(kind).unwrap();
                }
            }
            for &(to, back, fs, ts) in &joins {
                let to = (to % kinds.len()) as NodeId;
                if let Some(from) = to.checked_sub(back as NodeId) {
                    let _ = s.connect(from, fs, to, ts);
                }
            }
            for &(n, t) in &closes {
                let _ = s.close_terminal((n % kinds.len()) as NodeId, t);
            }
            let (a, b) = (range.0 % kinds.len(), range.1 % kinds.len());
            let src = a.min(b) as NodeId..(a.max(b) + 1) as NodeId;
            let mut changes: Vec<(u32, PrimitiveKind)> = changes
                .iter()
                .map(|&(o, k)| (o % (src.end - src.start), PrimitiveKind((k % al.len()) as u32)))
                .collect();
            changes.sort_by_key(|c| c.0);
            changes.dedup_by_key(|c| c.0);
            let before = contents(&s);
            let (mut copy, mut fed, mut open_told) = (s.clone(), Vec::new(), Vec::new());
            let got = copy.append_copy(src.clone(), &changes, |st, x, t, open| {
                fed.push((x, t));
                open_told.push((x, open, st.has_open_terminal(x)));
            });
            // What the copy says of each node it fed is what the struct says at that moment.
            for &(x, told, is) in &open_told {
                proptest::prop_assert_eq!(told, is, "node {}", x);
            }
            let sites = |k: PrimitiveKind| (s.shape[k.0 as usize], s.site_class[k.0 as usize].clone());
            if changes.iter().any(|&(o, k)| sites(k) != sites(s.kind_of(src.start + o))) {
                proptest::prop_assert!(matches!(got, Err(StructError::CopyKindSites { .. })), "{:?}", got);
                proptest::prop_assert_eq!(contents(&copy), before);
                return Ok(());
            }
            // One by one.
            let (mut one, mut joined, mut ok) = (s.clone(), Vec::new(), true);
            let shift = s.len() as NodeId - src.start;
            'nodes: for p in src.clone() {
                let k = changes.iter().find(|c| c.0 == p - src.start).map_or(s.kind_of(p), |c| c.1);
                let n = one.add_primitive(k).unwrap();
                let mut site = 0;
                while let Some(f) = s.predecessor_or_free(p, site) {
                    if let Some((x, t)) = f {
                        if one.connect(x + shift, t, n, site).is_err() {
                            ok = false;
                            break 'nodes;
                        }
                        if x < src.start {
                            joined.push((x + shift, t));
                        }
                    }
                    site += 1;
                }
            }
            if ok {
                proptest::prop_assert_eq!(got, Ok(s.len() as NodeId));
                proptest::prop_assert_eq!(contents(&copy), contents(&one));
                proptest::prop_assert_eq!(fed, joined);
                // The copy copied again, as a perceiving sensor does step after step: its processes
                // from earlier nodes now fill the terminal sites of the first copy. With the index by
                // kind built, the copy takes the general path: both make the same struct and say
                // the same of each node they feed.
                let again = s.len() as NodeId..copy.len() as NodeId;
                let mut general = copy.clone();
                let _ = general.nodes_of(PrimitiveKind(0));
                let (mut told, mut got) = ([Vec::new(), Vec::new()], Vec::new());
                for (st, told) in [&mut copy, &mut general].into_iter().zip(&mut told) {
                    got.push(st.append_copy(again.clone(), &[], |st, x, t, open| {
                        told.push((x, t, open, st.has_open_terminal(x)));
                    }));
                }
                proptest::prop_assert_eq!(&got[0], &got[1]);
                proptest::prop_assert_eq!(contents(&copy), contents(&general));
                proptest::prop_assert_eq!(&told[0], &told[1]);
                // The nodes joined to each node, read in one pass over its slots, are those
                // `adjacent` reads.
                for x in 0..copy.len() as NodeId {
                    let mut one_pass = Vec::new();
                    copy.for_each_adjacent(x, |m| one_pass.push(m));
                    let mut read = copy.adjacent(x).collect::<Vec<_>>();
                    one_pass.sort_unstable();
                    read.sort_unstable();
                    proptest::prop_assert_eq!(one_pass, read, "node {}", x);
                }
                proptest::prop_assert!(told[0].iter().all(|f| f.2 == f.3), "{:?}", told[0]);
                // The open terminal sites read in one pass are those read node by node.
                for from in [0, src.start, s.len() as NodeId, copy.len() as NodeId] {
                    let bits = copy.open_terminal_bits(from);
                    for x in from..copy.len() as NodeId {
                        let i = (x - from) as usize;
                        proptest::prop_assert_eq!(bits[i / 64] >> (i % 64) & 1 == 1, copy.has_open_terminal(x));
                    }
                    proptest::prop_assert_eq!(bits.len(), (copy.len() - from as usize).div_ceil(64));
                }
            } else {
                proptest::prop_assert!(got.is_err());
                proptest::prop_assert_eq!(contents(&copy), before);
            }
        }

        /// `fed_alike` says what comparing the two nodes' initial sites one by one says: same
        /// kind, each site free in both or fed from as many nodes back through the same terminal
        /// site, every node feeding the earlier one at `from` or later; and then names the least
        /// node feeding the later one.
        #[test]
        #[cfg_attr(miri, ignore = "hundreds of random structs")]
        fn nodes_fed_alike_are_those_compared_site_by_site(
            kinds in proptest::collection::vec(0usize..16, 2..40),
            joins in proptest::collection::vec((0usize..40, 1usize..6, 0usize..4, 0usize..4), 0..80),
            from in 0u32..40,
        ) {
            let al = Arc::new(bank::alphabet());
            let mut s = Struct::new(al.clone());
            for k in &kinds {
                s.add_primitive(PrimitiveKind((k % al.len()) as u32)).unwrap();
            }
            for &(to, back, fs, ts) in &joins {
                let to = (to % kinds.len()) as NodeId;
                if let Some(from) = to.checked_sub(back as NodeId) {
                    // Refused joins (a site taken, missing or of another class) leave it as it was.
                    let _ = s.connect(from, fs, to, ts);
                }
            }
            for n in 0..s.len() as NodeId {
                for p in 0..n {
                    let mut alike = s.kind_of(n) == s.kind_of(p);
                    let mut least = n;
                    let mut site = 0;
                    while alike && let Some(a) = s.predecessor_or_free(n, site) {
                        match (a, s.predecessor_or_free(p, site)) {
                            (None, Some(None)) => {}
                            (Some((y, i)), Some(Some((x, j)))) => {
                                alike = i == j && n - y == p - x && x >= from;
                                least = least.min(y);
                            }
                            _ => alike = false,
                        }
                        site += 1;
                    }
                    proptest::prop_assert_eq!(s.fed_alike(n, p, from), alike.then_some(least), "{} {}", n, p);
                }
            }
        }
    }
}
