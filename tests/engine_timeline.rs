//! The timeline's recorded constraints (§3.4.1.2, "overlaps"; `src/ets/timeline/mod.rs`,
//! `end_step`): a class that records a constraint holds each of its matches that lies inside one
//! of its elements, whichever step brings the match's last node — also when that node is not one
//! of the constraint's seed positions (issue 17 found the parcel post's unloadings missed).

use std::path::PathBuf;
use std::sync::Arc;

use ets::ets::json::{StepFeeder, read_steps};
use ets::ets::timeline::Timeline;

/// The parcel post's setting, fed `steps` (an `ets-timeline/1` text); per level-0 element of
/// `class`, the constraints of its applications, with the step each was made at.
fn applications(steps: &str, class: &str) -> Vec<Vec<(String, u32)>> {
    let (_, r) = ets::dsl::load_setting(&[PathBuf::from("examples/parcels/parcels.ets")]);
    let st = Arc::new(r.expect("the parcel post compiles").0);
    let mut tl = Timeline::new(st.clone(), Some(0));
    let mut feeder = StepFeeder::new();
    for s in read_steps(steps, st.alphabet()).expect("steps") {
        feeder.feed(&mut tl, &s).expect("fed");
    }
    let lv = tl.level(0);
    (0..lv.elements().len() as u32)
        .filter(|&e| st.class(lv.element(e).class()).name == class)
        .map(|e| {
            lv.applications_with_steps(e)
                .into_iter()
                .map(|(m, t)| (st.constraint(lv.constraint(m)).name.clone(), t))
                .collect()
        })
        .collect()
}

const DISPATCH: &str = r#"{"primitives": [{"id": "v", "kind": "dispatch"}, {"id": "p", "kind": "post"}, {"id": "q", "kind": "post"},
        {"id": "load_p", "kind": "load"}, {"id": "load_q", "kind": "load"}],
    "processes": [{"from": "v", "from_site": "van", "to": "load_p", "to_site": "van"},
                  {"from": "p", "from_site": "parcel", "to": "load_p", "to_site": "parcel"},
                  {"from": "load_p", "from_site": "van", "to": "load_q", "to_site": "van"},
                  {"from": "q", "from_site": "parcel", "to": "load_q", "to_site": "parcel"}]}"#;
const DRIVE: &str = r#"{"primitives": [{"id": "drive", "kind": "drive"}],
    "processes": [{"from": "load_q", "from_site": "van", "to": "drive", "to_site": "van"}]}"#;
const UNLOAD: &str = r#"{"primitives": [{"id": "unload_p", "kind": "unload"}, {"id": "unload_q", "kind": "unload"}],
    "processes": [{"from": "drive", "from_site": "van", "to": "unload_p", "to_site": "van"},
                  {"from": "load_p", "from_site": "parcel", "to": "unload_p", "to_site": "parcel"},
                  {"from": "unload_p", "from_site": "van", "to": "unload_q", "to_site": "van"},
                  {"from": "load_q", "from_site": "parcel", "to": "unload_q", "to_site": "parcel"}]}"#;

fn timeline(steps: &[&str]) -> String {
    format!(r#"{{"format": "ets-timeline/1", "steps": [{}]}}"#, steps.join(","))
}

#[test]
fn a_recorded_carry_is_held_by_the_round_whichever_step_brings_the_unloading() {
    // Two parcels loaded, the drive, the two unloadings: in three steps, then all in one.
    let apart = applications(&timeline(&[DISPATCH, DRIVE, UNLOAD]), "round");
    let mut all: serde_json::Value = serde_json::from_str(DISPATCH).unwrap();
    for more in [DRIVE, UNLOAD] {
        let m: serde_json::Value = serde_json::from_str(more).unwrap();
        for k in ["primitives", "processes"] {
            let extra = m[k].as_array().unwrap().clone();
            all[k].as_array_mut().unwrap().extend(extra);
        }
    }
    let together = applications(&timeline(&[&all.to_string()]), "round");
    assert_eq!(apart.len(), 1, "one round: {apart:?}");
    assert_eq!(together.len(), 1, "one round: {together:?}");
    let carries =
        |r: &Vec<(String, u32)>| -> Vec<u32> { r.iter().filter(|(c, _)| c == "Con_carry").map(|&(_, t)| t).collect() };
    // Recorded at the step that brought the unloading (step 2), as in one step (step 0).
    assert_eq!(carries(&apart[0]), vec![2, 2], "both carries: {apart:?}");
    assert_eq!(carries(&together[0]), vec![0, 0], "both carries: {together:?}");
    // The round's own schedule went on beside it: dispatch→load, load→load (0), load→drive (1), drive→unload, unload→unload (2).
    let own: Vec<(String, u32)> = apart[0].iter().filter(|(c, _)| c != "Con_carry").cloned().collect();
    assert_eq!(
        own,
        vec![
            ("Con_van_dispatch_load".to_string(), 0),
            ("Con_van_load_load".to_string(), 0),
            ("Con_van_load_drive".to_string(), 1),
            ("Con_van_drive_unload".to_string(), 2),
            ("Con_van_unload_unload".to_string(), 2)
        ]
    );
}

/// The parcel post's whole day as one step: each van's round holds the carries of the two parcels
/// it carried. (Before the fix in `end_step`, a recorded match was caught up on only at the
/// constraint's seed positions, and these rounds held none.)
#[test]
fn each_round_of_the_day_holds_the_carries_of_its_parcels() {
    let day = std::fs::read_to_string("examples/parcels/day.json").unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&day).unwrap();
    v.as_object_mut().unwrap().remove("format");
    let rounds = applications(&timeline(&[&v.to_string()]), "round");
    assert_eq!(rounds.len(), 2, "{rounds:?}");
    for r in &rounds {
        let carries: Vec<u32> = r.iter().filter(|(c, _)| c == "Con_carry").map(|&(_, t)| t).collect();
        assert_eq!(carries, vec![0, 0], "{r:?}");
    }
}
