//! `ets arena` end to end: a few fast games between two ets settings (always), and between ets
//! and GNU Go when it is installed; SGF files, the store, resuming, the summary. No game may end
//! by an illegal move or a crash of ets.

use std::path::{Path, PathBuf};
use std::process::Command;

use ets::player::arena::Store;

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ets-arena-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn arena(dir: &Path, args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_ets"))
        .arg("arena")
        .args(args)
        .arg("--store")
        .arg(dir.join("arena.sqlite"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn two_ets_settings_play_score_store_and_resume() {
    let dir = tmp("self");
    let a = "a=ets gtp --playouts 150 --seed 1";
    let b = "b=ets gtp --playouts 150 --seed 2 --no-classes";
    let args = [
        "--engine",
        a,
        "--engine",
        b,
        "--games",
        "2",
        "--size",
        "7",
        "--komi",
        "7.5",
        "--name",
        "t",
        "--parallel",
        "2",
        "--curve",
    ];
    let curve = dir.join("curve.svg");
    let mut v: Vec<&str> = args.to_vec();
    let cs = curve.to_str().unwrap().to_string();
    v.push(&cs);
    let out = arena(&dir, &v);
    assert!(out.contains("2 game(s) played now, 2 in the store"), "{out}");
    assert!(out.contains("ratings (Bradley-Terry"), "{out}");
    assert!(std::fs::read_to_string(&curve).unwrap().starts_with("<svg"));
    let mut store = Store::open(&dir.join("arena.sqlite")).unwrap();
    let rows = store.rows(Some("t")).unwrap();
    assert_eq!(rows.len(), 2);
    // Colours alternate.
    assert_eq!((rows[0].black.as_str(), rows[1].black.as_str()), ("a", "b"));
    for r in &rows {
        assert!(!matches!(r.reason.as_str(), "illegal" | "crash" | "timeout"), "{r:?}");
    }
    // Every game has its SGF with a result.
    let sgfs: Vec<_> = std::fs::read_dir(dir.join("arena-t")).unwrap().flatten().collect();
    assert_eq!(sgfs.len(), 2);
    for f in sgfs {
        let t = std::fs::read_to_string(f.path()).unwrap();
        assert!(t.contains("RE[") && t.contains("SZ[7]") && t.contains(";B["), "{t}");
        ets::go::sgf::Sgf::parse(&t).unwrap();
    }
    // Resuming: the same arena with more games plays only the new ones.
    let mut v2 = v.clone();
    let i = v2.iter().position(|x| *x == "2").unwrap();
    v2[i] = "3";
    let out = arena(&dir, &v2);
    assert!(out.contains("1 game(s) played now, 3 in the store"), "{out}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn games_between_the_same_engines_and_colours_differ() {
    // Two deterministic players meeting with the same colours would replay one game; the arena
    // gives each game's engines their own seed (`set_random_seed`), so the games are samples.
    let dir = tmp("seeds");
    let e = "x=ets gtp --playouts 120";
    let f = "y=ets gtp --playouts 120 --no-classes";
    let out = arena(
        &dir,
        &[
            "--engine",
            e,
            "--engine",
            f,
            "--games",
            "4",
            "--size",
            "7",
            "--komi",
            "7.5",
            "--name",
            "s",
            "--parallel",
            "2",
        ],
    );
    assert!(out.contains("4 game(s) played now"), "{out}");
    let moves = |k: usize| {
        let t = std::fs::read_to_string(dir.join("arena-s").join(format!("game-{k:04}.sgf"))).unwrap();
        t.lines()
            .filter(|l| l.starts_with(";B[") || l.starts_with(";W["))
            .collect::<Vec<_>>()
            .join("")
    };
    // Games 0 and 2 have x as Black, 1 and 3 have y.
    assert_ne!(moves(0), moves(2), "the same game twice");
    assert_ne!(moves(1), moves(3), "the same game twice");
    assert_eq!(ets::player::arena::game_seed(2, 1), 6);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_crashing_engine_loses() {
    let dir = tmp("crash");
    let out = arena(
        &dir,
        &[
            "--engine",
            "ets=ets gtp --playouts 50",
            "--engine",
            "broken=sh -c 'read x; exit 3'",
            "--games",
            "2",
            "--size",
            "5",
            "--name",
            "c",
        ],
    );
    assert!(out.contains("crash 2"), "{out}");
    let rows = Store::open(&dir.join("arena.sqlite")).unwrap().rows(Some("c")).unwrap();
    for r in rows {
        let ets_won = (r.black == "ets") == (r.winner.as_deref() == Some("B"));
        assert!(ets_won, "{r:?}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn ets_against_gnugo() {
    let gnugo = Path::new("/usr/games/gnugo");
    if !gnugo.exists() {
        eprintln!("skipped: GNU Go is not installed at /usr/games/gnugo");
        return;
    }
    let dir = tmp("gnugo");
    let out = arena(
        &dir,
        &[
            "--engine",
            "ets=ets gtp --playouts 300",
            "--engine",
            "gnugo=/usr/games/gnugo --mode gtp --level 0 --chinese-rules",
            "--games",
            "2",
            "--size",
            "7",
            "--komi",
            "7.5",
            "--name",
            "g",
        ],
    );
    assert!(out.contains("2 in the store"), "{out}");
    let rows = Store::open(&dir.join("arena.sqlite")).unwrap().rows(Some("g")).unwrap();
    for r in &rows {
        let ets_lost = (r.black == "ets") != (r.winner.as_deref() == Some("B"));
        assert!(
            !(ets_lost && matches!(r.reason.as_str(), "illegal" | "crash" | "timeout")),
            "ets lost by {}: {r:?}",
            r.reason
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn learning_by_playing_feeds_the_academy_and_gomi_in_the_one_store() {
    let dir = tmp("learn");
    let store = dir.join("arena.sqlite");
    let learner = format!(
        "learner=ets gtp --playouts 150 --seed 1 --store {} --with academy,gomi,learn",
        store.display()
    );
    let args = [
        "--engine",
        learner.as_str(),
        "--engine",
        "plain=ets gtp --playouts 150 --seed 2",
        "--games",
        "2",
        "--size",
        "7",
        "--komi",
        "7.5",
        "--name",
        "learn",
        "--parallel",
        "2",
    ];
    let out = Command::new(env!("CARGO_BIN_EXE_ets"))
        .arg("arena")
        .args(args)
        .arg("--store")
        .arg(&store)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    // Each game: the learner says what it learned, the other engine that it does not learn.
    assert_eq!(err.matches("learned: learner: academy: ").count(), 2, "{err}");
    assert_eq!(err.matches("learned: plain: learning is off").count(), 2, "{err}");
    assert!(err.contains("gomi: "), "{err}");
    // One store: the arena's games, the ACADEMY's libraries and Gomi's entries in the same file.
    let mut s = ets::store::Store::open(&store.to_string_lossy()).unwrap();
    let count = |s: &mut ets::store::Store, sql: &str| s.value(sql, &[]).unwrap().and_then(|v| v.as_i64()).unwrap();
    assert_eq!(
        count(&mut s, "SELECT COUNT(*) FROM arena_games WHERE arena = 'learn'"),
        2
    );
    assert_eq!(count(&mut s, "SELECT games FROM academy_stats"), 2, "both games posted");
    assert!(
        count(
            &mut s,
            "SELECT COUNT(*) FROM academy_fuseki WHERE live = 1 AND parent IS NOT NULL"
        ) >= 1
    );
    assert!(count(&mut s, "SELECT COUNT(*) FROM gomi_entry") > 0);
    assert_eq!(
        count(&mut s, "SELECT COUNT(*) FROM ets_migration WHERE component = 'arena'"),
        1
    );
    for r in Store::open(&store).unwrap().rows(Some("learn")).unwrap() {
        assert!(!matches!(r.reason.as_str(), "illegal" | "crash" | "timeout"), "{r:?}");
    }
    std::fs::remove_dir_all(&dir).ok();
}
