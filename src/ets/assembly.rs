//! Assembly of two structs on their common primitives.
//!
//! Implements §3.3.2 (Fig. 3.4): "two structs … that share some common structural history
//! (i.e., connected primitives) can be *assembled* to form a new, larger struct." Common
//! primitives are those with equal ids (relabel first, [`super::relabel::relabel`], to make them
//! coincide); the result holds the union of both structs' primitives and processes. Assembly fails
//! with a clear error — and produces nothing — when the structs have no primitive in common (the
//! validity condition of §3.4.1.1), when a common id has two kinds, or when the union would give a
//! site two processes or make time run in a circle.

use super::error::StructError;
use super::structs::Struct;

/// Assembles `a` and `b` on their common primitives.
pub fn assemble(a: &Struct, b: &Struct) -> Result<Struct, StructError> {
    if a.alphabet() != b.alphabet() {
        return Err(StructError::AlphabetMismatch);
    }
    let mut common = 0usize;
    for n in b.nodes() {
        let p = b.primitive(n);
        if let Some(m) = a.node_of_id(p.id) {
            common += 1;
            if a.kind_of(m) != p.kind {
                let al = a.alphabet();
                return Err(StructError::KindConflict {
                    id: p.id,
                    left: al.primitive(a.kind_of(m)).name.clone(),
                    right: al.primitive(p.kind).name.clone(),
                });
            }
        }
    }
    if common == 0 {
        return Err(StructError::NothingInCommon);
    }
    let mut out = a.clone();
    for n in b.topological_order() {
        let p = b.primitive(n);
        if out.node_of_id(p.id).is_none() {
            out.add_primitive_with_id(p.kind, p.id)?;
        }
    }
    for (x, pr, y) in b.processes() {
        let nx = out.node_of_id(b.primitive(x).id).expect("added");
        let ny = out.node_of_id(b.primitive(y).id).expect("added");
        if out.successor(nx, pr.from_site as usize) == Some((ny, pr.to_site as usize)) {
            continue;
        }
        out.connect(nx, pr.from_site as usize, ny, pr.to_site as usize)?;
    }
    Ok(out)
}
