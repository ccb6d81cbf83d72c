//! Gomi (seed `001_…`).
