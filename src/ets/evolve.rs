//! Evolving level-n structs and incremental recognition: elements with lifetimes.
//!
//! The thesis asks that classification "evolve with the struct" (§5.3.2.1) and that an element be
//! followed through its formative history (§5.1.1). Here a level-n struct changes over time as
//! level-(n−1) elements begin and end; a [`Tracker`] keeps the level's matches and elements up to
//! date at a cost in proportion to what changed:
//! - a new node's matches are found by anchored matching from it; an ended node's matches end;
//! - for each class, the *components* of its match hypergraph (nodes joined by live matches of the
//!   constraints it uses or records) that hold a node of a changed match are recognised again;
//!   every other component is exactly as it was, and so are its elements (an element never leaves
//!   its component, and recognition restricted to a component equals recognition in the whole
//!   struct restricted to it — `docs/semantics.md`);
//! - a class whose every element is determined by its first application alone (*seed-determined*:
//!   the constraints that start a derivation can never be applied later, and the schedule's runs
//!   are bounded, L steps at most) is recognised again more locally: only from the start matches
//!   within L match hops of a changed match (a derivation never looks further than that from its
//!   start), and only its elements started there or holding an ended match are compared;
//! - an element found again unchanged keeps its identity; otherwise the old one ends and the new
//!   one begins. A new element *continues* an ended one of the same class (same lineage) when the
//!   two are each other's only counterpart, among the step's ended and begun elements of that
//!   class, that shares a living member with it: a block that grows stays the same block; two
//!   blocks that merge both end, and the merged block begins.

use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;
use std::ops::ControlFlow;

use super::level::{cel_linked, cel_partners};
use super::matching::{Host, LinkLabel, Plan, PlanScratch};
use super::recognition::{
    ClassView, ConstraintInfo, Found, Limits, MatchId, MatchList, Matches, Scratch, Seed, recognize_from_in,
    start_seeds_in,
};
use super::setting::{ClassId, ConstraintId, Setting};
use super::structs::NodeId;

/// A class element link of an evolving level-n struct: the nodes (≥ 2) that share one
/// application of a level-(n−1) constraint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveCel {
    /// The shared constraint.
    pub constraint: ConstraintId,
    /// Its members, in the order they joined.
    pub members: SmallVec<[NodeId; 4]>,
}

/// A level-n struct whose nodes begin and end: every node ever added stays, with a flag saying
/// whether it is alive now. Matching admits only living nodes.
#[derive(Debug, Clone, Default)]
pub struct LiveLevel {
    kinds: Vec<u32>,
    by_kind: Vec<Vec<NodeId>>,
    alive: Vec<bool>,
    links: Vec<LiveCel>,
    /// Per node: its links, each with its constraint (so that a look for one constraint reads no
    /// other link).
    incident: Vec<SmallVec<[(ConstraintId, u32); 6]>>,
    /// Derives the links of nodes added by [`LiveLevel::add_node`].
    linker: Linker,
}

/// Derives an evolving level's class element links from its nodes' applications, node by node:
/// the nodes that share an application of a level-(n−1) constraint are linked. It can run apart
/// from the [`LiveLevel`] it feeds (on another thread), which then takes each node's new links
/// with [`LiveLevel::add_linked`].
#[derive(Debug, Clone, Default)]
pub struct Linker {
    nodes: u32,
    /// Per application key of the level below: `NONE`, the first holder, or `LINK | link`.
    holder: Vec<u32>,
    /// Members of each link made so far.
    members: Vec<SmallVec<[NodeId; 4]>>,
    /// Links by constraint and (ascending) members: applications shared by the same elements
    /// share one link, as in [`super::level::LevelStruct`].
    link_index: FxHashMap<(ConstraintId, SmallVec<[NodeId; 4]>), u32>,
    /// The same for links of two members.
    pair_index: FxHashMap<(u32, NodeId, NodeId), u32>,
}

