//! The broken-file corpus (`tests/dsl_corpus/`): one mistake per file (or per directory, whose
//! `main.ets` is checked), each file saying in its header what the mistake is, which productions
//! of `grammars/ets.ebnf` it exercises and how many diagnostics `ets check` must give for it —
//! one per mistake. Every production of the grammar is exercised by some file. The rendered
//! diagnostics are snapshot-tested, and so is the count per file.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

const DIR: &str = "tests/dsl_corpus";

struct Case {
    name: String,
    /// Path relative to the corpus directory (what `ets check` is given, run there).
    file: PathBuf,
    productions: Vec<String>,
    errors: usize,
    warnings: usize,
}

fn header(text: &str, key: &str) -> Option<String> {
    text.lines()
        .take(5)
        .find_map(|l| l.trim_start_matches('\u{feff}').strip_prefix(&format!("// {key}: ")))
        .map(str::to_string)
}

fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(DIR).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries {
        let file = if p.is_dir() {
            p.join("main.ets")
        } else if p.extension().is_some_and(|e| e == "ets") {
            p.clone()
        } else {
            continue;
        };
        let text = std::fs::read_to_string(&file).unwrap();
        let name = p.file_stem().unwrap().to_string_lossy().into_owned();
        let expect = header(&text, "expect").unwrap_or_else(|| panic!("{name}: no `// expect:` line"));
        let (mut errors, mut warnings) = (0, 0);
        for part in expect.split(',') {
            let (n, what) = part.trim().split_once(' ').unwrap();
            let n: usize = n.parse().unwrap();
            if what.starts_with("error") {
                errors = n;
            } else if what.starts_with("warning") {
                warnings = n;
            } else {
                panic!("{name}: bad expect line `{expect}`");
            }
        }
        let productions = header(&text, "productions")
            .unwrap_or_else(|| panic!("{name}: no `// productions:` line"))
            .split(',')
            .map(|s| s.trim().to_string())
            .collect();
        assert!(header(&text, "mistake").is_some(), "{name}: no `// mistake:` line");
        v.push(Case {
            name,
            file: file.strip_prefix(DIR).unwrap().to_path_buf(),
            productions,
            errors,
            warnings,
        });
    }
    v
}

fn grammar_productions() -> BTreeSet<String> {
    let g = std::fs::read_to_string("grammars/ets.ebnf").unwrap();
    let mut out = BTreeSet::new();
    let mut in_comment = false;
    for line in g.lines() {
        let t = line.trim();
        if t.starts_with("(*") {
            in_comment = true;
        }
        if !in_comment
            && let Some((lhs, _)) = t.split_once(" = ")
            && !lhs.trim().is_empty()
            && lhs
                .trim()
                .chars()
                .all(|c| c.is_ascii_lowercase() || c == '_' || c.is_ascii_digit())
        {
            out.insert(lhs.trim().to_string());
        }
        if t.ends_with("*)") {
            in_comment = false;
        }
    }
    out
}

fn check(file: &Path) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ets"))
        .current_dir(DIR)
        .arg("check")
        .arg(file)
        .env("NO_COLOR", "1")
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Counts rendered diagnostics: each begins with `×` (error) or `⚠` (warning).
fn count(stderr: &str) -> (usize, usize) {
    let errors = stderr.lines().filter(|l| l.trim_start().starts_with('×')).count();
    let warnings = stderr.lines().filter(|l| l.trim_start().starts_with('⚠')).count();
    (errors, warnings)
}

#[test]
fn the_corpus_has_forty_files_and_covers_every_production() {
    let cs = cases();
    assert!(cs.len() >= 40, "{} files", cs.len());
    let covered: BTreeSet<String> = cs.iter().flat_map(|c| c.productions.iter().cloned()).collect();
    let all = grammar_productions();
    assert!(all.len() > 30, "{all:?}");
    let unknown: Vec<&String> = covered.difference(&all).collect();
    assert!(
        unknown.is_empty(),
        "headers name productions the grammar has not: {unknown:?}"
    );
    let missing: Vec<&String> = all.difference(&covered).collect();
    assert!(missing.is_empty(), "productions no broken file exercises: {missing:?}");
}

#[test]
fn every_broken_file_gets_one_diagnostic_per_mistake() {
    let mut summary = String::new();
    let mut wrong = Vec::new();
    let mut outputs = Vec::new();
    for c in cases() {
        let (code, stderr) = check(&c.file);
        let (errors, warnings) = count(&stderr);
        summary.push_str(&format!("{:<40} {errors} error(s), {warnings} warning(s)\n", c.name));
        if (errors, warnings) != (c.errors, c.warnings) {
            wrong.push(format!(
                "{}: expected {} error(s) and {} warning(s), got {errors} and {warnings}:\n{stderr}",
                c.name, c.errors, c.warnings
            ));
        }
        let expected_code = if c.errors > 0 { 1 } else { 0 };
        if code != expected_code {
            wrong.push(format!("{}: exit code {code}, expected {expected_code}", c.name));
        }
        outputs.push((c.name, stderr));
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    insta::assert_snapshot!("corpus_counts", summary);
    for (name, stderr) in outputs {
        insta::assert_snapshot!(format!("corpus_{name}"), stderr);
    }
}
