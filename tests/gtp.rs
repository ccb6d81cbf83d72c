//! GTP conformance: `ets gtp` driven through every command it lists, with ids, comments,
//! malformed commands and illegal moves (GTP draft 2.0.2); and the `ets gtp` binary over a pipe.

use std::io::Write;
use std::process::{Command, Stdio};

use ets::player::gtp::{COMMANDS, Gtp};
use ets::player::{Player, PlayerConfig};

fn engine() -> Gtp {
    let mut cfg = PlayerConfig::default();
    cfg.search.playouts = 300;
    Gtp::new(Player::new(cfg).unwrap())
}

fn ok(g: &mut Gtp, cmd: &str) -> String {
    let r = g.handle(cmd).unwrap_or_else(|| panic!("no answer to {cmd}"));
    assert!(r.starts_with('=') && r.ends_with("\n\n"), "{cmd}: {r:?}");
    r[1..].trim().to_string()
}

fn err(g: &mut Gtp, cmd: &str) -> String {
    let r = g.handle(cmd).unwrap_or_else(|| panic!("no answer to {cmd}"));
    assert!(r.starts_with('?') && r.ends_with("\n\n"), "{cmd}: {r:?}");
    r[1..].trim().to_string()
}

#[test]
fn administrative_commands_and_framing() {
    let mut g = engine();
    assert_eq!(ok(&mut g, "protocol_version"), "2");
    assert_eq!(ok(&mut g, "name"), "ets");
    assert!(!ok(&mut g, "version").is_empty());
    // Ids are echoed on success and on failure.
    assert_eq!(g.handle("17 protocol_version").unwrap(), "=17 2\n\n");
    assert_eq!(g.handle("18 no_such_command").unwrap(), "?18 unknown command\n\n");
    // Comments, blank lines, tabs and control characters.
    assert_eq!(g.handle("# only a comment"), None);
    assert_eq!(g.handle("   "), None);
    assert_eq!(g.handle("name # trailing comment").unwrap(), "= ets\n\n");
    assert_eq!(g.handle("\tknown_command\tplay\u{7}").unwrap(), "= true\n\n");
    assert_eq!(ok(&mut g, "known_command frobnicate"), "false");
    let listed = ok(&mut g, "list_commands");
    for c in COMMANDS {
        assert!(listed.lines().any(|l| l == *c), "{c} not listed");
        assert_eq!(ok(&mut g, &format!("known_command {c}")), "true");
    }
    for c in [
        "protocol_version",
        "name",
        "version",
        "known_command",
        "list_commands",
        "quit",
        "boardsize",
        "clear_board",
        "komi",
        "play",
        "genmove",
        "undo",
        "showboard",
        "final_score",
        "final_status_list",
        "time_settings",
        "time_left",
        "kgs-time_settings",
        "loadsgf",
        "set_free_handicap",
        "place_free_handicap",
        "gogui-analyze_commands",
    ] {
        assert!(COMMANDS.contains(&c), "the issue's command {c} is missing");
    }
    // GNU Go's seed commands.
    ok(&mut g, "set_random_seed 42");
    assert_eq!(ok(&mut g, "get_random_seed"), "42");
    assert_eq!(err(&mut g, "set_random_seed x"), "syntax error");
    assert_eq!(ok(&mut g, "quit"), "");
    assert!(g.quitting());
}

#[test]
fn setup_play_and_illegal_moves() {
    let mut g = engine();
    assert_eq!(err(&mut g, "boardsize 1000"), "unacceptable size");
    assert_eq!(err(&mut g, "boardsize x"), "syntax error");
    ok(&mut g, "boardsize 9");
    ok(&mut g, "clear_board");
    assert_eq!(err(&mut g, "komi seven"), "syntax error");
    ok(&mut g, "komi 7");
    assert_eq!(err(&mut g, "play"), "syntax error");
    assert_eq!(err(&mut g, "play red E5"), "syntax error");
    assert_eq!(err(&mut g, "play b Z99"), "illegal move"); // a vertex, but off this board
    assert_eq!(err(&mut g, "play b !!"), "syntax error");
    ok(&mut g, "play b E5");
    assert_eq!(err(&mut g, "play w E5"), "illegal move"); // occupied
    // Suicide: white at A1 inside black's corner.
    ok(&mut g, "play b A2");
    ok(&mut g, "play b B1");
    assert_eq!(err(&mut g, "play w A1"), "illegal move");
    // Ko: set one up and try to retake at once.
    for m in ["b F4", "b G3", "b G5", "w G4", "w H3", "w H5", "w J4"] {
        ok(&mut g, &format!("play {m}"));
    }
    ok(&mut g, "play b H4"); // captures G4
    assert_eq!(err(&mut g, "play w G4"), "illegal move"); // the ko
    ok(&mut g, "play w pass");
    let board = ok(&mut g, "showboard");
    assert!(board.contains("A B C D E F G H J") && board.contains('X'), "{board}");
    // Undo takes back the pass, then the capture.
    ok(&mut g, "undo");
    ok(&mut g, "undo");
    assert!(ok(&mut g, "showboard").contains("black captured 0"));
    ok(&mut g, "clear_board");
    assert_eq!(err(&mut g, "undo"), "cannot undo");
}

