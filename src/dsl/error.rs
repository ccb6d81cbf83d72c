//! Diagnostics of the class language: typed, with byte spans; rendered only at the CLI edge.

use thiserror::Error;

use super::ast::Span;

/// What went wrong.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ErrorKind {
    /// A token other than the grammar allows.
    #[error("expected {expected}, found {found}")]
    Syntax {
        /// What the grammar allows here.
        expected: String,
        /// What is there.
        found: String,
    },
    /// A name declared twice.
    #[error("{what} `{name}` is declared twice")]
    Duplicate {
        /// Kind of thing.
        what: &'static str,
        /// The name.
        name: String,
    },
    /// A name that is not declared.
    #[error("unknown {what} `{name}`")]
    Unknown {
        /// Kind of thing.
        what: &'static str,
        /// The name.
        name: String,
    },
    /// Sites of different primal classes joined by a process.
    #[error("site type mismatch: `{from}` is `{from_class}` but `{to}` is `{to_class}`")]
    SiteType {
        /// Source `var.site`.
        from: String,
        /// Its primal class.
        from_class: String,
        /// Target `var.site`.
        to: String,
        /// Its primal class.
        to_class: String,
    },
    /// A level mismatch.
    #[error("level mismatch: {0}")]
    Level(String),
    /// A malformed constraint.
    #[error("invalid constraint `{name}`: {why}")]
    Constraint {
        /// The constraint.
        name: String,
        /// Why.
        why: String,
    },
    /// Imports that form a cycle.
    #[error("cyclic import: {0}")]
    CyclicImport(String),
    /// A file that cannot be read.
    #[error("cannot read `{path}`: {message}")]
    Io {
        /// The path.
        path: String,
        /// The system's message.
        message: String,
    },
    /// A template problem.
    #[error("{0}")]
    Template(String),
    /// A class without a schedule.
    #[error("class `{0}` has no schedule (write one, or include a class that has one)")]
    NoSchedule(String),
}

/// A diagnostic: what, and where.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{kind}")]
pub struct DslError {
    /// What.
    pub kind: ErrorKind,
    /// Where.
    pub span: super::ast::Span,
}

impl DslError {
    /// A diagnostic at `span`.
    pub fn new(kind: ErrorKind, span: Span) -> Self {
        DslError { kind, span }
    }
}
