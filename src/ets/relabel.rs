//! Relabeling and structural identity.
//!
//! Implements relabeling (§3.3.2, Fig. 3.4: "concrete primitives from different structs can be
//! systematically renamed so that they coincide") and the structural identity it induces: two
//! structs are *structurally identical* when a relabeling maps one onto the other, i.e. a
//! bijection of primitives that preserves abstract primitives and maps every process to a process
//! between the same sites.
//!
//! Because a site holds at most one process, a connected struct is rigid: once one primitive is
//! fixed, following sites in their declared order reaches every other primitive in one determined
//! order. The canonical form of a component is therefore the least site-ordered traversal code
//! over its possible roots, and the struct's canonical form is the sorted list of its components'
//! codes. It is exact (equal forms ⇔ structurally identical), not a hash heuristic.

use std::collections::VecDeque;
use std::hash::{Hash, Hasher};

use super::error::StructError;
use super::structs::{NodeId, Struct};

/// Renames every primitive id by `f`; fails if `f` maps two ids to one.
pub fn relabel(s: &Struct, f: impl Fn(u64) -> u64) -> Result<Struct, StructError> {
    let mut out = Struct::with_capacity(s.alphabet().clone(), s.len(), s.process_count());
    for n in s.topological_order() {
        let p = s.primitive(n);
        out.add_primitive_with_id(p.kind, f(p.id))?;
    }
    for (a, pr, b) in s.processes() {
        let na = out.node_of_id(f(s.primitive(a).id)).expect("relabelled");
        let nb = out.node_of_id(f(s.primitive(b).id)).expect("relabelled");
        out.connect(na, pr.from_site as usize, nb, pr.to_site as usize)?;
    }
    Ok(out)
}

/// The canonical form of a struct: equal for exactly the structurally identical structs.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CanonicalForm(pub Vec<Vec<u64>>);

const NONE: u64 = u64::MAX;

fn component_code(s: &Struct, root: NodeId, scratch: &mut [u32]) -> (Vec<u64>, Vec<NodeId>) {
    let mut order = vec![root];
    scratch[root as usize] = 0;
    let mut code = Vec::new();
    let mut q = VecDeque::from([root]);
    while let Some(n) = q.pop_front() {
        let ap = s.alphabet().primitive(s.kind_of(n));
        code.push(s.kind_of(n).0 as u64);
        let mut visit = |m: NodeId, code: &mut Vec<u64>, q: &mut VecDeque<NodeId>| {
            if scratch[m as usize] == u32::MAX {
                scratch[m as usize] = order.len() as u32;
                order.push(m);
                q.push_back(m);
            }
            code.push(scratch[m as usize] as u64);
        };
        for t in 0..ap.terminals.len() {
            match s.successor(n, t) {
                Some((m, site)) => {
                    visit(m, &mut code, &mut q);
                    code.push(site as u64);
                }
                None => code.push(NONE),
            }
        }
        for i in 0..ap.initials.len() {
            match s.predecessor(n, i) {
                Some((m, site)) => {
                    visit(m, &mut code, &mut q);
                    code.push(site as u64);
                }
                None => code.push(NONE),
            }
        }
    }
    for &m in &order {
        scratch[m as usize] = u32::MAX;
    }
    (code, order)
}

/// Computes the canonical form. Cost: for each component, one traversal per candidate root
/// (the primitives of the component's rarest (kind, degree) signature).
pub fn canonical_form(s: &Struct) -> CanonicalForm {
    let mut comps: Vec<Vec<u64>> = canonical_components(s).into_iter().map(|(c, _)| c).collect();
    comps.sort();
    CanonicalForm(comps)
}

/// The primitives in canonical order: the components in the order of their codes, each in the
/// traversal order from a root of least code. Numbering the primitives by their place in this
/// order is a canonical labelling: it gives the same labelled struct for exactly the structurally
/// identical structs.
pub fn canonical_order(s: &Struct) -> Vec<NodeId> {
    let mut comps = canonical_components(s);
    comps.sort();
    comps.into_iter().flat_map(|(_, order)| order).collect()
}

/// Each component's least code and its traversal order.
fn canonical_components(s: &Struct) -> Vec<(Vec<u64>, Vec<NodeId>)> {
    let n = s.len();
    let mut scratch = vec![u32::MAX; n];
    let mut done = vec![false; n];
    let mut comps = Vec::new();
    for start in 0..n as NodeId {
        if done[start as usize] {
            continue;
        }
        let (_, members) = component_code(s, start, &mut scratch);
        for &m in &members {
            done[m as usize] = true;
        }
        let sig = |m: NodeId| (s.kind_of(m).0, s.incoming(m).count(), s.outgoing(m).count());
        let mut counts = std::collections::BTreeMap::new();
        for &m in &members {
            *counts.entry(sig(m)).or_insert(0usize) += 1;
        }
        let rare = counts
            .iter()
            .min_by_key(|(k, c)| (**c, **k))
            .map(|(k, _)| *k)
            .expect("non-empty");
        let best = members
            .iter()
            .filter(|&&m| sig(m) == rare)
            .map(|&m| component_code(s, m, &mut scratch))
            .min()
            .expect("a root");
        comps.push(best);
    }
    comps
}

/// Whether two structs are structurally identical (§3.3.2): same alphabet, and a relabeling maps
/// one onto the other.
pub fn structurally_identical(a: &Struct, b: &Struct) -> bool {
    a.alphabet() == b.alphabet()
        && a.len() == b.len()
        && a.process_count() == b.process_count()
        && canonical_form(a) == canonical_form(b)
}

/// A hash consistent with structural identity.
pub fn structural_hash(s: &Struct) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    canonical_form(s).hash(&mut h);
    h.finish()
}

/// Whether two structs are equal *as labelled*: the same ids with the same kinds and the same
/// processes between the same ids and sites (node order aside).
pub fn labelled_eq(a: &Struct, b: &Struct) -> bool {
    labelled_parts(a) == labelled_parts(b) && a.alphabet() == b.alphabet()
}

type Parts = (Vec<(u64, u32)>, Vec<(u64, u16, u64, u16)>);

fn labelled_parts(s: &Struct) -> Parts {
    let mut prims: Vec<(u64, u32)> = s.nodes().map(|n| (s.primitive(n).id, s.kind_of(n).0)).collect();
    prims.sort_unstable();
    let mut procs: Vec<_> = s
        .processes()
        .map(|(a, p, b)| (s.primitive(a).id, p.from_site, s.primitive(b).id, p.to_site))
        .collect();
    procs.sort_unstable();
    (prims, procs)
}
