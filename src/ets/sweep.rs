//! Recognition of closure classes in one sweep over the nodes, in id order (§3.4.1.2, §5.3.2.1).
//!
//! A *closure class* is one whose every derivation, after its first application, only applies
//! "any applicable constraint, repeatedly" (`A+`, `A, B*`, a single step): its element from a start
//! match is the least set of nodes holding the match and closed under the loop constraints' matches
//! whose context lies inside (see [`super::recognition`]). The batch recogniser computes that closure
//! for each start match in turn, each one over the whole host; this module computes all of them
//! at once, moving through the node ids once, so that what is touched at any moment lies near the
//! sweep (a few layers of a temporal struct, not the whole history).
//!
//! It gives the same elements as the batch recogniser when, besides the class being a closure
//! class, every match of every loop constraint has a context part and every one of its other
//! nodes has a larger id than every context node ("forward" matches: in a struct built in time
//! order, the context precedes what it brings in). Then:
//! - a node joins an element only while the sweep is still before it, so when the sweep reaches
//!   node `x` the element's nodes up to `x` are final;
//! - a loop match is tested once per element, when the element's sweep reaches the match's last
//!   context node (its other context nodes are then final), and a recorded match once, at its last
//!   node;
//! - start matches are taken in the batch order (latest node first, …); when one comes up, every
//!   element begun before it is final up to its latest node, so whether the match already belongs
//!   to one of them (it is then "covered" and begins nothing) is known; an element that begins
//!   catches up on its nodes before the sweep in node order.
//!
//! [`eligible`] checks these conditions on a match table; [`super::recognition::recognize_level_found`]
//! sweeps the classes that meet them and recognises the others in batch. `docs/semantics.md`
//! ("Recognising closure classes in one sweep") records the argument.

use smallvec::SmallVec;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::recognition::{
    ConstraintInfo, Found, LatestOrder, MatchId, MatchTable, Matches, Seed, SeedMerge, loops_only, rows_by_node,
};
use super::setting::{ClassId, ConstraintId, Setting};
use super::structs::NodeId;

const NIL: u32 = u32::MAX;
const NO_LIST: u8 = u8::MAX;

/// Matches by the node at which a sweep looks at them: a loop match at its last context node, a
/// recorded match at its last node. Built once per table, shared by every class.
#[derive(Debug, Clone, Default)]
pub struct SweepIndex {
    ctx_start: Vec<u32>,
    ctx_list: Vec<Seed>,
    all_start: Vec<u32>,
    all_list: Vec<Seed>,
    /// Per constraint id: whether every match is forward (it has a context part, and every other
    /// node comes after every context node).
    forward: Vec<bool>,
    infos: Vec<Option<ConstraintInfo>>,
    /// Per constraint id: the positions of its context variables.
    ctx_pos: Vec<SmallVec<[u8; 4]>>,
    /// The table's constraint bound (its matches' constraint ids are below it).
    constraint_bound: usize,
}

impl SweepIndex {
    /// The index of `table`'s matches.
    pub fn new(setting: &Setting, table: &MatchTable) -> Self {
        Self::with_order(setting, table).0
    }

