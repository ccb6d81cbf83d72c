//! Development probe: classify one game at level 0 and time it.
use ets::go::classify::{classify, embedded_setting};
use ets::go::game::Replay;
use ets::go::record::RecordOptions;
use ets::go::sgf::Sgf;
use std::time::Instant;

fn main() {
    let path = std::env::args().nth(1).expect("an SGF file");
    let upto: Option<usize> = std::env::args().nth(2).and_then(|s| s.parse().ok());
    let level: Option<u32> = std::env::args().nth(3).and_then(|s| s.parse().ok());
    let (_, st) = embedded_setting();
    let st = st.expect("setting");
    let sgf = Sgf::parse_bytes(std::fs::read(path).unwrap()).unwrap();
    let r = Replay::from_sgf(&sgf, 0, &[]).unwrap();
    let n = upto.unwrap_or(r.len()).min(r.len());
    let last: Vec<_> = std::iter::once(None)
        .chain(r.moves.iter().map(|m| m.point))
        .take(n + 1)
        .collect();
    if std::env::var("PER_CLASS").is_ok() {
        let kinds = ets::go::classify::alphabet_of(&st).unwrap();
        let rec = ets::go::record::record(&kinds, &r.positions[..=n], &last, RecordOptions::default()).unwrap();
        for c in st.classes_at(0) {
            let t = Instant::now();
            let es = ets::ets::recognize(&st, c, &rec.strukt);
            println!("{:>20} {:>6} elements {:?}", st.class(c).name, es.len(), t.elapsed());
        }
        return;
    }
    let t = Instant::now();
    let c = classify(&st, &r.positions[..=n], &last, RecordOptions::default(), level).unwrap();
    println!("{} primitives; classify {:?}", c.recording.strukt.len(), t.elapsed());
    for l in &c.hierarchy.levels {
        let mut counts: std::collections::BTreeMap<&str, (usize, usize)> = Default::default();
        for (e, nm) in l.elements.iter().zip(&c.named[l.level as usize]) {
            let x = counts.entry(&st.class(e.class).name).or_default();
            x.0 += 1;
            if nm.died.is_none() {
                x.1 += 1;
            }
        }
        println!(
            "level {}: {} elements, {} overlap edges",
            l.level,
            l.elements.len(),
            l.overlaps().edges.len()
        );
        for (k, (a, b)) in counts {
            println!("  {k}: {a} ({b} alive)");
        }
    }
}

#[allow(dead_code)]
fn per_class() {}
