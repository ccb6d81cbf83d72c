//! Recognition: every element of a class in an observed structure, at any level.
//!
//! Implements the recognising direction of the class generating system (§3.4.1.2; the thesis asks
//! for it in §5.3.1–5.3.2.1: "identifying all present class elements"). An element is a
//! *maximal* derivation the schedule allows, whose applications each match part of the observed
//! structure:
//! - the first application may take its context from anywhere (the environment supplied it);
//! - every later application has its context inside the working element, shares at least one
//!   node with it and adds at least one new node (§3.4.1.1);
//! - steps whose set loops back to the same schedule state ("any applicable constraint,
//!   repeatedly") are *saturated*: all applicable matches are applied, so the result does not
//!   depend on the order of application (the basis of attention-shift independence, §5.1.4);
//!   other steps branch over every applicable match;
//! - the element's applications are all matches of its class's constraints that lie inside it
//!   with their context inside it, so that overlap is a property of the element, not of one
//!   derivation order (`docs/semantics.md`).
//!
//! The matches of a level's constraints are found once, by anchored matching, into a
//! [`MatchTable`] shared by every class of the level; a derivation then reaches its candidates
//! through the table's index from the nodes it has added ("contexts and shared nodes seed the
//! search"). An application that already belongs to an element of the class does not start
//! another element of that class, so a long chain is recognised once from its earliest start, not
//! once per suffix. When every step after the first loops (`A+`, `A, B*`), a derivation is a
//! closure and is computed by counting, per match, how much of its context has joined.

use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;
use std::ops::ControlFlow;

use super::element::{Application, Element};
use super::matching::{Host, Plan, PlanScratch};
use super::setting::{ClassId, ConstraintId, Setting};
use super::structs::NodeId;

/// Limits that keep recognition bounded on adversarial settings.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Most branches explored from one seed before the search keeps only what it has.
    pub max_branches: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits { max_branches: 4096 }
    }
}

/// Identifies one match in a [`Matches`] source.
pub type MatchId = u32;

/// A match at a seed position of some node, with its constraint (so that a class filters a
/// node's seeds by constraint without looking the match up).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seed {
    /// The match.
    pub m: MatchId,
    /// Its constraint.
    pub c: ConstraintId,
}

/// A source of constraint matches, indexed by the nodes a derivation may be seeded from.
pub trait Matches {
    /// The constraint of match `m`.
    fn constraint(&self, m: MatchId) -> ConstraintId;
    /// The nodes of match `m`, in the constraint's variable order.
    fn nodes(&self, m: MatchId) -> &[NodeId];
    /// The matches with node `n` at a *seed position*: a context variable when the constraint has
    /// a context part, any variable otherwise (a match becomes applicable when its last context
    /// node joins an element, so only those positions need looking at).
    fn seeded_at(&self, n: NodeId) -> &[Seed];
    /// Whether match `m` currently holds (all its nodes present).
    fn live(&self, _m: MatchId) -> bool {
        true
    }
    /// One past the largest match id.
    fn match_bound(&self) -> usize;
    /// One past the largest node id.
    fn node_bound(&self) -> usize;
}

/// Per constraint: which variables are context, hence which positions seed a derivation.
#[derive(Debug, Clone)]
pub(crate) struct ConstraintInfo {
    pub context: SmallVec<[bool; 8]>,
    pub context_len: u16,
}

impl ConstraintInfo {
    pub(crate) fn of(setting: &Setting, c: ConstraintId) -> Self {
        let p = &setting.constraint(c).pattern;
        let context: SmallVec<[bool; 8]> = p.vars.iter().map(|v| v.context).collect();
        let context_len = context.iter().filter(|&&b| b).count() as u16;
        ConstraintInfo { context, context_len }
    }
    /// Whether variable position `i` is a seed position.
    pub(crate) fn seeds_at(&self, i: usize) -> bool {
        self.context_len == 0 || self.context[i]
    }
}

/// Matches stored flat: each one's constraint, and its nodes (in the constraint's variable order)
/// as a slice of one array. Ids are positions, in the order matches were pushed.
#[derive(Debug, Clone, Default)]
pub struct MatchList {
    constraint: Vec<ConstraintId>,
    start: Vec<u32>,
    nodes: Vec<NodeId>,
}

impl MatchList {
    /// Reserves room for `matches` more matches holding `nodes` more nodes in all.
    pub fn reserve(&mut self, matches: usize, nodes: usize) {
        self.constraint.reserve(matches);
        self.start.reserve(matches + 1);
        self.nodes.reserve(nodes);
    }
    /// Appends a match; returns its id.
    pub fn push(&mut self, c: ConstraintId, nodes: &[NodeId]) -> MatchId {
        if self.start.is_empty() {
            self.start.push(0);
        }
        let id = self.constraint.len() as MatchId;
        self.constraint.push(c);
        self.nodes.extend_from_slice(nodes);
        self.start.push(self.nodes.len() as u32);
        id
    }
    /// Appends the matches of constraint `c` given flat, `k` nodes each (`flat.len()` a multiple of
    /// `k`, `k` ≥ 1): what [`MatchList::push`] does for each in turn, in one copy.
    pub fn push_flat(&mut self, c: ConstraintId, k: usize, flat: &[NodeId]) {
        debug_assert!(k >= 1 && flat.len().is_multiple_of(k));
        if self.start.is_empty() {
            self.start.push(0);
        }
        let n = flat.len() / k;
        let base = self.nodes.len() as u32;
        self.constraint.extend(std::iter::repeat_n(c, n));
        self.nodes.extend_from_slice(flat);
        self.start.extend((1..=n as u32).map(|i| base + i * k as u32));
    }
    /// Number of matches.
    pub fn len(&self) -> usize {
        self.constraint.len()
    }
    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.constraint.is_empty()
    }
    /// The constraint of match `m`.
    #[inline]
    pub fn constraint(&self, m: MatchId) -> ConstraintId {
        self.constraint[m as usize]
    }
    /// The nodes of match `m`.
    #[inline]
    pub fn nodes(&self, m: MatchId) -> &[NodeId] {
        &self.nodes[self.start[m as usize] as usize..self.start[m as usize + 1] as usize]
    }
}

/// A match table's matches in the order derivations are tried, per constraint: each constraint's
/// match ids by latest node, then by nodes (made by [`super::sweep::SweepIndex::with_order`]).
/// Classes read their start seeds from it ([`SeedMerge`]) instead of each sorting its own.
#[derive(Debug, Clone, Default)]
pub struct LatestOrder {
    latest: Vec<NodeId>,
    order: Vec<MatchId>,
}