    /// The index of `table`'s matches, and the table's [`LatestOrder`] (both read each match's
    /// last node; it is found once, constraint by constraint in parallel).
    pub fn with_order(setting: &Setting, table: &MatchTable) -> (Self, LatestOrder) {
        use rayon::prelude::*;
        let nc = setting.constraints().len();
        let infos: Vec<Option<ConstraintInfo>> = (0..nc)
            .map(|c| {
                let c = ConstraintId(c as u32);
                (!table.of_constraint(c).is_empty()).then(|| ConstraintInfo::of(setting, c))
            })
            .collect();
        let n = table.len();
        // Per constraint (in id order, as its matches' ids): per match its last context node (NIL
        // without context) and its last node; and whether every match is forward.
        let per: Vec<(Vec<NodeId>, Vec<NodeId>, bool)> = infos
            .par_iter()
            .enumerate()
            .map(|(c, info)| {
                let Some(info) = info else {
                    return (Vec::new(), Vec::new(), true);
                };
                let r = table.of_constraint(ConstraintId(c as u32));
                let mut forward = info.context_len > 0;
                let mut last = Vec::with_capacity(r.len());
                let mut last_ctx = Vec::with_capacity(r.len());
                for m in r {
                    let nodes = table.nodes(m);
                    let (mut hi_ctx, mut lo_body, mut hi) = (0, NIL, 0);
                    for (&x, &is_ctx) in nodes.iter().zip(&info.context) {
                        hi = hi.max(x);
                        if is_ctx {
                            hi_ctx = hi_ctx.max(x);
                        } else {
                            lo_body = lo_body.min(x);
                        }
                    }
                    last.push(hi);
                    if info.context_len > 0 {
                        last_ctx.push(hi_ctx);
                        if lo_body != NIL && lo_body <= hi_ctx {
                            forward = false;
                        }
                    } else {
                        last_ctx.push(NIL);
                    }
                }
                (last, last_ctx, forward)
            })
            .collect();
        let mut forward = vec![true; nc];
        let mut last: Vec<NodeId> = Vec::with_capacity(n);
        let mut last_ctx: Vec<NodeId> = Vec::with_capacity(n);
        for (c, (l, lc, f)) in per.into_iter().enumerate() {
            forward[c] = f;
            last.extend_from_slice(&l);
            last_ctx.extend_from_slice(&lc);
        }
        let bound = table.node_bound();
        let csr = |key: &[NodeId]| {
            rows_by_node(bound, || {
                key.iter().enumerate().filter(|&(_, &k)| k != NIL).map(|(m, &k)| {
                    let m = m as MatchId;
                    (
                        k,
                        Seed {
                            m,
                            c: table.constraint(m),
                        },
                    )
                })
            })
        };
        let (((ctx_start, ctx_list), (all_start, all_list)), order) = rayon::join(
            || rayon::join(|| csr(&last_ctx), || csr(&last)),
            || LatestOrder::from_last(table, last.clone()),
        );
        let ctx_pos = infos
            .iter()
            .map(|i| {
                i.as_ref().map_or_else(SmallVec::new, |i| {
                    (0..i.context.len())
                        .filter(|&k| i.context[k])
                        .map(|k| k as u8)
                        .collect()
                })
            })
            .collect();
        (
            SweepIndex {
                ctx_start,
                ctx_list,
                all_start,
                all_list,
                forward,
                infos,
                ctx_pos,
                constraint_bound: table.constraint_bound(),
            },
            order,
        )
    }

    /// The loop matches whose last context node is `x` (`x` below the table's node bound).
    #[inline]
    fn at_last_context(&self, x: NodeId) -> &[Seed] {
        row(&self.ctx_start, &self.ctx_list, x)
    }

    /// The matches whose last node is `x` (`x` below the table's node bound).
    #[inline]
    fn at_last(&self, x: NodeId) -> &[Seed] {
        row(&self.all_start, &self.all_list, x)
    }
}

/// Row `x` of compressed rows (`start` ascending, its last entry `list.len()`).
///
/// The sweep's innermost reads pass through here and [`Members`] without bounds checks (they were
/// a tenth of the sweep's instructions). What makes that sound: [`sweep`] goes on only when both
/// indices have `bound + 1` row starts and every node of every match of its table is below `bound`
/// (the table says so: `MatchTable::nodes_in_bound`), and it asks only for such nodes or for
/// `0..bound`; [`Members`] holds `bound` heads.
#[inline]
fn row<'a>(start: &[u32], list: &'a [Seed], x: NodeId) -> &'a [Seed] {
    let x = x as usize;
    debug_assert!(x + 1 < start.len());
    // SAFETY: `x + 1 < start.len()` (see above), and row starts are ascending up to `list.len()`.
    unsafe {
        let (a, b) = (*start.get_unchecked(x) as usize, *start.get_unchecked(x + 1) as usize);
        debug_assert!(a <= b && b <= list.len());
        list.get_unchecked(a..b)
    }
}

