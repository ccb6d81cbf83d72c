//! The engine on the bank domain of Figs. 3.1–3.2: every definition of §3.3–3.4 end to end.

use ets::demo::bank;
use ets::ets::{
    GenerateOptions, LinkLabel, Struct, StructError, assemble, canonical_form, generate, json, labelled_eq, recognize,
    recognize_all, relabel, structurally_identical,
};

fn ids(s: &Struct, nodes: &[u32]) -> Vec<u64> {
    let mut v: Vec<u64> = nodes.iter().map(|&n| s.primitive(n).id).collect();
    v.sort();
    v
}

#[test]
fn struct_invariants_are_kept_by_the_type() {
    let st = bank::setting();
    let al = st.alphabet().clone();
    let mut s = Struct::new(al.clone());
    let w = s.add_primitive(al.kind("withdraw").unwrap()).unwrap();
    let sp = s.add_primitive(al.kind("spend").unwrap()).unwrap();
    let money = al
        .primitive(al.kind("withdraw").unwrap())
        .terminal_index("money")
        .unwrap();
    let sp_money = al.primitive(al.kind("spend").unwrap()).initial_index("money").unwrap();
    let sp_person = al.primitive(al.kind("spend").unwrap()).initial_index("person").unwrap();
    // typing: money cannot feed a person site
    assert!(matches!(
        s.connect(w, money, sp, sp_person),
        Err(StructError::SiteTypeMismatch { .. })
    ));
    s.connect(w, money, sp, sp_money).unwrap();
    // one process per site
    let w2 = s.add_primitive(al.kind("withdraw").unwrap()).unwrap();
    assert!(matches!(
        s.connect(w2, money, sp, sp_money),
        Err(StructError::SiteOccupied { side: "initial", .. })
    ));
    // acyclicity: spend's person back into the withdrawal that preceded it
    let w_person = al
        .primitive(al.kind("withdraw").unwrap())
        .initial_index("person")
        .unwrap();
    assert!(matches!(s.connect(sp, 0, w, w_person), Err(StructError::Cycle { .. })));
    assert_eq!(s.process_count(), 1, "failed edits leave the struct unchanged");
    assert!(s.precedes(w, sp) && !s.precedes(sp, w));
    assert!(s.concurrent(w2, sp));
    assert!(matches!(
        s.add_primitive_with_id(al.kind("spend").unwrap(), s.primitive(w).id),
        Err(StructError::DuplicateId(_))
    ));
    // frontier: withdraw's person and account terminals, spend's person terminal, all of w2's
    let open: usize = s.open_terminals().len();
    assert_eq!(open, 2 + 1 + 3);
}

#[test]
fn level_0_and_1_recognition_on_the_observation() {
    let st = bank::setting();
    let s = bank::observation(&st);
    let h = recognize_all(&st, &s, None);
    let l0 = &h.levels[0];
    let name = |e: &ets::ets::Element| st.class(e.class).name.clone();
    let trips: Vec<Vec<u64>> = l0
        .elements
        .iter()
        .filter(|e| name(e) == "shopping_trip")
        .map(|e| ids(&s, &e.nodes))
        .collect();
    assert_eq!(
        trips,
        vec![vec![100, 102, 103, 104, 105, 106], vec![200, 202, 203, 204, 205]]
    );
    let accounts: Vec<Vec<u64>> = l0
        .elements
        .iter()
        .filter(|e| name(e) == "account_use")
        .map(|e| ids(&s, &e.nodes))
        .collect();
    assert_eq!(
        accounts,
        vec![vec![101, 102, 103, 204, 205], vec![104, 105, 201, 202, 203]]
    );
    // every trip overlaps both accounts on Con_spend, and nothing else overlaps
    let og = l0.overlaps();
    assert_eq!(og.edges.len(), 4);
    let spend = st.constraint_id("Con_spend").unwrap();
    assert!(og.edges.iter().all(|(_, _, cs)| cs == &vec![spend]));
    // level 1: one household joining all four
    assert_eq!(h.levels[1].elements.len(), 1);
    assert_eq!(h.levels[1].elements[0].nodes, vec![0, 1, 2, 3]);
}

#[test]
fn constraint_context_must_already_be_present() {
    // A withdrawal with no account opening before it starts no account_use element: the context
    // of Con_first_withdraw (the `open`) is missing.
    let st = bank::setting();
    let al = st.alphabet().clone();
    let mut s = Struct::new(al.clone());
    let w1 = s.add_primitive(al.kind("withdraw").unwrap()).unwrap();
    let w2 = s.add_primitive(al.kind("withdraw").unwrap()).unwrap();
    s.connect(w1, 1, w2, 1).unwrap();
    assert!(recognize(&st, st.class_id("account_use").unwrap(), &s).is_empty());
    let o = s.add_primitive(al.kind("open").unwrap()).unwrap();
    s.connect(o, 0, w1, 1).unwrap();
    let es = recognize(&st, st.class_id("account_use").unwrap(), &s);
    assert_eq!(es.len(), 1);
    assert_eq!(es[0].nodes, vec![w1, w2, o]);
}