const NONE: u32 = u32::MAX;
const LINK: u32 = 1 << 31;

impl Linker {
    /// The next node, whose applications are `apps` as `(constraint, key)` with keys unique per
    /// application: its id and the links it makes, in the order they are made (a link already
    /// made over the same members and constraint is not made again).
    pub fn add(&mut self, apps: impl IntoIterator<Item = (ConstraintId, u32)>) -> (NodeId, Vec<LiveCel>) {
        let n = self.nodes;
        self.nodes += 1;
        let mut made = Vec::new();
        // The outcome for the last (constraint, holder) seen: a node's applications of one
        // constraint shared with the same holders come in runs, and give the same link.
        let mut last: Option<(ConstraintId, u32, u32)> = None;
        for (c, key) in apps {
            let k = key as usize;
            if self.holder.len() <= k {
                self.holder.resize(k + 1, NONE);
            }
            let h = self.holder[k];
            if h == NONE {
                self.holder[k] = n;
                continue;
            }
            if let Some((lc, lh, li)) = last
                && lc == c
                && lh == h
            {
                if li != NONE {
                    self.holder[k] = LINK | li;
                }
                continue;
            }
            let members: SmallVec<[NodeId; 4]> = if h & LINK == 0 {
                if h == n {
                    last = Some((c, h, NONE));
                    continue;
                }
                SmallVec::from_slice(&[h, n])
            } else {
                let l = &self.members[(h & !LINK) as usize];
                if l.contains(&n) {
                    last = Some((c, h, NONE));
                    continue;
                }
                let mut m = l.clone();
                m.push(n);
                m
            };
            let li = self.link(c, members, &mut made);
            self.holder[k] = LINK | li;
            last = Some((c, h, li));
        }
        (n, made)
    }
    /// The link of `constraint` over `members` (new nodes last), made (and pushed on `made`) if it
    /// is new.
    fn link(&mut self, constraint: ConstraintId, members: SmallVec<[NodeId; 4]>, made: &mut Vec<LiveCel>) -> u32 {
        let li = self.members.len() as u32;
        if let [a, b] = members[..] {
            // Most links join two elements: a flat key.
            match self.pair_index.entry((constraint.0, a.min(b), a.max(b))) {
                std::collections::hash_map::Entry::Occupied(e) => return *e.get(),
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(li);
                }
            }
        } else {
            let mut key = members.clone();
            key.sort_unstable();
            match self.link_index.entry((constraint, key)) {
                std::collections::hash_map::Entry::Occupied(e) => return *e.get(),
                std::collections::hash_map::Entry::Vacant(e) => {
                    e.insert(li);
                }
            }
        }
        self.members.push(members.clone());
        made.push(LiveCel { constraint, members });
        li
    }
}