impl LatestOrder {
    /// The order of `table`'s matches given each one's latest node.
    pub fn from_last(table: &MatchTable, latest: Vec<NodeId>) -> Self {
        let mut order: Vec<MatchId> = (0..table.list.len() as MatchId).collect();
        for r in &table.ranges {
            let part = &mut order[r.start as usize..r.end as usize];
            // Anchored matching finds most constraints' matches already in this order.
            let sorted = part.windows(2).all(|w| latest[w[0] as usize] < latest[w[1] as usize]);
            if !sorted {
                part.sort_by(|&a, &b| {
                    latest[a as usize]
                        .cmp(&latest[b as usize])
                        .then_with(|| table.list.nodes(a).cmp(table.list.nodes(b)))
                });
            }
        }
        LatestOrder { latest, order }
    }
}

/// Seeds grouped by node as compressed rows (row starts per node, then the rows), in the order
/// `entries` gives them: a counting pass and a filling pass over `entries()`, each `(node, seed)`
/// with `node < bound`. Shared by the batch seed index and the sweep's indices.
pub(crate) fn rows_by_node<I: Iterator<Item = (NodeId, Seed)>>(
    bound: usize,
    entries: impl Fn() -> I,
) -> (Vec<u32>, Vec<Seed>) {
    let mut start = vec![0u32; bound + 1];
    for (n, _) in entries() {
        start[n as usize + 1] += 1;
    }
    for i in 1..start.len() {
        start[i] += start[i - 1];
    }
    let mut fill = start.clone();
    let blank = Seed {
        m: 0,
        c: ConstraintId(0),
    };
    let mut list = vec![blank; *start.last().unwrap_or(&0) as usize];
    for (n, seed) in entries() {
        let at = &mut fill[n as usize];
        list[*at as usize] = seed;
        *at += 1;
    }
    (start, list)
}

/// Every match of some constraints in a host, found once (anchored at the rarest variable type),
/// with the index [`Matches::seeded_at`].
#[derive(Debug, Clone, Default)]
pub struct MatchTable {
    list: MatchList,
    seed_start: Vec<u32>,
    seed_list: Vec<Seed>,
    /// Per constraint id: its matches' ids (ids are in constraint order).
    ranges: Vec<std::ops::Range<MatchId>>,
    node_count: usize,
    /// Whether every match's nodes are below `node_count` (they are, unless a host named nodes
    /// it does not have; the sweep reads by node without bounds checks only then).
    nodes_in_bound: bool,
}

impl MatchTable {
    /// Finds every match of `constraints` in `host` (constraints in parallel; ids are in
    /// constraint order, then anchor order: deterministic).
    pub fn build<H: Host + Sync + ?Sized>(setting: &Setting, constraints: &[ConstraintId], host: &H) -> Self {
        Self::build_with(setting, constraints, host, true)
    }

    fn build_with<H: Host + Sync + ?Sized>(
        setting: &Setting,
        constraints: &[ConstraintId],
        host: &H,
        index: bool,
    ) -> Self {
        use rayon::prelude::*;
        let mut cons: Vec<ConstraintId> = constraints.to_vec();
        cons.sort_unstable();
        cons.dedup();
        let per: Vec<Vec<NodeId>> = cons
            .par_iter()
            .map(|&c| {
                let p = &setting.constraint(c).pattern;
                let mut flat = Vec::new();
                if p.vars.is_empty() {
                    return flat;
                }
                let anchor = (0..p.vars.len())
                    .min_by_key(|&v| host.nodes_of_kind(p.vars[v].kind).len())
                    .expect("a variable");
                let plan = Plan::compile(p, &[anchor], host);
                let mut scratch = PlanScratch::default();
                // Room for a match per anchor when each anchor names at most one (reserved, not
                // touched: no copies as the matches come).
                if host.single_partner() && plan.follows_links_only() {
                    flat.reserve(host.nodes_of_kind(p.vars[anchor].kind).len() * p.vars.len());
                }
                for &n in host.nodes_of_kind(p.vars[anchor].kind) {
                    let _ = plan.run(
                        host,
                        p,
                        &[n],
                        &mut |_, _| true,
                        &mut |m| {
                            flat.extend_from_slice(m);
                            ControlFlow::Continue(())
                        },
                        &mut scratch,
                    );
                }
                flat
            })
            .collect();
        let node_count = host.node_count();
        let mut t = MatchTable {
            node_count,
            ranges: vec![0..0; setting.constraints().len()],
            nodes_in_bound: per
                .par_iter()
                .all(|flat| flat.iter().copied().max().is_none_or(|x| (x as usize) < node_count)),
            ..Default::default()
        };
        let (mut total, mut count) = (0, 0);
        for (&c, flat) in cons.iter().zip(&per) {
            total += flat.len();
            count += flat.len() / setting.constraint(c).pattern.vars.len().max(1);
        }
        t.list.reserve(count, total);
        let mut infos = Vec::with_capacity(cons.len());
        for (&c, flat) in cons.iter().zip(&per) {
            let k = setting.constraint(c).pattern.vars.len();
            infos.push(ConstraintInfo::of(setting, c));
            let first = t.list.len() as MatchId;
            if k > 0 {
                t.list.push_flat(c, k, flat);
            }
            if let Some(r) = t.ranges.get_mut(c.0 as usize) {
                *r = first..t.list.len() as MatchId;
            }
        }
        if index {
            let (start, list) = t.seed_index(&cons, &infos);
            t.seed_start = start;
            t.seed_list = list;
        }
        t
    }

    /// Finds every match as [`MatchTable::build`] does but leaves the seed index empty (the start
    /// seeds of classes need only the matches): compute it with [`MatchTable::seed_index_of`] and
    /// set it with [`MatchTable::set_seed_index`].
    pub fn build_unindexed<H: Host + Sync + ?Sized>(setting: &Setting, constraints: &[ConstraintId], host: &H) -> Self {
        Self::build_with(setting, constraints, host, false)
    }