/// Per schedule state a derivation may be in after its first step: the loop constraints (a mask
/// over constraint ids) and the recorded constraints that are not among them.
struct StateMasks {
    state: u32,
    in_loop: Vec<bool>,
    recorded_only: Vec<bool>,
    /// The least and greatest constraint ids of `in_loop` and of `recorded_only` (`(1, 0)` when
    /// none): an index row lists its matches by constraint, so a visit reads only that span.
    loop_span: (u32, u32),
    recorded_span: (u32, u32),
}

/// The least and greatest index set in `mask`, or `(1, 0)`.
fn span(mask: &[bool]) -> (u32, u32) {
    let lo = mask.iter().position(|&b| b);
    let hi = mask.iter().rposition(|&b| b);
    match (lo, hi) {
        (Some(lo), Some(hi)) => (lo as u32, hi as u32),
        _ => (1, 0),
    }
}

impl StateMasks {
    /// Whether `c` is a loop constraint of this state (`c` a constraint of the swept table).
    #[inline]
    fn loops(&self, c: ConstraintId) -> bool {
        debug_assert!((c.0 as usize) < self.in_loop.len());
        // SAFETY: the masks span the setting's constraints, and `masks` declines a table whose
        // constraint ids may reach past them.
        unsafe { *self.in_loop.get_unchecked(c.0 as usize) }
    }
    /// Whether `c` is recorded but not a loop constraint of this state (`c` as for `loops`).
    #[inline]
    fn records(&self, c: ConstraintId) -> bool {
        debug_assert!((c.0 as usize) < self.recorded_only.len());
        // SAFETY: as in `loops`.
        unsafe { *self.recorded_only.get_unchecked(c.0 as usize) }
    }
}

/// The loop masks of `class`'s first-step states, when it is a closure class whose loop matches
/// are all forward in the index (see the module's conditions); `None` otherwise.
fn masks(setting: &Setting, class: ClassId, index: &SweepIndex) -> Option<Vec<StateMasks>> {
    let cls = setting.class(class);
    let dfa = cls.dfa();
    let nc = setting.constraints().len();
    if index.constraint_bound > nc {
        return None;
    }
    let mut out: Vec<StateMasks> = Vec::new();
    for set in dfa.sets_out(dfa.start()) {
        let Some(state) = dfa.step(dfa.start(), set) else {
            continue;
        };
        if out.iter().any(|s| s.state == state) {
            continue;
        }
        let cons = loops_only(setting, class, state)?;
        let mut in_loop = vec![false; nc];
        for c in cons {
            // A loop constraint without matches cannot break the conditions.
            if index.infos[c.0 as usize].is_some() && !index.forward[c.0 as usize] {
                return None;
            }
            in_loop[c.0 as usize] = true;
        }
        let mut recorded_only = vec![false; nc];
        for &c in &cls.overlaps {
            if !in_loop[c.0 as usize] {
                recorded_only[c.0 as usize] = true;
            }
        }
        out.push(StateMasks {
            state,
            loop_span: span(&in_loop),
            recorded_span: span(&recorded_only),
            in_loop,
            recorded_only,
        });
    }
    Some(out)
}

/// Whether `class` can be recognised by [`sweep`] over the table `index` was built from.
pub fn eligible(setting: &Setting, class: ClassId, index: &SweepIndex) -> bool {
    masks(setting, class, index).is_some()
}

struct Elem {
    /// Its start match.
    seed: MatchId,
    /// Its first-step state's masks (an index into the class's).
    mask: usize,
    nodes: Vec<NodeId>,
    /// Its other applications, a list per constraint the class applies or records, in constraint
    /// order (see `Sweep::local`; a constraint's ids form one range of the table, and the sweep
    /// finds each one's matches almost in id order).
    apps: Vec<Vec<MatchId>>,
}

