//! The one matcher for every level: anchored, non-induced pattern matching with typed links.
//!
//! Implements the satisfaction test of §3.4.1.1 ("a struct that satisfies the constraint is a
//! struct whose primitives are Π (perhaps under relabelling) and whose set of primal processes
//! includes (but is not limited to) those specified by the constraint") as a search for
//! injective, kind-preserving maps from a [`Pattern`] into a [`Host`] under which every pattern
//! link is present in the host. Extra host links are allowed: the match is *non-induced*
//! (petgraph's VF2 is induced-only, so it is not used here).
//!
//! The same code matches level-0 constraints in a struct (links are primal processes, labelled by
//! their site pair, so following one from a bound primitive names a single candidate) and level-n
//! constraints in a level-n struct (§3.4.2: links are class element links labelled by the
//! level-(n−1) constraint the elements overlap on). Matching is *anchored*: seeds bind pattern
//! variables first, and every further variable is reached along a link from a bound one; only a
//! disconnected variable falls back to the host's per-kind index.

use smallvec::SmallVec;
use std::ops::ControlFlow;

use super::growth::{small_bytes, vec_bytes};
use super::ids::{ConstraintId, NodeId};

/// The label of a link: a primal process between two sites (level 0), or a class element link
/// on a constraint of the level below (level n ≥ 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LinkLabel {
    /// A primal process from terminal site `from_site` (end role 0) to initial site `to_site`
    /// (end role 1).
    Process {
        /// Terminal site index of the earlier primitive.
        from_site: u16,
        /// Initial site index of the later primitive.
        to_site: u16,
    },
    /// A class element link CEL^n on a level-(n−1) constraint; its ends are unordered.
    Cel(ConstraintId),
}

/// A structure constraints are matched in: a struct (level 0) or a level-n struct.
pub trait Host {
    /// Number of nodes; node ids are `0..node_count()`.
    fn node_count(&self) -> usize;
    /// The type of a node: an abstract primitive at level 0, a class at level n.
    fn node_kind(&self, n: NodeId) -> u32;
    /// The nodes of one type, ascending.
    fn nodes_of_kind(&self, kind: u32) -> &[NodeId];
    /// Pushes onto `out` every node `m` such that a link labelled `label` has `n` at end `role`
    /// and `m` at end `other` (roles are ignored for unordered links).
    fn partners(&self, n: NodeId, label: LinkLabel, role: u8, other: u8, out: &mut Vec<NodeId>);
    /// Whether one link labelled `label` has every `(node, role)` of `ends` as an end.
    fn linked(&self, label: LinkLabel, ends: &[(NodeId, u8)]) -> bool;
    /// Whether following a link from a node names at most one partner (in a struct a site holds
    /// at most one process). Then a plan whose every step follows a link runs as a straight
    /// line through [`Host::partner`].
    fn single_partner(&self) -> bool {
        false
    }
    /// The one partner [`Host::partners`] would push, when [`Host::single_partner`] holds.
    fn partner(&self, n: NodeId, label: LinkLabel, role: u8, other: u8) -> Option<NodeId> {
        let mut v = Vec::new();
        self.partners(n, label, role, other, &mut v);
        v.first().copied()
    }
}

/// Sorts `out[start..]` and removes repeats: what a `partners` over unordered links leaves.
#[inline]
pub fn sort_dedup_tail(out: &mut Vec<NodeId>, start: usize) {
    debug_assert!(start <= out.len(), "a tail begins within the list");
    // (Most partner lists at level n are one node or none: nothing to order, and no call made.)
    if out.len() > start + 1 {
        sort_dedup_tail_long(out, start);
    }
}

/// [`sort_dedup_tail`] for a tail of two or more.
fn sort_dedup_tail_long(out: &mut Vec<NodeId>, start: usize) {
    out[start..].sort_unstable();
    let mut w = start;
    for r in start..out.len() {
        if r == start || out[r] != out[w - 1] {
            out[w] = out[r];
            w += 1;
        }
    }
    out.truncate(w);
}