#[test]
fn genmove_plays_legal_moves_and_scores() {
    let mut g = engine();
    ok(&mut g, "boardsize 7");
    ok(&mut g, "komi 0.5");
    assert_eq!(err(&mut g, "genmove purple"), "syntax error");
    for i in 0..12 {
        let c = if i % 2 == 0 { "b" } else { "w" };
        let m = ok(&mut g, &format!("genmove {c}"));
        assert!(m == "pass" || m == "resign" || m.len() >= 2, "{m}");
        if m == "resign" {
            break;
        }
    }
    let s = ok(&mut g, "final_score");
    assert!(s == "0" || s.starts_with("B+") || s.starts_with("W+"), "{s}");
    for which in ["alive", "dead", "seki"] {
        ok(&mut g, &format!("final_status_list {which}"));
    }
    assert_eq!(err(&mut g, "final_status_list undead"), "syntax error");
    // reg_genmove does not play.
    let before = ok(&mut g, "showboard");
    ok(&mut g, "reg_genmove b");
    assert_eq!(ok(&mut g, "showboard"), before);
}

#[test]
fn time_controls() {
    let mut g = engine();
    ok(&mut g, "boardsize 9");
    ok(&mut g, "time_settings 30 2 1");
    assert_eq!(err(&mut g, "time_settings 30 two 1"), "syntax error");
    ok(&mut g, "time_left b 10 0");
    ok(&mut g, "time_left w 1 1");
    assert_eq!(err(&mut g, "time_left b"), "syntax error");
    for k in ["none", "absolute 60", "byoyomi 10 1 3", "canadian 10 20 5"] {
        ok(&mut g, &format!("kgs-time_settings {k}"));
    }
    assert_eq!(err(&mut g, "kgs-time_settings hourglass 3"), "syntax error");
    ok(&mut g, "time_settings 0 1 1");
    let t = std::time::Instant::now();
    ok(&mut g, "genmove b");
    assert!(t.elapsed().as_secs_f64() < 30.0);
}

#[test]
fn handicap_and_loadsgf() {
    let mut g = engine();
    ok(&mut g, "boardsize 9");
    assert_eq!(ok(&mut g, "place_free_handicap 2"), "G7 C3");
    assert_eq!(err(&mut g, "place_free_handicap 2"), "board not empty");
    ok(&mut g, "clear_board");
    assert_eq!(err(&mut g, "place_free_handicap 12"), "invalid number of stones");
    assert_eq!(err(&mut g, "set_free_handicap E5"), "bad vertex list");
    assert_eq!(err(&mut g, "set_free_handicap E5 E5"), "bad vertex list");
    assert_eq!(err(&mut g, "set_free_handicap E5 Q99"), "bad vertex list");
    ok(&mut g, "set_free_handicap E5 C3 G7");
    // After handicap White moves.
    let m = ok(&mut g, "genmove w");
    assert!(!m.is_empty());
    assert_eq!(err(&mut g, "loadsgf /no/such/file.sgf"), "cannot load file");
    let f = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/games/9x9/001.sgf");
    let next = ok(&mut g, &format!("loadsgf {f} 5"));
    assert!(next == "black" || next == "white");
    let board = ok(&mut g, "showboard");
    assert_eq!(board.matches('X').count() + board.matches('O').count(), 4, "{board}");
    ok(&mut g, &format!("loadsgf {f}"));
}

#[test]
fn analyze_commands_answer() {
    let mut g = engine();
    ok(&mut g, "boardsize 9");
    for m in ["b E5", "w E6", "b D6", "w C5"] {
        ok(&mut g, &format!("play {m}"));
    }
    let list = ok(&mut g, "gogui-analyze_commands");
    for line in list.lines() {
        let parts: Vec<&str> = line.split('/').collect();
        assert_eq!(parts.len(), 3, "{line}");
        let answer = ok(&mut g, parts[2]);
        match parts[0] {
            "dboard" => {
                let rows: Vec<&str> = answer.lines().filter(|l| !l.trim().is_empty()).collect();
                assert_eq!(rows.len(), 9, "{}: {answer}", parts[2]);
                assert!(rows.iter().all(|r| r.split_whitespace().count() == 9));
            }
            "gfx" => assert!(answer.contains("TEXT"), "{}: {answer}", parts[2]),
            _ => {}
        }
    }
    // The class candidates name the classes that propose them.
    let c = ok(&mut g, "ets-candidates");
    assert!(
        c.contains("LABEL") && (c.contains("further") || c.contains("disrupt")),
        "{c}"
    );
    let e = ok(&mut g, "ets-elements-list 1");
    assert!(e.contains("black_one_stone_block") || e.contains("black_block"), "{e}");
}