impl Elem {
    fn push(&mut self, local: u8, m: MatchId) {
        let v = &mut self.apps[local as usize];
        if v.capacity() == 0 {
            // Most elements last many layers: room for a run at once.
            v.reserve(64);
        }
        v.push(m);
    }
    /// The applications: the start match, then the rest ascending.
    fn applications(self) -> Vec<MatchId> {
        let mut out = Vec::with_capacity(1 + self.apps.iter().map(|v| v.len()).sum::<usize>());
        out.push(self.seed);
        for mut v in self.apps {
            sort_nearly_sorted(&mut v);
            out.extend_from_slice(&v);
        }
        out
    }
}

/// Reusable space for [`sweep`] (one per worker: sized once to the host, reset per class).
#[derive(Debug, Default)]
pub struct SweepScratch {
    head: Vec<(u32, u32)>,
    entries: Vec<(u32, u32)>,
}

/// Membership of nodes in the elements being built: per node, a list of elements.
struct Members {
    /// Per node: the first element holding it (most nodes are held by one element of a class),
    /// and the list of the others.
    head: Vec<(u32, u32)>,
    /// (element, next entry).
    entries: Vec<(u32, u32)>,
}

impl Members {
    fn has(&self, x: NodeId, e: u32) -> bool {
        debug_assert!((x as usize) < self.head.len());
        // SAFETY: `x` is a match's node, below the bound the heads were sized to (see [`row`]).
        let (first, mut k) = unsafe { *self.head.get_unchecked(x as usize) };
        if first == e {
            return true;
        }
        while k != NIL {
            debug_assert!((k as usize) < self.entries.len());
            // SAFETY: list links are indices of entries pushed by `add`, or NIL.
            let (f, next) = unsafe { *self.entries.get_unchecked(k as usize) };
            if f == e {
                return true;
            }
            k = next;
        }
        false
    }
    fn add(&mut self, x: NodeId, e: u32) {
        debug_assert!((x as usize) < self.head.len());
        // SAFETY: as in `has`.
        let h = unsafe { self.head.get_unchecked_mut(x as usize) };
        if h.0 == NIL {
            h.0 = e;
            return;
        }
        let k = self.entries.len() as u32;
        self.entries.push((e, h.1));
        h.1 = k;
    }
    /// The next element holding `x` (the first, then the others), if any; `cursor` (None to
    /// begin) keeps the place.
    fn next_of(&self, x: NodeId, cursor: &mut Option<u32>) -> Option<u32> {
        match *cursor {
            None => {
                let (first, rest) = self.head[x as usize];
                *cursor = Some(rest);
                if first != NIL { Some(first) } else { None }
            }
            Some(k) if k != NIL => {
                let (e, next) = self.entries[k as usize];
                *cursor = Some(next);
                Some(e)
            }
            Some(_) => None,
        }
    }
}

struct Sweep<'a> {
    table: &'a MatchTable,
    index: &'a SweepIndex,
    masks: &'a [StateMasks],
    /// Per constraint id: its list's index in an element's `apps` (the class's loop and recorded
    /// constraints numbered in id order), or `NO_LIST`.
    local: Vec<u8>,
    /// How many lists an element keeps.
    lists: usize,
    /// Per match (a bit each): whether an element has taken it as an application (then a start
    /// seed on it is covered at once).
    applied: Vec<u64>,
    members: Members,
    elems: Vec<Elem>,
    /// Nodes before the sweep that an element begun at the sweep still has to look at.
    behind: BinaryHeap<Reverse<NodeId>>,
}

