//! SGF parse (ours beside sgf-parse, the same files in the same run), replay and record
//! throughput over a slice of the tom-9d corpus (`../shared/data/games/tom-9d/2005-01`).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ets::go::game::Replay;
use ets::go::record::{GoAlphabet, RecordOptions, record};
use ets::go::sgf::Sgf;
use std::hint::black_box;

fn corpus() -> Vec<Vec<u8>> {
    let dir = std::path::Path::new("../shared/data/games/tom-9d/2005-01");
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.sort();
    files.into_iter().filter_map(|f| std::fs::read(f).ok()).collect()
}

fn bench(c: &mut Criterion) {
    let data = corpus();
    if data.is_empty() {
        eprintln!("no corpus at ../shared/data/games/tom-9d/2005-01; skipping");
        return;
    }
    let bytes: u64 = data.iter().map(|d| d.len() as u64).sum();
    let texts: Vec<String> = data.iter().map(|d| String::from_utf8_lossy(d).into_owned()).collect();
    let mut g = c.benchmark_group("sgf");
    g.throughput(Throughput::Bytes(bytes));
    g.bench_function("parse/ets", |b| {
        b.iter(|| {
            data.iter()
                .map(|d| Sgf::parse_bytes(black_box(d.clone())).is_ok() as usize)
                .sum::<usize>()
        })
    });
    g.bench_function("parse/sgf-parse", |b| {
        b.iter(|| {
            texts
                .iter()
                .map(|t| sgf_parse::go::parse(black_box(t)).is_ok() as usize)
                .sum::<usize>()
        })
    });
    let parsed: Vec<Sgf> = data.iter().filter_map(|d| Sgf::parse_bytes(d.clone()).ok()).collect();
    g.throughput(Throughput::Elements(parsed.len() as u64));
    g.bench_function("replay", |b| {
        b.iter(|| parsed.iter().filter_map(|s| Replay::from_sgf(s, 0, &[]).ok()).count())
    });
    let replays: Vec<Replay> = parsed
        .iter()
        .filter_map(|s| Replay::from_sgf(s, 0, &[]).ok())
        .take(20)
        .collect();
    let kinds = GoAlphabet::new();
    g.throughput(Throughput::Elements(replays.len() as u64));
    g.sample_size(10);
    g.bench_function("record/full", |b| {
        b.iter(|| {
            replays
                .iter()
                .map(|r| {
                    record(
                        &kinds,
                        &r.positions,
                        &vec![None; r.positions.len()],
                        RecordOptions::default(),
                    )
                    .unwrap()
                    .strukt
                    .len()
                })
                .sum::<usize>()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