    /// The seed index of this table's matches: row starts per node and the rows.
    pub fn seed_index_of(&self, setting: &Setting) -> (Vec<u32>, Vec<Seed>) {
        let cons: Vec<ConstraintId> = (0..self.ranges.len())
            .map(|c| ConstraintId(c as u32))
            .filter(|&c| !self.of_constraint(c).is_empty())
            .collect();
        let infos: Vec<ConstraintInfo> = cons.iter().map(|&c| ConstraintInfo::of(setting, c)).collect();
        self.seed_index(&cons, &infos)
    }

    /// Sets the seed index computed by [`MatchTable::seed_index_of`].
    pub fn set_seed_index(&mut self, (start, list): (Vec<u32>, Vec<Seed>)) {
        self.seed_start = start;
        self.seed_list = list;
    }

    fn seed_index(&self, cons: &[ConstraintId], infos: &[ConstraintInfo]) -> (Vec<u32>, Vec<Seed>) {
        let t = self;
        rows_by_node(t.node_count, || {
            cons.iter().zip(infos).flat_map(move |(&c, info)| {
                t.of_constraint(c).flat_map(move |m| {
                    t.nodes(m)
                        .iter()
                        .enumerate()
                        .filter(|&(i, _)| info.seeds_at(i))
                        .map(move |(_, &n)| (n, Seed { m, c }))
                })
            })
        })
    }

    /// The ids of the matches of constraint `c`.
    pub fn of_constraint(&self, c: ConstraintId) -> std::ops::Range<MatchId> {
        self.ranges.get(c.0 as usize).cloned().unwrap_or(0..0)
    }

    /// Number of matches.
    pub fn len(&self) -> usize {
        self.list.len()
    }
    /// One more than the largest constraint id any match can have (the setting's constraint count
    /// when the table was built).
    pub(crate) fn constraint_bound(&self) -> usize {
        self.ranges.len()
    }
    /// Whether every match's nodes are below [`Matches::node_bound`].
    pub(crate) fn nodes_in_bound(&self) -> bool {
        self.nodes_in_bound
    }
    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
    /// Match `m` as an application.
    pub fn application(&self, m: MatchId) -> Application {
        Application {
            constraint: self.list.constraint(m),
            nodes: SmallVec::from_slice(self.list.nodes(m)),
        }
    }
}

impl Matches for MatchTable {
    fn constraint(&self, m: MatchId) -> ConstraintId {
        self.list.constraint(m)
    }
    fn nodes(&self, m: MatchId) -> &[NodeId] {
        self.list.nodes(m)
    }
    fn seeded_at(&self, n: NodeId) -> &[Seed] {
        let n = n as usize;
        if n + 1 >= self.seed_start.len() {
            return &[];
        }
        &self.seed_list[self.seed_start[n] as usize..self.seed_start[n + 1] as usize]
    }
    fn match_bound(&self) -> usize {
        self.list.len()
    }
    fn node_bound(&self) -> usize {
        self.node_count
    }
}

/// An element as recognition finds it: applications are match ids (the first started it, the rest
/// ascending).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Found {
    /// Its class.
    pub class: ClassId,
    /// Its nodes, ascending.
    pub nodes: Vec<NodeId>,
    /// Its applications as match ids: the first started it; the rest ascending.
    pub apps: Vec<MatchId>,
    /// Whether the schedule may end where the derivation stopped.
    pub complete: bool,
}

impl Found {
    /// The element with its applications spelt out.
    pub fn to_element<M: Matches + ?Sized>(&self, m: &M) -> Element {
        let app = |id: MatchId| Application {
            constraint: m.constraint(id),
            nodes: SmallVec::from_slice(m.nodes(id)),
        };
        let mut applications: Vec<Application> = self.apps.iter().map(|&a| app(a)).collect();
        if applications.len() > 1 {
            applications[1..].sort();
        }
        Element {
            class: self.class,
            nodes: self.nodes.clone(),
            applications,
            complete: self.complete,
        }
    }
}

/// What recognising one class looks up per constraint (build once per class, reuse across calls).
#[derive(Debug, Clone)]
pub struct ClassView {
    /// Per constraint id: the sets leaving the schedule's start that hold it.
    pub(crate) start_sets: Vec<SmallVec<[usize; 2]>>,
    /// Per constraint id: bit 0 used in some set, bit 1 recorded (`overlaps`).
    uses: Vec<u8>,
    /// Per constraint id: the size of its context part.
    need: Vec<u16>,
    /// Per constraint id: its context part, for the constraints the class uses or records.
    infos: Vec<Option<ConstraintInfo>>,
}

impl ClassView {
    /// The view of `class`.
    pub fn new(setting: &Setting, class: ClassId) -> Self {
        let cls = setting.class(class);
        let dfa = cls.dfa();
        let mut start_sets: Vec<SmallVec<[usize; 2]>> = vec![SmallVec::new(); setting.constraints().len()];
        for set in dfa.sets_out(dfa.start()) {
            for &c in &cls.sets[set].constraints {
                let v = &mut start_sets[c.0 as usize];
                if !v.contains(&set) {
                    v.push(set);
                }
            }
        }
        let mut uses = vec![0u8; setting.constraints().len()];
        let mut infos = vec![None; uses.len()];
        for c in cls.constraints() {
            uses[c.0 as usize] |= 1;
            infos[c.0 as usize] = Some(ConstraintInfo::of(setting, c));
        }
        for &c in &cls.overlaps {
            uses[c.0 as usize] |= 2;
            infos[c.0 as usize] = Some(ConstraintInfo::of(setting, c));
        }
        let need = infos.iter().map(|i| i.as_ref().map_or(0, |i| i.context_len)).collect();
        ClassView {
            start_sets,
            uses,
            need,
            infos,
        }
    }
    fn uses(&self, c: ConstraintId) -> u8 {
        self.uses.get(c.0 as usize).copied().unwrap_or(0)
    }
}

/// A match's state during one closure (epoch-stamped).
#[derive(Debug, Clone, Copy, Default)]
struct MatchState {
    applied: u32,
    count_epoch: u32,
    count: u32,
}

/// Reusable scratch space for recognition: stamps over nodes and matches (one per worker or per
/// class; sized once, cleared by bumping an epoch, not by writing).
#[derive(Debug, Clone, Default)]
pub struct Scratch {
    epoch: u32,
    node: Vec<u32>,
    /// Per match, together (one cache line per look): applied in this epoch, and how much of its
    /// context has joined.
    mstate: Vec<MatchState>,
    /// The matches some element of the current run holds (stamped with `run`).
    covered: Vec<u32>,
    run: u32,
}

