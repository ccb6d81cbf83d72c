//! The Game API's costs for a player's search (issue 14 item 5): a move tried and taken back
//! (`play`, the delta at levels 0–2, `undo`) in a 19x19 middle-game position (after move 120 of a
//! shipped professional record), with the default attention (focus on the last move, three
//! refresh layers) and with full attention; `fork`, and a fork's first move (the classification
//! is copied on write). The peer in the same run is the rule board alone (`FastBoard`: copy and
//! play, the referee's share of the work).

use criterion::{Criterion, criterion_group, criterion_main};
use ets::go::bench::candidate;
use ets::go::classify::embedded_setting;
use ets::go::game::Replay;
use ets::go::live::{Game, GameOptions};
use ets::go::record::{Attention, RecordOptions};
use ets::go::sgf::Sgf;
use std::hint::black_box;
use std::sync::Arc;

const RECORD: &str = "tests/data/games/tom-9d/2005-01-8557986.sgf";
const AT: usize = 120;

fn bench(c: &mut Criterion) {
    let st = Arc::new(embedded_setting().1.expect("the embedded setting"));
    let bytes = std::fs::read(RECORD).expect("the shipped record");
    let r = Replay::from_sgf(&Sgf::parse_bytes(bytes).unwrap(), 0, &[]).unwrap();
    let mut g = c.benchmark_group("live");
    g.sample_size(30);
    for (name, attention, layers) in [("focus", Attention::FOCUS, 3), ("full", Attention::Full, 1)] {
        let opts = GameOptions {
            record: RecordOptions { attention, layers },
            top: Some(2),
            ..GameOptions::default()
        };
        let mut game = Game::from_replay(st.clone(), &r, AT, opts).unwrap();
        let p = candidate(&game).expect("a legal move");
        g.bench_function(format!("play_delta_undo/19x19/{name}"), |b| {
            b.iter(|| {
                game.play(p).unwrap();
                let changed: usize = (0..=2)
                    .map(|l| {
                        let d = game.delta(l);
                        d.born.len() + d.extended.len() + d.ended.len()
                    })
                    .sum();
                black_box(changed);
                game.undo().unwrap();
            })
        });
        g.bench_function(format!("fork/19x19/{name}"), |b| b.iter(|| black_box(game.fork())));
        g.bench_function(format!("fork_then_play/19x19/{name}"), |b| {
            b.iter(|| {
                let mut f = game.fork();
                f.play(p).unwrap();
                black_box(f.delta(2).born.len())
            })
        });
        let board = game.referee().clone();
        let v = board.vtx(p);
        let colour = game.to_move();
        g.bench_function(format!("peer_fastboard_copy_play/19x19/{name}"), |b| {
            b.iter(|| {
                let mut f = board.clone();
                f.play(colour, v).unwrap();
                black_box(f)
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
