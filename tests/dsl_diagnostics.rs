//! Diagnostics of `ets check`, snapshot-tested: every error names file:line:col and shows the
//! source line with a caret.

use std::path::Path;
use std::process::Command;

fn check(name: &str, files: &[(&str, &str)]) -> (i32, String) {
    let dir = Path::new("target/dsl-diagnostics").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (f, text) in files {
        std::fs::write(dir.join(f), text).unwrap();
    }
    let out = Command::new(env!("CARGO_BIN_EXE_ets"))
        .arg("check")
        .arg(dir.join(files[0].0))
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

const ALPHA: &str = "primal p, q;\nprimitive a(x: p) -> (x: p, y: q);\nprimitive b(x: p, y: q) -> (x: p);\n";

#[test]
fn syntax_error() {
    let (code, err) = check("syntax", &[("s.ets", "primal p;\nprimitive a(x: p) -> (x p);\n")]);
    assert_eq!(code, 1);
    insta::assert_snapshot!(err);
}

#[test]
fn unknown_and_duplicate_names() {
    let text =
        format!("{ALPHA}constraint K {{\n    context u: a;\n    v: c;\n    u.x -> w.x;\n}}\nprimitive a() -> ();\n");
    let (code, err) = check("names", &[("n.ets", &text)]);
    assert_eq!(code, 1);
    insta::assert_snapshot!(err);
}

#[test]
fn site_type_mismatch() {
    let text = format!("{ALPHA}constraint K {{\n    context u: a;\n    v: b;\n    u.y -> v.x;\n}}\n");
    let (code, err) = check("types", &[("t.ets", &text)]);
    assert_eq!(code, 1);
    insta::assert_snapshot!(err);
}

#[test]
fn undefined_constraint_and_unknown_set_in_schedule() {
    let text = format!(
        "{ALPHA}constraint K {{\n    context u: a;\n    v: b;\n    u.x -> v.x;\n}}\nclass C level 0 {{\n    set A = {{K, L}};\n    schedule A, B*;\n}}\n"
    );
    let (code, err) = check("sets", &[("c.ets", &text)]);
    assert_eq!(code, 1);
    insta::assert_snapshot!(err);
}

#[test]
fn level_mismatch() {
    let text = format!(
        "{ALPHA}constraint K {{\n    context u: a;\n    v: b;\n    u.x -> v.x;\n}}\nclass C = \"C1\" level 0 {{\n    set A = {{K}};\n    schedule A+;\n}}\nconstraint L level 1 = <{{c1_1, c1_2}}, {{<{{c1_1, c1_2}}, K>}}>;\nclass D level 0 {{\n    set A = {{L}};\n    schedule A+;\n}}\nconstraint M level 2 = <{{x: C, y: C}}, {{<{{x, y}}, K>}}>;\n"
    );
    let (code, err) = check("levels", &[("l.ets", &text)]);
    assert_eq!(code, 1);
    insta::assert_snapshot!(err);
}

#[test]
fn cyclic_import() {
    let (code, err) = check(
        "cycle",
        &[
            ("a.ets", "import \"b.ets\";\nprimal p;\n"),
            ("b.ets", "import \"a.ets\";\nprimal q;\n"),
        ],
    );
    assert_eq!(code, 1);
    insta::assert_snapshot!(err);
}

#[test]
fn a_clean_setting_passes_with_a_summary() {
    let out = Command::new(env!("CARGO_BIN_EXE_ets"))
        .args(["check", "examples/bank/bank.ets"])
        .output()
        .unwrap();
    assert!(out.status.success());
    insta::assert_snapshot!(String::from_utf8_lossy(&out.stdout));
}
