//! The fuzz targets: each takes any bytes, runs one part of ets on them and checks what must hold
//! whatever the input (no panic is the least of it). Shared by the driver (`ets-fuzz`) and the
//! regression test (`tests/fuzz_regressions.rs`, which includes this file by path).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::OnceLock;

use ets::ets::Setting;
use ets::go::board::Point;
use ets::go::game::{Replay, check_recording};
use ets::go::record::RecordOptions;
use ets::go::sgf::Sgf;

/// The targets by name.
pub const TARGETS: [&str; 3] = ["sgf", "pipeline", "dsl"];

/// Runs target `name` on `data`.
pub fn run(name: &str, data: &[u8]) {
    match name {
        "sgf" => sgf(data),
        "pipeline" => pipeline(data),
        "dsl" => dsl(data),
        _ => panic!("no fuzz target `{name}`"),
    }
}

/// The SGF reader and replay: every game of the collection, its main line and first variation,
/// the reading warnings' line:col, the decoded root text.
pub fn sgf(data: &[u8]) {
    let Ok(s) = Sgf::parse_bytes(data.to_vec()) else { return };
    assert!(!s.games().is_empty(), "a parsed collection holds a game");
    let len = s.source().len();
    for w in s.warnings() {
        assert!(w.offset <= len, "warning offset inside the source");
        let (l, c) = s.line_col(w.offset);
        assert!(l >= 1 && c >= 1);
    }
    for g in 0..s.games().len() {
        let root = s.games()[g];
        for p in s.props(root) {
            for &v in s.raw_values(p) {
                let _ = s.text(root, v);
            }
        }
        let _ = s.line_count(g);
        for path in [&[][..], &[1][..]] {
            if let Ok(r) = Replay::from_sgf(&s, g, path) {
                assert_eq!(
                    r.positions.len(),
                    r.moves.len() + 1,
                    "a position per move, and the start"
                );
                assert_eq!(r.to_move.len(), r.positions.len());
                for w in &r.warnings {
                    assert!(w.move_number <= r.moves.len());
                    let _ = s.line_col(w.offset);
                }
            }
        }
    }
}

/// The embedded Go setting, compiled once.
pub fn setting() -> &'static Setting {
    static S: OnceLock<Setting> = OnceLock::new();
    S.get_or_init(|| {
        ets::go::classify::embedded_setting()
            .1
            .expect("the embedded setting compiles")
    })
}

/// At most this many board points of positions are classified per input (so that a million
/// inputs run in an hour on two cores); the CLI's own limit is checked first, as the CLI does.
pub const PIPELINE_POINTS: usize = 600;

/// Read → replay → record → classify levels 0–2: the incremental timeline over every position
/// (of a prefix of at most [`PIPELINE_POINTS`] board points), and for one input in eight the batch
/// classification of the last one, which must agree with it on the living elements.
pub fn pipeline(data: &[u8]) {
    let Ok(s) = Sgf::parse_bytes(data.to_vec()) else { return };
    let Ok(r) = Replay::from_sgf(&s, 0, &[]) else { return };
    let (c, rows) = r.info.size;
    let opts = RecordOptions::default();
    if check_recording(c, rows, r.positions.len(), opts).is_err() {
        return;
    }
    let area = c as usize * rows as usize;
    let n = (PIPELINE_POINTS / area.max(1)).clamp(1, r.positions.len()) - 1;
    let positions = &r.positions[..=n];
    let last: Vec<Option<Point>> = std::iter::once(None)
        .chain(r.moves[..n].iter().map(|m| m.point))
        .collect();
    let st = setting();
    let t = ets::go::classify::classify_game(std::sync::Arc::new(st.clone()), positions, &last, opts, Some(2))
        .expect("classify_game");
    // One input in eight: the classification snapshot of the last position beside the timeline.
    if data.iter().fold(0u8, |a, &b| a.wrapping_add(b)) % 8 != 0 {
        return;
    }
    let b = ets::go::classify::classify(st, positions, &last, opts, Some(2)).expect("classify");
    for level in 0..b.named.len().min(t.timeline().levels().len()) {
        let mut alive_t: BTreeMap<(String, Vec<Point>), usize> = BTreeMap::new();
        for e in t.present(level as u32, n as u32, false) {
            let mut v = t.vertices(level as u32, e, n as u32);
            v.sort();
            *alive_t
                .entry((
                    st.class(t.timeline().level(level as u32).element(e).class())
                        .name
                        .clone(),
                    v,
                ))
                .or_default() += 1;
        }
        let mut alive_b: BTreeMap<(String, Vec<Point>), usize> = BTreeMap::new();
        let l = &b.hierarchy.levels[level];
        for (e, nm) in l.elements.iter().zip(&b.named[level]) {
            if nm.died.is_none() {
                let mut v = nm.vertices.clone();
                v.sort();
                *alive_b.entry((st.class(e.class).name.clone(), v)).or_default() += 1;
            }
        }
        assert_eq!(
            alive_t, alive_b,
            "level {level}: the timeline and the batch classification agree"
        );
    }
}

/// The class language: parse, print, parse the print again (the printer's output is the same
/// file), compile.
pub fn dsl(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Ok(f) = ets::dsl::parser::parse(&text, 0) else {
        return;
    };
    let printed = ets::dsl::printer::print(&f);
    let again = ets::dsl::parser::parse(&printed, 0)
        .unwrap_or_else(|e| panic!("the printer's output parses again: {e:?}\n{printed}"));
    assert_eq!(ets::dsl::printer::print(&again), printed, "printing is idempotent");
    let files = BTreeMap::from([(PathBuf::from("fuzz.ets"), text.into_owned())]);
    let _ = ets::dsl::load_setting_with(&[PathBuf::from("fuzz.ets")], &ets::dsl::MemResolver(files));
}
