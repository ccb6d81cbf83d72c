//! How often our level-2 groups agree with GNU Go's dragons, on a sample of real positions
//! (reported in `docs/dragons.md`, never asserted): `cargo run --release --example dragons -- [GAMES] [STEP]`.
//! Needs `gnugo` (Debian's package); our side runs through the embedded class setting.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::process::{Command, Stdio};

use ets::go::board::{Cell, Point};
use ets::go::classify::{classify, embedded_setting};
use ets::go::game::Replay;
use ets::go::record::RecordOptions;
use ets::go::sgf::Sgf;

fn main() -> std::process::ExitCode {
    let games: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(20);
    let step: usize = std::env::args().nth(2).and_then(|s| s.parse().ok()).unwrap_or(50);
    let Some(gnugo) = ["gnugo", "/usr/games/gnugo"]
        .into_iter()
        .find(|g| Command::new(g).arg("--version").output().is_ok())
    else {
        eprintln!("dragons: GNU Go is not installed (apt-get install gnugo)\nusage: dragons [GAMES] [STEP]");
        return std::process::ExitCode::from(2);
    };
    let st = embedded_setting().1.expect("setting");
    let dir = ["../shared/data/games/tom-9d/2005-06", "tests/data/games/tom-9d"]
        .into_iter()
        .find(|d| std::path::Path::new(d).is_dir())
        .expect("the sample games ship with the repository");
    let mut files: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().map(|e| e.path()).collect();
    files.sort();
    let (mut dragons, mut exact, mut pairs, mut agree, mut positions) = (0usize, 0usize, 0u64, 0u64, 0usize);
    for f in files.iter().take(games) {
        let r = Replay::from_sgf(&Sgf::parse_bytes(std::fs::read(f).unwrap()).unwrap(), 0, &[]).unwrap();
        let rows = r.info.size.1;
        let mut script = String::new();
        let ks: Vec<usize> = (step..=r.len()).step_by(step).collect();
        for &k in &ks {
            script.push_str(&format!("loadsgf {} {}\ndragon_stones\n", f.display(), k + 1));
        }
        script.push_str("quit\n");
        let mut child = Command::new(gnugo)
            .args(["--mode", "gtp"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        child.stdin.take().unwrap().write_all(script.as_bytes()).unwrap();
        let out = String::from_utf8(child.wait_with_output().unwrap().stdout).unwrap();
        // responses alternate: loadsgf ("= color"), dragon_stones (lines of stones)
        let responses: Vec<&str> = out.split("\n\n").filter(|s| !s.trim().is_empty()).collect();
        for (j, &k) in ks.iter().enumerate() {
            let Some(resp) = responses.get(2 * j + 1) else { continue };
            let theirs: BTreeSet<BTreeSet<Point>> = resp
                .trim_start_matches('=')
                .lines()
                .map(|l| {
                    l.split_whitespace()
                        .filter_map(|v| Point::from_gtp(v, rows))
                        .collect::<BTreeSet<_>>()
                })
                .filter(|s| !s.is_empty())
                .collect();
            let b = &r.positions[k];
            let c = classify(&st, std::slice::from_ref(b), &[None], RecordOptions::default(), Some(2)).unwrap();
            // our partition of the stones: each group's stones, and every block in no group
            let mut part: Vec<BTreeSet<Point>> = Vec::new();
            let mut grouped = BTreeSet::new();
            for (e, n) in c.hierarchy.levels[2].elements.iter().zip(&c.named[2]) {
                if st.class(e.class).name.ends_with("_group") {
                    let stones: BTreeSet<Point> = n
                        .vertices
                        .iter()
                        .copied()
                        .filter(|&p| b.get(p) != Cell::Empty)
                        .collect();
                    grouped.extend(stones.iter().copied());
                    part.push(stones);
                }
            }
            for (e, n) in c.hierarchy.levels[1].elements.iter().zip(&c.named[1]) {
                let name = &st.class(e.class).name;
                if (name == "black_block" || name == "white_block") && !n.vertices.iter().any(|p| grouped.contains(p)) {
                    part.push(n.vertices.iter().copied().collect());
                }
            }
            let ours: BTreeSet<BTreeSet<Point>> = part.into_iter().collect();
            dragons += theirs.len();
            exact += theirs.iter().filter(|d| ours.contains(*d)).count();
            // pair agreement over stones of one colour: same dragon ⇔ same group
            let of = |sets: &BTreeSet<BTreeSet<Point>>| -> BTreeMap<Point, usize> {
                sets.iter()
                    .enumerate()
                    .flat_map(|(i, s)| s.iter().map(move |&p| (p, i)))
                    .collect()
            };
            let (mo, mt) = (of(&ours), of(&theirs));
            let stones: Vec<Point> = b.points().filter(|&p| b.get(p) != Cell::Empty).collect();
            for (i, &p) in stones.iter().enumerate() {
                for &q in &stones[i + 1..] {
                    if b.get(p) != b.get(q) {
                        continue;
                    }
                    pairs += 1;
                    let so = mo.contains_key(&p) && mo.get(&p) == mo.get(&q);
                    let stt = mt.contains_key(&p) && mt.get(&p) == mt.get(&q);
                    agree += (so == stt) as u64;
                }
            }
            positions += 1;
        }
    }
    println!("{games} games of {dir}, every {step} moves: {positions} positions, {dragons} GNU Go dragons");
    println!(
        "dragons equal to one of our groups (stone sets): {exact} ({:.1}%)",
        100.0 * exact as f64 / dragons.max(1) as f64
    );
    println!(
        "same-colour stone pairs on which we agree (same dragon iff same group): {agree}/{pairs} ({:.1}%)",
        100.0 * agree as f64 / pairs.max(1) as f64
    );
    std::process::ExitCode::SUCCESS
}
