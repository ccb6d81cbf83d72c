//! Property tests of the class language: no input makes it panic (random and mutated inputs), and
//! printing is a right inverse of parsing.

use proptest::prelude::*;
use std::collections::BTreeMap;
use std::path::PathBuf;

use ets::dsl::ast::{Name, Sched, Span};
use ets::dsl::{MemResolver, load_setting_with, parser::parse, printer::print};

fn bank() -> String {
    std::fs::read_to_string("examples/bank/bank.ets").unwrap()
}

fn alphabet() -> String {
    std::fs::read_to_string("examples/bank/alphabet.ets").unwrap()
}

const TOKENS: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    "<",
    ">",
    "⟨",
    "⟩",
    ";",
    ",",
    ":",
    ".",
    "->",
    "=",
    "*",
    "+",
    "?",
    "|",
    "[",
    "]",
    "$",
    "Θ",
    "\"",
    "//",
    "/*",
    "*/",
    "context",
    "level",
    "class",
    "constraint",
    "set",
    "schedule",
    "include",
    "overlaps",
    "import",
    "table",
    "for",
    "primal",
    "primitive",
    "x",
    "c1_1",
    "Con_spend",
    "0",
    "99999999999",
    "é",
    "\n",
    " ",
];

#[derive(Debug, Clone)]
enum Edit {
    Delete(usize, usize),
    Insert(usize, usize),
    Duplicate(usize, usize, usize),
}

fn edits() -> impl Strategy<Value = Vec<Edit>> {
    prop::collection::vec(
        prop_oneof![
            (any::<usize>(), 0usize..20).prop_map(|(a, n)| Edit::Delete(a, n)),
            (any::<usize>(), 0usize..TOKENS.len()).prop_map(|(a, t)| Edit::Insert(a, t)),
            (any::<usize>(), 0usize..40, any::<usize>()).prop_map(|(a, n, b)| Edit::Duplicate(a, n, b)),
        ],
        1..6,
    )
}

fn apply(text: &str, es: &[Edit]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for e in es {
        let len = chars.len().max(1);
        match *e {
            Edit::Delete(a, n) => {
                let a = a % len;
                let b = (a + n).min(chars.len());
                chars.drain(a.min(chars.len())..b);
            }
            Edit::Insert(a, t) => {
                let a = a % (chars.len() + 1);
                for (i, c) in TOKENS[t].chars().enumerate() {
                    chars.insert(a + i, c);
                }
            }
            Edit::Duplicate(a, n, b) => {
                let a = a % len;
                let piece: Vec<char> = chars[a.min(chars.len())..(a + n).min(chars.len())].to_vec();
                let b = b % (chars.len() + 1);
                for (i, c) in piece.into_iter().enumerate() {
                    chars.insert(b + i, c);
                }
            }
        }
    }
    chars.into_iter().collect()
}

fn compile_mem(main: &str, alpha: &str) {
    let mut files = BTreeMap::new();
    files.insert(PathBuf::from("m/bank.ets"), main.to_string());
    files.insert(PathBuf::from("m/alphabet.ets"), alpha.to_string());
    let _ = load_setting_with(&[PathBuf::from("m/bank.ets")], &MemResolver(files));
}

proptest! {
    // ETS_FUZZ_CASES raises the count for a long fuzzing run (see the issue notes for figures).
    #![proptest_config(ProptestConfig {
        cases: std::env::var("ETS_FUZZ_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(1500),
        .. ProptestConfig::default()
    })]

    #[test]
    fn mutated_settings_never_panic_and_round_trip_when_they_parse(es in edits(), which in 0usize..2) {
        let (main, alpha) = if which == 0 { (apply(&bank(), &es), alphabet()) } else { (bank(), apply(&alphabet(), &es)) };
        compile_mem(&main, &alpha);
        let text = if which == 0 { &main } else { &alpha };
        if let Ok(ast) = parse(text, 0) {
            let printed = print(&ast);
            let again = parse(&printed, 0);
            prop_assert!(again.is_ok(), "printed text does not parse:\n{}", printed);
            prop_assert_eq!(again.unwrap(), ast);
        }
    }

    #[test]
    fn random_text_never_panics(s in "\\PC{0,200}", toks in prop::collection::vec(0usize..TOKENS.len(), 0..60)) {
        let _ = parse(&s, 0);
        let joined: String = toks.iter().map(|&t| TOKENS[t]).collect::<Vec<_>>().join(" ");
        let _ = parse(&joined, 0);
        compile_mem(&joined, &alphabet());
    }

    #[test]
    fn schedules_print_and_parse_back(s in sched()) {
        let text = format!("class k level 0 {{\n    schedule {};\n}}\n", print_sched(&s));
        let ast = parse(&text, 0).unwrap();
        let printed = print(&ast);
        prop_assert_eq!(parse(&printed, 0).unwrap(), ast);
    }
}

fn name(s: &str) -> Name {
    Name {
        text: s.into(),
        span: Span::default(),
    }
}

fn sched() -> impl Strategy<Value = Sched> {
    let leaf = prop::sample::select(vec!["A", "B", "C", "D"]).prop_map(|s| Sched::Set(name(s)));
    leaf.prop_recursive(4, 24, 3, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 2..4).prop_map(Sched::Seq),
            prop::collection::vec(inner.clone(), 2..4).prop_map(Sched::Alt),
            (inner, 0u32..3, prop::option::of(3u32..5)).prop_map(|(b, min, max)| Sched::Repeat {
                body: Box::new(b),
                min,
                max
            }),
        ]
    })
}

/// An independent, fully parenthesised printer for schedules.
fn print_sched(s: &Sched) -> String {
    match s {
        Sched::Set(n) => n.text.clone(),
        Sched::Seq(v) => format!("({})", v.iter().map(print_sched).collect::<Vec<_>>().join(", ")),
        Sched::Alt(v) => format!("({})", v.iter().map(print_sched).collect::<Vec<_>>().join(" | ")),
        Sched::Repeat { body, min, max } => match max {
            Some(m) => format!("({}){{{min},{m}}}", print_sched(body)),
            None => format!("({}){{{min},}}", print_sched(body)),
        },
    }
}
