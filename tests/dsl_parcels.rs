//! The second worked domain (`examples/parcels`, docs/dsl.md "A second domain: the parcel post")
//! end to end through the command line, as a user of a non-Go domain runs it: check, fmt,
//! generate, recognize, evolve, struct operations and dot, at levels 0–2 (issue 17).

use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Output;

mod common;
use common::{ets, ok};

const SETTING: &str = "examples/parcels/parcels.ets";
const DAY: &str = "examples/parcels/day.json";
const MORNING: &str = "examples/parcels/morning.json";
const AFTERNOON: &str = "examples/parcels/afternoon.json";

fn json(o: &Output) -> Value {
    serde_json::from_str(&ok(o)).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("dsl-parcels").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Per level: the class names of its elements, sorted.
fn classes(v: &Value) -> Vec<Vec<String>> {
    v["levels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            let mut c: Vec<String> = l["elements"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| e["class"].as_str().unwrap().to_string())
                .collect();
            c.sort();
            c
        })
        .collect()
}

fn s(v: &[&str]) -> Vec<String> {
    v.iter().map(|x| x.to_string()).collect()
}

#[test]
fn check_and_fmt() {
    let out = ok(&ets(&["check", SETTING]));
    for want in ["journey", "round", "depot_day", "van_load", "relay", "network"] {
        assert!(out.contains(want), "{out}");
    }
    let files: Vec<String> = std::fs::read_dir("examples/parcels")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "ets"))
        .map(|p| p.display().to_string())
        .collect();
    assert!(files.len() >= 4, "{files:?}");
    let mut args = vec!["fmt", "--check"];
    args.extend(files.iter().map(String::as_str));
    ok(&ets(&args));
}

#[test]
fn recognize_the_day_at_levels_0_to_2() {
    let v = json(&ets(&["recognize", "--setting", SETTING, "--struct", DAY]));
    assert_eq!(
        classes(&v),
        vec![
            s(&["depot_day", "journey", "journey", "journey", "round", "round"]),
            s(&["relay", "relay", "relay", "van_load", "van_load"]),
            s(&["network"]),
        ]
    );
    // each van's round overlaps the journeys it carried, on the carries it records
    let l0 = &v["levels"][0]["overlaps"];
    assert_eq!(l0.as_array().unwrap().len(), 4, "{l0}");
    assert!(
        l0.as_array()
            .unwrap()
            .iter()
            .all(|o| o["constraints"] == serde_json::json!(["Con_carry"]))
    );
    assert_eq!(v["levels"][1]["overlaps"].as_array().unwrap().len(), 4);
}

#[test]
fn generate_at_every_level_and_recognize_it_back() {
    let d = scratch("generate");
    for (class, level) in [
        ("journey", 0),
        ("round", 0),
        ("van_load", 1),
        ("relay", 1),
        ("network", 2),
    ] {
        let text = ok(&ets(&[
            "generate",
            "--setting",
            SETTING,
            "--class",
            class,
            "--seed",
            "3",
        ]));
        let f = d.join(format!("{class}.json"));
        std::fs::write(&f, &text).unwrap();
        let g: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(g["format"], "ets-struct/1");
        assert_eq!(g["level"].as_u64().unwrap_or(0), level, "{class}");
        let r = json(&ets(&[
            "recognize",
            "--setting",
            SETTING,
            "--struct",
            f.to_str().unwrap(),
        ]));
        let found = classes(&r);
        let at = r["levels"]
            .as_array()
            .unwrap()
            .iter()
            .position(|l| l["level"] == level)
            .unwrap();
        assert!(found[at].iter().any(|c| c == class), "{class}: {found:?}");
    }
    // in an environment: the generated journey's first context is a post of the day
    let text = ok(&ets(&[
        "generate",
        "--setting",
        SETTING,
        "--class",
        "journey",
        "--seed",
        "3",
        "--environment",
        DAY,
    ]));
    assert!(text.contains("post_"), "{text}");
}

