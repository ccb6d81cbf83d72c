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
    std::fs::write(&f, "(;SZ[19]\n;B[dd]\n;W[pp] # )\n").unwrap();
    let out = ets()
        .args(["board", f.to_str().unwrap()])
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.sgf:3:8: unexpected `#`"), "{err}");
}

#[test]
fn a_truncated_record_is_recovered_with_a_warning_and_refused_with_strict() {
    let d = tmpdir("cut");
    let f = d.join("cut.sgf");
    std::fs::write(&f, "(;SZ[19]\n;B[dd]\n;W[pp\n").unwrap();
    let out = ets().args(["board", f.to_str().unwrap()]).output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("cut.sgf:3:3: the record is cut short"), "{err}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("after move 1 of 1"));
    let out = ets().args(["board", f.to_str().unwrap(), "--strict"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).contains("cut.sgf:3:3: the record is cut short"));
}

#[test]
fn a_directory_replays_every_game_and_summarises() {
    let d = tmpdir("dir");
    std::fs::write(d.join("a.sgf"), "(;SZ[9];B[ee];W[cc])").unwrap();
    std::fs::write(d.join("b.sgf"), "(;SZ[9];B[ee];B[ee])").unwrap();
    std::fs::write(d.join("c.sgf"), "(;SZ[9];B[ee];W[cc").unwrap();
    std::fs::write(d.join("e.sgf"), "(;SZ[100];B[ee])(;SZ[5];B[cc])").unwrap();
    std::fs::create_dir(d.join("sub")).unwrap();
    std::fs::write(d.join("sub/d.sgf"), "(;SZ[5];B[cc])").unwrap();
    let out = ets().args(["replay", d.to_str().unwrap()]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(text.contains("6 games: 3 ok, 2 with warnings, 1 failed"), "{text}");
    assert!(err.contains("c.sgf:1:16: the record"), "{err}");
    assert!(err.contains("e.sgf: game 1: unsupported board size `SZ[100]`"), "{err}");
    assert_eq!(out.status.code(), Some(1));
    let out = ets()
        .args(["replay", d.to_str().unwrap(), "--format", "json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((v["games"].as_u64(), v["failed"].as_u64()), (Some(6), Some(1)));
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

/// Issue 15 item 2: `--move N` and `--timeline` report the same elements, with the same identities
/// and the same births (one timeline route); a merge names the element it went into.
#[test]
fn classify_timeline_agrees_with_the_classification_of_each_position() {
    use std::collections::BTreeSet;
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
    let key = |e: &serde_json::Value| {
        (
            e["id"].as_str().unwrap().to_string(),
            e["class"].as_str().unwrap().to_string(),
            e["born"].as_u64().unwrap(),
        )
    };
    let mut compared = 0;
    for k in 0..=moves {
        let p = json(&["classify", game, "--move", &k.to_string(), "--format", "json"]);
        for (level, l) in levels.iter().enumerate() {
            // Complete by move k and not ended by it: the elements of the position.
            let alive: BTreeSet<_> = l["elements"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|e| {
                    e["completed"].as_u64().is_some_and(|c| c as u32 <= k)
                        && e["died"].as_u64().is_none_or(|d| d as u32 > k)
                })
                .map(key)
                .collect();
            let want: BTreeSet<_> = p["levels"][level]["elements"]
                .as_array()
                .unwrap()
                .iter()
                .map(key)
                .collect();
            assert_eq!(alive, want, "move {k}, level {level}");
            compared += want.len();
        }
    }
    assert!(compared > 1000, "{compared}");
    // Merges: the element a merged one went into is of its class, was present when it merged.
    let mut merges = 0;
    for l in levels {
        let els = l["elements"].as_array().unwrap();
        for e in els {
            let Some(into) = e["merged_into"].as_str() else {
                continue;
            };
            assert_eq!(e["end"], "merged");
            let d = e["died"].as_u64().expect("a merged element ended");
            let target = els
                .iter()
                .find(|f| f["id"] == into)
                .expect("the element it merged into");
            assert_eq!(target["class"], e["class"]);
            assert!(target["born"].as_u64().unwrap() <= d && target["died"].as_u64().is_none_or(|x| x > d));
            merges += 1;
        }
    }
    assert!(merges > 0, "some elements merge in this game");
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

fn run(args: &[&str]) -> (Option<i32>, String, String) {
    let out = ets().args(args).env("NO_COLOR", "1").output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn warning_lines(stderr: &str) -> Vec<String> {
    stderr
        .lines()
        .filter_map(|l| l.strip_prefix("warning: "))
        .map(|s| s.to_string())
        .collect()
}

fn json_warnings(stdout: &str) -> Vec<String> {
    let v: serde_json::Value = serde_json::from_str(stdout).unwrap();
    v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["text"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn every_command_gives_the_same_warnings_in_the_same_words() {
    let d = tmpdir("warn");
    let f = d.join("w.sgf");
    std::fs::write(&f, "junk (SZ[5]AddBlack[aa];B[cc];B[cc];W[zz])").unwrap();
    let f = f.to_str().unwrap();
    let (code, _, err) = run(&["board", f]);
    assert_eq!(code, Some(0));
    let want = warning_lines(&err);
    assert_eq!(want.len(), 6, "{want:#?}");
    assert!(
        want[0].ends_with("w.sgf:1:1: text before the first game tree ignored"),
        "{want:#?}"
    );
    assert!(
        want.iter()
            .any(|w| w.ends_with("w.sgf:1:30: move 2: Black moves twice in a row")),
        "{want:#?}"
    );
    for args in [
        vec!["replay", f],
        vec!["classify", f],
        vec!["dot", f],
        vec!["classify", f, "--timeline"],
    ] {
        let (code, _, err) = run(&args);
        assert_eq!(code, Some(0), "{args:?}: {err}");
        assert_eq!(warning_lines(&err), want, "{args:?}");
    }
    for args in [
        vec!["board", f, "--format", "json"],
        vec!["replay", f, "--format", "json"],
        vec!["classify", f, "--format", "json"],
        vec!["classify", f, "--timeline", "--format", "json"],
    ] {
        let (code, out, err) = run(&args);
        assert_eq!(code, Some(0), "{args:?}: {err}");
        assert_eq!(json_warnings(&out), want, "{args:?}");
        assert!(warning_lines(&err).is_empty(), "{args:?}: JSON carries them");
    }
    let (_, out, _) = run(&["info", f, "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let info: Vec<&str> = v[0]["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["text"].as_str().unwrap())
        .collect();
    assert_eq!(info, want);
    // --strict: the first warning is the error, nothing on stdout
    for cmd in ["board", "replay", "classify", "dot"] {
        let (code, out, err) = run(&[cmd, f, "--strict"]);
        assert_eq!(code, Some(1), "{cmd}");
        assert!(out.is_empty(), "{cmd}");
        assert!(
            err.contains(&format!("{} [--strict] (and 5 more warning(s))", want[0])),
            "{cmd}: {err}"
        );
    }
}

#[test]
fn collections_pick_a_game_by_file_n_or_game_n() {
    let c = "tests/data/games/collections/2010-12-first3.sgf";
    let (code, out, _) = run(&["board", &format!("{c}:2"), "--format", "json"]);
    assert_eq!(code, Some(0));
    let by_name: serde_json::Value = serde_json::from_str(&out).unwrap();
    let (_, out, _) = run(&["board", c, "--game", "2", "--format", "json"]);
    let by_flag: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(by_name, by_flag);
    let (_, out, _) = run(&["board", c, "--format", "json"]);
    assert_ne!(serde_json::from_str::<serde_json::Value>(&out).unwrap(), by_flag);
    let (code, out, err) = run(&["board", c, "--game", "4"]);
    assert_eq!(code, Some(1));
    assert!(out.is_empty());
    assert!(err.contains("the file holds 3 game(s); game 4 was asked for"), "{err}");
    let (code, _, err) = run(&["board", &format!("{c}:0")]);
    assert_eq!(code, Some(2), "{err}");
    let (code, _, err) = run(&["board", &format!("{c}:2"), "--game", "3"]);
    assert_eq!(code, Some(2), "{err}");
    let (code, out, _) = run(&["info", c, "--format", "json"]);
    assert_eq!(code, Some(0));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v.as_array().unwrap().len(), 3);
    assert_eq!(v[1]["games_in_file"], 3);
}

#[test]
fn info_decodes_every_legacy_charset_and_says_how() {
    let (code, out, err) = run(&["info", "tests/data/games/legacy", "--format", "json"]);
    assert_eq!(code, Some(0), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let got: Vec<(String, String, String, String)> = v
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            let s = |k: &str| g[k].as_str().unwrap_or("").to_string();
            let file = s("file").rsplit('/').next().unwrap().to_string();
            (
                file,
                s("charset"),
                s("charset_source"),
                format!("{} / {}", s("black"), s("white")),
            )
        })
        .collect();
    let want = [
        ("big5-ca.sgf", "Big5", "declared", "ppppp99999 / 冷雨夜8"),
        ("big5-no-ca.sgf", "Big5", "detected", "green1234 / 夜之雪"),
        ("cp949-ca.sgf", "EUC-KR", "declared", "조훈현 9단 / 유키 사토시 9단"),
        ("euc-jp-no-ca.sgf", "EUC-JP", "detected", "笨笨の宝宝 / 愚公移山"),
        ("euc-kr-no-ca.sgf", "EUC-KR", "detected", "조훈현 9단 / 유키 사토시 9단"),
        ("gb18030-ca-utf8-contradicted.sgf", "GBK", "detected", "pp8484 / 大大哥"),
        ("gb2312-no-ca.sgf", "GBK", "detected", "小鹤 / 股票领头羊"),
        ("shift_jis-ca.sgf", "Shift_JIS", "declared", "江城子 / 网管286"),
        (
            "shift_jis-no-ca-no-root-semicolon.sgf",
            "Shift_JIS",
            "detected",
            "武宮正樹 / 結城聡",
        ),
    ];
    let want: Vec<(String, String, String, String)> = want
        .iter()
        .map(|(a, b, c, d)| (a.to_string(), b.to_string(), c.to_string(), d.to_string()))
        .collect();
    assert_eq!(got, want);
    // text: the charset line says how
    let (_, out, _) = run(&["info", "tests/data/games/legacy/big5-no-ca.sgf"]);
    assert!(out.contains("charset:  Big5 (detected; no CA)"), "{out}");
    assert!(out.contains("white:    夜之雪 (9d)"), "{out}");
    // --charset forces a decoding
    let (_, out, _) = run(&[
        "info",
        "tests/data/games/legacy/big5-no-ca.sgf",
        "--charset",
        "gbk",
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (v[0]["charset"].as_str(), v[0]["charset_source"].as_str()),
        (Some("GBK"), Some("given"))
    );
}

#[test]
fn flags_are_validated_with_usage_errors() {
    let g = "examples/go/capture.sgf";
    for (args, code, words) in [
        (
            vec!["classify", g, "--level", "7"],
            2,
            "--level 7: the setting has levels 0 to 2",
        ),
        (
            vec!["dot", g, "--level", "3"],
            2,
            "--level 3: the setting has levels 0 to 2",
        ),
        (
            vec!["classify", g, "--mark", "nosuch"],
            2,
            "--mark nosuch: no such class",
        ),
        (
            vec!["dot", g, "--highlight", "nosuch"],
            2,
            "--highlight nosuch: no such class",
        ),
        (vec!["board", g, "--move", "-1"], 2, "a move number is 0 or more"),
        (vec!["board", g, "--game", "0"], 2, "games are numbered from 1"),
        (vec!["replay", g, "--layers", "0"], 2, "must be at least 1"),
        (vec!["bench", "--reps", "0"], 2, "must be at least 1"),
        (
            vec!["dot", g, "--move", "99999"],
            1,
            "--move 99999 asked for, but the line has",
        ),
        (
            vec!["classify", g, "--move", "99999"],
            1,
            "--move 99999 asked for, but the line has",
        ),
        (
            vec!["info", g, "--charset", "klingon"],
            2,
            "--charset klingon: not a known charset",
        ),
    ] {
        let (got, out, err) = run(&args);
        assert_eq!(got, Some(code), "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?}");
        assert!(err.contains(words), "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}");
    }
}

#[test]
fn replay_and_bench_print_json() {
    let (code, out, _) = run(&["replay", "examples/go/capture.sgf", "--format", "json"]);
    assert_eq!(code, Some(0));
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["primitives"].as_u64().unwrap() > 1000);
    assert!(v["warnings"].as_array().unwrap().is_empty());
    let (code, out, err) = run(&["bench", "tests/data/games/9x9", "--reps", "1", "--format", "json"]);
    assert_eq!(code, Some(0), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["files"], 8);
    let (code, out, err) = run(&[
        "bench",
        "--classify",
        "examples/go/capture.sgf",
        "--reps",
        "1",
        "--format",
        "json",
    ]);
    assert_eq!(code, Some(0), "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["ets_ms_per_game"].as_f64().unwrap() > 0.0);
    // The build measured is named (the test binary's own build: `scripts/pgo.sh` does not build
    // the tests).
    let build = if cfg!(debug_assertions) { "debug" } else { "release" };
    assert_eq!(v["build"], build);
    assert!(v["ets_one_thread_ms_per_game"].as_f64().unwrap() > 0.0);
    assert!(v["ets_cpu_ms_per_game"].as_f64().unwrap() > 0.0);
    assert!(v["late_forks_made"].is_u64(), "{v}");
    assert!(v["trials_skipped"].as_u64().is_some_and(|n| n > 0), "{v}");
    // Every move changes its vertex at least (no pass in this record), and no position more
    // than the board.
    let dirty = v["dirty_vertices_per_position"].as_f64().unwrap();
    assert!(dirty >= 1.0 && dirty <= v["vertices"].as_f64().unwrap(), "{dirty}");
    // The live loop: a middle-game position of the record, both attentions, a legal move tried,
    // and GNU Go beside it exactly when it is beside the whole record.
    let live = &v["live"];
    let at = live["at"].as_u64().unwrap();
    assert!(at >= 1 && at <= v["moves"].as_u64().unwrap() / 2, "{live}");
    let modes = live["modes"].as_array().unwrap();
    assert_eq!(modes.len(), 2, "{live}");
    for m in modes {
        assert!(m["play_delta_undo_us"].as_f64().unwrap() > 0.0, "{m}");
        assert!(m["fork_us"].as_f64().unwrap() > 0.0, "{m}");
    }
    let st = std::sync::Arc::new(ets::go::classify::embedded_setting().1.unwrap());
    let sgf = ets::go::sgf::Sgf::parse_bytes(std::fs::read("examples/go/capture.sgf").unwrap()).unwrap();
    let r = ets::go::game::Replay::from_sgf(&sgf, 0, &[]).unwrap();
    let g = ets::go::live::Game::from_replay(st, &r, at as usize, Default::default()).unwrap();
    let tried = ets::go::board::Point::from_gtp(live["tried"].as_str().unwrap(), r.info.size.1).unwrap();
    assert!(g.is_legal(tried), "{live}");
    assert_eq!(live["gnugo_us"].is_null(), v["gnugo_ms_per_game"].is_null(), "{v}");
}

#[test]
fn bench_classify_names_no_peer_on_a_board_gnu_go_cannot_play() {
    let d = tmpdir("big");
    let f = d.join("big.sgf");
    std::fs::write(&f, "(;SZ[21];B[aa];W[uu];B[kk])").unwrap();
    let (code, out, err) = run(&["bench", "--classify", f.to_str().unwrap(), "--reps", "1"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(!out.contains("ratio"), "{out}");
    assert!(
        out.contains("GNU Go: plays square boards up to 19x19, not 21x21; no peer measured")
            || out.contains("GNU Go: not installed"),
        "{out}"
    );
}

/// Bad input given to every command that reads a game record: the outcomes (exit code, the
/// message, nothing on stdout but a result) as a table, which `docs/formats.md` holds; run with
/// `ETS_UPDATE_DOCS=1` to write it there after a change.
#[test]
fn bad_input_table() {
    let d = tmpdir("badinput");
    let write = |name: &str, bytes: &[u8]| {
        let p = d.join(name);
        std::fs::write(&p, bytes).unwrap();
        p.to_str().unwrap().to_string()
    };
    let mut passes = String::from("(;SZ[19]");
    for i in 0..100_000 {
        passes.push_str(if i % 2 == 0 { ";B[]" } else { ";W[]" });
    }
    passes.push(')');
    let garbage: Vec<u8> = (0..4096u32).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect();
    let game = write("game.sgf", b"(;SZ[9];B[ee];W[cc];B[gg])");
    let cases: Vec<(&str, String, Vec<&str>)> = vec![
        ("empty file", write("empty.sgf", b""), vec![]),
        ("binary garbage (4 KB)", write("garbage.sgf", &garbage), vec![]),
        (
            "truncated record `(;SZ[9];B[ee];W[c`",
            write("cut.sgf", b"(;SZ[9];B[ee];W[c"),
            vec![],
        ),
        ("`SZ[0]`", write("sz0.sgf", b"(;SZ[0];B[aa])"), vec![]),
        ("`SZ[1]`", write("sz1.sgf", b"(;SZ[1];B[aa])"), vec![]),
        ("`SZ[100]`", write("sz100.sgf", b"(;SZ[100];B[aa])"), vec![]),
        ("`SZ[19:9]`", write("sz19x9.sgf", b"(;SZ[19:9];B[aa];W[si])"), vec![]),
        (
            "move off the board `B[zz]` on 9x9",
            write("off.sgf", b"(;SZ[9];B[zz];W[ee])"),
            vec![],
        ),
        ("100,000 passes", write("passes.sgf", passes.as_bytes()), vec![]),
        (
            "missing file",
            d.join("nosuch.sgf").to_str().unwrap().to_string(),
            vec![],
        ),
        ("a directory", d.join("sub").to_str().unwrap().to_string(), vec![]),
        ("`/dev/zero`", "/dev/zero".to_string(), vec![]),
        ("`--move 99`", game.clone(), vec!["--move", "99"]),
        ("`--move -1`", game.clone(), vec!["--move", "-1"]),
        ("`--level 7`", game.clone(), vec!["--level", "7"]),
        ("`--game 2` of a one-game file", game.clone(), vec!["--game", "2"]),
        ("`--game 0`", game.clone(), vec!["--game", "0"]),
    ];
    std::fs::create_dir_all(d.join("sub")).unwrap();
    let commands: [&[&str]; 6] = [
        &["board"],
        &["replay"],
        &["classify"],
        &["dot"],
        &["info"],
        &["bench", "--classify"],
    ];
    let mut table = String::from(
        "| input | board | replay | classify | dot | info | bench --classify | message (from `ets board`, or the first command that refuses) |\n|---|---|---|---|---|---|---|---|\n",
    );
    for (what, file, extra) in &cases {
        let mut row = format!("| {what} |");
        let mut message = String::new();
        for cmd in commands {
            let mut args: Vec<&str> = cmd.to_vec();
            args.push(file);
            // flags that a command does not take are not tried on it
            let takes = |f: &str| match f {
                "--level" => matches!(cmd[0], "classify" | "dot"),
                "--move" | "--game" => !matches!(cmd[0], "info" | "bench"),
                _ => true,
            };
            if let Some(f) = extra.first()
                && !takes(f)
            {
                row.push_str(" – |");
                continue;
            }
            args.extend(extra.iter());
            let (code, out, err) = run(&args);
            let code = code.expect("exited, not killed");
            assert!(!err.contains("panicked"), "{args:?}: {err}");
            assert!(matches!(code, 0..=2), "{args:?}: exit {code}");
            if code != 0 {
                assert!(out.is_empty(), "{args:?}: a failure prints nothing on stdout: {out}");
                let first = err
                    .lines()
                    .map(|l| l.trim().trim_start_matches("× ").trim_start_matches("error: "))
                    .find(|l| !l.is_empty())
                    .unwrap_or("")
                    .to_string();
                assert!(!first.is_empty(), "{args:?}: a failure says why");
                if message.is_empty() {
                    message = first.replace(d.to_str().unwrap(), "…").replace('|', "\\|");
                }
            } else if message.is_empty()
                && let Some(w) = err.lines().find_map(|l| l.strip_prefix("warning: "))
            {
                message = format!("warning: {}", w.replace(d.to_str().unwrap(), "…").replace('|', "\\|"));
            }
            row.push_str(&format!(" {code} |"));
        }
        row.push_str(&format!(" {message} |\n"));
        table.push_str(&row);
    }
    let begin = "<!-- bad-input table: generated by tests/cli_go.rs::bad_input_table -->\n";
    let end = "<!-- end of the bad-input table -->";
    let doc = std::fs::read_to_string("docs/formats.md").unwrap();
    let (a, b) = (doc.find(begin), doc.find(end));
    let current = match (a, b) {
        (Some(a), Some(b)) => &doc[a + begin.len()..b],
        _ => "",
    };
    if std::env::var_os("ETS_UPDATE_DOCS").is_some() {
        let new = match (a, b) {
            (Some(a), Some(b)) => format!("{}{begin}{table}{}", &doc[..a], &doc[b..]),
            _ => format!("{doc}\n{begin}{table}{end}\n"),
        };
        std::fs::write("docs/formats.md", new).unwrap();
    } else {
        assert_eq!(
            current, table,
            "docs/formats.md's bad-input table is not what the commands do: run `ETS_UPDATE_DOCS=1 cargo test --release --test cli_go bad_input_table` and review the change"
        );
    }
}
