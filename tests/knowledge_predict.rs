//! Acceptance of issue 18 on a fresh clone: `ets learn` on the shipped sample games, then
//! `ets eval predict` on the shipped games of December 2010 (never learned from) and `ets
//! predict` on one of them — a tiny model, in well under a minute; the ranker's feature
//! families (patterns, base, ETS classes) are recorded and read back.

use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/games")
}

fn tmp(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ets-kpredict-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    let p = d.join(name);
    for s in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{s}", p.display()));
    }
    p
}

fn ets(args: &[&str]) -> (String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ets")).args(args).output().unwrap();
    let (o, e) = (
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    );
    assert!(out.status.success(), "ets {args:?} failed:\n{o}\n{e}");
    (o, e)
}

/// Learns a tiny model with the given feature families (and `extra` arguments); returns the store.
fn learn(name: &str, features: &str, extra: &[&str]) -> PathBuf {
    let store = tmp(name);
    let train = root().join("tom-9d");
    let mut args = vec![
        "learn",
        train.to_str().unwrap(),
        "--store",
        store.to_str().unwrap(),
        "--kmax",
        "10",
        "--rank-games",
        "8",
        "--epochs",
        "2",
        "--min-match-id",
        "20",
        "--features",
        features,
    ];
    args.extend_from_slice(extra);
    ets(&args);
    store
}

#[test]
fn learn_then_eval_predict_on_the_shipped_games() {
    let store = learn("all.db", "all", &[]);
    let held_out = root().join("collections");
    let (o, _) = ets(&[
        "eval",
        "predict",
        "--model",
        store.to_str().unwrap(),
        held_out.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&o).unwrap_or_else(|e| panic!("{e}: {o}"));
    let all = &v["all"];
    let positions = all["positions"].as_u64().unwrap();
    assert!(positions > 300, "{v}");
    let top1 = all["top1"]["mean"].as_f64().unwrap();
    let top10 = all["top10"]["mean"].as_f64().unwrap();
    let logp = all["logp"]["mean"].as_f64().unwrap();
    // A model of eight games ranks far better than chance (about 1/250 top-1 and log(1/250) = −5.5).
    assert!(top1 > 0.05 && top1 <= top10 && top10 <= 1.0, "{v}");
    assert!(logp > -5.0 && logp < 0.0, "{v}");
    // The class features read the player's focused attention, recorded with the model.
    assert_eq!(v["class_attention"], "focus", "{v}");
    // Its features include the ETS class features, named by their classes.
    let game = held_out.join("2010-12-first3.sgf");
    let (o, _) = ets(&[
        "predict",
        game.to_str().unwrap(),
        "--model",
        store.to_str().unwrap(),
        "--move",
        "60",
        "--top",
        "250",
        "--format",
        "json",
    ]);
    assert!(o.contains("class:"), "no class feature among the reasons:\n{o}");
}

#[test]
fn a_ranker_without_class_features_neither_reads_nor_names_them() {
    let store = learn("patterns.db", "patterns,base", &[]);
    let held_out = root().join("collections");
    let (o, _) = ets(&[
        "eval",
        "predict",
        "--model",
        store.to_str().unwrap(),
        held_out.to_str().unwrap(),
        "--games",
        "1",
    ]);
    assert!(o.contains("top-1"), "{o}");
    assert!(
        !o.contains("attention"),
        "a model without class features reads no classification:\n{o}"
    );
    let game = held_out.join("2010-12-first3.sgf");
    let (o, _) = ets(&[
        "predict",
        game.to_str().unwrap(),
        "--model",
        store.to_str().unwrap(),
        "--move",
        "60",
        "--top",
        "250",
        "--format",
        "json",
    ]);
    assert!(!o.contains("class:"), "{o}");
    assert!(o.contains("pattern"), "{o}");
}

/// `--class-attention full` is recorded with the model and read back; a store written before the
/// attention was recorded (no `attention` setting) is read as full attention, and ranks exactly
/// as the same model with the setting.
#[test]
fn the_class_attention_is_recorded_and_a_store_without_it_reads_full() {
    let store = learn("full.db", "all", &["--class-attention", "full"]);
    let game = root().join("collections").join("2010-12-first3.sgf");
    let eval = || {
        let (o, _) = ets(&[
            "eval",
            "predict",
            "--model",
            store.to_str().unwrap(),
            game.to_str().unwrap(),
            "--games",
            "1",
            "--every",
            "4",
            "--format",
            "json",
        ]);
        let mut v: serde_json::Value = serde_json::from_str(&o).unwrap_or_else(|e| panic!("{e}: {o}"));
        for k in ["model_cpu_secs", "positions_per_cpu_sec", "wall_secs"] {
            v[k] = serde_json::Value::Null;
        }
        v
    };
    let recorded = eval();
    assert_eq!(recorded["class_attention"], "full", "{recorded}");
    assert!(recorded["all"]["positions"].as_u64().unwrap() > 30, "{recorded}");
    let db = rusqlite::Connection::open(&store).unwrap();
    assert_eq!(
        db.execute("DELETE FROM rk_setting WHERE name = 'attention'", [])
            .unwrap(),
        1
    );
    drop(db);
    assert_eq!(eval(), recorded);
}
