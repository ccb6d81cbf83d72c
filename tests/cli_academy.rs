//! `ets academy …`, `ets learn --system academy` and `ets evaluate` end to end on the shipped
//! records (issue 19): what they write can be read back with the commands and with SQL.

use std::path::{Path, PathBuf};
use std::process::Command;

use ets::knowledge::academy::db::{Settings, Shared, same_state};

fn ets(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ets"))
        .args(args)
        .output()
        .expect("ets runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    )
}

fn ok(args: &[&str]) -> String {
    let (good, out, err) = ets(args);
    assert!(good, "ets {args:?} failed: {err}");
    out
}

fn tmpdir(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ets-cli-academy-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn games(dir: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/games")
        .join(dir)
        .to_string_lossy()
        .to_string()
}

#[test]
fn post_show_query_stats_export_round_trip() {
    let d = tmpdir("post");
    let file = d.join("p.txt");
    // the same area twice (an exact match: N = 2, E = (1800 + 2000)/2 = 1900,
    // V = (1800·0.6 + 2000·0.9)/(1800 + 2000) = 2880/3800), then a far weaker player's pattern
    // that differs in one cell (E_B − E_A = 1900 − 1000 > 200: inserted, no merge)
    std::fs::write(
        &file,
        "x o -\n- x -\n- - -\n< 1; 1800; 0.6; 1 >\n\nx o -\n- x -\n- - -\n< 1; 2000; 0.9; 1 >\n\n\
         x o -\n- x o\n- - -\n< 1; 1000; 0.5; 1 >\n",
    )
    .unwrap();
    let store = d.join("a.db").to_string_lossy().to_string();
    ok(&["academy", "post", "--store", &store, file.to_str().unwrap()]);
    let j: serde_json::Value =
        serde_json::from_str(&ok(&["academy", "show", "--store", &store, "--format", "json"])).unwrap();
    let pats = j["patterns"].as_array().unwrap();
    assert_eq!(pats.len(), 2, "{j}");
    let merged = pats.iter().find(|p| p["n"] == 2).expect("the exact match");
    assert_eq!(merged["e"], 1900.0);
    assert!((merged["v"].as_f64().unwrap() - 2880.0 / 3800.0).abs() < 1e-12);
    assert_eq!(merged["library"], "chuban");
    // the same through SQL
    let rows = ok(&[
        "academy",
        "query",
        "--store",
        &store,
        "SELECT n, e FROM academy_patterns ORDER BY n DESC",
    ]);
    assert_eq!(rows.lines().next().unwrap(), "2\t1900");
    let stats = ok(&["academy", "stats", "--store", &store]);
    assert!(stats.contains("posts       3"), "{stats}");
    assert!(stats.contains("chuban      2 patterns (cap 1000)"), "{stats}");
    // export, post the export into an empty store: the same libraries
    let exported = d.join("export.txt");
    std::fs::write(&exported, ok(&["academy", "export", "--store", &store])).unwrap();
    let again = d.join("b.db").to_string_lossy().to_string();
    ok(&["academy", "post", "--store", &again, exported.to_str().unwrap()]);
    let a = Shared::open(&store, Settings::default()).unwrap().reload().unwrap();
    let b = Shared::open(&again, Settings::default()).unwrap().reload().unwrap();
    assert!(same_state(&a, &b), "export → post changed the libraries");
    // a malformed file: an error naming the place, nothing posted
    std::fs::write(d.join("bad.txt"), "x q\n< 1; 1; 0.5; 1 >\n").unwrap();
    let (good, _, err) = ets(&[
        "academy",
        "post",
        "--store",
        &store,
        d.join("bad.txt").to_str().unwrap(),
    ]);
    assert!(!good && err.contains("bad.txt:1:3"), "{err}");
    assert!(ok(&["academy", "stats", "--store", &store]).contains("posts       3"));
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn learn_system_academy_posts_every_record_as_ets_academy_learn_does() {
    let d = tmpdir("learn");
    let a = d.join("a.db").to_string_lossy().to_string();
    let b = d.join("b.db").to_string_lossy().to_string();
    let dir = games("tom-9d");
    let files = std::fs::read_dir(&dir).unwrap().count();
    ok(&["learn", "--system", "academy", &dir, "--store", &a]);
    ok(&["academy", "learn", &dir, "--store", &b]);
    let sa = Shared::open(&a, Settings::default()).unwrap().reload().unwrap();
    let sb = Shared::open(&b, Settings::default()).unwrap().reload().unwrap();
    assert!(same_state(&sa, &sb));
    // one game per record, each with its moves counted; an opening line and endgame patterns
    assert_eq!(sa.games.0 as usize, files);
    let stats = ok(&["academy", "stats", "--store", &a]);
    assert!(stats.contains(&format!("games       {files} ")), "{stats}");
    let nodes = ok(&[
        "academy",
        "query",
        "--store",
        &a,
        "SELECT COUNT(*) FROM academy_fuseki_live WHERE depth = 1",
    ]);
    let first_moves: usize = nodes.trim().parse().unwrap();
    assert!((1..=files).contains(&first_moves), "{nodes}");
    let yose = ok(&[
        "academy",
        "query",
        "--store",
        &a,
        "SELECT COUNT(*) FROM academy_patterns WHERE library = 'yose'",
    ]);
    assert!(yose.trim().parse::<usize>().unwrap() > 0);
    // --games bounds it
    let c = d.join("c.db").to_string_lossy().to_string();
    ok(&["learn", "--system", "academy", &dir, "--store", &c, "--games", "2"]);
    assert!(ok(&["academy", "stats", "--store", &c]).contains("games       2 "));
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn evaluate_learns_gomi_entries_that_sql_and_a_second_run_see() {
    let d = tmpdir("evaluate");
    let store = d.join("gomi.db").to_string_lossy().to_string();
    let game = format!("{}/B01.sgf", games("9x9"));
    let out = ok(&[
        "evaluate", &game, "--move", "20", "--games", "30", "--store", &store, "--format", "json",
    ]);
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(j["games"], 30);
    let p = j["p_black_wins"].as_f64().unwrap();
    assert!((0.0..=1.0).contains(&p));
    assert_eq!(j["black_owns"].as_array().unwrap().len(), 81);
    assert!(
        !j["classes"].as_array().unwrap().is_empty(),
        "class elements are patterns"
    );
    let c = rusqlite::Connection::open(&store).unwrap();
    let count = |sql: &str| -> i64 { c.query_row(sql, [], |r| r.get(0)).unwrap() };
    // every class element present was matched once per sample game, for BlackWins
    let class_n = count("SELECT MIN(n) FROM gomi_estimate WHERE class IS NOT NULL AND formula = 'BlackWins'");
    assert_eq!(class_n, 30);
    let local = count("SELECT COUNT(*) FROM gomi_estimate WHERE area IS NOT NULL AND formula = 'MoverWins'");
    assert!(local > 0);
    let bad = count("SELECT COUNT(*) FROM gomi_estimate WHERE r > n OR alpha != r + 1 OR beta != n + 1 - r");
    assert_eq!(bad, 0);
    let total = count("SELECT SUM(n) FROM gomi_entry");
    // a second evaluation adds to the same entries
    drop(c);
    ok(&[
        "evaluate", &game, "--move", "20", "--games", "10", "--store", &store, "--seed", "2",
    ]);
    let c = rusqlite::Connection::open(&store).unwrap();
    let class_n: i64 = c
        .query_row(
            "SELECT MIN(n) FROM gomi_estimate WHERE class IS NOT NULL AND formula = 'BlackWins'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(class_n, 40);
    let total2: i64 = c.query_row("SELECT SUM(n) FROM gomi_entry", [], |r| r.get(0)).unwrap();
    assert!(total2 > total);
    // the ownership map as SVG
    let svg = ok(&[
        "evaluate",
        &game,
        "--move",
        "20",
        "--games",
        "5",
        "--format",
        "svg",
        "--no-classes",
    ]);
    assert!(
        svg.starts_with("<svg") || svg.starts_with("<?xml"),
        "{}",
        &svg[..svg.len().min(80)]
    );
    assert!(svg.trim_end().ends_with("</svg>"));
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn forme_k_patterns_from_part_one_become_gomi_entries_in_the_same_store() {
    let d = tmpdir("forme-k");
    // one SQLite file for Forme_K (part 1) and Gomi
    let store = d.join("knowledge.db").to_string_lossy().to_string();
    ok(&[
        "learn",
        &games("9x9"),
        "--store",
        &store,
        "--no-rank",
        "--min-played",
        "1",
    ]);
    let game = format!("{}/B01.sgf", games("9x9"));
    let out = ok(&[
        "evaluate",
        &game,
        "--move",
        "20",
        "--games",
        "16",
        "--no-classes",
        "--patterns",
        &store,
        "--store",
        &store,
        "--format",
        "json",
    ]);
    let j: serde_json::Value = serde_json::from_str(&out).unwrap();
    let fk = j["forme_k"].as_array().unwrap();
    assert!(!fk.is_empty(), "no legal move matched a Forme_K pattern");
    let c = rusqlite::Connection::open(&store).unwrap();
    // each sample game's first move matched at most one Forme_K pattern, for the mover
    let n: i64 = c
        .query_row(
            "SELECT COALESCE(SUM(n), 0) FROM gomi_estimate WHERE forme_k IS NOT NULL AND formula = 'MoverWins'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!((1..=16).contains(&n), "{n}");
    // and they are part 1's patterns, joined in SQL
    let joined: i64 = c
        .query_row(
            "SELECT COUNT(*) FROM gomi_estimate g JOIN fk_pattern p ON p.id = g.forme_k",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(joined > 0);
    let _ = std::fs::remove_dir_all(&d);
}