#[test]
fn generation_is_seeded_and_recognised() {
    let st = bank::setting();
    for class in ["account_use", "shopping_trip"] {
        let c = st.class_id(class).unwrap();
        let gen_one = |seed| {
            let mut s = Struct::new(st.alphabet().clone());
            let e = generate(&st, c, &mut s, seed, GenerateOptions::default(), &mut |_, _, _| {}).unwrap();
            (s, e)
        };
        let (a, ea) = gen_one(11);
        let (b, eb) = gen_one(11);
        assert!(labelled_eq(&a, &b) && ea == eb, "same seed, same element");
        let found = recognize(&st, c, &a);
        assert!(
            found
                .iter()
                .any(|f| ea.applications.iter().all(|x| f.applications.contains(x)))
        );
    }
}

#[test]
fn assembly_on_common_primitives_and_its_errors() {
    let st = bank::setting();
    let s = bank::observation(&st);
    let al = st.alphabet().clone();
    let mut part = Struct::new(al.clone());
    let w = part.add_primitive_with_id(al.kind("withdraw").unwrap(), 104).unwrap();
    let sp = part.add_primitive_with_id(al.kind("spend").unwrap(), 999).unwrap();
    part.connect(w, 2, sp, 1).unwrap(); // Jim's second money to a new spending
    // money site of 104 is already used by 105 in the observation
    assert!(matches!(assemble(&s, &part), Err(StructError::SiteOccupied { .. })));
    let mut other = Struct::new(al.clone());
    other.add_primitive_with_id(al.kind("spend").unwrap(), 5000).unwrap();
    assert_eq!(assemble(&s, &other).unwrap_err(), StructError::NothingInCommon);
    let mut conflict = Struct::new(al.clone());
    conflict.add_primitive_with_id(al.kind("spend").unwrap(), 102).unwrap();
    assert!(matches!(
        assemble(&s, &conflict),
        Err(StructError::KindConflict { id: 102, .. })
    ));
    // a relabelled copy of part of the struct assembles back onto it without change
    let same = relabel(&s, |x| x).unwrap();
    let joined = assemble(&s, &same).unwrap();
    assert!(labelled_eq(&joined, &s));
}

#[test]
fn canonical_form_separates_and_identifies() {
    let st = bank::setting();
    let s = bank::observation(&st);
    let r = relabel(&s, |x| 7_000_000 - x).unwrap();
    assert!(structurally_identical(&s, &r));
    assert_eq!(canonical_form(&s), canonical_form(&r));
    let mut t = s.clone();
    t.add_primitive(st.alphabet().kind("leave").unwrap()).unwrap();
    let b_last = s.node_of_id(205).unwrap();
    let mut u = s.clone();
    let l = u.add_primitive(st.alphabet().kind("leave").unwrap()).unwrap();
    u.connect(b_last, 0, l, 0).unwrap();
    assert!(!structurally_identical(&s, &t));
    assert!(!structurally_identical(&t, &u), "same primitives, one process more");
}

#[test]
fn struct_json_round_trips_and_rejects_bad_input() {
    let st = bank::setting();
    let s = bank::observation(&st);
    let text = json::write_struct(&s);
    let back = json::read_struct(&text, Some(st.alphabet().clone())).unwrap();
    assert!(labelled_eq(&s, &back));
    let bad = text.replacen("\"to_site\": \"money\"", "\"to_site\": \"wallet\"", 1);
    assert!(matches!(
        json::read_struct(&bad, None),
        Err(json::JsonError::UnknownSite { .. })
    ));
    assert!(matches!(json::read_struct("{", None), Err(json::JsonError::Syntax(_))));
}

#[test]
fn level_n_links_are_class_element_links() {
    let st = bank::setting();
    let s = bank::observation(&st);
    let h = recognize_all(&st, &s, Some(0));
    let up = &h.levels[0].above;
    let spend = st.constraint_id("Con_spend").unwrap();
    assert!(up.links().iter().all(|l| l.constraint == spend && l.members.len() == 2));
    use ets::ets::Host;
    assert!(up.linked(LinkLabel::Cel(spend), &[(0, 0), (2, 0)]));
    assert!(!up.linked(LinkLabel::Cel(spend), &[(0, 0), (1, 0)]));
}

/// Architecture invariant: the engine names no application domain.
#[test]
fn the_engine_knows_nothing_of_go() {
    let forbidden = ["go::", "sgf", "board", "stone", "goban", "baduk", "weiqi"];
    let mut dirs = vec![std::path::PathBuf::from("src/ets")];
    let mut files = Vec::new();
    while let Some(d) = dirs.pop() {
        for entry in std::fs::read_dir(d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                files.push(path);
            }
        }
    }
    assert!(files.len() > 15, "{} files", files.len());
    for path in files {
        let text = std::fs::read_to_string(&path).unwrap().to_lowercase();
        for w in forbidden {
            assert!(!text.contains(w), "{} names `{w}`", path.display());
        }
        for (i, line) in text.lines().enumerate() {
            let words: Vec<&str> = line.split(|c: char| !c.is_alphanumeric()).collect();
            assert!(!words.contains(&"go"), "{}:{} names Go", path.display(), i + 1);
        }
    }
}
