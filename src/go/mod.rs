//! The Go front-end (thesis chapter 4): SGF game records ([`sgf`]), the board and move execution
//! ([`board`]), replay ([`game`]), the fast rule board for players ([`fastboard`]), and the recorder that turns the board history into the thesis's
//! structs ([`record`], §4.3–4.4) — the sensor through which Go enters the generic engine —,
//! classification through the engine's timeline ([`classify`]) and the Game API for players
//! ([`live`]).

pub mod bench;
pub mod board;
pub mod classify;
pub mod fastboard;
pub mod game;
pub mod live;
pub mod record;
pub mod sgf;