impl Sweep<'_> {
    /// Node `x` joins element `e` (the sweep being at `at`).
    fn join(&mut self, e: u32, x: NodeId, at: NodeId) {
        if self.members.has(x, e) {
            return;
        }
        self.members.add(x, e);
        self.elems[e as usize].nodes.push(x);
        if x < at {
            self.behind.push(Reverse(x));
        }
    }

    /// Element `e` looks at its node `x`: the loop matches whose last context node is `x`, and the
    /// recorded matches whose last node is `x`.
    fn visit(&mut self, e: u32, x: NodeId, at: NodeId) {
        let (seed, mask) = {
            let el = &self.elems[e as usize];
            (el.seed, &self.masks[el.mask])
        };
        let (table, index) = (self.table, self.index);
        // Rows list their matches in id order, so by constraint (a constraint's ids are one
        // range, ranges in constraint order): read only the span of the state's constraints.
        let (lo, hi) = mask.loop_span;
        for &Seed { m, c } in index.at_last_context(x) {
            if c.0 > hi {
                break;
            }
            if c.0 < lo || !mask.loops(c) || m == seed {
                continue;
            }
            let nodes = table.nodes(m);
            let inside = index.ctx_pos[c.0 as usize].iter().all(|&i| {
                let y = nodes[i as usize];
                y == x || self.members.has(y, e)
            });
            if inside {
                self.elems[e as usize].push(self.local[c.0 as usize], m);
                self.applied[m as usize / 64] |= 1 << (m % 64);
                for &y in nodes {
                    self.join(e, y, at);
                }
            }
        }
        let (lo, hi) = mask.recorded_span;
        if lo > hi {
            return;
        }
        for &Seed { m, c } in index.at_last(x) {
            if c.0 > hi {
                break;
            }
            if c.0 < lo || !mask.records(c) || m == seed {
                continue;
            }
            if table.nodes(m).iter().all(|&y| y == x || self.members.has(y, e)) {
                self.elems[e as usize].push(self.local[c.0 as usize], m);
                self.applied[m as usize / 64] |= 1 << (m % 64);
            }
        }
    }

    /// Whether start match `s` already belongs to an element: as a loop match (its context inside),
    /// as a recorded match (wholly inside), or as the start of one begun at this node.
    fn covered(&self, s: MatchId, begun_here: &[MatchId]) -> bool {
        if self.applied[s as usize / 64] & (1 << (s % 64)) != 0 || begun_here.contains(&s) {
            return true;
        }
        let c = self.table.constraint(s).0 as usize;
        let nodes = self.table.nodes(s);
        let Some(info) = &self.index.infos[c] else { return false };
        // Either way of belonging puts the first context node (or, without context, the first
        // node) inside: the elements holding it are the candidates.
        let probe = info.context.iter().position(|&b| b).unwrap_or(0);
        let Some(&first) = nodes.get(probe) else { return false };
        let mut cursor = None;
        while let Some(e) = self.members.next_of(first, &mut cursor) {
            let mask = &self.masks[self.elems[e as usize].mask];
            if mask.in_loop[c]
                && nodes
                    .iter()
                    .zip(&info.context)
                    .all(|(&y, &is_ctx)| !is_ctx || self.members.has(y, e))
            {
                return true;
            }
            if mask.recorded_only[c] && nodes.iter().all(|&y| self.members.has(y, e)) {
                return true;
            }
        }
        false
    }
}