impl Scratch {
    fn begin(&mut self, nodes: usize, matches: usize) {
        if self.node.len() < nodes {
            self.node.resize(nodes, 0);
        }
        if self.mstate.len() < matches {
            self.mstate.resize(matches, MatchState::default());
        }
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.node.iter_mut().for_each(|x| *x = 0);
            self.mstate.iter_mut().for_each(|x| *x = MatchState::default());
            self.epoch = 1;
        }
    }

    /// Starts a recognition run over `matches` matches: nothing is covered.
    fn begin_run(&mut self, matches: usize) {
        if self.covered.len() < matches {
            self.covered.resize(matches, 0);
        }
        self.run = self.run.wrapping_add(1);
        if self.run == 0 {
            self.covered.iter_mut().for_each(|x| *x = 0);
            self.run = 1;
        }
    }
    fn covered(&self, m: MatchId) -> bool {
        self.covered.get(m as usize) == Some(&self.run)
    }
    fn cover(&mut self, m: MatchId) {
        if let Some(x) = self.covered.get_mut(m as usize) {
            *x = self.run;
        }
    }
}

/// Recognises every element of `class` in `host`.
pub fn recognize<H: Host + Sync + ?Sized>(setting: &Setting, class: ClassId, host: &H) -> Vec<Element> {
    recognize_with(setting, class, host, Limits::default())
}

/// [`recognize`] with explicit limits.
pub fn recognize_with<H: Host + Sync + ?Sized>(
    setting: &Setting,
    class: ClassId,
    host: &H,
    limits: Limits,
) -> Vec<Element> {
    let cls = setting.class(class);
    let mut cons = cls.constraints();
    cons.extend(cls.overlaps.iter().copied());
    let table = MatchTable::build(setting, &cons, host);
    let seeds = start_seeds(setting, class, &table, start_candidates(setting, class, &table));
    let mut scratch = Scratch::default();
    recognize_from(setting, class, &table, &seeds, limits, &mut scratch)
        .iter()
        .map(|f| f.to_element(&table))
        .collect()
}

/// The matches among `candidates` that may start a derivation of `class` (their constraint is in
/// a set leaving the schedule's start), as `(set, match)`, in the order derivations are tried:
/// latest node first ascending, then set, then application.
pub fn start_seeds<M: Matches + ?Sized>(
    setting: &Setting,
    class: ClassId,
    table: &M,
    candidates: impl IntoIterator<Item = MatchId>,
) -> Vec<(usize, MatchId)> {
    start_seeds_in(&ClassView::new(setting, class), table, candidates)
}

/// [`start_seeds`] with the class's view built beforehand.
pub fn start_seeds_in<M: Matches + ?Sized>(
    view: &ClassView,
    table: &M,
    candidates: impl IntoIterator<Item = MatchId>,
) -> Vec<(usize, MatchId)> {
    let sets_of = &view.start_sets;
    // Sort key: latest node, set, constraint (packed: one integer comparison), then the nodes.
    let mut seeds: Vec<(u128, MatchId)> = Vec::new();
    for m in candidates {
        if !table.live(m) {
            continue;
        }
        let c = table.constraint(m);
        if let Some(sets) = sets_of.get(c.0 as usize)
            && !sets.is_empty()
        {
            let key = table.nodes(m).iter().copied().max().unwrap_or(0) as u128;
            for &s in sets {
                seeds.push(((key << 96) | ((s as u128) << 32) | c.0 as u128, m));
            }
        }
    }
    sort_by_latest_node(&mut seeds, table.node_bound());
    // Equal keys (rare): by the matches' nodes, as the order must not depend on match ids.
    let mut i = 0;
    while i < seeds.len() {
        let mut j = i + 1;
        while j < seeds.len() && seeds[j].0 == seeds[i].0 {
            j += 1;
        }
        if j - i > 1 {
            seeds[i..j].sort_by(|a, b| table.nodes(a.1).cmp(table.nodes(b.1)));
        }
        i = j;
    }
    seeds.dedup();
    seeds
        .into_iter()
        .map(|(k, m)| (((k >> 32) & 0xFFFF_FFFF_FFFF_FFFF) as usize, m))
        .collect()
}

/// [`start_seeds_in`] over every match of `table`, merged from its [`LatestOrder`]
/// (the same seeds in the same order, without sorting them again).
pub fn start_seeds_ordered(view: &ClassView, table: &MatchTable, lo: &LatestOrder) -> Vec<(usize, MatchId)> {
    SeedMerge::new(view, table, lo).collect()
}

/// The start seeds of one class in the order derivations are tried, merged as they are read from
/// a table's [`LatestOrder`]: one stream per (set, constraint), the next seed from the stream whose
/// next match has the smallest latest node (the first such stream on ties).
pub struct SeedMerge<'a> {
    lo: &'a LatestOrder,
    /// (set, cursor, end) per stream, in (set, constraint) order.
    streams: SmallVec<[(usize, usize, usize); 8]>,
    /// Per stream: the latest node of the match at its cursor (`NodeId::MAX` once it is read out).
    heads: SmallVec<[NodeId; 8]>,
    /// The stream holding the next seed, and that seed's latest node.
    best: Option<(NodeId, usize)>,
}

impl<'a> SeedMerge<'a> {
    /// The merge of `view`'s start constraints' matches in `table`.
    pub fn new(view: &ClassView, table: &MatchTable, lo: &'a LatestOrder) -> Self {
        let mut streams: SmallVec<[(usize, usize, usize); 8]> = SmallVec::new();
        for (c, sets) in view.start_sets.iter().enumerate() {
            let r = table.of_constraint(ConstraintId(c as u32));
            for &set in sets {
                if !r.is_empty() {
                    streams.push((set, r.start as usize, r.end as usize));
                }
            }
        }
        streams.sort_by_key(|&(set, from, _)| (set, from));
        let heads = streams
            .iter()
            .map(|&(_, from, _)| lo.latest[lo.order[from] as usize])
            .collect();
        let mut merge = SeedMerge {
            lo,
            streams,
            heads,
            best: None,
        };
        merge.find_best();
        merge
    }

    fn find_best(&mut self) {
        // The first stream with the least head (node ids are below `NodeId::MAX`).
        let (mut bl, mut bk) = (NodeId::MAX, 0);
        for (k, &l) in self.heads.iter().enumerate() {
            if l < bl {
                (bl, bk) = (l, k);
            }
        }
        self.best = (bl != NodeId::MAX).then_some((bl, bk));
    }

