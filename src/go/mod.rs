//! Go front-end (thesis ch. 4).