#[test]
fn struct_operations_on_the_day() {
    let d = scratch("struct");
    // the morning and the afternoon assemble into the day (they share sort_b)
    let whole = ok(&ets(&["struct", "assemble", MORNING, AFTERNOON, "--setting", SETTING]));
    let f = d.join("whole.json");
    std::fs::write(&f, whole).unwrap();
    let same = ets(&[
        "struct",
        "same",
        f.to_str().unwrap(),
        DAY,
        "--labelled",
        "--setting",
        SETTING,
    ]);
    assert_eq!(same.status.code(), Some(0), "{}", stderr(&same));
    // relabeled, it is structurally but not labelled the same
    let map = d.join("map.json");
    std::fs::write(&map, r#"{"post_a": "post_z", "sort_b": "sort_q"}"#).unwrap();
    let re = ok(&ets(&[
        "struct",
        "relabel",
        DAY,
        "--map",
        map.to_str().unwrap(),
        "--setting",
        SETTING,
    ]));
    let g = d.join("relabelled.json");
    std::fs::write(&g, &re).unwrap();
    assert!(re.contains("post_z") && !re.contains("post_a"));
    assert_eq!(
        ets(&["struct", "same", g.to_str().unwrap(), DAY, "--setting", SETTING])
            .status
            .code(),
        Some(0)
    );
    assert_eq!(
        ets(&[
            "struct",
            "same",
            g.to_str().unwrap(),
            DAY,
            "--labelled",
            "--setting",
            SETTING
        ])
        .status
        .code(),
        Some(1)
    );
    // canonical forms agree exactly when the structs are the same up to relabeling
    let c1 = ok(&ets(&["struct", "canonical", DAY, "--setting", SETTING]));
    let c2 = ok(&ets(&[
        "struct",
        "canonical",
        g.to_str().unwrap(),
        "--setting",
        SETTING,
    ]));
    assert_eq!(c1, c2);
    assert_ne!(c1, ok(&ets(&["struct", "canonical", MORNING, "--setting", SETTING])));
}

#[test]
fn dot_at_levels_0_to_2() {
    let st = ok(&ets(&[
        "dot",
        "--struct",
        DAY,
        "--setting",
        SETTING,
        "--view",
        "struct",
    ]));
    assert!(st.starts_with("digraph") || st.contains("digraph"), "{st}");
    assert!(st.contains("sort_b") || st.contains("sort"), "{st}");
    for (level, classes) in [
        (0, ["journey", "round"]),
        (1, ["van_load", "relay"]),
        (2, ["network", "network"]),
    ] {
        let l = level.to_string();
        let o = ok(&ets(&[
            "dot",
            "--struct",
            DAY,
            "--setting",
            SETTING,
            "--view",
            "overlap",
            "--level",
            &l,
        ]));
        for c in classes {
            assert!(o.contains(c), "level {level}: {o}");
        }
    }
}

/// `ets evolve` over the morning and the afternoon: the journey of parcel b begins in the
/// morning and completes in the afternoon; each level reports what each step changed.
#[test]
fn evolve_the_day_in_two_steps() {
    let v = json(&ets(&[
        "evolve", SETTING, MORNING, AFTERNOON, "--format", "json", "--deltas",
    ]));
    assert_eq!(v["moves"], 1);
    let lives = |level: usize| v["levels"][level]["elements"].as_array().unwrap().clone();
    let b = lives(0)
        .into_iter()
        .find(|e| e["vertices"].as_array().unwrap().iter().any(|x| x == "post_b"))
        .unwrap();
    assert_eq!(b["class"], "journey");
    assert_eq!((b["born"].as_u64(), b["completed"].as_u64()), (Some(0), Some(1)));
    assert!(b["vertices"].as_array().unwrap().iter().any(|x| x == "deliver_b"));
    // every level has elements, and level 1 and 2 elements are made of the level below's
    for level in 0..3 {
        assert!(!lives(level).is_empty(), "level {level}: {v}");
    }
    assert!(lives(1).iter().any(|e| e["class"] == "van_load" && e["born"] == 0));
    assert!(lives(1).iter().any(|e| e["class"] == "relay" && e["born"] == 1));
    assert!(lives(2).iter().all(|e| e["class"] == "network"));
    // the deltas: the afternoon extends the journey and the depot's day begun in the morning
    let steps = v["steps"].as_array().unwrap();
    assert_eq!(steps.len(), 2);
    assert_eq!(steps[1]["primitives"], 11);
    let ext: Vec<&str> = steps[1]["levels"][0]["extended"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap())
        .collect();
    assert!(ext.contains(&b["id"].as_str().unwrap()), "{ext:?}");
    // the same steps in one timeline file give the same lives
    let d = scratch("evolve");
    let step = |p: &str| {
        let mut j: Value = serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
        let m = j.as_object_mut().unwrap();
        m.remove("format");
        m.remove("alphabet");
        j
    };
    let tl = serde_json::json!({"format": "ets-timeline/1", "steps": [step(MORNING), step(AFTERNOON)]});
    let f = d.join("day-timeline.json");
    std::fs::write(&f, tl.to_string()).unwrap();
    let w = json(&ets(&["evolve", SETTING, f.to_str().unwrap(), "--format", "json"]));
    assert_eq!(w["levels"], v["levels"]);
    // the text view
    insta::assert_snapshot!(ok(&ets(&["evolve", SETTING, MORNING, AFTERNOON])));
}

/// The whole day as one step: the elements `ets recognize` finds, at every level.
#[test]
fn evolve_in_one_step_is_recognition() {
    let v = json(&ets(&["evolve", SETTING, DAY, "--format", "json"]));
    let r = json(&ets(&["recognize", "--setting", SETTING, "--struct", DAY]));
    assert_eq!(classes(&v), classes(&r));
}

/// `ets evolve` prints the JSON of `ets classify --timeline` (the same fields).
#[test]
fn evolve_speaks_the_timeline_json_of_the_go_front_end() {
    let game = std::fs::read_dir("tests/data/games/9x9")
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "sgf"))
        .min()
        .unwrap();
    let go = json(&ets(&[
        "classify",
        game.to_str().unwrap(),
        "--timeline",
        "--format",
        "json",
        "--forming",
    ]));
    let ours = json(&ets(&[
        "evolve",
        SETTING,
        MORNING,
        AFTERNOON,
        "--format",
        "json",
        "--forming",
    ]));
    let keys = |v: &Value| -> BTreeSet<String> { v.as_object().unwrap().keys().cloned().collect() };
    assert!(keys(&ours).is_subset(&keys(&go)), "{:?} {:?}", keys(&ours), keys(&go));
    assert_eq!(keys(&ours["levels"][0]), keys(&go["levels"][0]));
    let fields = |v: &Value| -> BTreeSet<String> {
        let mut k = BTreeSet::new();
        for l in v["levels"].as_array().unwrap() {
            for e in l["elements"].as_array().unwrap() {
                k.extend(keys(e));
            }
        }
        k.remove("merged_into"); // written only when an element merged
        k
    };
    assert_eq!(fields(&ours), fields(&go));
}

