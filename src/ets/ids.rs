//! The identifiers every part of the engine shares: nodes of a structure, constraints, classes,
//! matches and elements. They live here, apart from the modules that define what they name, so
//! that no two modules of the engine import each other (§3.3–3.4 name these objects; their
//! definitions are in [`super::structs`], [`super::setting`] and [`super::timeline`]).

use serde::{Deserialize, Serialize};

/// Index of a node inside one structure: a primitive of a struct (dense, stable: structs only
/// grow), or an element of the level below in a level-n struct.
pub type NodeId = u32;

/// Identifies one match (one satisfaction of a constraint, §3.4.1.1) in a level's match store.
pub type MatchId = u32;

/// Identifies one class element in its level of a [`super::timeline::Timeline`].
pub type ElementId = u32;

/// Index of a constraint in its [`super::setting::Setting`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ConstraintId(pub u32);

/// Index of a class in its [`super::setting::Setting`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ClassId(pub u32);

/// "No such id": the sentinel of optional ids stored flat.
pub const NONE: u32 = u32::MAX;