impl LiveLevel {
    /// Adds a living node of type `kind` whose applications (of the level below) are `apps`, as
    /// `(constraint, key)` with keys unique per application. Returns its id.
    pub fn add_node(&mut self, kind: u32, apps: impl IntoIterator<Item = (ConstraintId, u32)>) -> NodeId {
        debug_assert_eq!(
            self.linker.nodes as usize,
            self.kinds.len(),
            "a LiveLevel takes its nodes by add_node or by add_linked, not both"
        );
        let (_, links) = self.linker.add(apps);
        self.push_node(kind, links)
    }
    /// Adds a living node of type `kind` with the links a [`Linker`] made for it (the Linker's
    /// node ids are this struct's: every node is added through the same Linker, and none by
    /// [`LiveLevel::add_node`]). Returns its id.
    pub fn add_linked(&mut self, kind: u32, links: Vec<LiveCel>) -> NodeId {
        debug_assert_eq!(
            self.linker.nodes, 0,
            "a LiveLevel takes its nodes by add_node or by add_linked, not both"
        );
        self.push_node(kind, links)
    }
    fn push_node(&mut self, kind: u32, links: Vec<LiveCel>) -> NodeId {
        let n = self.kinds.len() as NodeId;
        self.kinds.push(kind);
        if self.by_kind.len() <= kind as usize {
            self.by_kind.resize(kind as usize + 1, Vec::new());
        }
        self.by_kind[kind as usize].push(n);
        self.alive.push(true);
        self.incident.push(SmallVec::new());
        for l in links {
            let li = self.links.len() as u32;
            for &m in &l.members {
                self.incident[m as usize].push((l.constraint, li));
            }
            self.links.push(l);
        }
        n
    }
    /// Ends node `n`.
    pub fn end(&mut self, n: NodeId) {
        self.alive[n as usize] = false;
    }
    /// Whether node `n` is alive.
    pub fn is_alive(&self, n: NodeId) -> bool {
        self.alive.get(n as usize).copied().unwrap_or(false)
    }
    /// Number of nodes ever added.
    pub fn len(&self) -> usize {
        self.kinds.len()
    }
    /// Whether no node was ever added.
    pub fn is_empty(&self) -> bool {
        self.kinds.is_empty()
    }
    /// The links (living or not).
    pub fn links(&self) -> &[LiveCel] {
        &self.links
    }
    /// The links incident to `n`.
    pub fn incident(&self, n: NodeId) -> impl Iterator<Item = &LiveCel> {
        self.incident[n as usize].iter().map(|&(_, i)| &self.links[i as usize])
    }
    /// Whether `n` has a link of constraint `c`.
    pub fn has_link(&self, n: NodeId, c: ConstraintId) -> bool {
        self.incident
            .get(n as usize)
            .is_some_and(|v| v.iter().any(|&(lc, _)| lc == c))
    }
}

impl Host for LiveLevel {
    fn node_count(&self) -> usize {
        self.kinds.len()
    }
    fn node_kind(&self, n: NodeId) -> u32 {
        self.kinds[n as usize]
    }
    fn nodes_of_kind(&self, kind: u32) -> &[NodeId] {
        self.by_kind.get(kind as usize).map(|v| v.as_slice()).unwrap_or(&[])
    }
    fn partners(&self, n: NodeId, label: LinkLabel, _role: u8, _other: u8, out: &mut Vec<NodeId>) {
        let link = |(lc, li): (ConstraintId, u32), c: ConstraintId| {
            (lc == c).then(|| self.links[li as usize].members.as_slice())
        };
        cel_partners(
            &self.incident[n as usize],
            link,
            n,
            label,
            |m| self.alive[m as usize],
            out,
        );
    }
    fn linked(&self, label: LinkLabel, ends: &[(NodeId, u8)]) -> bool {
        let link = |(lc, li): (ConstraintId, u32), c: ConstraintId| {
            (lc == c).then(|| self.links[li as usize].members.as_slice())
        };
        ends.first()
            .is_some_and(|&(first, _)| cel_linked(&self.incident[first as usize], link, label, ends))
    }
}

/// The matches of a level's constraints in a [`LiveLevel`], kept as nodes begin and end.
#[derive(Debug, Clone, Default)]
pub struct LiveMatches {
    list: MatchList,
    live: Vec<bool>,
    seeded: Vec<Vec<Seed>>,
    touching: Vec<Vec<MatchId>>,
}

impl Matches for LiveMatches {
    fn constraint(&self, m: MatchId) -> ConstraintId {
        self.list.constraint(m)
    }
    fn nodes(&self, m: MatchId) -> &[NodeId] {
        self.list.nodes(m)
    }
    fn seeded_at(&self, n: NodeId) -> &[Seed] {
        self.seeded.get(n as usize).map(|v| v.as_slice()).unwrap_or(&[])
    }
    fn live(&self, m: MatchId) -> bool {
        self.live[m as usize]
    }
    fn match_bound(&self) -> usize {
        self.list.len()
    }
    fn node_bound(&self) -> usize {
        self.seeded.len()
    }
}

