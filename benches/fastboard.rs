//! Playouts per second on the fast rule board (`go::fastboard`): uniform-random playouts with the
//! usual eye rule from an empty 9x9 and 19x19 board, one thread, the board copied from the root
//! before each playout (as a search does). Beside them, in the same run, a peer that needs no
//! network: the same playouts on the recorder's board (`go::board`, SGF move execution, legality
//! by trial and flood fill) — the naive way — so that a ratio is quoted, not only a rate. Criterion
//! measures wall time: on a shared machine quote the ratio, and see `docs/semantics.md` (the fast
//! rule board) for CPU-time figures.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ets::go::board::{Board, Cell, Color, Point};
use ets::go::fastboard::{FastBoard, FastRng};
use ets::player::mcts::PlayoutPolicy;
use std::hint::black_box;

fn fast(c: &mut Criterion) {
    let mut g = c.benchmark_group("playout");
    g.throughput(Throughput::Elements(1));
    for size in [9usize, 19] {
        let root = FastBoard::new(size).unwrap();
        let mut rng = FastRng::new(1);
        let mut b = root.clone();
        g.bench_function(format!("fastboard/{size}x{size}"), |bn| {
            bn.iter(|| {
                b.copy_from(&root);
                black_box(b.playout(Color::Black, &mut rng, 3 * size * size, None))
            })
        });
    }
    // The policies the player's search uses (`player::mcts::PlayoutPolicy`), empty 9x9.
    for policy in [PlayoutPolicy::Capture, PlayoutPolicy::Patterns] {
        let root = FastBoard::new(9).unwrap();
        let mut rng = FastRng::new(1);
        let mut b = root.clone();
        g.bench_function(format!("policy-{policy:?}/9x9").to_lowercase(), |bn| {
            bn.iter(|| {
                b.copy_from(&root);
                black_box(b.playout_by(Color::Black, &mut rng, 243, None, |b, c, r| policy.choose(b, c, r)))
            })
        });
    }
    g.bench_function("board-naive/9x9", |bn| {
        let mut seed = 1u64;
        bn.iter(|| {
            seed += 1;
            black_box(naive_playout(9, seed))
        })
    });
    g.finish();
}

/// The naive peer: the recorder's board, legality and eyes by inspection, a move list rebuilt at
/// every move.
fn naive_playout(size: u8, seed: u64) -> i32 {
    let mut b = Board::new(size, size);
    let mut rng = FastRng::new(seed);
    let mut color = Color::Black;
    let mut passes = 0;
    let mut ko: Option<Point> = None;
    let mut n = 0;
    while passes < 2 && n < 3 * size as usize * size as usize {
        let cand: Vec<Point> = b
            .points()
            .filter(|&p| b.get(p) == Cell::Empty && Some(p) != ko && !naive_eye(&b, p, color))
            .collect();
        let mut order = cand;
        let mut played = false;
        while !order.is_empty() {
            let i = rng.below(order.len());
            let p = order.swap_remove(i);
            let mut t = b.clone();
            let eff = t.play(color, p);
            if eff.suicide.is_empty() {
                ko = (eff.captured.len() == 1).then(|| eff.captured[0]);
                b = t;
                played = true;
                break;
            }
        }
        passes = if played { 0 } else { passes + 1 };
        if !played {
            ko = None;
        }
        color = color.other();
        n += 1;
    }
    b.points()
        .map(|p| match b.get(p) {
            Cell::Stone(Color::Black) => 1,
            Cell::Stone(Color::White) => -1,
            Cell::Empty => {
                let ns: Vec<Cell> = b.neighbours(p).map(|q| b.get(q)).collect();
                if ns.iter().all(|&c| c == Cell::Stone(Color::Black)) {
                    1
                } else if ns.iter().all(|&c| c == Cell::Stone(Color::White)) {
                    -1
                } else {
                    0
                }
            }
        })
        .sum()
}

fn naive_eye(b: &Board, p: Point, c: Color) -> bool {
    b.neighbours(p).all(|q| b.get(q) == Cell::Stone(c))
}

criterion_group!(benches, fast);
criterion_main!(benches);
