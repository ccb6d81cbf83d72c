//! Recognition on a large synthetic struct (the bank domain scaled up), beside the cost of
//! building the same struct (the linear-time peer): the ratio says how many "constructions" one
//! recognition costs.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use ets::demo::bank;
use ets::ets::{LevelStruct, recognize_level};
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let st = bank::setting();
    let mut g = c.benchmark_group("bank");
    g.sample_size(10);
    for &people in &[1_000usize, 20_000] {
        let rounds = 10;
        let s = bank::large_observation(&st, people, rounds);
        let n = s.len();
        g.bench_with_input(BenchmarkId::new("build", n), &people, |b, &p| {
            b.iter(|| black_box(bank::large_observation(&st, p, rounds)))
        });
        g.bench_with_input(BenchmarkId::new("recognize_level0", n), &s, |b, s| {
            b.iter(|| black_box(recognize_level(&st, 0, s)))
        });
        let l0 = recognize_level(&st, 0, &s);
        let up = LevelStruct::from_elements(&st, 1, &l0);
        g.bench_with_input(BenchmarkId::new("recognize_level1", n), &up, |b, up| {
            b.iter(|| black_box(recognize_level(&st, 1, up)))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
