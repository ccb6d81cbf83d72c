//! The bank domain of thesis Figs. 3.1–3.2, through every definition of the engine: alphabet,
//! struct, precedence, relabeling and assembly, constraints, generation, recognition at levels 0
//! and 1, overlap graphs. Run: `cargo run --example bank`.

use ets::demo::bank;
use ets::ets::{GenerateOptions, Struct, assemble, generate, recognize_all, relabel, structurally_identical};

fn main() {
    let setting = bank::setting();
    let s = bank::observation(&setting);
    println!(
        "observed struct: {} primitives, {} processes",
        s.len(),
        s.process_count()
    );
    let jw1 = s.node_of_id(102).expect("Jim's first withdrawal");
    let bw2 = s.node_of_id(204).expect("Bob's second withdrawal");
    let bs1 = s.node_of_id(203).expect("Bob's first spending");
    let js1 = s.node_of_id(103).expect("Jim's first spending");
    println!("Jim's first withdrawal precedes Bob's second: {}", s.precedes(jw1, bw2));
    println!(
        "Jim's and Bob's first spendings are concurrent: {}",
        s.concurrent(js1, bs1)
    );

    // Relabeling and structural identity (Fig. 3.4).
    let moved = relabel(&s, |id| id + 1000).expect("injective");
    println!(
        "relabelled copy structurally identical: {}",
        structurally_identical(&s, &moved)
    );

    // Recognition at every level.
    let h = recognize_all(&setting, &s, None);
    for l in &h.levels {
        println!("level {}: {} elements", l.level, l.elements.len());
        for (i, e) in l.elements.iter().enumerate() {
            let names: Vec<String> = if l.level == 0 {
                e.nodes.iter().map(|&n| s.primitive(n).id.to_string()).collect()
            } else {
                e.nodes.iter().map(|n| format!("L{}:{}", l.level - 1, n)).collect()
            };
            println!(
                "  L{}:{} {} [{}]{}",
                l.level,
                i,
                setting.class(e.class).name,
                names.join(" "),
                if e.complete { "" } else { " (forming)" }
            );
        }
        for (a, b, cs) in l.overlaps().edges {
            let cs: Vec<&str> = cs.iter().map(|&c| setting.constraint(c).name.as_str()).collect();
            println!("  overlap L{0}:{a} — L{0}:{b} on {1}", l.level, cs.join(", "));
        }
    }

    // Generation: one shopping trip, seeded.
    let class = setting.class_id("shopping_trip").expect("declared");
    let mut g = Struct::new(setting.alphabet().clone());
    let e = generate(
        &setting,
        class,
        &mut g,
        7,
        GenerateOptions::default(),
        &mut |_, _, _| {},
    )
    .expect("generates");
    println!(
        "generated shopping trip (seed 7): {} primitives, {} applications",
        e.nodes.len(),
        e.applications.len()
    );

    // Assembly: Jim's part and a second observation sharing his first withdrawal.
    let mut second = Struct::new(setting.alphabet().clone());
    let w = second
        .add_primitive_with_id(setting.alphabet().kind("withdraw").expect("kind"), 102)
        .expect("fresh");
    let sp = second
        .add_primitive_with_id(setting.alphabet().kind("spend").expect("kind"), 900)
        .expect("fresh");
    let _ = (w, sp);
    match assemble(&s, &second) {
        Ok(a) => println!("assembled: {} primitives", a.len()),
        Err(e) => println!("assembly refused: {e}"),
    }
}