    /// The latest node of the next seed, if any.
    pub fn peek_latest(&self) -> Option<NodeId> {
        self.best.map(|(l, _)| l)
    }
}

impl Iterator for SeedMerge<'_> {
    type Item = (usize, MatchId);
    fn next(&mut self) -> Option<(usize, MatchId)> {
        let (_, k) = self.best?;
        let lo = self.lo;
        let (set, at, end) = &mut self.streams[k];
        let out = (*set, lo.order[*at]);
        *at += 1;
        self.heads[k] = if *at < *end {
            lo.latest[lo.order[*at] as usize]
        } else {
            NodeId::MAX
        };
        self.find_best();
        Some(out)
    }
}

/// Sorts packed seed keys (latest node in the top 32 bits): by counting on the latest node when
/// the seeds are many beside the nodes (then each node's bucket is sorted on its own, and buckets
/// are small), by comparison otherwise.
fn sort_by_latest_node(seeds: &mut Vec<(u128, MatchId)>, node_bound: usize) {
    if seeds.len() < 64 || seeds.len().saturating_mul(4) < node_bound {
        seeds.sort_unstable();
        return;
    }
    let node = |k: u128| (k >> 96) as usize;
    let bound = seeds.iter().map(|s| node(s.0) + 1).max().unwrap_or(0);
    let mut start = vec![0u32; bound + 1];
    for s in seeds.iter() {
        start[node(s.0) + 1] += 1;
    }
    for i in 1..start.len() {
        start[i] += start[i - 1];
    }
    let mut fill = start.clone();
    let mut out = vec![(0u128, 0 as MatchId); seeds.len()];
    for &s in seeds.iter() {
        let b = &mut fill[node(s.0)];
        out[*b as usize] = s;
        *b += 1;
    }
    for w in start.windows(2) {
        let (a, b) = (w[0] as usize, w[1] as usize);
        if b - a > 1 {
            out[a..b].sort_unstable();
        }
    }
    *seeds = out;
}

/// The matches of `table` whose constraint may start a derivation of `class`: the candidates
/// [`start_seeds`] keeps, read from the table's per-constraint ranges.
pub fn start_candidates(setting: &Setting, class: ClassId, table: &MatchTable) -> Vec<MatchId> {
    let cls = setting.class(class);
    let dfa = cls.dfa();
    let mut cons: Vec<ConstraintId> = dfa
        .sets_out(dfa.start())
        .flat_map(|set| cls.sets[set].constraints.iter().copied())
        .collect();
    cons.sort_unstable();
    cons.dedup();
    cons.into_iter().flat_map(|c| table.of_constraint(c)).collect()
}

/// Recognises the elements of `class` that derivations started from `seeds` (see [`start_seeds`])
/// reach, with candidates from `table`. Over every start match of a host this is recognition in
/// the host; over the start matches of a union of components of the class's match hypergraph, it
/// is recognition restricted to them (elements never leave a component).
pub fn recognize_from<M: Matches + ?Sized>(
    setting: &Setting,
    class: ClassId,
    table: &M,
    seeds: &[(usize, MatchId)],
    limits: Limits,
    scratch: &mut Scratch,
) -> Vec<Found> {
    recognize_from_in(
        setting,
        class,
        &ClassView::new(setting, class),
        table,
        seeds,
        limits,
        scratch,
    )
}

/// [`recognize_from`] with the class's view built beforehand.
pub fn recognize_from_in<M: Matches + ?Sized>(
    setting: &Setting,
    class: ClassId,
    view: &ClassView,
    table: &M,
    seeds: &[(usize, MatchId)],
    limits: Limits,
    scratch: &mut Scratch,
) -> Vec<Found> {
    let dfa = setting.class(class).dfa();
    scratch.begin_run(table.match_bound());
    let mut out: Vec<Found> = Vec::new();
    // Per state after the first step: the loop constraints (as a mask) when every step loops.
    let mut loops_at: Vec<(u32, Option<Vec<bool>>)> = Vec::new();
    let mut ended: Vec<MatchId> = Vec::new();
    for &(set, app) in seeds {
        if scratch.covered(app) {
            continue;
        }
        let Some(state) = dfa.step(dfa.start(), set) else {
            continue;
        };
        if setting.class(class).ends_with(set) {
            // a derivation whose first step ends it has ended at once
            continue;
        }
        let li = match loops_at.iter().position(|(st, _)| *st == state) {
            Some(i) => i,
            None => {
                let mask = loops_only(setting, class, state).map(|cons| {
                    let mut in_loop = vec![false; setting.constraints().len()];
                    for c in cons {
                        in_loop[c.0 as usize] = true;
                    }
                    in_loop
                });
                loops_at.push((state, mask));
                loops_at.len() - 1
            }
        };
        let mut results = Vec::new();
        if let Some(in_loop) = &loops_at[li].1 {
            results.push(closure(setting, class, table, view, in_loop, app, state, scratch));
        } else {
            let mut w = Working::with_room();
            w.add(table, app);
            let mut memo = FxHashSet::default();
            let mut budget = limits.max_branches;
            let mut ex = Explorer {
                setting,
                class,
                table,
                view,
                results: &mut results,
                ended: &mut ended,
                memo: &mut memo,
                budget: &mut budget,
            };
            ex.explore(state, w);
        }
        // What a derivation that ended had applied starts no other element (as an element's
        // applications do not): from there, the class's generating system has terminated too.
        for a in ended.drain(..) {
            scratch.cover(a);
        }
        // Every element from this seed holds the seed, which no earlier element holds (it was not
        // covered): only elements of this one seed can repeat each other.
        let mut seen: FxHashSet<Vec<MatchId>> = FxHashSet::default();
        let many = results.len() > 1;
        for e in results {
            if many {
                let mut key = e.apps.clone();
                key.sort_unstable();
                if !seen.insert(key) {
                    continue;
                }
            }
            for &a in &e.apps {
                scratch.cover(a);
            }
            out.push(e);
        }
    }
    finish(&mut out, table);
    out
}

