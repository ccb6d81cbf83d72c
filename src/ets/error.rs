//! Errors of the engine: every mutator of an ETS object returns a typed error instead of breaking
//! an invariant (§3.3.2: site typing, one process per site, temporal acyclicity).

use thiserror::Error;

/// Errors raised while declaring an alphabet (§3.3.1).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum AlphabetError {
    /// A primal class name was declared twice.
    #[error("primal class `{0}` is declared twice")]
    DuplicatePrimalClass(String),
    /// A primitive name was declared twice.
    #[error("primitive `{0}` is declared twice")]
    DuplicatePrimitive(String),
    /// Two sites of one side of a primitive share a name.
    #[error("primitive `{primitive}` has two sites called `{site}`")]
    DuplicateSite {
        /// The primitive.
        primitive: String,
        /// The repeated site name.
        site: String,
    },
    /// A site names a primal class that is not declared.
    #[error("unknown primal class `{0}`")]
    UnknownPrimalClass(String),
    /// A site names a primal class id that does not exist.
    #[error("unknown primal class id {0}")]
    UnknownPrimalClassId(u32),
    /// An alphabet holds at most this many primitives.
    #[error("an alphabet holds at most {0} primitives")]
    TooManyPrimitives(usize),
    /// One side of a primitive has more sites than a struct can store.
    #[error("primitive `{primitive}` has {count} {side} sites; at most {max} are allowed")]
    TooManySites {
        /// The primitive.
        primitive: String,
        /// `initial` or `terminal`.
        side: &'static str,
        /// How many it has.
        count: usize,
        /// The limit.
        max: usize,
    },
}

/// Errors raised by struct edits and assembly (§3.3.2).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum StructError {
    /// A node index that the struct does not hold.
    #[error("no primitive with node index {0}")]
    UnknownNode(u32),
    /// A primitive id used twice.
    #[error("primitive id {0} is used twice")]
    DuplicateId(u64),
    /// A primitive kind that the alphabet does not hold.
    #[error("unknown primitive kind {0}")]
    UnknownKind(u32),
    /// A site index beyond the primitive's sites.
    #[error("primitive `{primitive}` has no {side} site {site}")]
    NoSuchSite {
        /// The abstract primitive.
        primitive: String,
        /// "initial" or "terminal".
        side: &'static str,
        /// The site index.
        site: usize,
    },
    /// A process joins sites of different primal classes.
    #[error("site type mismatch: terminal `{from}` is `{from_class}`, initial `{to}` is `{to_class}`")]
    SiteTypeMismatch {
        /// Source primitive kind and site, as `kind.site`.
        from: String,
        /// Its primal class.
        from_class: String,
        /// Target primitive kind and site, as `kind.site`.
        to: String,
        /// Its primal class.
        to_class: String,
    },
    /// A site already holds a process.
    #[error("{side} site `{site}` of primitive id {id} already holds a process")]
    SiteOccupied {
        /// Primitive id.
        id: u64,
        /// "initial" or "terminal".
        side: &'static str,
        /// Site name.
        site: String,
    },
    /// A terminal site was closed: no process may leave it.
    #[error("terminal site `{site}` of primitive id {id} is closed")]
    SiteClosed {
        /// Primitive id.
        id: u64,
        /// Site name.
        site: String,
    },
    /// The process would close a temporal cycle.
    #[error("a process from id {from} to id {to} would make the struct cyclic (time runs one way)")]
    Cycle {
        /// Source primitive id.
        from: u64,
        /// Target primitive id.
        to: u64,
    },
    /// Two structs disagree on the kind of a common primitive.
    #[error("primitive id {id} is `{left}` in one struct and `{right}` in the other")]
    KindConflict {
        /// The common id.
        id: u64,
        /// Kind on the left.
        left: String,
        /// Kind on the right.
        right: String,
    },
    /// A copy's kinds ([`crate::ets::structs::Struct::append_copy`]) not sorted by offset, or
    /// at an offset beyond the nodes copied.
    #[error("the kinds of a copy are not sorted by offset within the nodes copied")]
    CopyKinds,
    /// A copy's node of a kind whose sites are not those of its original's.
    #[error("a copy of a `{from}` cannot be a `{to}`: their sites differ")]
    CopyKindSites {
        /// The original's kind.
        from: String,
        /// The copy's kind.
        to: String,
    },
    /// Two structs are over different alphabets.
    #[error("the structs are over different alphabets")]
    AlphabetMismatch,
    /// Assembly needs at least one common primitive (§3.4.1.1).
    #[error("the structs have no primitive in common, so they cannot be assembled")]
    NothingInCommon,
}

/// Errors in a class setting (constraints, classes, schedules) built through the API.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SettingError {
    /// A name declared twice.
    #[error("`{0}` is declared twice")]
    Duplicate(String),
    /// A name that is not declared.
    #[error("unknown name `{0}`")]
    Unknown(String),
    /// A constraint or class of the wrong level.
    #[error("level mismatch: {0}")]
    Level(String),
    /// A malformed constraint.
    #[error("invalid constraint `{name}`: {why}")]
    Constraint {
        /// The constraint.
        name: String,
        /// What is wrong.
        why: String,
    },
}
