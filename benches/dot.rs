//! What a person waits for: `ets dot` end to end (the process, reading and classifying the game,
//! laying out, drawing the PNG), on the README's 18-move example and on whole games.
//!
//! `new_*` are the current routes; `old_*` is the first `ets dot` default (the level-0 overlap graph
//! laid out by graphviz's neato with overlap removal and routed edges, which `--layout spring`
//! still gives), run only where it ends in minutes (the README example; on a whole game it does
//! not end in 15 minutes). Run all with `cargo bench --bench dot` (about 10 minutes, most of it
//! the old route), or only the new ones with `cargo bench --bench dot -- new_`.

use criterion::{Criterion, criterion_group, criterion_main};
use std::process::Command;
use std::time::Duration;

const README_GAME: &str = "examples/go/capture.sgf";
const WHOLE_GAME: &str = "tests/data/games/tom-9d/2005-01-8557986.sgf";
const ALPHAGO: &str = "tests/data/games/alphago/LS_vs_AG_-_G4_-_English.sgf";

fn have_dot() -> bool {
    Command::new("dot").arg("-V").output().is_ok_and(|o| o.status.success())
}

fn ets_dot(args: &[&str]) {
    let out = Command::new(env!("CARGO_BIN_EXE_ets"))
        .arg("dot")
        .args(args)
        .args(["-o", "/dev/null"])
        .output()
        .expect("ets runs");
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("readme_example");
    g.sample_size(10).warm_up_time(Duration::from_millis(500));
    g.bench_function("new_default_board_png", |b| {
        b.iter(|| ets_dot(&[README_GAME, "--render", "png"]))
    });
    g.bench_function("new_overlap_L0_anchored_png", |b| {
        b.iter(|| ets_dot(&[README_GAME, "--view", "overlap", "--render", "png"]))
    });
    g.bench_function("new_overlap_L1_anchored_png", |b| {
        b.iter(|| ets_dot(&[README_GAME, "--view", "overlap", "--level", "1", "--render", "png"]))
    });
    g.bench_function("new_struct_png", |b| {
        b.iter(|| ets_dot(&[README_GAME, "--view", "struct", "--render", "png"]))
    });
    if have_dot() {
        g.bench_function("new_overlap_L1_force_png", |b| {
            b.iter(|| {
                ets_dot(&[
                    README_GAME,
                    "--view",
                    "overlap",
                    "--level",
                    "1",
                    "--layout",
                    "force",
                    "--render",
                    "png",
                ])
            })
        });
        g.measurement_time(Duration::from_secs(60));
        g.bench_function("old_default_overlap_L0_spring_png", |b| {
            b.iter(|| {
                ets_dot(&[
                    README_GAME,
                    "--view",
                    "overlap",
                    "--layout",
                    "spring",
                    "--render",
                    "png",
                ])
            })
        });
    } else {
        eprintln!("graphviz's `dot` is not installed: the force and old routes are skipped");
    }
    g.finish();

    let mut g = c.benchmark_group("whole_game");
    g.sample_size(10).warm_up_time(Duration::from_millis(500));
    for (name, game) in [("256_moves", WHOLE_GAME), ("alphago_180_moves", ALPHAGO)] {
        g.bench_function(format!("new_default_board_png/{name}"), |b| {
            b.iter(|| ets_dot(&[game, "--render", "png"]))
        });
        g.bench_function(format!("new_overlap_L0_anchored_png/{name}"), |b| {
            b.iter(|| ets_dot(&[game, "--view", "overlap", "--render", "png"]))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