/// Drops subsumed elements and puts the rest in their stable order (by nodes, then applications).
pub(crate) fn finish<M: Matches + ?Sized>(out: &mut Vec<Found>, table: &M) {
    drop_subsumed(out);
    let app_cmp = |x: MatchId, y: MatchId| {
        table
            .constraint(x)
            .cmp(&table.constraint(y))
            .then_with(|| table.nodes(x).cmp(table.nodes(y)))
    };
    out.sort_by(|a, b| {
        a.nodes.cmp(&b.nodes).then_with(|| {
            let (mut x, mut y) = (a.apps.clone(), b.apps.clone());
            x[1..].sort_by(|&p, &q| app_cmp(p, q));
            y[1..].sort_by(|&p, &q| app_cmp(p, q));
            x.iter()
                .zip(&y)
                .map(|(&p, &q)| app_cmp(p, q))
                .find(|o| o.is_ne())
                .unwrap_or(x.len().cmp(&y.len()))
        })
    });
}

/// Drops elements whose applications all lie inside another, larger element of the class.
fn drop_subsumed(out: &mut Vec<Found>) {
    if out.len() < 2 {
        return;
    }
    let mut first_of: FxHashMap<MatchId, SmallVec<[usize; 1]>> = FxHashMap::default();
    for (i, e) in out.iter().enumerate() {
        first_of.entry(e.apps[0]).or_default().push(i);
    }
    // Which ids are some element's first application (a bit per id; checked before the map).
    let bound = out
        .iter()
        .flat_map(|e| e.apps.iter())
        .copied()
        .max()
        .map_or(0, |m| m as usize + 1);
    let mut is_first = vec![0u64; bound.div_ceil(64)];
    for e in out.iter() {
        let a = e.apps[0] as usize;
        is_first[a / 64] |= 1 << (a % 64);
    }
    // (element, a larger element holding its first application)
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    for (j, e) in out.iter().enumerate() {
        for a in &e.apps {
            if is_first[*a as usize / 64] & (1 << (*a as usize % 64)) == 0 {
                continue;
            }
            if let Some(is) = first_of.get(a) {
                for &i in is {
                    if i != j && e.apps.len() > out[i].apps.len() {
                        pairs.push((i, j));
                    }
                }
            }
        }
    }
    if pairs.is_empty() {
        return;
    }
    let sorted = |e: &Found| {
        let mut v = e.apps.clone();
        v.sort_unstable();
        v
    };
    let mut drop = vec![false; out.len()];
    for (i, j) in pairs {
        if drop[i] {
            continue;
        }
        let (si, sj) = (sorted(&out[i]), sorted(&out[j]));
        if si.iter().all(|a| sj.binary_search(a).is_ok()) {
            drop[i] = true;
        }
    }
    let mut k = drop.into_iter();
    out.retain(|_| !k.next().unwrap_or(false));
}

/// When every set leaving `state` loops back to it, those sets' constraints.
pub(crate) fn loops_only(setting: &Setting, class: ClassId, state: u32) -> Option<Vec<ConstraintId>> {
    let cls = setting.class(class);
    let dfa = cls.dfa();
    let mut cons = Vec::new();
    for s in dfa.sets_out(state) {
        if dfa.step(state, s) != Some(state) || cls.ends_with(s) {
            return None;
        }
        cons.extend(cls.sets[s].constraints.iter().copied());
    }
    cons.sort_unstable();
    cons.dedup();
    Some(cons)
}

/// The derivation from `seed` when every later step loops: the least set closed under the loop
/// constraints' matches whose context lies inside, then the recorded constraints' matches that
/// lie inside.
#[allow(clippy::too_many_arguments)]
fn closure<M: Matches + ?Sized>(
    setting: &Setting,
    class: ClassId,
    table: &M,
    view: &ClassView,
    in_loop: &[bool],
    seed: MatchId,
    state: u32,
    s: &mut Scratch,
) -> Found {
    s.begin(table.node_bound(), table.match_bound());
    let ep = s.epoch;
    let mut order: Vec<NodeId> = Vec::new();
    let mut apps: Vec<MatchId> = Vec::new();
    let mut queue_at = 0usize;
    let apply = |m: MatchId, s: &mut Scratch, order: &mut Vec<NodeId>, apps: &mut Vec<MatchId>| {
        if s.mstate[m as usize].applied == ep {
            return;
        }
        s.mstate[m as usize].applied = ep;
        apps.push(m);
        for &n in table.nodes(m) {
            if s.node[n as usize] != ep {
                s.node[n as usize] = ep;
                order.push(n);
            }
        }
    };
    apply(seed, s, &mut order, &mut apps);
    while queue_at < order.len() {
        let n = order[queue_at];
        queue_at += 1;
        for &Seed { m, c } in table.seeded_at(n) {
            if !in_loop[c.0 as usize] || !table.live(m) {
                continue;
            }
            let st = &mut s.mstate[m as usize];
            if st.applied == ep {
                continue;
            }
            let need = view.need[c.0 as usize];
            if need == 0 {
                apply(m, s, &mut order, &mut apps);
                continue;
            }
            if st.count_epoch != ep {
                st.count_epoch = ep;
                st.count = 0;
            }
            st.count += 1;
            if st.count == need as u32 {
                apply(m, s, &mut order, &mut apps);
            }
        }
    }
    // Recorded constraints: matches lying wholly inside.
    if !setting.class(class).overlaps.is_empty() {
        for &n in &order {
            for &Seed { m, c } in table.seeded_at(n) {
                if view.uses(c) & 2 == 0 || s.mstate[m as usize].applied == ep || !table.live(m) {
                    continue;
                }
                if table.nodes(m).iter().all(|&x| s.node[x as usize] == ep) {
                    s.mstate[m as usize].applied = ep;
                    apps.push(m);
                }
            }
        }
    }
    order.sort_unstable();
    apps[1..].sort_unstable();
    Found {
        class,
        nodes: order,
        apps,
        complete: setting.class(class).dfa().accepts(state),
    }
}

/// A set of ids: a short list while small (most derivations are), hashed beyond.
#[derive(Clone, Default)]
struct IdSet {
    small: SmallVec<[u32; 16]>,
    big: Option<FxHashSet<u32>>,
}

impl IdSet {
    const SMALL: usize = 32;
    #[inline]
    fn contains(&self, x: u32) -> bool {
        match &self.big {
            Some(h) => h.contains(&x),
            None => self.small.contains(&x),
        }
    }
    /// Inserts `x`; whether it was new.
    fn insert(&mut self, x: u32) -> bool {
        if let Some(h) = &mut self.big {
            return h.insert(x);
        }
        if self.small.contains(&x) {
            return false;
        }
        if self.small.len() < Self::SMALL {
            self.small.push(x);
        } else {
            let mut h: FxHashSet<u32> = self.small.drain(..).collect();
            h.insert(x);
            self.big = Some(h);
        }
        true
    }
}

