//! The class language: grammar, parser, printer, compiler, diagnostics.

use std::path::PathBuf;

use ets::demo::bank;
use ets::dsl::{DslError, Sources, load_setting, parser::parse, printer::print};
use ets::ets::{Setting, recognize_all};

fn bank_setting() -> Setting {
    let (src, r) = load_setting(&[PathBuf::from("examples/bank/bank.ets")]);
    match r {
        Ok((s, _)) => s,
        Err(e) => panic!("{}", render(&src, &e)),
    }
}

fn render(src: &Sources, errs: &[DslError]) -> String {
    errs.iter()
        .map(|e| match e.span {
            Some(span) => {
                let (l, c) = src.line_col(span);
                let f = src
                    .files
                    .get(span.file as usize)
                    .map(|f| f.path.display().to_string())
                    .unwrap_or_default();
                format!("{f}:{l}:{c}: {e}")
            }
            None => e.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_bank_in_the_language_equals_the_bank_through_the_api() {
    let text = bank_setting();
    let api = bank::setting();
    assert_eq!(text.alphabet(), api.alphabet());
    let s = bank::observation(&api);
    let a = recognize_all(&text, &s, None);
    let b = recognize_all(&api, &s, None);
    for (la, lb) in a.levels.iter().zip(&b.levels) {
        let names = |st: &Setting, l: &ets::ets::hierarchy::LevelResult| -> Vec<(String, Vec<u32>)> {
            let mut v: Vec<_> = l
                .elements
                .iter()
                .map(|e| (st.class(e.class).name.clone(), e.nodes.clone()))
                .collect();
            v.sort();
            v
        };
        assert_eq!(names(&text, la), names(&api, lb));
        assert_eq!(la.overlaps().edges.len(), lb.overlaps().edges.len());
    }
    assert_eq!(a.levels[1].elements.len(), 1);
}

/// Every setting shipped (the examples and the Go setting).
fn shipped_settings() -> Vec<PathBuf> {
    let mut v = Vec::new();
    for dir in ["examples/bank", "examples/parcels", "grammars/go"] {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "ets") {
                v.push(p);
            }
        }
    }
    v.sort();
    v
}

#[test]
fn parse_print_parse_is_the_identity_on_the_examples() {
    let files = shipped_settings();
    assert!(files.len() >= 11, "{files:?}");
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let ast = parse(&text, 0).unwrap();
        let printed = print(&ast);
        let again = parse(&printed, 0).unwrap();
        assert_eq!(ast, again, "{}", f.display());
        assert_eq!(print(&again), printed, "printing is idempotent: {}", f.display());
        // lines fit, but for comments (the author's text) and a single name too long to break
        for l in printed.lines() {
            let t = l.trim_start();
            assert!(
                l.chars().count() <= ets::dsl::printer::WIDTH || t.starts_with("//") || !t.contains(' '),
                "{}: a line of {} characters: {l}",
                f.display(),
                l.chars().count()
            );
        }
        // comments and blank lines survive
        let comments = |s: &str| s.lines().filter(|l| l.trim_start().starts_with("//")).count();
        assert_eq!(comments(&text), comments(&printed), "{}", f.display());
        if f.ends_with("bank.ets") {
            assert!(
                printed.contains("// Shared by account_use and shopping_trip"),
                "comments survive"
            );
        }
    }
}

#[test]
fn the_examples_are_formatted_canonically() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ets"))
        .arg("fmt")
        .arg("--check")
        .args(shipped_settings().iter().filter(|p| p.starts_with("examples")))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
}

/// The grammar and the parser name the same productions.
#[test]
fn grammar_and_parser_do_not_drift() {
    let g = std::fs::read_to_string("grammars/ets.ebnf").unwrap();
    let mut prods: Vec<String> = Vec::new();
    let mut in_comment = false;
    for line in g.lines() {
        let t = line.trim();
        if t.starts_with("(*") {
            in_comment = true;
        }
        if !in_comment
            && let Some((lhs, _)) = t.split_once(" = ").map(|(l, r)| (l.trim(), r))
            && lhs
                .chars()
                .all(|c| c.is_ascii_lowercase() || c == '_' || c.is_ascii_digit())
            && !lhs.is_empty()
        {
            prods.push(lhs.to_string());
        }
        if t.ends_with("*)") {
            in_comment = false;
        }
    }
    prods.sort();
    let src = std::fs::read_to_string("src/dsl/parser.rs").unwrap();
    let mut fns: Vec<String> = src
        .lines()
        .filter_map(|l| {
            l.trim()
                .strip_prefix("fn p_")
                .map(|r| r.split('(').next().unwrap().to_string())
        })
        .collect();
    fns.sort();
    assert!(prods.len() > 30, "{prods:?}");
    assert_eq!(prods, fns, "grammars/ets.ebnf productions vs parser functions p_*");
}

#[test]
fn cli_check_generate_recognize_and_fmt_on_the_bank_example() {
    let ets = env!("CARGO_BIN_EXE_ets");
    let run = |args: &[&str]| std::process::Command::new(ets).args(args).output().unwrap();
    let out = run(&["check", "examples/bank/bank.ets"]);
    assert!(out.status.success());
    let out = run(&["fmt", "--check", "examples/bank/bank.ets", "examples/bank/alphabet.ets"]);
    assert!(
        out.status.success(),
        "examples are canonically formatted: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    for seed in 0..5u64 {
        let out = run(&[
            "generate",
            "--setting",
            "examples/bank/bank.ets",
            "--class",
            "shopping_trip",
            "--seed",
            &seed.to_string(),
        ]);
        assert!(out.status.success());
        let dir = std::path::Path::new("target/dsl-cli");
        std::fs::create_dir_all(dir).unwrap();
        let f = dir.join(format!("gen{seed}.json"));
        std::fs::write(&f, &out.stdout).unwrap();
        let out = run(&[
            "recognize",
            "--setting",
            "examples/bank/bank.ets",
            "--struct",
            f.to_str().unwrap(),
        ]);
        assert!(out.status.success());
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let trips = v["levels"][0]["elements"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["class"] == "shopping_trip")
            .count();
        assert_eq!(trips, 1, "the generated trip is recognised, once (seed {seed})");
    }
    let out = run(&["generate", "--setting", "examples/bank/bank.ets", "--class", "nope"]);
    assert_eq!(out.status.code(), Some(1));
}

/// Every class-language file the repository ships (the Go setting in `grammars/go/`, the worked
/// domains in `examples/`) is in the form `ets fmt` writes (issue 17: `fmt --check` flagged the
/// shipped Go setting).
#[test]
fn every_shipped_class_file_is_canonically_formatted() {
    fn below(dir: &std::path::Path, out: &mut Vec<String>) {
        let mut v: Vec<_> = std::fs::read_dir(dir).unwrap().flatten().map(|e| e.path()).collect();
        v.sort();
        for p in v {
            if p.is_dir() {
                below(&p, out);
            } else if p.extension().is_some_and(|e| e == "ets") {
                out.push(p.display().to_string());
            }
        }
    }
    let mut files = Vec::new();
    below(std::path::Path::new("grammars"), &mut files);
    below(std::path::Path::new("examples"), &mut files);
    assert!(
        files.iter().any(|f| f.ends_with("level1.ets")),
        "the Go setting is among them: {files:?}"
    );
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ets"))
        .arg("fmt")
        .arg("--check")
        .args(&files)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "shipped class files are canonically formatted:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
