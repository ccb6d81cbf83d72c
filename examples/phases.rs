//! Times the phases of classifying every position (ad hoc): `cargo run --release --example phases -- GAME.sgf`;
//! with `ONCE=1`, one whole classification (for callgrind), up to level `TOP` if set.
use ets::ets::recognition::{Limits, MatchTable, Scratch, level_constraints, recognize_from, start_seeds};
use ets::go::classify::{alphabet_of, classify_every, embedded_setting};
use ets::go::game::Replay;
use ets::go::record::{RecordOptions, record};
use ets::go::sgf::Sgf;
use std::time::Instant;

fn main() {
    let path = std::env::args().nth(1).expect("an SGF file");
    let st = embedded_setting().1.expect("setting");
    let r = Replay::from_sgf(&Sgf::parse_bytes(std::fs::read(path).unwrap()).unwrap(), 0, &[]).unwrap();
    let last: Vec<_> = std::iter::once(None).chain(r.moves.iter().map(|m| m.point)).collect();
    let kinds = alphabet_of(&st).unwrap();
    if std::env::var_os("ONCE").is_some() {
        let top = std::env::var("TOP").ok().and_then(|v| v.parse().ok());
        let w = classify_every(&st, &r.positions, &last, RecordOptions::default(), top).unwrap();
        println!("{:?}", w.named.iter().map(|v| v.len()).collect::<Vec<_>>());
        return;
    }
    for _ in 0..3 {
        let t = Instant::now();
        let rec = record(&kinds, &r.positions, &last, RecordOptions::default()).unwrap();
        let t_rec = t.elapsed();
        let t = Instant::now();
        let table = MatchTable::build(&st, &level_constraints(&st, 0), &rec.strukt);
        let t_tab = t.elapsed();
        let t = Instant::now();
        let mut n = 0;
        let mut per = Vec::new();
        for c in st.classes_at(0) {
            let t1 = Instant::now();
            let seeds = start_seeds(&st, c, &table, 0..table.len() as u32);
            let mut s = Scratch::default();
            n += recognize_from(&st, c, &table, &seeds, Limits::default(), &mut s).len();
            per.push((st.class(c).name.clone(), t1.elapsed().as_millis()));
        }
        let t_rcg = t.elapsed();
        let t = Instant::now();
        let w = classify_every(&st, &r.positions, &last, RecordOptions::default(), None).unwrap();
        let t_all = t.elapsed();
        println!(
            "record {:?}  table0 {:?} ({} matches)  recognise0 {:?} ({} elements, sequential)  whole {:?} ({:?})",
            t_rec,
            t_tab,
            table.len(),
            t_rcg,
            n,
            t_all,
            w.named.iter().map(|v| v.len()).collect::<Vec<_>>()
        );
        println!("  {:?}", per);
    }
}
