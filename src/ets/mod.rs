//! The ETS engine: the formalism of thesis chapter 3 (§3.3–3.4), for any domain.
//!
//! One module per formal concept, named as in the thesis:
//! [`primitive`] (primal classes, abstract and concrete primitives, §3.3.1),
//! [`structs`] (structs, §3.3.2), [`relabel`](mod@relabel) and [`assembly`] (relabeling, structural identity,
//! assembly, Fig. 3.4), [`matching`] (constraint satisfaction, §3.4.1.1, one matcher for every
//! level), [`setting`] (constraints and classes), [`schedule`] (generating-system schedules,
//! §3.4.1.2), [`generation`] and [`recognition`] (the two directions of a generating system),
//! [`element`] (class elements and overlap), [`level`] (level-n structs, CELs and overlap graphs,
//! §3.4.2), [`timeline`] (a struct growing step by step, classified at every level as it grows:
//! elements with a life, §5.1.1, §5.3.2.1), [`hierarchy`] (all levels at once), [`json`] (the
//! struct file format) and [`ids`] (the identifiers every module shares).
//!
//! This module names no application domain: it is the engine every front-end goes through.

pub mod assembly;
pub mod element;
pub mod error;
pub mod generation;
pub(crate) mod growth;
pub mod hierarchy;
pub mod ids;
pub mod json;
pub mod level;
pub mod matching;
pub mod primitive;
pub mod recognition;
pub mod relabel;
pub mod schedule;
pub mod setting;
pub mod structs;
pub mod timeline;

pub use assembly::assemble;
pub use element::{Application, Element};
pub use error::{AlphabetError, SettingError, StructError};
pub use generation::{GenerateOptions, Workspace, generate};
pub use hierarchy::{Hierarchy, recognize_all};
pub use level::{Cel, LevelStruct, OverlapGraph};
pub use matching::{Host, LinkLabel, Pattern, PatternLink, PatternVar, all_matches, for_each_match};
pub use primitive::{AbstractPrimitive, Alphabet, ConcretePrimitive, PrimalClassId, PrimitiveKind, Site};
pub use recognition::{Observed, recognize, recognize_level};
pub use relabel::{canonical_form, canonical_order, labelled_eq, relabel, structurally_identical};
pub use schedule::{Dfa, Nfa, Schedule};
pub use setting::{Class, ClassId, Constraint, ConstraintId, ConstraintSet, PatternBuilder, Setting};
pub use structs::{NodeId, Process, Struct};