/// Steps that cannot be taken are refused with the file and the primitives named.
#[test]
fn evolve_refuses_steps_that_break_time_or_identity() {
    let d = scratch("refused");
    let write = |name: &str, text: &str| {
        let p = d.join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_string()
    };
    let first = write(
        "first.json",
        r#"{"format": "ets-struct/1", "primitives": [{"id": "p", "kind": "post"}, {"id": "l", "kind": "load"}],
            "processes": [{"from": "p", "from_site": "parcel", "to": "l", "to_site": "parcel"}]}"#,
    );
    let cases = [
        (
            r#"{"format": "ets-struct/1", "primitives": [{"id": "v", "kind": "dispatch"}],
                "processes": [{"from": "v", "from_site": "van", "to": "l", "to_site": "van"}]}"#,
            "process `v`.van -> `l`.van: `l` was added at step 0; a process of a step must end at a primitive of that step (time runs forward)",
        ),
        (
            r#"{"format": "ets-struct/1", "primitives": [{"id": "l", "kind": "unload"}], "processes": []}"#,
            "primitive `l` is a `load` (step 0); it cannot be named again as a `unload`",
        ),
        (
            r#"{"format": "ets-struct/1", "primitives": [{"id": "u", "kind": "unload"}],
                "processes": [{"from": "x", "from_site": "parcel", "to": "u", "to_site": "parcel"}]}"#,
            "process names unknown primitive `x`",
        ),
        (
            r#"{"format": "ets-struct/1", "primitives": [{"id": "u", "kind": "unload"}, {"id": "u2", "kind": "unload"}],
                "processes": [{"from": "p", "from_site": "parcel", "to": "u", "to_site": "parcel"}]}"#,
            "terminal site `parcel` of primitive `p` is already fed or closed",
        ),
        (
            r#"{"format": "ets-struct/1", "primitives": [{"id": "a", "kind": "load"}, {"id": "b", "kind": "load"}],
                "processes": [{"from": "a", "from_site": "van", "to": "b", "to_site": "van"},
                              {"from": "b", "from_site": "van", "to": "a", "to_site": "van"}]}"#,
            "the processes among the new primitives form a cycle through `a` (time runs forward)",
        ),
        (
            r#"{"format": "ets-struct/1", "primitives": [{"id": "u", "kind": "unload"}],
                "processes": [{"from": "l", "from_site": "van", "to": "u", "to_site": "parcel"}]}"#,
            "process `l`.van -> `u`.parcel: site type mismatch: terminal `load.van` is `van`, initial `unload.parcel` is `parcel`",
        ),
        (
            r#"{"format": "ets-steps/9", "steps": []}"#,
            "unsupported format `ets-steps/9`",
        ),
    ];
    for (k, (text, want)) in cases.iter().enumerate() {
        let f = write(&format!("bad{k}.json"), text);
        let o = ets(&["evolve", SETTING, &first, &f]);
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        let e = stderr(&o);
        assert!(e.contains(&format!("{f}: ")), "{e}");
        assert!(e.contains(want), "case {k}: wanted {want}\n{e}");
    }
    // closing a terminal site: the journey of a parcel left at the load can no longer grow
    let close = write(
        "close.json",
        r#"{"format": "ets-struct/1", "primitives": [], "processes": [], "close": [{"id": "l", "site": "parcel"}, {"id": "l", "site": "van"}]}"#,
    );
    let v = json(&ets(&[
        "evolve",
        SETTING,
        &first,
        &close,
        "--format",
        "json",
        "--forming",
    ]));
    let j = &v["levels"][0]["elements"][0];
    assert_eq!(j["class"], "journey");
    assert_eq!(j["completed"], Value::Null);
    assert_eq!(j["end"], "closed", "{v}");
}