/// One element over the time it held unchanged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Instance {
    /// The element (applications are ids in the tracker's [`LiveMatches`]).
    pub found: Found,
    /// The time step it began at.
    pub born: u32,
    /// The time step it ended at (it held before it), if it has.
    pub died: Option<u32>,
    /// The instance that began its lineage (itself when it continues nothing).
    pub lineage: usize,
}

/// A node that begins at a [`Tracker::advance`]: its applications of the level below (the tracker
/// derives its links), or the links a [`Linker`] fed with every node of the tracker derived for it
/// elsewhere (one tracker takes one kind or the other throughout).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NewNode {
    /// `(constraint, key)` per application, keys unique per application.
    Apps(Vec<(ConstraintId, u32)>),
    /// The links made for it.
    Links(Vec<LiveCel>),
}

/// What one [`Tracker::advance`] changed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Change {
    /// Instances that began.
    pub born: Vec<usize>,
    /// Instances that ended.
    pub died: Vec<usize>,
}

/// Reusable space for [`local_region`] and [`component`] (cleared, not freed, between steps).
#[derive(Default)]
struct RegionScratch {
    depth: FxHashMap<NodeId, usize>,
    queue: std::collections::VecDeque<NodeId>,
    seen: FxHashSet<MatchId>,
    nodes: FxHashSet<NodeId>,
    stack: Vec<NodeId>,
}

struct ClassState {
    class: ClassId,
    region: RegionScratch,
    /// Per constraint id: whether the class uses or records it.
    uses: Vec<bool>,
    /// Living instances of the class.
    living: FxHashSet<usize>,
    /// Node → living instances of the class holding it.
    by_node: FxHashMap<NodeId, SmallVec<[usize; 2]>>,
    scratch: Scratch,
    view: ClassView,
    /// For a seed-determined class: per constraint id, whether it only starts derivations; and the
    /// longest run of its schedule.
    local: Option<(Vec<bool>, usize)>,
}

/// Whether every element of `class` is determined by its first application alone, and if so, which
/// constraints only start derivations and how many steps a run takes at most: the start state is
/// never entered again, the constraints of the sets leaving it appear in no other set and are not
/// recorded, and no cycle is reachable (see `docs/semantics.md`).
pub fn seed_determined(setting: &Setting, class: ClassId) -> Option<(Vec<bool>, usize)> {
    let cls = setting.class(class);
    let dfa = cls.dfa();
    let longest = dfa.longest_run()?;
    if dfa.start_reentered() {
        return None;
    }
    let mut start_only = vec![false; setting.constraints().len()];
    for set in dfa.sets_out(dfa.start()) {
        for &c in &cls.sets[set].constraints {
            start_only[c.0 as usize] = true;
        }
    }
    for q in 0..dfa.len() as u32 {
        if q == dfa.start() {
            continue;
        }
        for set in dfa.sets_out(q) {
            if cls.sets[set].constraints.iter().any(|c| start_only[c.0 as usize]) {
                return None;
            }
        }
    }
    if cls.overlaps.iter().any(|c| start_only[c.0 as usize]) {
        return None;
    }
    Some((start_only, longest))
}

/// Incremental recognition of the classes of one level n ≥ 1 over an evolving level-n struct.
pub struct Tracker<'s> {
    setting: &'s Setting,
    level: u32,
    host: LiveLevel,
    matches: LiveMatches,
    /// Per node kind: the `(constraint, variable)` pairs it may anchor.
    /// Per node kind: the `(constraint, plan)` pairs anchored at a variable of that kind.
    anchors: FxHashMap<u32, Vec<(ConstraintId, usize)>>,
    /// Plans by index: each anchored at one variable of one constraint.
    plans: Vec<Plan>,
    plan_scratch: PlanScratch,
    /// Matches found at one step, flat (reused).
    found: Vec<NodeId>,
    /// Per constraint: its context part (which positions seed a derivation).
    infos: FxHashMap<ConstraintId, ConstraintInfo>,
    classes: Vec<ClassState>,
    /// Per constraint id: the indices (into `classes`) of the classes that use or record it.
    classes_of: Vec<Vec<usize>>,
    instances: Vec<Instance>,
    parallel: bool,
}

