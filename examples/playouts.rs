//! Playouts per CPU-second on the fast rule board (uniform random, usual eye rule) from an empty
//! board: `cargo run --release --example playouts -- [SIZE]`. CPU time (getrusage), beside wall
//! time, so that a figure taken on a shared machine says what one core gives.

use ets::go::board::Color;
use ets::go::fastboard::{FastBoard, FastRng};
/// User CPU seconds of this process.
fn cpu() -> f64 {
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    u.ru_utime.tv_sec as f64 + u.ru_utime.tv_usec as f64 * 1e-6
}
fn main() {
    let size: usize = std::env::args().nth(1).map(|s| s.parse().unwrap()).unwrap_or(9);
    let root = FastBoard::new(size).unwrap();
    let mut b = root.clone();
    let mut rng = FastRng::new(3);
    let n = 200_000 * 81 / (size * size);
    let (t0, w0) = (cpu(), std::time::Instant::now());
    let mut moves = 0u64;
    let mut s = 0i64;
    for _ in 0..n {
        b.copy_from(&root);
        s += b.playout(Color::Black, &mut rng, 3 * size * size, None) as i64;
        moves += b.move_count() as u64;
    }
    let (t, w) = (cpu() - t0, w0.elapsed().as_secs_f64());
    println!(
        "{size}x{size}: {n} playouts, {:.0}/s cpu, {:.0}/s wall, {:.1} moves/playout, mean score {:.2}",
        n as f64 / t,
        n as f64 / w,
        moves as f64 / n as f64,
        s as f64 / n as f64
    );
}
