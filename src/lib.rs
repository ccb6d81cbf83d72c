//! **ets** — the Evolving Transformation System (ETS) formalism as a typed graph engine, a text
//! language for classes, and a Go front-end (J. I. Scrimger, *Structural Representation of the
//! Game of Go*, UNB 2007, chapters 3–5).
//!
//! - [`ets`]: the engine (primitives, structs, constraints, generating systems, levels); it knows
//!   nothing of any application domain.
//! - [`go`]: the Go front-end: SGF records, replay, and the recorder that turns positions into
//!   structs (thesis ch. 4).
//! - [`player`]: a class-driven player (thesis §5.3): the move decision, GTP, the arena.
#![warn(missing_docs)]
#![deny(clippy::undocumented_unsafe_blocks)]

pub mod demo;
pub mod dot;
pub mod dsl;
pub mod ets;
pub mod go;
pub mod knowledge;
pub mod player;
pub mod store;
