//! Knowledge from game collections and from play: the ACADEMY, a pattern database that competing
//! players share (the LUDAE seed `000_…`), and Gomi, a pattern database of Beta-estimated winning
//! probabilities driving the sampling strategy σ (J. Hurd, *The Design of Gomi*, seed `001_…`).

pub mod academy;
pub mod gomi;