/// A pattern variable: a typed placeholder for one node.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PatternVar {
    /// Local name (e.g. `c`, `a_left`, `c1_1`).
    pub name: String,
    /// Required node type (abstract primitive at level 0, class at level n).
    pub kind: u32,
    /// Whether the variable belongs to the constraint's context part (§3.4.1.1).
    pub context: bool,
}

/// A pattern link: a label and the variables at its ends, with their roles.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct PatternLink {
    /// The link's label.
    pub label: LinkLabel,
    /// `(variable index, role)` for each end.
    pub ends: SmallVec<[(u16, u8); 2]>,
}

/// A pattern: typed variables and the links that must hold between them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Pattern {
    /// The variables.
    pub vars: Vec<PatternVar>,
    /// The links.
    pub links: Vec<PatternLink>,
}

impl Pattern {
    /// Index of the variable called `name`.
    pub fn var(&self, name: &str) -> Option<usize> {
        self.vars.iter().position(|v| v.name == name)
    }
    /// Whether the pattern's variables form one connected piece through its links.
    pub fn is_connected(&self) -> bool {
        if self.vars.len() <= 1 {
            return true;
        }
        let mut seen = vec![false; self.vars.len()];
        let mut stack = vec![0usize];
        seen[0] = true;
        while let Some(v) = stack.pop() {
            for l in &self.links {
                if l.ends.iter().any(|e| e.0 as usize == v) {
                    for e in &l.ends {
                        if !seen[e.0 as usize] {
                            seen[e.0 as usize] = true;
                            stack.push(e.0 as usize);
                        }
                    }
                }
            }
        }
        seen.into_iter().all(|b| b)
    }
}

const UNBOUND: NodeId = NodeId::MAX;

/// How a plan step reaches its variable: `(link, bound variable, its role, the variable's role)`.
type ViaLink = (u16, u16, u8, u8);

/// One step of a [`Plan`]: bind `var`, from the partners of a bound variable along a link, or
/// from the host's per-kind index.
#[derive(Debug, Clone)]
struct PlanStep {
    var: u16,
    via: Option<ViaLink>,
    /// Links whose ends are all bound once `var` is (the `via` link of two ends excepted: it
    /// holds by construction).
    checks: SmallVec<[u16; 4]>,
    /// The variables bound before this step with `var`'s type: the only ones a candidate of the
    /// right type could coincide with (injectivity).
    same_type: SmallVec<[u16; 4]>,
}

/// A compiled search order for one pattern, given which variables the seeds bind: every further
/// variable is reached along a link from a bound one where possible, so that in a struct (where
/// sites make every link name a single partner) an anchored match costs one step per variable.
#[derive(Debug, Clone)]
pub struct Plan {
    seeded: SmallVec<[u16; 4]>,
    /// Links wholly inside the seeds.
    seed_checks: SmallVec<[u16; 4]>,
    steps: Vec<PlanStep>,
    /// Whether every step follows a link (no step scans a kind's nodes).
    linked_only: bool,
}

impl Plan {
    /// Heap bytes held by the compiled plan (its steps and their lists).
    pub(crate) fn heap_bytes(&self) -> usize {
        let steps = self
            .steps
            .iter()
            .map(|st| small_bytes(&st.checks) + small_bytes(&st.same_type));
        small_bytes(&self.seeded) + small_bytes(&self.seed_checks) + vec_bytes(&self.steps) + steps.sum::<usize>()
    }

