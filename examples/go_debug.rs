//! Development probe: the CELs around the elements of one class.
use ets::go::classify::{classify, embedded_setting};
use ets::go::game::Replay;
use ets::go::record::RecordOptions;
use ets::go::sgf::Sgf;

fn main() {
    let path = std::env::args().nth(1).expect("an SGF file");
    let class = std::env::args().nth(2).unwrap_or("adjacent_blacks".into());
    let (_, st) = embedded_setting();
    let st = st.expect("setting");
    let sgf = Sgf::parse_bytes(std::fs::read(path).unwrap()).unwrap();
    let r = Replay::from_sgf(&sgf, 0, &[]).unwrap();
    let last: Vec<_> = std::iter::once(None).chain(r.moves.iter().map(|m| m.point)).collect();
    let c = classify(&st, &r.positions, &last, RecordOptions::default(), Some(1)).unwrap();
    let l0 = &c.hierarchy.levels[0];
    for (i, e) in l0.elements.iter().enumerate() {
        let name = &st.class(e.class).name;
        if name != &class {
            continue;
        }
        println!("{i} {name} {:?} apps {}", c.named[0][i].vertices, e.applications.len());
        for cel in l0.above.incident(i as u32) {
            let others: Vec<String> = cel
                .members
                .iter()
                .map(|&m| format!("{}:{}", m, st.class(l0.elements[m as usize].class).name))
                .collect();
            println!("   {} {:?}", st.constraint(cel.constraint).name, others);
        }
    }
    for e in &c.hierarchy.levels[1].elements {
        println!(
            "L1 {} nodes {:?} apps {:?} complete {}",
            st.class(e.class).name,
            e.nodes,
            e.applications
                .iter()
                .map(|a| (st.constraint(a.constraint).name.clone(), a.nodes.to_vec()))
                .collect::<Vec<_>>(),
            e.complete
        );
    }
}
