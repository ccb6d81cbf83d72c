//! Times classifying every position of a game at levels 0–2 (full attention):
//! `cargo run --release --example classify_every -- GAME.sgf`.
use ets::go::classify::{classify_every, embedded_setting};
use ets::go::game::Replay;
use ets::go::record::RecordOptions;
use ets::go::sgf::Sgf;
use std::time::Instant;

fn main() {
    let path = std::env::args().nth(1).expect("an SGF file");
    let st = embedded_setting().1.expect("setting");
    let r = Replay::from_sgf(&Sgf::parse_bytes(std::fs::read(path).unwrap()).unwrap(), 0, &[]).unwrap();
    let last: Vec<_> = std::iter::once(None).chain(r.moves.iter().map(|m| m.point)).collect();
    let t = Instant::now();
    let whole = classify_every(&st, &r.positions, &last, RecordOptions::default(), None).unwrap();
    let el = t.elapsed();
    let n = r.positions.len();
    println!(
        "{} positions, {} primitives: {:?} ({:.2} ms/position); instances per level {:?}",
        n,
        whole.recording.strukt.len(),
        el,
        el.as_secs_f64() * 1e3 / n as f64,
        whole.named.iter().map(|v| v.len()).collect::<Vec<_>>()
    );
}
