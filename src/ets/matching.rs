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

use super::setting::ConstraintId;
use super::structs::NodeId;

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
    let mut asg = vec![UNBOUND; pattern.vars.len()];
    for &(v, n) in seeds {
        if v >= asg.len() || (n as usize) >= host.node_count() || host.node_kind(n) != pattern.vars[v].kind {
            return ControlFlow::Continue(());
        }
        if asg.contains(&n) && asg[v] != n {
            return ControlFlow::Continue(());
        }
        if !admit(v, n) {
            return ControlFlow::Continue(());
        }
        asg[v] = n;
    }
    // Links fully inside the seeds must already hold.
    for l in &pattern.links {
        if l.ends.iter().all(|e| asg[e.0 as usize] != UNBOUND) && !link_holds(host, l, &asg) {
            return ControlFlow::Continue(());
        }
    }
    let mut buf = Vec::new();
    extend(host, pattern, &mut asg, admit, found, &mut buf)
}

fn link_holds<H: Host + ?Sized>(host: &H, l: &PatternLink, asg: &[NodeId]) -> bool {
    let ends: SmallVec<[(NodeId, u8); 4]> = l.ends.iter().map(|&(v, r)| (asg[v as usize], r)).collect();
    host.linked(l.label, &ends)
}

/// How a variable's candidates are reached: along a link from a bound node.
type Via = (LinkLabel, NodeId, u8, u8);

fn extend<H: Host + ?Sized>(
    host: &H,
    p: &Pattern,
    asg: &mut Vec<NodeId>,
    admit: &mut dyn FnMut(usize, NodeId) -> bool,
    found: &mut dyn FnMut(&[NodeId]) -> ControlFlow<()>,
    buf: &mut Vec<NodeId>,
) -> ControlFlow<()> {
    // Choose the next variable: one reachable along a link from a bound variable, else the
    // unbound variable with the fewest host nodes of its type.
    let mut next: Option<(usize, Option<Via>)> = None;
    'outer: for l in &p.links {
        if let Some(&(bv, br)) = l.ends.iter().find(|e| asg[e.0 as usize] != UNBOUND) {
            for &(uv, ur) in &l.ends {
                if asg[uv as usize] == UNBOUND {
                    next = Some((uv as usize, Some((l.label, asg[bv as usize], br, ur))));
                    break 'outer;
                }
            }
        }
    }
    if next.is_none() {
        next = (0..p.vars.len())
            .filter(|&v| asg[v] == UNBOUND)
            .min_by_key(|&v| host.nodes_of_kind(p.vars[v].kind).len())
            .map(|v| (v, None));
    }
    let Some((var, via)) = next else {
        return found(asg);
    };
    let start = buf.len();
    match via {
        Some((label, n, role, other)) => host.partners(n, label, role, other, buf),
        None => buf.extend_from_slice(host.nodes_of_kind(p.vars[var].kind)),
    }
    let end = buf.len();
    let mut i = start;
    while i < end {
        let cand = buf[i];
        i += 1;
        if host.node_kind(cand) != p.vars[var].kind || asg.contains(&cand) || !admit(var, cand) {
            continue;
        }
        asg[var] = cand;
        let ok = p.links.iter().all(|l| {
            !l.ends.iter().any(|e| e.0 as usize == var)
                || l.ends.iter().any(|e| asg[e.0 as usize] == UNBOUND)
                || link_holds(host, l, asg)
        });
        if ok && extend(host, p, asg, admit, found, buf).is_break() {
            asg[var] = UNBOUND;
            buf.truncate(start);
            return ControlFlow::Break(());
        }
        asg[var] = UNBOUND;
    }
    buf.truncate(start);
    ControlFlow::Continue(())
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
