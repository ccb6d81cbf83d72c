//! Classifying every position of a real 256-move 19x19 game at levels 0–2 with full attention
//! (`../shared/data/games/tom-9d/2005-01/8557986.sgf`). GNU Go's peer figure comes from
//! `ets bench --classify GAME`, which runs both in one process.

use criterion::{Criterion, criterion_group, criterion_main};
use ets::go::classify::{GoTimeline, classify_game, embedded_setting};
use ets::go::game::Replay;
use ets::go::record::RecordOptions;
use ets::go::sgf::Sgf;
use std::hint::black_box;
use std::sync::Arc;

fn bench(c: &mut Criterion) {
    let Ok(bytes) = std::fs::read("tests/data/games/tom-9d/2005-01-8557986.sgf") else {
        eprintln!("no shared games; skipping");
        return;
    };
    let st = Arc::new(embedded_setting().1.expect("setting"));
    let r = Replay::from_sgf(&Sgf::parse_bytes(bytes).unwrap(), 0, &[]).unwrap();
    let last: Vec<_> = std::iter::once(None).chain(r.moves.iter().map(|m| m.point)).collect();
    let mut g = c.benchmark_group("classify");
    g.sample_size(10);
    g.bench_function("every_position_levels_0_2", |b| {
        b.iter(|| {
            black_box(
                classify_game(st.clone(), &r.positions, &last, RecordOptions::default(), Some(2))
                    .unwrap()
                    .timeline()
                    .steps(),
            )
        })
    });
    // The same on one thread: the positions pushed one at a time (every level at each position),
    // beside the run above, whose levels 1-2 go on a second thread.
    g.bench_function("every_position_levels_0_2_one_thread", |b| {
        b.iter(|| {
            let first = &r.positions[0];
            let mut one = GoTimeline::new(
                st.clone(),
                (first.cols(), first.rows()),
                RecordOptions::default(),
                Some(2),
            )
            .unwrap();
            for (p, m) in r.positions.iter().zip(&last) {
                one.push(p, *m).unwrap();
            }
            one.shrink_to_fit();
            black_box(one.timeline().steps())
        })
    });
    let n = 60.min(r.positions.len());
    g.bench_function("first_60_positions_levels_0_2", |b| {
        b.iter(|| {
            black_box(
                classify_game(
                    st.clone(),
                    &r.positions[..n],
                    &last[..n],
                    RecordOptions::default(),
                    Some(2),
                )
                .unwrap()
                .timeline()
                .steps(),
            )
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