    /// Compiles the search order of `pattern` when variables `seeded` are bound first. `host`
    /// orders the variables that no link reaches (fewest nodes of their type first).
    pub fn compile<H: Host + ?Sized>(pattern: &Pattern, seeded: &[usize], host: &H) -> Plan {
        let n = pattern.vars.len();
        let mut bound = vec![false; n];
        for &v in seeded {
            if v < n {
                bound[v] = true;
            }
        }
        let all_bound = |l: &PatternLink, bound: &[bool]| l.ends.iter().all(|e| bound[e.0 as usize]);
        let seed_checks = (0..pattern.links.len())
            .filter(|&i| all_bound(&pattern.links[i], &bound))
            .map(|i| i as u16)
            .collect();
        let mut steps = Vec::new();
        loop {
            let mut next: Option<(usize, Option<ViaLink>)> = None;
            'outer: for (li, l) in pattern.links.iter().enumerate() {
                if let Some(&(bv, br)) = l.ends.iter().find(|e| bound[e.0 as usize]) {
                    for &(uv, ur) in &l.ends {
                        if !bound[uv as usize] {
                            next = Some((uv as usize, Some((li as u16, bv, br, ur))));
                            break 'outer;
                        }
                    }
                }
            }
            if next.is_none() {
                next = (0..n)
                    .filter(|&v| !bound[v])
                    .min_by_key(|&v| host.nodes_of_kind(pattern.vars[v].kind).len())
                    .map(|v| (v, None));
            }
            let Some((var, via)) = next else { break };
            let was: Vec<bool> = bound.clone();
            let same_type = (0..n)
                .filter(|&v| was[v] && pattern.vars[v].kind == pattern.vars[var].kind)
                .map(|v| v as u16)
                .collect();
            bound[var] = true;
            let checks = (0..pattern.links.len())
                .filter(|&i| {
                    let l = &pattern.links[i];
                    let skip = via.is_some_and(|(vl, ..)| vl as usize == i) && l.ends.len() == 2;
                    !skip && all_bound(l, &bound) && !all_bound(l, &was)
                })
                .map(|i| i as u16)
                .collect();
            steps.push(PlanStep {
                var: var as u16,
                via,
                checks,
                same_type,
            });
        }
        Plan {
            seeded: seeded.iter().map(|&v| v as u16).collect(),
            seed_checks,
            linked_only: steps.iter().all(|s| s.via.is_some()),
            steps,
        }
    }

    /// [`Plan::compile`] seeded at the two ends of pattern link `link` (in its order), for runs
    /// seeded at the ends of a host link that has that label: the link itself is then not checked
    /// again (it holds by the choice of seeds).
    pub fn compile_at_link<H: Host + ?Sized>(pattern: &Pattern, link: usize, host: &H) -> Option<Plan> {
        let l = pattern.links.get(link)?;
        let [(a, _), (b, _)] = l.ends[..] else { return None };
        let mut plan = Plan::compile(pattern, &[a as usize, b as usize], host);
        plan.seed_checks.retain(|li| *li as usize != link);
        Some(plan)
    }

    /// Whether every step follows a link from a bound variable (no step scans a type's nodes).
    pub fn follows_links_only(&self) -> bool {
        self.linked_only
    }

    /// The label of the link the first step follows from a seeded variable, if it follows one: a
    /// seed without a partner along it matches nothing (a host can tell that cheaply).
    pub fn first_link(&self, pattern: &Pattern) -> Option<LinkLabel> {
        let (li, ..) = self.steps.first()?.via?;
        Some(pattern.links[li as usize].label)
    }

    /// The first step's link from a seeded variable: its label, the seeded end's role and the
    /// other end's role (a seed with no partner along it matches nothing).
    pub fn first_step(&self, pattern: &Pattern) -> Option<(LinkLabel, u8, u8)> {
        let (li, _, br, ur) = self.steps.first()?.via?;
        Some((pattern.links[li as usize].label, br, ur))
    }

    /// Calls `found` with every match of `pattern` (the one this plan was compiled for) that binds
    /// the seeded variables to `nodes` (in the order they were given to [`Plan::compile`]).
    /// `scratch` is reused across runs (many runs of one plan allocate nothing).
    pub fn run<H, A, F>(
        &self,
        host: &H,
        pattern: &Pattern,
        nodes: &[NodeId],
        admit: &mut A,
        found: &mut F,
        scratch: &mut PlanScratch,
    ) -> ControlFlow<()>
    where
        H: Host + ?Sized,
        A: FnMut(usize, NodeId) -> bool + ?Sized,
        F: FnMut(&[NodeId]) -> ControlFlow<()> + ?Sized,
    {
        let PlanScratch { asg, buf } = scratch;
        // Every read of `asg` is of a variable bound earlier in this run (seeds, then steps in
        // order), so what a previous run left there needs no clearing.
        if asg.len() != pattern.vars.len() {
            asg.clear();
            asg.resize(pattern.vars.len(), UNBOUND);
        }
        buf.clear();
        for (i, (&v, &n)) in self.seeded.iter().zip(nodes).enumerate() {
            let v = v as usize;
            if v >= asg.len() || (n as usize) >= host.node_count() || host.node_kind(n) != pattern.vars[v].kind {
                return ControlFlow::Continue(());
            }
            if self.seeded[..i]
                .iter()
                .any(|&w| w as usize != v && asg[w as usize] == n)
            {
                return ControlFlow::Continue(());
            }
            if !admit(v, n) {
                return ControlFlow::Continue(());
            }
            asg[v] = n;
        }
        for &li in &self.seed_checks {
            if !link_holds(host, &pattern.links[li as usize], asg) {
                return ControlFlow::Continue(());
            }
        }
        if self.linked_only && host.single_partner() {
            return self.straight(host, pattern, asg, admit, found);
        }
        self.step(0, host, pattern, asg, admit, found, buf)
    }

    /// The run when each step names at most one candidate: no branching, no buffer.
    fn straight<H, A, F>(
        &self,
        host: &H,
        p: &Pattern,
        asg: &mut [NodeId],
        admit: &mut A,
        found: &mut F,
    ) -> ControlFlow<()>
    where
        H: Host + ?Sized,
        A: FnMut(usize, NodeId) -> bool + ?Sized,
        F: FnMut(&[NodeId]) -> ControlFlow<()> + ?Sized,
    {
        for st in &self.steps {
            let var = st.var as usize;
            let Some((li, bv, br, ur)) = st.via else {
                return ControlFlow::Continue(());
            };
            let Some(cand) = host.partner(asg[bv as usize], p.links[li as usize].label, br, ur) else {
                return ControlFlow::Continue(());
            };
            if !bind(st, host, p, asg, var, cand, admit) {
                return ControlFlow::Continue(());
            }
        }
        found(asg)
    }

    #[allow(clippy::too_many_arguments)]
    fn step<H, A, F>(
        &self,
        k: usize,
        host: &H,
        p: &Pattern,
        asg: &mut [NodeId],
        admit: &mut A,
        found: &mut F,
        buf: &mut Vec<NodeId>,
    ) -> ControlFlow<()>
    where
        H: Host + ?Sized,
        A: FnMut(usize, NodeId) -> bool + ?Sized,
        F: FnMut(&[NodeId]) -> ControlFlow<()> + ?Sized,
    {
        let Some(st) = self.steps.get(k) else {
            return found(asg);
        };
        let var = st.var as usize;
        let start = buf.len();
        match st.via {
            Some((li, bv, br, ur)) => host.partners(asg[bv as usize], p.links[li as usize].label, br, ur, buf),
            None => buf.extend_from_slice(host.nodes_of_kind(p.vars[var].kind)),
        }
        let end = buf.len();
        let mut i = start;
        while i < end {
            let cand = buf[i];
            i += 1;
            if !bind(st, host, p, asg, var, cand, admit) {
                continue;
            }
            if self.step(k + 1, host, p, asg, admit, found, buf).is_break() {
                asg[var] = UNBOUND;
                buf.truncate(start);
                return ControlFlow::Break(());
            }
            asg[var] = UNBOUND;
        }
        buf.truncate(start);
        ControlFlow::Continue(())
    }
}

