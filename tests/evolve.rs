//! Incremental recognition over time (`ets::evolve`), on generated evolving level-1 structs: at
//! every step the tracker's living elements equal recognition afresh over the living nodes alone.
//! The setting has a seed-determined class whose elements reach two links away from their start
//! (so the local re-recognition must look that far), a branching one, and a closure.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use ets::dsl::{MemResolver, load_setting_with};
use ets::ets::evolve::{Linker, LiveLevel, NewNode, Tracker, seed_determined};
use ets::ets::recognition::recognize;
use ets::ets::{ConstraintId, Setting};
use proptest::prelude::*;

const TEXT: &str = r#"
primal p;
primitive a(x: p) -> (x: p);
constraint K {
    context u: a;
    v: a;
    u.x -> v.x;
}
class C = "C" level 0 {
    set A = {K};
    schedule A+;
}
// Three steps along links: a start pair, then a node beside it, then one beside that (optional).
constraint S level 1 = <{context s1: C, s2: C}, {<{s1, s2}, K>}>;
constraint T level 1 = <{context t1: C, t2: C}, {<{t1, t2}, K>}>;
constraint U level 1 = <{context u1: C, u2: C}, {<{u1, u2}, K>}>;
class chain = "X1" level 1 {
    set A = {S};
    set B = {T};
    set D = {U};
    schedule A, B, D?;
}
// Every node linked to a start pair: branching over the second step, each branch its own element.
constraint F level 1 = <{context f1: C, f2: C}, {<{f1, f2}, K>}>;
constraint G level 1 = <{context g1: C, context g2: C, g3: C}, {<{g1, g3}, K>}>;
class fork = "X2" level 1 {
    set A = {F};
    set B = {G};
    schedule A, B;
}
// Linked nodes, as far as links go.
constraint L level 1 = <{l1: C, l2: C}, {<{l1, l2}, K>}>;
class blob = "X3" level 1 {
    set A = {L};
    schedule A+;
}
"#;

fn setting() -> Setting {
    let files = BTreeMap::from([(PathBuf::from("t/t.ets"), TEXT.to_string())]);
    match load_setting_with(&[PathBuf::from("t/t.ets")], &MemResolver(files)).1 {
        Ok((s, _)) => s,
        Err(e) => panic!("{e:?}"),
    }
}

/// One step of an evolving graph: nodes that end (indices into the living ones) and a new node
/// with links to some living ones.
#[derive(Debug, Clone)]
struct Step {
    end: Vec<usize>,
    links: Vec<usize>,
}

fn steps() -> impl Strategy<Value = Vec<Step>> {
    prop::collection::vec(
        (
            prop::collection::vec(0usize..64, 0..2),
            prop::collection::vec(0usize..64, 0..4),
        )
            .prop_map(|(end, links)| Step { end, links }),
        1..30,
    )
}

/// An element as (class, original node ids, number of applications).
type Key = (u32, Vec<u32>, usize);

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]
    #[test]
    fn tracked_elements_equal_recognition_afresh_at_every_step(steps in steps()) {
        let st = setting();
        let class_c = st.classes_at(0)[0].0;
        let k = ConstraintId(st.constraints().iter().position(|c| c.name == "K").unwrap() as u32);
        let mut tr = Tracker::new(&st, 1);
        let mut living: Vec<u32> = Vec::new();
        // Per node: its link keys (one per link it was born with or that was made to it later).
        let mut keys: Vec<Vec<u32>> = Vec::new();
        let mut next_key = 0u32;
        for (t, step) in steps.iter().enumerate() {
            let mut died: Vec<u32> = Vec::new();
            for &i in &step.end {
                if !living.is_empty() {
                    died.push(living.remove(i % living.len()));
                }
            }
            // The new node holds two fresh keys (later nodes may share them) and one key of each
            // living node it links to (its links are the keys it shares).
            let n = keys.len() as u32;
            let mut mine = vec![next_key, next_key + 1];
            next_key += 2;
            for &j in &step.links {
                if !living.is_empty() {
                    let m = living[j % living.len()] as usize;
                    let key = keys[m][j % keys[m].len()];
                    if !mine.contains(&key) {
                        mine.push(key);
                    }
                }
            }
            keys.push(mine.clone());
            living.push(n);
            tr.advance(
                t as u32,
                vec![(class_c, NewNode::Apps(mine.iter().map(|&x| (k, x)).collect()))],
                &died,
            );
            // The tracker's living elements.
            let got: BTreeSet<Key> = tr
                .living()
                .into_iter()
                .map(|i| {
                    let f = &tr.instances()[i].found;
                    (f.class.0, f.nodes.clone(), f.apps.len())
                })
                .collect();
            // Afresh: a struct of the living nodes alone (links are shared keys).
            let mut fresh = LiveLevel::default();
            let alive: BTreeSet<u32> = living.iter().copied().collect();
            for &x in &living {
                let ks: Vec<(ConstraintId, u32)> = keys[x as usize].iter().map(|&key| (k, key)).collect();
                fresh.add_node(class_c, ks);
            }
            let mut want: BTreeSet<Key> = BTreeSet::new();
            for c in st.classes_at(1) {
                for e in recognize(&st, c, &fresh) {
                    if e.complete {
                        let mut nodes: Vec<u32> = e.nodes.iter().map(|&x| living[x as usize]).collect();
                        nodes.sort_unstable();
                        want.insert((c.0, nodes, e.applications.len()));
                    }
                }
            }
            prop_assert!(got.iter().all(|(_, ns, _)| ns.iter().all(|x| alive.contains(x))));
            prop_assert_eq!(got, want, "step {}", t);
        }
    }
}

