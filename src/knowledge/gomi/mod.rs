//! Gomi (J. Hurd, *The Design of Gomi*, 2008; seed `../shared/seeds/001_…`): a pattern database of
//! entries (χ, φ, d) — a pattern χ (a predicate on positions), a formula φ on final positions, and
//! d, the distribution of `P(φ | ρ)` over the positions ρ matching χ — and the strategy σ that
//! evaluates a position by sample games, choosing each move by sampling the probability q_m that
//! the move's winning probability is the largest. Interpretations: `docs/semantics.md`, "Gomi".
//!
//! - [`estimate`]: B_{r,n}, the conservative estimate d(p), reachability bounds;
//! - [`qm`]: q_m for every legal move and sampling from it;
//! - [`play`]: the database Π, σ, sample games, position evaluation, reachability;
//! - [`quad`]: the numerical integration both use;
//! - [`store`]: the entries in an SQLite store.

pub mod estimate;
pub mod play;
pub mod qm;
pub mod quad;
pub mod store;
