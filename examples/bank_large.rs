//! Times recognition on a large synthetic bank struct: `cargo run --release --example bank_large -- 100000 10`.

use ets::demo::bank;
use ets::ets::{LevelStruct, recognize_level};
use std::time::Instant;

fn main() {
    let args: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let (people, rounds) = (
        args.first().copied().unwrap_or(50_000),
        args.get(1).copied().unwrap_or(10),
    );
    let st = bank::setting();
    let t = Instant::now();
    let s = bank::large_observation(&st, people, rounds);
    let build = t.elapsed();
    let t = Instant::now();
    let l0 = recognize_level(&st, 0, &s);
    let r0 = t.elapsed();
    let t = Instant::now();
    let up = LevelStruct::from_elements(&st, 1, &l0);
    let l1 = recognize_level(&st, 1, &up);
    let r1 = t.elapsed();
    println!(
        "{} primitives, {} processes ({} heap bytes, {:.1} B/primitive): build {:?}, level 0 {:?} ({} elements), level 1 {:?} ({} elements)",
        s.len(),
        s.process_count(),
        s.heap_bytes(),
        s.heap_bytes() as f64 / s.len() as f64,
        build,
        r0,
        l0.len(),
        r1,
        l1.len()
    );
}
