//! Gomi's costs: q_m for 361 moves (σ's step 3) beside a Monte-Carlo estimate of the same q
//! (1,000 draws of all 361 winning probabilities, the argmax counted: error ~10⁻², where q_max is
//! within 10⁻⁶); sample games with σ on 9x9 and 19x19, beside a uniform-random playout on the same
//! fast board in the same run (the peer: what a sample game costs without σ). Also ACADEMY posts
//! (one transaction per post) into SQLite and, when `scripts/pg-test-server.sh` can start a local
//! server (or `ETS_PG_URL` names one), into PostgreSQL.
//!
//! `cargo bench --bench gomi`. Criterion measures wall time: on a shared machine quote ratios.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use ets::go::board::Color;
use ets::go::fastboard::{FastBoard, FastRng};
use ets::knowledge::academy::db::{Settings, Shared};
use ets::knowledge::academy::games::Post;
use ets::knowledge::gomi::estimate::Counts;
use ets::knowledge::gomi::play::{Gomi, Settings as GomiSettings};
use ets::knowledge::gomi::qm::{Dist, Grid, q_max, q_max_with};
use statrs::function::beta::inv_beta_reg;
use std::hint::black_box;
use std::path::Path;
use std::process::Command;

/// 361 moves: a third never seen (uniform), the others seen 1–400 times with rates 0.3–0.8.
fn realistic() -> Vec<Dist> {
    let mut rng = FastRng::new(19);
    (0..361)
        .map(|i| {
            if i % 3 == 0 {
                Dist::posterior(Counts::default())
            } else {
                let n = 1 + rng.below(400) as u64;
                let r = ((n as f64 * (0.3 + 0.5 * rng.unit())) as u64).min(n);
                Dist::posterior(Counts { n, r })
            }
        })
        .collect()
}

/// 361 distinct, overlapping distributions (every one contends): `qm::overlapping_361`.
fn overlapping() -> Vec<Dist> {
    ets::knowledge::gomi::qm::overlapping_361()
}

/// 361 moves as `ets::knowledge::gomi::qm::mixed_361` (the accuracy test's set).
fn mixed() -> Vec<Dist> {
    ets::knowledge::gomi::qm::mixed_361()
}

/// The peer: q by plain Monte Carlo, `draws` draws of every move's p (inverse-CDF sampling with
/// `statrs`), each argmax counted.
fn q_monte_carlo(ds: &[Dist], draws: usize, rng: &mut FastRng) -> Vec<f64> {
    let mut wins = vec![0usize; ds.len()];
    for _ in 0..draws {
        let mut best = (0, -1.0);
        for (j, d) in ds.iter().enumerate() {
            let x = inv_beta_reg(d.alpha, d.beta, rng.unit());
            if x > best.1 {
                best = (j, x);
            }
        }
        wins[best.0] += 1;
    }
    wins.iter().map(|&w| w as f64 / draws as f64).collect()
}

fn qm(c: &mut Criterion) {
    let mut g = c.benchmark_group("q_m");
    let (a, b) = (realistic(), overlapping());
    g.bench_function("361 moves, realistic", |bn| bn.iter(|| black_box(q_max(&a))));
    g.bench_function("361 moves, all contending", |bn| bn.iter(|| black_box(q_max(&b))));
    let c = mixed();
    g.bench_function("361 moves, mixed with ties and n to 10^5", |bn| {
        bn.iter(|| black_box(q_max(&c)))
    });
    // the peer: the first implementation's grid (quarter-deviation panels, ±21-deviation spans)
    g.bench_function("first implementation (Grid::FINE), realistic", |bn| {
        bn.iter(|| black_box(q_max_with(&a, Grid::FINE)))
    });
    g.bench_function("first implementation (Grid::FINE), all contending", |bn| {
        bn.iter(|| black_box(q_max_with(&b, Grid::FINE)))
    });
    g.bench_function("first implementation (Grid::FINE), mixed", |bn| {
        bn.iter(|| black_box(q_max_with(&c, Grid::FINE)))
    });
    g.sample_size(10);
    let mut rng = FastRng::new(5);
    g.bench_function("Monte Carlo 1000 draws, realistic", |bn| {
        bn.iter(|| black_box(q_monte_carlo(&a, 1000, &mut rng)))
    });
    g.finish();
}

