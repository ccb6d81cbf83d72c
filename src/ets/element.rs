//! Class elements, constraint applications and overlap.
//!
//! Implements the class element of §3.4.1 (Fig. 3.5: "an overlapping partition of the underlying
//! struct") as the record of one derivation: the constraint applications it made, each a map from
//! the constraint's variables to nodes of the observed structure. Two elements *overlap on* a
//! constraint when both applied that same constraint to the same nodes (§3.4.2, Fig. 3.8;
//! `../shared/seeds/README.md`).

use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

use super::ids::{ClassId, ConstraintId, NodeId};

/// The nodes bound to a pattern's variables, in variable order.
pub type Bindings = SmallVec<[NodeId; 6]>;

/// One application of a constraint: the constraint and, for each of its variables in order, the
/// node it was bound to.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Application {
    /// The applied constraint.
    pub constraint: ConstraintId,
    /// The node bound to each variable, in variable order (inline up to six variables).
    pub nodes: Bindings,
}

/// A class element: the nodes it spans and the applications of its derivation.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Element {
    /// Its class.
    pub class: ClassId,
    /// The nodes it spans, ascending.
    pub nodes: Vec<NodeId>,
    /// Its applications: the first is the one that started it; the rest ascending.
    pub applications: Vec<Application>,
    /// Whether the schedule may end where the derivation stopped (a mature element); `false`
    /// marks an element still in formation.
    pub complete: bool,
}

impl Element {
    /// Whether the element spans `n`.
    pub fn contains(&self, n: NodeId) -> bool {
        self.nodes.binary_search(&n).is_ok()
    }
    /// The applications of one constraint.
    pub fn applications_of(&self, c: ConstraintId) -> impl Iterator<Item = &Application> {
        self.applications.iter().filter(move |a| a.constraint == c)
    }
}
