//! Merges and forks over time in a non-Go domain (`examples/rivers`, docs/dsl.md "Merges and
//! forks: rivers"): `ets evolve` prints them in the timeline JSON the Go front-end prints (issue 17).

use serde_json::Value;

mod common;
use common::{ets, ok};

const SETTING: &str = "examples/rivers/rivers.ets";
const FLOW: &str = "examples/rivers/flow.json";

fn element<'a>(v: &'a Value, id: &str) -> &'a Value {
    v["levels"][0]["elements"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["id"] == id)
        .unwrap_or_else(|| panic!("no {id} in {v}"))
}

fn vertices(e: &Value) -> Vec<&str> {
    e["vertices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap())
        .collect()
}

#[test]
fn two_rivers_merge_at_the_confluence_and_the_course_forks_at_the_split() {
    ok(&ets(&["check", SETTING]));
    let v: Value = serde_json::from_str(&ok(&ets(&["evolve", SETTING, FLOW, "--format", "json", "--deltas"]))).unwrap();
    assert_eq!(v["moves"], 6, "seven steps: the last is step 6");
    // The northern river (born first) survives; the southern one merged into it at the confluence (step 3).
    let north = element(&v, "L0:0");
    let south = element(&v, "L0:1");
    assert_eq!(
        (north["class"].as_str(), south["class"].as_str()),
        (Some("river"), Some("river"))
    );
    assert_eq!(south["end"], "merged");
    assert_eq!(south["merged_into"], "L0:0");
    assert_eq!(south["died"], 3);
    assert!(north["merged_into"].is_null());
    for p in ["spring_n", "spring_s", "n1", "s1", "n2", "meet", "delta"] {
        assert!(vertices(north).contains(&p), "the merged river holds {p}: {north}");
    }
    // The step deltas say the same: merged at step 3, forked at step 6.
    let step = |k: usize| &v["steps"][k]["levels"][0];
    assert_eq!(step(3)["merged"], serde_json::json!([["L0:1", "L0:0"]]));
    assert_eq!(step(3)["ended"], serde_json::json!(["L0:1"]));
    assert_eq!(step(6)["forked"], serde_json::json!([["L0:2", "L0:3"]]));
    // The fork: one course per arm, both born with the split (step 5), the first keeping its identity.
    let (east, west) = (element(&v, "L0:2"), element(&v, "L0:3"));
    for (e, arm, other) in [(east, "east", "west"), (west, "west", "east")] {
        assert_eq!(e["class"], "course");
        assert_eq!((e["born"].as_u64(), e["completed"].as_u64()), (Some(5), Some(6)));
        assert_eq!(e["end"], "living");
        assert!(vertices(e).contains(&arm) && !vertices(e).contains(&other), "{e}");
    }
    // The text format shows the same lives.
    let text = ok(&ets(&["evolve", SETTING, FLOW]));
    assert!(text.contains("merged L0:1→L0:0"), "{text}");
    assert!(text.contains("forked L0:2→L0:3"), "{text}");
    assert!(text.contains("ended 3 (merged) into L0:0"), "{text}");
}