fn sample_games(c: &mut Criterion) {
    let mut g = c.benchmark_group("sample game");
    g.throughput(Throughput::Elements(1));
    g.sample_size(10);
    for size in [9usize, 19] {
        let root = FastBoard::new(size).unwrap();
        // a database trained by 50 sample games, as after a short evaluation
        let mut gomi = Gomi::new(GomiSettings::default());
        gomi.evaluate(&root, Color::Black, 50, 7, true, &[]);
        gomi.refresh_bounds();
        let mut rng = FastRng::new(1);
        g.bench_function(format!("gomi σ/{size}x{size}"), |bn| {
            bn.iter(|| black_box(gomi.sample_game(&root, Color::Black, &mut rng).score))
        });
        let mut b = root.clone();
        g.bench_function(format!("uniform playout/{size}x{size}"), |bn| {
            bn.iter(|| {
                b.copy_from(&root);
                black_box(b.playout(Color::Black, &mut rng, 3 * size * size, None))
            })
        });
    }
    g.finish();
}

/// A random 3×3 chuban post (exact matches, generalizations and specializations all happen).
fn random_post(rng: &mut FastRng) -> Post {
    let area: String = (0..3)
        .map(|_| (0..3).map(|_| ['-', 'x', 'o'][rng.below(3)]).collect::<String>())
        .collect::<Vec<_>>()
        .join("/");
    Post::Pattern {
        library: "chuban".into(),
        area,
        sig: (1, 1500.0 + rng.below(400) as f64, rng.unit(), 1),
    }
}

fn post_into(g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>, name: &str, store: &str) {
    let mut s = Shared::open(store, Settings::default()).unwrap();
    let mut rng = FastRng::new(3);
    g.bench_function(name, |bn| {
        bn.iter(|| {
            let p = random_post(&mut rng);
            black_box(s.post(std::slice::from_ref(&p)).unwrap())
        })
    });
}

fn posts(c: &mut Criterion) {
    let tmp = std::env::temp_dir().join(format!("ets-bench-academy-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).unwrap();
    let mut g = c.benchmark_group("academy post");
    g.throughput(Throughput::Elements(1));
    post_into(
        &mut g,
        "sqlite, one transaction per post",
        &tmp.join("a.db").to_string_lossy(),
    );
    // PostgreSQL: a server named by ETS_PG_URL, or a throw-away one from the repository's script
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/pg-test-server.sh");
    let data = tmp.join("pg");
    let (url, started) = match std::env::var("ETS_PG_URL") {
        Ok(u) => (Some(u), false),
        Err(_) => {
            let port = (54_900 + std::process::id() % 90).to_string();
            let out = Command::new("bash")
                .arg(&script)
                .arg("start")
                .arg(&data)
                .arg(&port)
                .output();
            match out {
                Ok(o) if o.status.success() => (Some(String::from_utf8_lossy(&o.stdout).trim().to_string()), true),
                Ok(o) => {
                    eprintln!(
                        "academy post/postgresql skipped: {}",
                        String::from_utf8_lossy(&o.stderr).trim()
                    );
                    (None, false)
                }
                Err(e) => {
                    eprintln!("academy post/postgresql skipped: {e}");
                    (None, false)
                }
            }
        }
    };
    if let Some(url) = url {
        post_into(&mut g, "postgresql (local server), one transaction per post", &url);
    }
    g.finish();
    if started {
        let _ = Command::new("bash").arg(&script).arg("stop").arg(&data).status();
    }
    let _ = std::fs::remove_dir_all(&tmp);
}

criterion_group!(benches, qm, sample_games, posts);
criterion_main!(benches);