impl<'s> Tracker<'s> {
    /// A tracker for the classes of `level` (≥ 1) of `setting`, over an empty struct.
    pub fn new(setting: &'s Setting, level: u32) -> Self {
        let classes: Vec<ClassId> = setting.classes_at(level);
        let nc = setting.constraints().len();
        let mut states = Vec::new();
        let mut classes_of = vec![Vec::new(); nc];
        for (i, &c) in classes.iter().enumerate() {
            let cls = setting.class(c);
            let mut uses = vec![false; nc];
            for k in cls.constraints().into_iter().chain(cls.overlaps.iter().copied()) {
                uses[k.0 as usize] = true;
            }
            for (k, u) in uses.iter().enumerate() {
                if *u {
                    classes_of[k].push(i);
                }
            }
            states.push(ClassState {
                class: c,
                region: RegionScratch::default(),
                uses,
                living: FxHashSet::default(),
                by_node: FxHashMap::default(),
                scratch: Scratch::default(),
                view: ClassView::new(setting, c),
                local: seed_determined(setting, c),
            });
        }
        let host = LiveLevel::default();
        let mut anchors: FxHashMap<u32, Vec<(ConstraintId, usize)>> = FxHashMap::default();
        let mut plans = Vec::new();
        let mut infos = FxHashMap::default();
        for (k, users) in classes_of.iter().enumerate() {
            if users.is_empty() {
                continue;
            }
            let c = ConstraintId(k as u32);
            let p = &setting.constraint(c).pattern;
            infos.insert(c, ConstraintInfo::of(setting, c));
            for (v, var) in p.vars.iter().enumerate() {
                anchors.entry(var.kind).or_default().push((c, plans.len()));
                plans.push(Plan::compile(p, &[v], &host));
            }
        }
        Tracker {
            setting,
            level,
            host,
            matches: LiveMatches::default(),
            anchors,
            plans,
            plan_scratch: PlanScratch::default(),
            found: Vec::new(),
            infos,
            classes: states,
            classes_of,
            instances: Vec::new(),
            parallel: true,
        }
    }

    /// Whether [`Tracker::advance`] recognises the affected classes in parallel (the default).
    /// Turn it off when trackers already run side by side on their own threads.
    pub fn set_parallel(&mut self, parallel: bool) {
        self.parallel = parallel;
    }

    /// The evolving struct.
    pub fn host(&self) -> &LiveLevel {
        &self.host
    }
    /// The level's matches.
    pub fn matches(&self) -> &LiveMatches {
        &self.matches
    }
    /// Every instance so far.
    pub fn instances(&self) -> &[Instance] {
        &self.instances
    }
    /// The level.
    pub fn level(&self) -> u32 {
        self.level
    }

