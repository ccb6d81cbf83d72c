//! The `ets board` / `ets replay` command lines.

use std::path::PathBuf;
use std::process::Command;

fn ets() -> Command {
    Command::new(env!("CARGO_BIN_EXE_ets"))
}

fn tmpdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ets-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn board_json_names_vertices_as_gtp_does() {
    let d = tmpdir("board");
    let f = d.join("g.sgf");
    std::fs::write(&f, "(;SZ[9]AB[aa];B[ai];W[ia];B[ee])").unwrap();
    let out = ets()
        .args(["board", f.to_str().unwrap(), "--format", "json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["size"], serde_json::json!([9, 9]));
    assert_eq!(v["black"], serde_json::json!(["A1", "A9", "E5"]));
    assert_eq!(v["white"], serde_json::json!(["J9"]));
    assert_eq!(v["to_move"], "W");
    assert_eq!(v["captures"], serde_json::json!({"black": 0, "white": 0}));
    let out = ets()
        .args(["board", f.to_str().unwrap(), "--format", "json", "--move", "1"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["white"], serde_json::json!([]));
    let out = ets()
        .args(["board", f.to_str().unwrap(), "--move", "9"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn malformed_file_exits_1_with_line_and_column() {
    let d = tmpdir("bad");
    let f = d.join("bad.sgf");
    std::fs::write(&f, "(;SZ[19]\n;B[dd]\n;W[pp\n").unwrap();
    let out = ets()
        .args(["board", f.to_str().unwrap()])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.sgf:3:3: unterminated property value"), "{err}");
}

#[test]
fn a_directory_replays_every_game_and_summarises() {
    let d = tmpdir("dir");
    std::fs::write(d.join("a.sgf"), "(;SZ[9];B[ee];W[cc])").unwrap();
    std::fs::write(d.join("b.sgf"), "(;SZ[9];B[ee];B[ee])").unwrap();
    std::fs::write(d.join("c.sgf"), "(;SZ[9];B[ee];W[cc").unwrap();
    std::fs::create_dir(d.join("sub")).unwrap();
    std::fs::write(d.join("sub/d.sgf"), "(;SZ[5];B[cc])").unwrap();
    let out = ets().args(["replay", d.to_str().unwrap()]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("4 games: 2 ok, 1 with warnings, 1 failed"), "{text}");
    assert!(text.contains("c.sgf"), "{text}");
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn replay_writes_a_struct_that_reads_back() {
    let d = tmpdir("replay");
    let f = d.join("g.sgf");
    std::fs::write(&f, "(;SZ[5];B[cc];W[bc];B[cb])").unwrap();
    let o = d.join("s.json");
    let out = ets()
        .args([
            "replay",
            f.to_str().unwrap(),
            "-o",
            o.to_str().unwrap(),
            "--layers",
            "2",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let s = ets::ets::json::read_struct(&std::fs::read_to_string(&o).unwrap(), None).unwrap();
    // 4 positions × 2 layers × (25 colour + 20 edge + 60 adjacency) + starts + ends
    assert_eq!(s.len(), 4 * 2 * (25 + 20 + 60) + (4 * 25 + 20) + 2 * 60);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("4 positions, 8 layers"), "{text}");
}

#[test]
fn classify_timeline_agrees_with_the_classification_of_each_position() {
    use std::collections::BTreeMap;
    let game = "examples/go/capture.sgf";
    let json = |args: &[&str]| -> serde_json::Value {
        let out = ets().args(args).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let t = json(&["classify", game, "--timeline", "--format", "json"]);
    let moves = t["moves"].as_u64().unwrap() as u32;
    let levels = t["levels"].as_array().unwrap();
    assert_eq!(levels.len(), 3);
    // Per level, per class: the timeline's elements alive after move k are the position's elements.
    let per_class = |els: Vec<&serde_json::Value>| -> BTreeMap<(String, Vec<String>), usize> {
        let mut m = BTreeMap::new();
        for e in els {
            let mut v: Vec<String> = e["vertices"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_str().unwrap().to_string())
                .collect();
            v.sort();
            *m.entry((e["class"].as_str().unwrap().to_string(), v)).or_default() += 1;
        }
        m
    };
    for k in [3, 9, moves] {
        let p = json(&["classify", game, "--move", &k.to_string(), "--format", "json"]);
        for (level, l) in levels.iter().enumerate() {
            let alive: Vec<&serde_json::Value> = l["elements"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|e| e["born"].as_u64().unwrap() as u32 <= k && e["died"].as_u64().is_none_or(|d| d as u32 > k))
                .collect();
            let want: Vec<&serde_json::Value> = p["levels"][level]["elements"].as_array().unwrap().iter().collect();
            assert_eq!(per_class(alive), per_class(want), "move {k}, level {level}");
        }
    }
    // Lineages: an element's lineage begins with an element of its class, born no later.
    for l in &levels[1..] {
        let els = l["elements"].as_array().unwrap();
        let by_id: BTreeMap<&str, &serde_json::Value> = els.iter().map(|e| (e["id"].as_str().unwrap(), e)).collect();
        let mut continued = 0;
        for e in els {
            let first = by_id[e["lineage"].as_str().unwrap()];
            assert_eq!(first["class"], e["class"]);
            assert!(first["born"].as_u64() <= e["born"].as_u64());
            if first["id"] != e["id"] {
                continued += 1;
            }
        }
        if l["level"] == 1 {
            assert!(continued > 0, "some block grows in this game");
        }
    }
}

#[test]
fn output_into_a_reader_that_stops_early_ends_quietly() {
    use std::io::Read;
    use std::process::Stdio;
    let mut child = ets()
        .args(["classify", "examples/go/capture.sgf", "--timeline", "--format", "json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 16];
    child.stdout.take().unwrap().read_exact(&mut first).unwrap(); // then the pipe closes
    let mut err = String::new();
    child.stderr.take().unwrap().read_to_string(&mut err).unwrap();
    child.wait().unwrap();
    assert!(!err.contains("panicked"), "{err}");
}
