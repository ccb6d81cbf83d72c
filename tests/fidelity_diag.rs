//! Temporary diagnosis (issue 15): the first disagreement of each class with its oracle on one
//! game, with the lives of the elements involved.

#[path = "fidelity/measure.rs"]
#[allow(dead_code)]
mod measure;
#[path = "fidelity/oracles.rs"]
#[allow(dead_code)]
mod oracles;

use std::path::Path;
use std::sync::Arc;

use ets::go::classify::{classify_game, embedded_setting};
use ets::go::record::RecordOptions;

#[test]
#[ignore]
fn diag() {
    let st = embedded_setting().1.expect("setting");
    let file = std::env::var("DIAG_GAME").unwrap_or_else(|_| "tests/data/games".into());
    let classes: Vec<String> = std::env::var("DIAG_CLASSES")
        .unwrap_or_else(|_| "black_two_stone_block".into())
        .split(',')
        .map(String::from)
        .collect();
    let level: u32 = std::env::var("DIAG_LEVEL").ok().and_then(|v| v.parse().ok()).unwrap_or(1);
    let games = measure::games_under(Path::new(&file), 1);
    let g = &games[0];
    let r = &g.replay;
    let last: Vec<_> = std::iter::once(None).chain(r.moves.iter().map(|m| m.point)).collect();
    let t = classify_game(Arc::new(st.clone()), &r.positions, &last, RecordOptions::default(), Some(level)).unwrap();
    let lv = t.timeline().level(level);
    for name in &classes {
        let mut shown = 0;
        for (pos, b) in r.positions.iter().enumerate() {
            let before = &r.positions[pos.saturating_sub(1)];
            let p = oracles::Position { board: b, before };
            let want = if level == 1 { oracles::level1(&p) } else { oracles::level2(&p) };
            let got = measure::reported(&st, &t, level as usize, pos as u32);
            let w = want.get(name).cloned().unwrap_or_default();
            let gv: Vec<_> = got.get(name).cloned().unwrap_or_default();
            let mut extra: Vec<_> = gv.iter().filter(|s| !w.contains(*s)).collect();
            for (i, s) in gv.iter().enumerate() {
                if gv[..i].contains(s) {
                    extra.push(s);
                }
            }
            let missing: Vec<_> = w.iter().filter(|s| !gv.contains(s)).collect();
            if extra.is_empty() && missing.is_empty() {
                continue;
            }
            println!("==== {name} at position {pos} ({}):\n{}", g.name, b.ascii());
            if pos > 0 {
                println!("before:\n{}", before.ascii());
            }
            for s in &extra {
                println!("reported, not expected: {:?}", s.iter().map(|p| (p.col, p.row)).collect::<Vec<_>>());
            }
            for s in &missing {
                println!("expected, not reported: {:?}", s.iter().map(|p| (p.col, p.row)).collect::<Vec<_>>());
            }
            // Lives of every element of the class touching those vertices.
            let pts: Vec<_> = extra.iter().chain(missing.iter()).flat_map(|s| s.iter().copied()).collect();
            for e in 0..lv.elements().len() as u32 {
                let el = lv.element(e);
                if st.class(el.class()).name != *name {
                    continue;
                }
                let vs = t.vertices(level, e, el.ended().map_or(pos as u32, |d| d.saturating_sub(1)).min(pos as u32).max(el.born()));
                if !vs.iter().any(|v| pts.contains(v)) {
                    continue;
                }
                println!(
                    "  element {e}: born {} completed {:?} ended {:?} {:?} stillborn {} merged_into {:?} vertices {:?}",
                    el.born(),
                    el.completed(),
                    el.ended(),
                    el.end_kind(),
                    el.is_stillborn(),
                    el.merged_into(),
                    vs.iter().map(|p| (p.col, p.row)).collect::<Vec<_>>()
                );
                for ((m, step), set) in el.applications_with_steps().zip(el.sets()) {
                    let nodes: Vec<String> = lv
                        .match_nodes(m)
                        .iter()
                        .map(|&x| {
                            let host = lv.host();
                            let below = host.below(x);
                            let cls = t.timeline().level(level - 1).element(below).class();
                            format!(
                                "{}#{}[{}..{:?}]{:?}",
                                st.class(cls).name,
                                below,
                                host.born(x),
                                host.ended(x),
                                t.vertices(level - 1, below, step).iter().map(|p| (p.col, p.row)).collect::<Vec<_>>()
                            )
                        })
                        .collect();
                    println!(
                        "    step {step} set {set} {} {}",
                        st.constraint(lv.constraint(m)).name,
                        nodes.join(" ")
                    );
                }
            }
            shown += 1;
            if shown >= 2 {
                break;
            }
        }
    }
}
