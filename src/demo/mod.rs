//! Small non-Go domains that exercise the engine: used by `examples/`, the tests and the benches.

pub mod bank;