    /// Advances to time step `t`: nodes `born` begin (each its type and [`NewNode`], as for
    /// [`LiveLevel::add_node`] or [`LiveLevel::add_linked`]; they get the next ids in order) and nodes `died` end. Returns what
    /// changed among the level's elements.
    pub fn advance(&mut self, t: u32, born: Vec<(u32, NewNode)>, died: &[NodeId]) -> Change {
        let setting = self.setting;
        let first_new = self.host.len() as NodeId;
        let mut changed: Vec<MatchId> = Vec::new();
        for (kind, new) in born {
            match new {
                NewNode::Apps(apps) => self.host.add_node(kind, apps),
                NewNode::Links(links) => self.host.add_linked(kind, links),
            };
            self.matches.seeded.push(Vec::new());
            self.matches.touching.push(Vec::new());
        }
        for &n in died {
            if self.host.is_alive(n) {
                self.host.end(n);
                for &m in &self.matches.touching[n as usize] {
                    if self.matches.live[m as usize] {
                        self.matches.live[m as usize] = false;
                        changed.push(m);
                    }
                }
            }
        }
        // Ended matches leave the indices of their living nodes (so lists stay as short as what holds).
        for &m in &changed {
            let LiveMatches {
                list, seeded, touching, ..
            } = &mut self.matches;
            for &x in list.nodes(m) {
                seeded[x as usize].retain(|s| s.m != m);
                touching[x as usize].retain(|&k| k != m);
            }
        }
        // New matches: anchored at each new node, found once (from its smallest new node).
        for n in first_new..self.host.len() as NodeId {
            if !self.host.is_alive(n) {
                continue;
            }
            let Some(list) = self.anchors.get(&self.host.node_kind(n)) else {
                continue;
            };
            for &(c, pi) in list {
                let p = &setting.constraint(c).pattern;
                // Most plans fail at once: the new node has no link of the first step's constraint.
                if let Some(LinkLabel::Cel(fc)) = self.plans[pi].first_link(p)
                    && !self.host.has_link(n, fc)
                {
                    continue;
                }
                let k = p.vars.len();
                let host = &self.host;
                let found = &mut self.found;
                found.clear();
                let _ = self.plans[pi].run(
                    host,
                    p,
                    &[n],
                    &mut |_, x| host.is_alive(x) && (x >= n || x < first_new),
                    &mut |m| {
                        found.extend_from_slice(m);
                        ControlFlow::Continue(())
                    },
                    &mut self.plan_scratch,
                );
                if self.found.is_empty() {
                    continue;
                }
                let info = &self.infos[&c];
                for m in self.found.chunks(k.max(1)) {
                    let id = self.matches.list.push(c, m);
                    self.matches.live.push(true);
                    for (i, &x) in m.iter().enumerate() {
                        self.matches.touching[x as usize].push(id);
                        if info.seeds_at(i) {
                            self.matches.seeded[x as usize].push(Seed { m: id, c });
                        }
                    }
                    changed.push(id);
                }
            }
        }
        // Per class: recognise again the components that hold a node of a changed match.
        let mut change = Change::default();
        let mut affected: Vec<usize> = changed
            .iter()
            .flat_map(|&m| self.classes_of[self.matches.constraint(m).0 as usize].iter().copied())
            .collect();
        affected.sort_unstable();
        affected.dedup();
        let mut begun: Vec<(usize, Found)> = Vec::new();
        let mut ended: Vec<usize> = Vec::new();
        let dead: FxHashSet<MatchId> = changed
            .iter()
            .copied()
            .filter(|&m| !self.matches.live[m as usize])
            .collect();
        // The classes are recognised again independently (in parallel); what ended and began is
        // then recorded in class order.
        use rayon::prelude::*;
        let mut is_affected = vec![false; self.classes.len()];
        for &ci in &affected {
            is_affected[ci] = true;
        }
        let (matches, host, instances) = (&self.matches, &self.host, &self.instances);
        let redo = |(ci, st): (usize, &mut ClassState)| {
            let mut region = std::mem::take(&mut st.region);
            let (seed_matches, old) = match &st.local {
                Some((start_only, longest)) => local_region(
                    matches,
                    host,
                    st,
                    instances,
                    (start_only, *longest),
                    &changed,
                    &dead,
                    &mut region,
                ),
                None => component(matches, host, st, &changed, died, &mut region),
            };
            st.region = region;
            let seeds = start_seeds_in(&st.view, matches, seed_matches);
            let mut fresh = recognize_from_in(
                setting,
                st.class,
                &st.view,
                matches,
                &seeds,
                Limits::default(),
                &mut st.scratch,
            );
            // Elements still in formation (the schedule may not end there) are not elements yet.
            fresh.retain(|f| f.complete);
            let mut old_by_key: FxHashMap<Vec<MatchId>, usize> = old
                .iter()
                .map(|&i| {
                    let mut k = instances[i].found.apps.clone();
                    k.sort_unstable();
                    (k, i)
                })
                .collect();
            let mut new = Vec::new();
            for f in fresh {
                let mut k = f.apps.clone();
                k.sort_unstable();
                if old_by_key.remove(&k).is_none() {
                    new.push(f);
                }
            }
            let mut gone: Vec<usize> = old_by_key.into_values().collect();
            gone.sort_unstable();
            (ci, new, gone)
        };
        let per_class: Vec<(usize, Vec<Found>, Vec<usize>)> = if self.parallel {
            self.classes
                .par_iter_mut()
                .enumerate()
                .filter(|(ci, _)| is_affected[*ci])
                .map(redo)
                .collect()
        } else {
            self.classes
                .iter_mut()
                .enumerate()
                .filter(|(ci, _)| is_affected[*ci])
                .map(redo)
                .collect()
        };
        for (ci, new, gone) in per_class {
            begun.extend(new.into_iter().map(|f| (ci, f)));
            let st = &mut self.classes[ci];
            for i in gone {
                st.living.remove(&i);
                for x in &self.instances[i].found.nodes {
                    if let Some(v) = st.by_node.get_mut(x) {
                        v.retain(|j| *j != i);
                        if v.is_empty() {
                            st.by_node.remove(x);
                        }
                    }
                }
                self.instances[i].died = Some(t);
                ended.push(i);
            }
        }
        // Lineage: one-to-one counterparts of the same class sharing a living member.
        let mut ended_by_node: FxHashMap<NodeId, Vec<usize>> = FxHashMap::default();
        for &i in &ended {
            for &x in &self.instances[i].found.nodes {
                if self.host.is_alive(x) {
                    ended_by_node.entry(x).or_default().push(i);
                }
            }
        }
        let mut pred: Vec<Vec<usize>> = Vec::with_capacity(begun.len());
        let mut succ_count: FxHashMap<usize, usize> = FxHashMap::default();
        for (ci, f) in &begun {
            let mut p: Vec<usize> = f
                .nodes
                .iter()
                .filter_map(|x| ended_by_node.get(x))
                .flatten()
                .copied()
                .filter(|&i| self.instances[i].found.class == self.classes[*ci].class)
                .collect();
            p.sort_unstable();
            p.dedup();
            for &i in &p {
                *succ_count.entry(i).or_default() += 1;
            }
            pred.push(p);
        }
        for ((ci, f), p) in begun.into_iter().zip(pred) {
            let id = self.instances.len();
            let lineage = if p.len() == 1 && succ_count[&p[0]] == 1 {
                self.instances[p[0]].lineage
            } else {
                id
            };
            let st = &mut self.classes[ci];
            st.living.insert(id);
            for &x in &f.nodes {
                st.by_node.entry(x).or_default().push(id);
            }
            self.instances.push(Instance {
                found: f,
                born: t,
                died: None,
                lineage,
            });
            change.born.push(id);
        }
        ended.sort_unstable();
        change.died = ended;
        change
    }