#[test]
fn the_chain_and_the_fork_are_seed_determined_and_the_blob_is_not() {
    let st = setting();
    let by_name = |n: &str| st.classes_at(1).into_iter().find(|&c| st.class(c).name == n).unwrap();
    assert_eq!(seed_determined(&st, by_name("chain")).map(|x| x.1), Some(3));
    assert_eq!(seed_determined(&st, by_name("fork")).map(|x| x.1), Some(2));
    assert!(seed_determined(&st, by_name("blob")).is_none());
}

proptest! {
    /// Links derived apart (a `Linker`, as a feeding thread does) and handed over with
    /// `add_linked` give the struct `add_node` builds from the applications: the same links, in
    /// the same order, with the same members.
    #[test]
    fn links_derived_apart_equal_links_derived_in_place(
        nodes in prop::collection::vec(prop::collection::vec((0u32..3, 0u32..12), 0..8), 1..24)
    ) {
        let mut in_place = LiveLevel::default();
        let mut apart = LiveLevel::default();
        let mut linker = Linker::default();
        for apps in &nodes {
            // Keys unique per application: a key always comes with the same constraint.
            let apps: Vec<(ConstraintId, u32)> = apps.iter().map(|&(_, k)| (ConstraintId(k % 3), k)).collect();
            let a = in_place.add_node(0, apps.iter().copied());
            let (n, made) = linker.add(apps.iter().copied());
            let b = apart.add_linked(0, made);
            prop_assert_eq!(a, n);
            prop_assert_eq!(a, b);
        }
        prop_assert_eq!(in_place.links(), apart.links());
        for n in 0..in_place.len() as u32 {
            let x: Vec<_> = in_place.incident(n).cloned().collect();
            let y: Vec<_> = apart.incident(n).cloned().collect();
            prop_assert_eq!(x, y);
        }
        // Independently: a key held by nodes h1 < h2 < … < hm links each of its prefixes
        // {h1, …, hj}, j ≥ 2, as the holders come (one link per constraint and member set).
        let mut holders: BTreeMap<u32, BTreeSet<u32>> = BTreeMap::new();
        for (i, apps) in nodes.iter().enumerate() {
            for &(_, k) in apps {
                holders.entry(k).or_default().insert(i as u32);
            }
        }
        let mut expected: BTreeSet<(u32, Vec<u32>)> = BTreeSet::new();
        for (k, h) in &holders {
            let h: Vec<u32> = h.iter().copied().collect();
            for j in 2..=h.len() {
                expected.insert((k % 3, h[..j].to_vec()));
            }
        }
        let got: BTreeSet<(u32, Vec<u32>)> = apart
            .links()
            .iter()
            .map(|l| {
                let mut m = l.members.to_vec();
                m.sort_unstable();
                (l.constraint.0, m)
            })
            .collect();
        prop_assert_eq!(got.len(), apart.links().len());
        prop_assert_eq!(got, expected);
    }
}