/// Candidate matches against a working element, kept incrementally: every live match of a class
/// constraint touching the element with its context inside it, found from the nodes added since
/// the last look.
#[derive(Clone, Default)]
struct Working {
    nodes: IdSet,
    order: Vec<NodeId>,
    apps: Vec<MatchId>,
    app_set: IdSet,
    seen_upto: usize,
    known: IdSet,
    /// Candidates found so far, with their constraints (applied ones are skipped when read).
    pending: Vec<Seed>,
}

impl Working {
    /// An empty working element with room for a typical derivation (growing its lists step by
    /// step cost a tenth of an incremental level's time).
    fn with_room() -> Self {
        Working {
            order: Vec::with_capacity(32),
            apps: Vec::with_capacity(16),
            pending: Vec::with_capacity(64),
            ..Working::default()
        }
    }

    /// A copy for one branch of a derivation, with room to grow as the original was given.
    fn branch(&self) -> Self {
        let with = |v: &Vec<u32>, room: usize| {
            let mut out = Vec::with_capacity(v.len() + room);
            out.extend_from_slice(v);
            out
        };
        let mut pending = Vec::with_capacity(self.pending.len() + 64);
        pending.extend_from_slice(&self.pending);
        Working {
            nodes: self.nodes.clone(),
            order: with(&self.order, 32),
            apps: with(&self.apps, 16),
            app_set: self.app_set.clone(),
            seen_upto: self.seen_upto,
            known: self.known.clone(),
            pending,
        }
    }

    fn add<M: Matches + ?Sized>(&mut self, t: &M, app: MatchId) -> bool {
        let mut grew = false;
        for &n in t.nodes(app) {
            if self.nodes.insert(n) {
                self.order.push(n);
                grew = true;
            }
        }
        if self.app_set.insert(app) {
            self.apps.push(app);
            grew = true;
        }
        grew
    }

    fn refresh<M: Matches + ?Sized>(&mut self, t: &M, view: &ClassView) {
        while self.seen_upto < self.order.len() {
            let n = self.order[self.seen_upto];
            self.seen_upto += 1;
            for &Seed { m, c } in t.seeded_at(n) {
                let Some(info) = view.infos.get(c.0 as usize).and_then(|i| i.as_ref()) else {
                    continue;
                };
                if !t.live(m) || self.known.contains(m) {
                    continue;
                }
                let ok = t
                    .nodes(m)
                    .iter()
                    .zip(&info.context)
                    .all(|(&x, &ctx)| !ctx || self.nodes.contains(x));
                if ok {
                    self.known.insert(m);
                    self.pending.push(Seed { m, c });
                }
            }
        }
    }

    /// The candidate applications of the constraints `cons` not yet applied, by constraint in
    /// `cons` order (a constraint listed twice counts once, at its first place), then ascending;
    /// read in one pass over the pending matches, whatever the number of constraints.
    fn candidates_of<M: Matches + ?Sized>(
        &mut self,
        t: &M,
        view: &ClassView,
        cons: &[ConstraintId],
    ) -> SmallVec<[(usize, MatchId); 8]> {
        self.refresh(t, view);
        let mut out: SmallVec<[(usize, MatchId); 8]> = SmallVec::new();
        for s in &self.pending {
            if let Some(k) = cons.iter().position(|&c| c == s.c)
                && !self.app_set.contains(s.m)
            {
                out.push((k, s.m));
            }
        }
        out.sort_unstable();
        out
    }
}

struct Explorer<'a, M: Matches + ?Sized> {
    setting: &'a Setting,
    class: ClassId,
    table: &'a M,
    view: &'a ClassView,
    results: &'a mut Vec<Found>,
    /// The applications of derivations that ended (`Class::ends`).
    ended: &'a mut Vec<MatchId>,
    memo: &'a mut FxHashSet<(u32, Vec<MatchId>)>,
    budget: &'a mut usize,
}

