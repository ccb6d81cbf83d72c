//! Regression tests of issue 17, written from the user's side: a `.ets` file (in
//! `tests/dsl_regressions/` or written by the test) given to the `ets` command, and the
//! diagnostic or the result it prints, snapshot-tested.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const DIR: &str = "tests/dsl_regressions";

fn ets(args: &[&str]) -> Output {
    ets_in(Path::new("."), args)
}

fn ets_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ets"))
        .current_dir(dir)
        .args(args)
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// Diagnostics rendered (each begins with `×` or `⚠`).
fn diagnostics(s: &str) -> usize {
    s.lines()
        .filter(|l| l.trim_start().starts_with('×') || l.trim_start().starts_with('⚠'))
        .count()
}

/// A fresh scratch directory under `target/`.
fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("dsl-regressions")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `(class, nodes)` of every element of every level, as `recognize` prints them.
fn elements(json: &str) -> Vec<(u64, String, Vec<String>)> {
    let v: serde_json::Value = serde_json::from_str(json).unwrap();
    let mut out = Vec::new();
    for l in v["levels"].as_array().unwrap() {
        for e in l["elements"].as_array().unwrap() {
            out.push((
                l["level"].as_u64().unwrap(),
                e["class"].as_str().unwrap().to_string(),
                e["nodes"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|n| n.as_str().unwrap().to_string())
                    .collect(),
            ));
        }
    }
    out
}

#[test]
fn a_schedule_written_before_an_include_names_the_sets_it_says() {
    let setting = format!("{DIR}/schedule_before_include.ets");
    let o = ets(&[
        "recognize",
        "--setting",
        &setting,
        "--struct",
        &format!("{DIR}/chain.json"),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let els = elements(&stdout(&o));
    let of = |c: &str| -> Vec<Vec<String>> {
        els.iter()
            .filter(|(_, k, _)| k == c)
            .map(|(_, _, n)| n.clone())
            .collect()
    };
    assert_eq!(of("written_first"), of("written_last"));
    assert!(!of("written_first").is_empty());
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    for e in v["levels"][0]["elements"].as_array().unwrap() {
        if e["class"] == "written_first" {
            for a in e["applications"].as_array().unwrap() {
                assert_eq!(a["constraint"], "L", "{e}");
            }
        }
    }
    insta::assert_snapshot!(format!("{els:?}"));
}

#[test]
fn names_of_another_level_are_level_mismatches_not_unknown() {
    let o = ets(&["check", &format!("{DIR}/overlaps_other_level.ets")]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert_eq!(diagnostics(&e), 2, "{e}");
    assert_eq!(e.matches("level mismatch").count(), 2, "{e}");
    assert!(!e.contains("unknown"), "{e}");
    insta::assert_snapshot!(e);
}

#[test]
fn one_typo_in_a_template_is_one_diagnostic() {
    let o = ets(&["check", &format!("{DIR}/typo_in_template.ets")]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert_eq!(diagnostics(&e), 1, "{e}");
    insta::assert_snapshot!(e);
}

#[test]
fn one_typo_in_the_go_setting_is_one_diagnostic() {
    let d = scratch("go-typo");
    for f in std::fs::read_dir("grammars/go").unwrap() {
        let p = f.unwrap().path();
        std::fs::copy(&p, d.join(p.file_name().unwrap())).unwrap();
    }
    // the primitive of the four adjacency variables of Con_1/6/11 misspelt: every class and
    // level-1 constraint above depends on it
    let l0 = std::fs::read_to_string(d.join("level0.ets")).unwrap();
    let broken = l0.replacen("context l, u, d, r: pi4;", "context l, u, d, r: pi44;", 1);
    assert_ne!(l0, broken);
    std::fs::write(d.join("level0.ets"), broken).unwrap();
    let o = ets_in(&d, &["check", "setting.ets"]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert_eq!(diagnostics(&e), 1, "{e}");
    assert!(e.contains("did you mean `pi4`?"), "{e}");
    insta::assert_snapshot!(e);
}

#[test]
fn a_schedule_nested_eight_thousand_deep_is_refused_not_a_crash() {
    let d = scratch("deep");
    let text = format!(
        "primal p;\nprimitive a(x: p) -> (x: p);\nconstraint K {{\n    context u: a;\n    v: a;\n    u.x -> v.x;\n}}\nclass C level 0 {{\n    set A = {{K}};\n    schedule {}A{};\n}}\n",
        "(".repeat(8000),
        ")".repeat(8000)
    );
    std::fs::write(d.join("deep.ets"), text).unwrap();
    let o = ets_in(&d, &["check", "deep.ets"]);
    assert_eq!(o.status.code(), Some(1), "exit code (134 was the stack overflow)");
    let e = stderr(&o);
    assert_eq!(diagnostics(&e), 1);
    insta::assert_snapshot!(e.lines().next().unwrap());
    let o = ets_in(&d, &["fmt", "--check", "deep.ets"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("nested more than 32"));
}

#[cfg(unix)]
#[test]
fn importing_a_device_is_refused_at_once() {
    let d = scratch("urandom");
    std::fs::write(d.join("u.ets"), "import \"/dev/urandom\";\nprimal p;\n").unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_ets"))
        .current_dir(&d)
        .args(["check", "u.ets"])
        .env("NO_COLOR", "1")
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        if start.elapsed() > std::time::Duration::from_secs(30) {
            child.kill().unwrap();
            panic!("`ets check` on an import of /dev/urandom did not end");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(
        e.contains("u.ets:1:1: cannot read `/dev/urandom`: it is not a regular file"),
        "{e}"
    );
    insta::assert_snapshot!(e);
}

#[test]
fn a_byte_order_mark_is_accepted_and_kept() {
    let o = ets(&["check", &format!("{DIR}/bom.ets")]);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = ets(&["fmt", "--check", &format!("{DIR}/bom.ets")]);
    assert!(o.status.success(), "{}{}", stdout(&o), stderr(&o));
}

#[test]
fn a_file_that_cannot_be_read_is_named_without_a_made_up_place() {
    let o = ets(&["check", "no/such/file.ets"]);
    assert_eq!(o.status.code(), Some(1));
    let e = stderr(&o);
    assert!(!e.contains("<command line>"), "{e}");
    assert!(e.contains("cannot read `no/such/file.ets`"), "{e}");
    insta::assert_snapshot!(e);
}

#[test]
fn help_presents_the_framework_first_and_go_as_its_front_end() {
    let o = ets(&["--help"]);
    assert!(o.status.success());
    let h = stdout(&o);
    let framework = h
        .find("Evolving Transformation System")
        .expect("the framework is named");
    let go = h.find("Go").expect("Go is named");
    assert!(framework < go, "{h}");
    let cmds: Vec<&str> = h
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    let pos = |c: &str| {
        cmds.iter()
            .position(|x| *x == c)
            .unwrap_or_else(|| panic!("{c} in {cmds:?}"))
    };
    for domain_free in ["check", "fmt", "generate", "recognize", "struct", "evolve"] {
        for go in ["classify", "board", "replay"] {
            assert!(pos(domain_free) < pos(go), "{cmds:?}");
        }
    }
    insta::assert_snapshot!(h);
}
