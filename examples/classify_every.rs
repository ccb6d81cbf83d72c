//! Times classifying every position of a game at levels 0–2 through the timeline (full attention):
//! `cargo run --release --example classify_every [-- GAME.sgf]` (default: a 256-move game shipped
//! in `tests/data/games`).
use ets::go::classify::{classify_game, embedded_setting};
use ets::go::game::Replay;
use ets::go::record::RecordOptions;
use ets::go::sgf::Sgf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

const DEFAULT: &str = "tests/data/games/tom-9d/2005-01-8557986.sgf";

fn main() -> ExitCode {
    let path = std::env::args().nth(1).unwrap_or_else(|| DEFAULT.to_string());
    if path.starts_with('-') {
        eprintln!("usage: classify_every [GAME.sgf]");
        return ExitCode::from(2);
    }
    let Ok(bytes) = std::fs::read(&path) else {
        eprintln!("classify_every: cannot read {path}\nusage: classify_every [GAME.sgf]");
        return ExitCode::from(2);
    };
    let st = Arc::new(embedded_setting().1.expect("the embedded setting compiles"));
    let r = match Sgf::parse_bytes(bytes)
        .map_err(|e| e.to_string())
        .and_then(|s| Replay::from_sgf(&s, 0, &[]).map_err(|e| e.to_string()))
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("classify_every: {path}: {e}");
            return ExitCode::from(2);
        }
    };
    let last: Vec<_> = std::iter::once(None).chain(r.moves.iter().map(|m| m.point)).collect();
    let t = Instant::now();
    let g = match classify_game(st, &r.positions, &last, RecordOptions::default(), None) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("classify_every: {path}: {e}");
            return ExitCode::from(1);
        }
    };
    let el = t.elapsed();
    let n = r.positions.len();
    let per_level: Vec<usize> = g.timeline().levels().iter().map(|l| l.elements().len()).collect();
    println!(
        "{n} positions, {} primitives: {el:?} ({:.2} ms/position); elements per level {per_level:?}",
        g.timeline().strukt().len(),
        el.as_secs_f64() * 1e3 / n as f64,
    );
    ExitCode::SUCCESS
}