    /// The living instances, ascending.
    pub fn living(&self) -> Vec<usize> {
        let mut v: Vec<usize> = self.classes.iter().flat_map(|s| s.living.iter().copied()).collect();
        v.sort_unstable();
        v
    }
}

/// The components of the class's match hypergraph holding a node of a changed match: their
/// matches (ascending) and the class's old elements there or holding an ended node.
fn component(
    matches: &LiveMatches,
    host: &LiveLevel,
    st: &ClassState,
    changed: &[MatchId],
    died: &[NodeId],
    scratch: &mut RegionScratch,
) -> (Vec<MatchId>, Vec<usize>) {
    let comp = &mut scratch.nodes;
    comp.clear();
    let stack = &mut scratch.stack;
    stack.clear();
    for &m in changed {
        if st.uses[matches.constraint(m).0 as usize] {
            for &x in matches.nodes(m) {
                if host.is_alive(x) && comp.insert(x) {
                    stack.push(x);
                }
            }
        }
    }
    let mut comp_matches: Vec<MatchId> = Vec::new();
    let seen_m = &mut scratch.seen;
    seen_m.clear();
    while let Some(x) = stack.pop() {
        for &m in &matches.touching[x as usize] {
            if !matches.live[m as usize] || !st.uses[matches.constraint(m).0 as usize] || !seen_m.insert(m) {
                continue;
            }
            comp_matches.push(m);
            for &y in matches.nodes(m) {
                if comp.insert(y) {
                    stack.push(y);
                }
            }
        }
    }
    // Old elements there (or holding an ended node) are recognised again.
    let mut old: Vec<usize> = comp
        .iter()
        .chain(died.iter())
        .filter_map(|x| st.by_node.get(x))
        .flatten()
        .copied()
        .collect();
    old.sort_unstable();
    old.dedup();
    comp_matches.sort_unstable();
    (comp_matches, old)
}

