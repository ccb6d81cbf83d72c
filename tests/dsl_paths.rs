//! Paths as users write them (issue 17): a relative path with `..` from a subfolder, imports
//! relative to the importing file, symbolic links, spaces and non-ASCII letters — each through
//! `ets check`, with the path shown in diagnostics as the user wrote it.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const ALPHABET: &str = "primal p;\nprimitive a(x: p) -> (x: p);\n";
const CLASSES: &str = "constraint K {\n    context u: a;\n    v: a;\n    u.x -> v.x;\n}\nclass C level 0 {\n    set A = {K};\n    schedule A+;\n}\n";

fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("dsl-paths").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn write(p: &Path, text: &str) {
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn check(dir: &Path, file: &str) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ets"))
        .current_dir(dir)
        .args(["check", file])
        .env("NO_COLOR", "1")
        .output()
        .unwrap()
}

fn ok(o: &Output) {
    assert!(
        o.status.success(),
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(String::from_utf8_lossy(&o.stdout).contains("1 class(es): C"));
}

/// The first line of the first diagnostic.
fn first_line(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr)
        .lines()
        .next()
        .unwrap_or("")
        .trim()
        .to_string()
}

#[test]
fn a_relative_path_with_dot_dot_from_a_subfolder() {
    let d = scratch("dotdot");
    write(&d.join("x.ets"), &format!("{ALPHABET}{CLASSES}"));
    std::fs::create_dir_all(d.join("sub")).unwrap();
    ok(&check(&d.join("sub"), "../x.ets"));
    ok(&check(&d.join("sub"), "../sub/../x.ets"));
    // and a mistake there is shown at the path as written
    write(
        &d.join("y.ets"),
        &format!("{ALPHABET}{}", CLASSES.replace("v: a;", "v: b;")),
    );
    let o = check(&d.join("sub"), "../y.ets");
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(first_line(&o), "× ../y.ets:5:8: unknown primitive `b`");
}

#[test]
fn imports_are_relative_to_the_importing_file() {
    let d = scratch("relative");
    write(&d.join("lib/alphabet.ets"), ALPHABET);
    write(
        &d.join("lib/classes.ets"),
        &format!("import \"alphabet.ets\";\n{CLASSES}"),
    );
    write(&d.join("proj/main.ets"), "import \"../lib/classes.ets\";\n");
    ok(&check(&d, "proj/main.ets"));
    ok(&check(&d.join("proj"), "main.ets"));
    ok(&check(&d.join("lib"), "../proj/main.ets"));
    // the same file imported by two spellings is read once (nothing is declared twice)
    write(
        &d.join("proj/twice.ets"),
        "import \"../lib/classes.ets\";\nimport \"../lib/../lib/alphabet.ets\";\n",
    );
    ok(&check(&d, "proj/twice.ets"));
    // a missing import is reported at the import, with the path it resolved to
    write(&d.join("proj/missing.ets"), "import \"../lib/nothing.ets\";\n");
    let o = check(&d, "proj/missing.ets");
    assert_eq!(
        first_line(&o),
        "× proj/missing.ets:1:1: cannot read `proj/../lib/nothing.ets`: No such file or directory (os"
    );
}

#[cfg(unix)]
#[test]
fn symbolic_links_are_followed_as_the_system_does() {
    use std::os::unix::fs::symlink;
    let d = scratch("symlinks");
    write(&d.join("real/lib/alphabet.ets"), ALPHABET);
    write(
        &d.join("real/lib/classes.ets"),
        &format!("import \"alphabet.ets\";\n{CLASSES}"),
    );
    std::fs::create_dir_all(d.join("proj")).unwrap();
    symlink("../real/lib", d.join("proj/lib")).unwrap();
    write(&d.join("proj/main.ets"), "import \"lib/classes.ets\";\n");
    ok(&check(&d, "proj/main.ets"));
    // a linked file and its target are one file
    symlink("real/lib/alphabet.ets", d.join("alias.ets")).unwrap();
    write(
        &d.join("both.ets"),
        "import \"alias.ets\";\nimport \"real/lib/alphabet.ets\";\nimport \"real/lib/classes.ets\";\n",
    );
    ok(&check(&d, "both.ets"));
    // `..` after a link is the link target's parent (as for the shell's `cat`)
    write(&d.join("real/outside.ets"), ALPHABET);
    write(
        &d.join("proj/up.ets"),
        &format!("import \"lib/../outside.ets\";\n{CLASSES}"),
    );
    ok(&check(&d, "proj/up.ets"));
    // a cycle through a link is a cycle
    write(&d.join("real/lib/a.ets"), "import \"../../proj/lib/b.ets\";\n");
    write(&d.join("real/lib/b.ets"), "import \"a.ets\";\n");
    let o = check(&d, "proj/lib/a.ets");
    assert_eq!(o.status.code(), Some(1));
    assert!(first_line(&o).contains("cyclic import"), "{}", first_line(&o));
}

#[test]
fn paths_with_spaces() {
    let d = scratch("spaces");
    write(&d.join("my classes/the alphabet.ets"), ALPHABET);
    write(
        &d.join("my classes/set up.ets"),
        &format!("import \"the alphabet.ets\";\n{CLASSES}"),
    );
    ok(&check(&d, "my classes/set up.ets"));
    write(
        &d.join("my classes/broken one.ets"),
        "import \"the alphabet.ets\";\nprimal p;\n",
    );
    let o = check(&d, "my classes/broken one.ets");
    assert_eq!(
        first_line(&o),
        "× my classes/broken one.ets:2:8: primal class `p` is declared twice"
    );
}

#[test]
fn paths_with_letters_beyond_ascii() {
    let d = scratch("unicode");
    write(&d.join("clases/ñandú.ets"), ALPHABET);
    write(&d.join("clases/país.ets"), &format!("import \"ñandú.ets\";\n{CLASSES}"));
    ok(&check(&d, "clases/país.ets"));
    write(
        &d.join("集合/設定.ets"),
        &format!("import \"../clases/ñandú.ets\";\n{}", CLASSES.replace("A+", "Z+")),
    );
    let o = check(&d, "集合/設定.ets");
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(first_line(&o), "× 集合/設定.ets:9:14: unknown set `Z`");
}