impl<M: Matches + ?Sized> Explorer<'_, M> {
    fn explore(&mut self, mut state: u32, mut w: Working) {
        let cls = self.setting.class(self.class);
        let dfa = cls.dfa();
        let t = self.table;
        loop {
            // 1. Saturate the sets that loop back to the current state.
            let out_sets: SmallVec<[usize; 4]> = dfa.sets_out(state).collect();
            let mut loop_cons: SmallVec<[ConstraintId; 16]> = out_sets
                .iter()
                .filter(|&&s| dfa.step(state, s) == Some(state) && !cls.ends_with(s))
                .flat_map(|&s| cls.sets[s].constraints.iter().copied())
                .collect();
            loop_cons.sort_unstable();
            loop_cons.dedup();
            // When every step leaving this state ends the element, an ending candidate holding a
            // node of a kind no loop constraint has will still add that node once the loop is
            // saturated: the derivation has ended already (exact; it saves saturating the rest).
            let all_end = out_sets
                .iter()
                .all(|&s| cls.ends_with(s) || dfa.step(state, s) == Some(state));
            let mut end_cons: SmallVec<[ConstraintId; 8]> = SmallVec::new();
            let mut loop_kinds: SmallVec<[u32; 16]> = SmallVec::new();
            if all_end && !cls.ends.is_empty() {
                end_cons.extend(
                    out_sets
                        .iter()
                        .filter(|&&s| cls.ends_with(s))
                        .flat_map(|&s| cls.sets[s].constraints.iter().copied()),
                );
                for &c in &loop_cons {
                    loop_kinds.extend(self.setting.constraint(c).pattern.vars.iter().map(|v| v.kind));
                }
            }
            // Every round applies all the loop matches found so far (one look over the candidates
            // for all loop constraints at once); the closure does not depend on the order.
            if !loop_cons.is_empty() {
                loop {
                    w.refresh(t, self.view);
                    if !end_cons.is_empty() {
                        let ends_now = w.pending.iter().any(|s| {
                            end_cons.contains(&s.c)
                                && !w.app_set.contains(s.m)
                                && t.nodes(s.m)
                                    .iter()
                                    .zip(&self.setting.constraint(s.c).pattern.vars)
                                    .any(|(&n, v)| !w.nodes.contains(n) && !loop_kinds.contains(&v.kind))
                        });
                        if ends_now {
                            self.ended.extend_from_slice(&w.apps);
                            return;
                        }
                    }
                    let apps: SmallVec<[MatchId; 16]> = w
                        .pending
                        .iter()
                        .filter(|s| loop_cons.contains(&s.c) && !w.app_set.contains(s.m))
                        .map(|s| s.m)
                        .collect();
                    let mut grew = false;
                    for app in apps {
                        grew |= w.add(t, app);
                    }
                    if !grew {
                        break;
                    }
                }
            }
            // 2. Steps that leave the current state (and steps of sets that end the element):
            // branch over every applicable match. A branch through an ending step has ended: it
            // gives no element.
            let mut options: SmallVec<[(u32, MatchId); 4]> = SmallVec::new();
            let mut contained: SmallVec<[MatchId; 4]> = SmallVec::new();
            let mut ended = false;
            for &s in &out_sets {
                let Some(target) = dfa.step(state, s) else { continue };
                let ends = cls.ends_with(s);
                if target == state && !ends {
                    continue;
                }
                for (_, app) in w.candidates_of(t, self.view, &cls.sets[s].constraints) {
                    if t.nodes(app).iter().any(|&n| !w.nodes.contains(n)) {
                        if ends {
                            ended = true;
                        } else {
                            options.push((target, app));
                        }
                    } else {
                        contained.push(app);
                    }
                }
            }
            if options.is_empty() && ended {
                self.ended.extend_from_slice(&w.apps);
                return;
            }
            if options.is_empty() {
                // Matches that lie wholly inside count as applications of the element, and so do
                // the matches of the constraints the class records.
                for app in contained {
                    w.add(t, app);
                }
                for (_, app) in w.candidates_of(t, self.view, &cls.overlaps) {
                    if t.nodes(app).iter().all(|&n| w.nodes.contains(n)) {
                        w.add(t, app);
                    }
                }
                let mut nodes = w.order;
                nodes.sort_unstable();
                let mut apps = w.apps;
                apps[1..].sort_unstable();
                self.results.push(Found {
                    class: self.class,
                    nodes,
                    apps,
                    complete: dfa.accepts(state),
                });
                return;
            }
            if options.len() == 1 {
                let (target, app) = options.pop().expect("one option");
                w.add(t, app);
                state = target;
                continue;
            }
            for (target, app) in options {
                if *self.budget == 0 {
                    return;
                }
                *self.budget -= 1;
                let mut w2 = w.branch();
                w2.add(t, app);
                let mut key = w2.apps.clone();
                key.sort_unstable();
                if self.memo.insert((target, key)) {
                    self.explore(target, w2);
                }
            }
            return;
        }
    }
}

/// Every constraint the classes of `level` use or record.
pub fn level_constraints(setting: &Setting, level: u32) -> Vec<ConstraintId> {
    let mut cons: Vec<ConstraintId> = setting
        .classes_at(level)
        .into_iter()
        .flat_map(|c| {
            let cls = setting.class(c);
            let mut v = cls.constraints();
            v.extend(cls.overlaps.iter().copied());
            v
        })
        .collect();
    cons.sort_unstable();
    cons.dedup();
    cons
}

/// Recognises the elements of every class of `level` over one shared match table; classes in
/// declaration order (in parallel). Returns the table and the elements with match ids.
pub fn recognize_level_found<H: Host + Sync + ?Sized>(
    setting: &Setting,
    level: u32,
    host: &H,
) -> (MatchTable, Vec<Found>) {
    recognize_level_found_with(setting, level, host, true)
}

/// [`recognize_level_found`], choosing whether closure classes that meet the conditions are
/// recognised in one sweep (`sweep`, the default) or all classes in batch (the two give the same
/// elements; the tests compare them).
pub fn recognize_level_found_with<H: Host + Sync + ?Sized>(
    setting: &Setting,
    level: u32,
    host: &H,
    sweep: bool,
) -> (MatchTable, Vec<Found>) {
    use rayon::prelude::*;
    let mut table = MatchTable::build_unindexed(setting, &level_constraints(setting, level), host);
    let classes = setting.classes_at(level);
    // Closure classes whose loop matches are forward are recognised in one sweep (see
    // `super::sweep`); the others in batch, over the seed index.
    let (sweep_index, order) = super::sweep::SweepIndex::with_order(setting, &table);
    let swept: Vec<bool> = classes
        .iter()
        .map(|&c| sweep && super::sweep::eligible(setting, c, &sweep_index))
        .collect();
    if swept.iter().any(|&s| !s) {
        let index = table.seed_index_of(setting);
        table.set_seed_index(index);
    }
    // One scratch per worker thread (sized once to the table), not per class.
    let pool: Vec<std::sync::Mutex<Scratch>> = (0..rayon::current_num_threads().max(1))
        .map(|_| std::sync::Mutex::new(Scratch::default()))
        .collect();
    let sweep_pool: Vec<std::sync::Mutex<super::sweep::SweepScratch>> = (0..pool.len())
        .map(|_| std::sync::Mutex::new(super::sweep::SweepScratch::default()))
        .collect();
    let per: Vec<Vec<Found>> = classes
        .par_iter()
        .zip(&swept)
        .map(|(&c, &by_sweep)| {
            let view = ClassView::new(setting, c);
            let slot = rayon::current_thread_index().unwrap_or(0) % pool.len();
            if by_sweep {
                let mut scratch = sweep_pool[slot].lock().unwrap_or_else(|e| e.into_inner());
                let seeds = SeedMerge::new(&view, &table, &order);
                if let Some(mut out) = super::sweep::sweep(setting, c, &table, &sweep_index, seeds, &mut scratch) {
                    finish(&mut out, &table);
                    return out;
                }
            }
            let seeds = start_seeds_ordered(&view, &table, &order);
            let mut scratch = pool[slot].lock().unwrap_or_else(|e| e.into_inner());
            recognize_from_in(setting, c, &view, &table, &seeds, Limits::default(), &mut scratch)
        })
        .collect();
    (table, per.into_iter().flatten().collect())
}

/// Recognises the elements of every class of `level`, classes in declaration order, in parallel
/// across classes. Returns the elements and, for each, its class.
pub fn recognize_level<H: Host + Sync + ?Sized>(setting: &Setting, level: u32, host: &H) -> Vec<Element> {
    let (table, found) = recognize_level_found(setting, level, host);
    found.iter().map(|f| f.to_element(&table)).collect()
}