/// Recognises `class` (a closure class meeting the conditions: see [`eligible`]) in one sweep over
/// the table, from its start seeds in batch order (see
/// [`super::recognition::start_seeds_ordered`]). Returns the elements as the batch recogniser
/// returns them, subsumed ones included (the caller finishes both alike). `None` when the class
/// does not meet the conditions.
pub fn sweep(
    setting: &Setting,
    class: ClassId,
    table: &MatchTable,
    index: &SweepIndex,
    mut seeds: SeedMerge<'_>,
    scratch: &mut SweepScratch,
) -> Option<Vec<Found>> {
    let masks = masks(setting, class, index)?;
    // The constraints an element may apply or record, numbered in id order (at most 254: more
    // goes to batch recognition).
    let mut local = vec![NO_LIST; setting.constraints().len()];
    let mut lists = 0usize;
    for (c, slot) in local.iter_mut().enumerate() {
        if masks.iter().any(|m| m.in_loop[c] || m.recorded_only[c]) {
            if lists >= NO_LIST as usize {
                return None;
            }
            *slot = lists as u8;
            lists += 1;
        }
    }
    let cls = setting.class(class);
    let dfa = cls.dfa();
    let bound = table.node_bound();
    // Rows and heads are read by node without bounds checks (see [`row`]): the index must span
    // this table's nodes, and the table's nodes must lie below its bound.
    if index.ctx_start.len() != bound + 1 || index.all_start.len() != bound + 1 || !table.nodes_in_bound() {
        return None;
    }
    // Every head is NIL between sweeps (each sweep resets the heads of the nodes it held).
    let mut head = std::mem::take(&mut scratch.head);
    if head.len() < bound {
        head.resize(bound, (NIL, NIL));
    }
    let mut entries = std::mem::take(&mut scratch.entries);
    entries.clear();
    let mut sw = Sweep {
        table,
        index,
        masks: &masks,
        local,
        lists,
        applied: vec![0; table.len().div_ceil(64)],
        members: Members { head, entries },
        elems: Vec::new(),
        behind: BinaryHeap::new(),
    };
    let mut begun_here: Vec<MatchId> = Vec::new();
    let mut next_latest = seeds.peek_latest();
    for at in 0..bound as NodeId {
        // 1. Start matches whose latest node is here, in batch order.
        if next_latest == Some(at) {
            begun_here.clear();
        }
        while next_latest == Some(at) {
            let Some((set, s)) = seeds.next() else { break };
            next_latest = seeds.peek_latest();
            if sw.covered(s, &begun_here) {
                continue;
            }
            let Some(state) = dfa.step(dfa.start(), set) else {
                continue;
            };
            let Some(mask) = masks.iter().position(|m| m.state == state) else {
                continue;
            };
            let e = sw.elems.len() as u32;
            sw.elems.push(Elem {
                seed: s,
                mask,
                // Most elements last many layers (growing a list costs more than room).
                nodes: Vec::with_capacity(256),
                apps: std::iter::repeat_with(Vec::new).take(sw.lists).collect(),
            });
            begun_here.push(s);
            for &y in table.nodes(s) {
                sw.join(e, y, at);
            }
            // Catch up on the element's nodes before the sweep, in order.
            while let Some(Reverse(x)) = sw.behind.pop() {
                sw.visit(e, x, at);
            }
        }
        // 2. Every element holding this node looks at it (what joins now lies after it, so the
        // node's list does not change meanwhile). Most nodes are held by no element of the class.
        let (first, _) = sw.members.head[at as usize];
        if first == NIL {
            continue;
        }
        sw.visit(first, at, at);
        let mut k = sw.members.head[at as usize].1;
        while k != NIL {
            let (e, next) = sw.members.entries[k as usize];
            sw.visit(e, at, at);
            k = next;
        }
    }
    for el in &sw.elems {
        for &x in &el.nodes {
            sw.members.head[x as usize] = (NIL, NIL);
        }
    }
    scratch.head = sw.members.head;
    scratch.entries = sw.members.entries;
    let out = sw
        .elems
        .into_iter()
        .map(|mut el| {
            let mut nodes = std::mem::take(&mut el.nodes);
            sort_nearly_sorted(&mut nodes);
            let complete = dfa.accepts(masks[el.mask].state);
            Found {
                class,
                nodes,
                apps: el.applications(),
                complete,
            }
        })
        .collect();
    Some(out)
}

/// Sorts ids that the sweep added almost in order (each out of place by a few): insertion sort,
/// handing over to the comparison sort if the ids turn out to be far from order.
fn sort_nearly_sorted(v: &mut [NodeId]) {
    let budget = 8 * v.len() + 64;
    let mut moved = 0usize;
    for i in 1..v.len() {
        let x = v[i];
        let mut j = i;
        while j > 0 && v[j - 1] > x {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = x;
        moved += i - j;
        if moved > budget {
            v.sort_unstable();
            return;
        }
    }
}