/// Binds `var` to `cand` when its type, injectivity, `admit` and the step's link checks allow it
/// (the variable is left unbound otherwise).
#[inline(always)]
fn bind<H, A>(st: &PlanStep, host: &H, p: &Pattern, asg: &mut [NodeId], var: usize, cand: NodeId, admit: &mut A) -> bool
where
    H: Host + ?Sized,
    A: FnMut(usize, NodeId) -> bool + ?Sized,
{
    if host.node_kind(cand) != p.vars[var].kind
        || st.same_type.iter().any(|&v| asg[v as usize] == cand)
        || !admit(var, cand)
    {
        return false;
    }
    asg[var] = cand;
    if st.checks.iter().all(|&li| link_holds(host, &p.links[li as usize], asg)) {
        true
    } else {
        asg[var] = UNBOUND;
        false
    }
}

/// Reusable scratch space for [`Plan::run`].
#[derive(Debug, Clone, Default)]
pub struct PlanScratch {
    asg: Vec<NodeId>,
    buf: Vec<NodeId>,
}

/// Calls `found` with every match of `pattern` in `host` that extends `seeds`, in a
/// deterministic order. A match is a slice indexed by variable. `admit(var, node)` may veto a
/// binding (used for "the context is already in the working struct"). `found` may stop the search
/// by returning `ControlFlow::Break`.
pub fn for_each_match<H: Host + ?Sized>(
    host: &H,
    pattern: &Pattern,
    seeds: &[(usize, NodeId)],
    admit: &mut dyn FnMut(usize, NodeId) -> bool,
    found: &mut dyn FnMut(&[NodeId]) -> ControlFlow<()>,
) -> ControlFlow<()> {
    if seeds.iter().any(|&(v, _)| v >= pattern.vars.len()) {
        return ControlFlow::Continue(());
    }
    let vars: Vec<usize> = seeds.iter().map(|s| s.0).collect();
    let nodes: Vec<NodeId> = seeds.iter().map(|s| s.1).collect();
    Plan::compile(pattern, &vars, host).run(host, pattern, &nodes, admit, found, &mut PlanScratch::default())
}

