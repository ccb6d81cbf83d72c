//! Knowledge from game collections and from play: Forme_K patterns (Bouzy & Chaslot 2005, the seed
//! `004_…`), the features of a candidate move, and the move-prediction ranker judged by how often
//! it names the move a strong player chose (thesis §5.3.1 "learning from expert games",
//! §5.3.4 "human-like play"); the ACADEMY, a pattern database that competing players share (the
//! LUDAE seed `000_…`); and Gomi, a pattern database of Beta-estimated winning probabilities
//! driving the sampling strategy σ (J. Hurd, *The Design of Gomi*, seed `001_…`).

pub mod academy;
pub mod classes;
pub mod corpus;
pub mod eval;
pub mod export;
pub mod features;
pub mod forme_k;
pub mod gomi;
pub mod heatmap;
pub mod learn;
pub mod order;
pub mod pattern_store;
pub mod peer;
pub mod position;
pub mod predict;
pub mod rank_store;
pub mod ranker;