#[test]
fn the_binary_over_a_pipe() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ets"))
        .args(["gtp", "--playouts", "200", "--set", "components.class_top=4"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(b"1 boardsize 9\n2 play b E5\n3 genmove w\n4 play w E5\nbogus\n5 quit\n")
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    let answers: Vec<&str> = text.split("\n\n").filter(|s| !s.is_empty()).collect();
    assert_eq!(answers.len(), 6, "{text}");
    assert_eq!(answers[0], "=1");
    assert!(answers[2].starts_with("=3 "));
    assert_eq!(answers[3], "?4 illegal move");
    assert_eq!(answers[4], "? unknown command");
    assert_eq!(answers[5], "=5");
    assert!(out.status.success());
}

#[test]
fn settings_from_a_file_and_flags() {
    let dir = std::env::temp_dir().join(format!("ets-gtp-cfg-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("player.toml");
    std::fs::write(
        &f,
        "name = \"from-file\"\n[search]\nplayouts = 123\n[components]\nclasses = false\n",
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_ets"))
        .args([
            "gtp",
            "--config",
            f.to_str().unwrap(),
            "--threads",
            "2",
            "--print-config",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("name = \"from-file\""), "{text}");
    assert!(text.contains("playouts = 123") && text.contains("threads = 2") && text.contains("classes = false"));
    // A knowledge component without a store is refused with what it needs, so an ablation never
    // silently runs without it.
    for how in [&["--set", "components.gomi=true"][..], &["--with", "ranker"][..]] {
        let out = Command::new(env!("CARGO_BIN_EXE_ets"))
            .arg("gtp")
            .args(how)
            .stdin(Stdio::null())
            .output()
            .unwrap();
        assert!(!out.status.success(), "{how:?}");
        let e = String::from_utf8_lossy(&out.stderr);
        assert!(e.contains("needs a knowledge store") && e.contains("--store"), "{e}");
    }
    // A store without a trained model: the ranker says how to make one.
    let empty = dir.join("empty.sqlite");
    let out = Command::new(env!("CARGO_BIN_EXE_ets"))
        .args(["gtp", "--with", "ranker", "--store", empty.to_str().unwrap()])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("ets learn"));
    // --with / --without by name; an unknown name is an error.
    let out = Command::new(env!("CARGO_BIN_EXE_ets"))
        .args([
            "gtp",
            "--with",
            "academy,learn",
            "--without",
            "classes",
            "--print-config",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("academy = true") && text.contains("learn = true") && text.contains("classes = false"));
    let out = Command::new(env!("CARGO_BIN_EXE_ets"))
        .args(["gtp", "--with", "telepathy", "--print-config"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    // An unknown key is an error, not silently ignored.
    let out = Command::new(env!("CARGO_BIN_EXE_ets"))
        .args(["gtp", "--set", "search.playoutz=5", "--print-config"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn knowledge_components_from_a_learned_store() {
    // A small model learned from the shipped 9-dan records.
    let dir = std::env::temp_dir().join(format!("ets-gtp-knowledge-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let store = dir.join("k.sqlite");
    let games = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/games/tom-9d");
    let out = Command::new(env!("CARGO_BIN_EXE_ets"))
        .args(["learn", games, "--store", store.to_str().unwrap()])
        .args([
            "--rank-games",
            "8",
            "--epochs",
            "1",
            "--min-played",
            "1",
            "--threads",
            "1",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut cfg = PlayerConfig::default();
    cfg.search.playouts = 300;
    cfg.store = Some(store.clone());
    let c = &mut cfg.components;
    (c.ranker, c.forme_k, c.forme_k_book, c.academy, c.gomi, c.learn) = (true, true, true, true, true, true);
    let mut g = Gtp::new(Player::new(cfg).unwrap());
    ok(&mut g, "boardsize 19");
    ok(&mut g, "clear_board");
    ok(&mut g, "play b Q16");
    // The candidates name every source that proposes; the ranker's and Forme_K's are there, and
    // the classes' (around the stone).
    let cands = ok(&mut g, "ets-candidates");
    assert!(cands.contains(":ranker ") && cands.contains("ranker p="), "{cands}");
    assert!(
        cands.contains(":forme_k ") && cands.contains("Forme_K P(i|p)="),
        "{cands}"
    );
    assert!(cands.contains(":classes "), "{cands}");
    // The heat map is the ranker's: a value per point, 1 at its most probable move.
    let heat = ok(&mut g, "ets-heatmap");
    assert_eq!(heat.lines().count(), 19);
    assert!(heat.split_whitespace().any(|x| x == "1.000"), "{heat}");
    // It plays legal moves with everything on, then learns from the game (the ACADEMY and Gomi
    // tables are made in the same store).
    for _ in 0..4 {
        let w = ok(&mut g, "genmove w");
        assert_ne!(w, "resign");
        let b = ok(&mut g, "genmove b");
        assert_ne!(b, "resign");
    }
    let said = ok(&mut g, "ets-learn W+R");
    assert!(said.contains("academy: ") && said.contains("gomi: "), "{said}");
    assert!(err(&mut g, "ets-learn").contains("result"));
    std::fs::remove_dir_all(&dir).ok();
}