fn link_holds<H: Host + ?Sized>(host: &H, l: &PatternLink, asg: &[NodeId]) -> bool {
    let ends: SmallVec<[(NodeId, u8); 4]> = l.ends.iter().map(|&(v, r)| (asg[v as usize], r)).collect();
    host.linked(l.label, &ends)
}

/// Collects every match of `pattern` in `host` extending `seeds` (see [`for_each_match`]).
pub fn all_matches<H: Host + ?Sized>(host: &H, pattern: &Pattern, seeds: &[(usize, NodeId)]) -> Vec<Vec<NodeId>> {
    let mut out = Vec::new();
    let _ = for_each_match(host, pattern, seeds, &mut |_, _| true, &mut |m| {
        out.push(m.to_vec());
        ControlFlow::Continue(())
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The tail ordered and without repeats, the head untouched: what sorting the tail and
        /// removing its repeats one by one leaves, for tails of every length (none and one among
        /// them).
        #[test]
        #[cfg_attr(miri, ignore = "hundreds of random lists")]
        fn the_tail_is_sorted_without_repeats_and_the_head_kept(
            head in proptest::collection::vec(0u32..8, 0..4),
            tail in proptest::collection::vec(0u32..8, 0..6),
        ) {
            let mut out = head.clone();
            out.extend_from_slice(&tail);
            sort_dedup_tail(&mut out, head.len());
            let mut want = tail.clone();
            want.sort_unstable();
            want.dedup();
            proptest::prop_assert_eq!(&out[..head.len()], &head[..]);
            proptest::prop_assert_eq!(&out[head.len()..], &want[..]);
        }
    }
}
