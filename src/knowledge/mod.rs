//! Knowledge from game collections: Forme_K patterns (Bouzy & Chaslot 2005, the seed
//! `004_…`), the features of a candidate move, and the move-prediction ranker judged by how often
//! it names the move a strong player chose (thesis §5.3.1 "learning from expert games",
//! §5.3.4 "human-like play").

pub mod corpus;
pub mod forme_k;
pub mod learn;
pub mod order;
pub mod pattern_store;
pub mod position;
