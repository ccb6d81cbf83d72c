//! The ACADEMY (the LUDAE project's seed, `../shared/seeds/000_…`): a place where competing players
//! pool what they learn as patterns with signatures `< N; E; V; P >`, kept in three libraries —
//! Fuseki (opening sequences), Chuban (middle-game patterns) and Yose (endgame patterns) — with
//! the seed's rules for matching, generalization, specialization, caps, removal, the post-mortem
//! and the players' usage rules. Every interpretation is in `docs/semantics.md`, "ACADEMY".
//!
//! - [`notation`]: the pattern text form and its normalization;
//! - [`posting`]: exact match, generalization and specialization (the two cell tables);
//! - [`library`]: the libraries in memory, their caps and rules, the post-mortem;
//! - [`usage`]: the rules a player follows (the API the player calls);
//! - [`elo`]: ELO from ranks, results from `RE`;
//! - [`games`]: what a game record posts;
//! - [`db`]: the ACADEMY in a shared database (SQLite in WAL mode, or PostgreSQL).

pub mod db;
pub mod elo;
pub mod games;
pub mod library;
pub mod notation;
pub mod posting;
pub mod usage;