/// For a seed-determined class: the start matches within `longest` hops (through matches that are
/// not start matches) of a changed match's living nodes, ascending; and the class's old elements
/// started by one of them or holding an ended match.
#[allow(clippy::too_many_arguments)]
fn local_region(
    matches: &LiveMatches,
    host: &LiveLevel,
    st: &ClassState,
    instances: &[Instance],
    (start_only, longest): (&[bool], usize),
    changed: &[MatchId],
    dead: &FxHashSet<MatchId>,
    scratch: &mut RegionScratch,
) -> (Vec<MatchId>, Vec<usize>) {
    let depth = &mut scratch.depth;
    depth.clear();
    let queue = &mut scratch.queue;
    queue.clear();
    let mut old: Vec<usize> = Vec::new();
    for &m in changed {
        if !st.uses[matches.constraint(m).0 as usize] {
            continue;
        }
        for &x in matches.nodes(m) {
            if host.is_alive(x)
                && let std::collections::hash_map::Entry::Vacant(e) = depth.entry(x)
            {
                e.insert(0);
                queue.push_back(x);
            }
        }
        if dead.contains(&m) {
            // Elements holding it end (they hold its nodes).
            for x in matches.nodes(m) {
                if let Some(v) = st.by_node.get(x) {
                    old.extend(v.iter().copied().filter(|&i| instances[i].found.apps.contains(&m)));
                }
            }
        }
    }
    let mut seeds: Vec<MatchId> = Vec::new();
    let seen_m = &mut scratch.seen;
    seen_m.clear();
    while let Some(x) = queue.pop_front() {
        let d = depth[&x];
        for &m in &matches.touching[x as usize] {
            let c = matches.constraint(m).0 as usize;
            if !matches.live[m as usize] || !st.uses[c] || !seen_m.insert(m) {
                continue;
            }
            if start_only[c] {
                seeds.push(m);
                continue;
            }
            if d < longest {
                for &y in matches.nodes(m) {
                    if let std::collections::hash_map::Entry::Vacant(e) = depth.entry(y) {
                        e.insert(d + 1);
                        queue.push_back(y);
                    }
                }
            }
        }
    }
    seeds.sort_unstable();
    // Old elements started by a start match found here.
    for &s in &seeds {
        if let Some(&x) = matches.nodes(s).first()
            && let Some(v) = st.by_node.get(&x)
        {
            old.extend(
                v.iter()
                    .copied()
                    .filter(|&i| instances[i].found.apps.first() == Some(&s)),
            );
        }
    }
    old.sort_unstable();
    old.dedup();
    (seeds, old)
}
