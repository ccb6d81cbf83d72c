//! Diagnostics of the class language: typed, with byte spans; rendered only at the CLI edge.
//!
//! One diagnostic per mistake (`docs/dsl.md`, "Diagnostics"): each is reported once, at its
//! source; what depends on a failed definition is not reported again. A diagnostic may carry
//! secondary labels (the opening `{` of a block that is never closed, the first declaration of a
//! name declared twice) and a help line (a name that was probably meant).

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
    /// A block, string or comment that the file ends inside.
    #[error("unterminated {what}: the file ends before its closing `{close}`")]
    Unterminated {
        /// What is open ("class body", "block comment").
        what: &'static str,
        /// The token that would close it.
        close: &'static str,
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
    /// A malformed primitive.
    #[error("primitive `{name}`: {why}")]
    Primitive {
        /// The primitive.
        name: String,
        /// Why.
        why: String,
    },
    /// A malformed constraint.
    #[error("constraint `{name}`: {why}")]
    Constraint {
        /// The constraint.
        name: String,
        /// Why.
        why: String,
    },
    /// A malformed class (sets, schedule).
    #[error("class `{name}`: {why}")]
    Class {
        /// The class.
        name: String,
        /// Why.
        why: String,
    },
    /// Imports that form a cycle.
    #[error("cyclic import: {0}")]
    CyclicImport(String),
    /// A file that cannot be read (or is not a file).
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
    /// An input beyond one of the language's limits (nesting, expansion counts, file size).
    #[error("{0}")]
    Limit(String),
    /// A repetition whose counts make no sense (`{5,2}`).
    #[error("repetition `{0}`: {1}")]
    Repetition(String, String),
    /// A class without a schedule.
    #[error("class `{0}` has no schedule (write one, or include a class that has one)")]
    NoSchedule(String),
}

/// How serious a diagnostic is: an error stops compilation; a warning does not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Severity {
    /// The setting is not compiled.
    #[default]
    Error,
    /// The setting compiles, but probably not as meant.
    Warning,
}

/// A diagnostic: what, and where.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{kind}")]
pub struct DslError {
    /// What.
    pub kind: ErrorKind,
    /// Where (`None`: no place in a source, like a file named on the command line that cannot
    /// be read).
    pub span: Option<Span>,
    /// Error or warning.
    pub severity: Severity,
    /// Secondary places, each with what it shows.
    pub labels: Vec<(Span, String)>,
    /// A hint (a name that was probably meant, how to write it instead).
    pub help: Option<String>,
}

impl DslError {
    /// An error at `span`.
    pub fn new(kind: ErrorKind, span: Span) -> Self {
        DslError {
            kind,
            span: Some(span),
            severity: Severity::Error,
            labels: Vec::new(),
            help: None,
        }
    }
    /// An error with no place in a source.
    pub fn unlocated(kind: ErrorKind) -> Self {
        DslError {
            kind,
            span: None,
            severity: Severity::Error,
            labels: Vec::new(),
            help: None,
        }
    }
    /// A warning at `span`.
    pub fn warning(kind: ErrorKind, span: Span) -> Self {
        DslError {
            severity: Severity::Warning,
            ..DslError::new(kind, span)
        }
    }
    /// Adds a secondary label.
    pub fn with_label(mut self, span: Span, text: impl Into<String>) -> Self {
        self.labels.push((span, text.into()));
        self
    }
    /// Adds a help line.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }
    /// Whether this is an error (not a warning).
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}
