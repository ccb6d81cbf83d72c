//! `ets check`, `ets fmt`, `ets generate`, `ets recognize`.

use clap::Args;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;

use ets::dsl::{DslError, Sources, load_setting};
use ets::ets::{GenerateOptions, LevelStruct, Setting, Struct, generate, json, recognize_all};

#[derive(Args)]
pub struct CheckArgs {
    /// Setting files (their imports are read too).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
}

#[derive(Args)]
pub struct FmtArgs {
    /// Files to format in place.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Only report files whose formatting differs (exit 1 if any).
    #[arg(long)]
    pub check: bool,
}

#[derive(Args)]
pub struct GenerateArgs {
    /// Setting files.
    #[arg(long, required = true, num_args = 1..)]
    pub setting: Vec<PathBuf>,
    /// The class to generate an element of.
    #[arg(long)]
    pub class: String,
    /// Seed of the random choices.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Most generation steps.
    #[arg(long, default_value_t = 64)]
    pub max_steps: usize,
}

#[derive(Args)]
pub struct RecognizeArgs {
    /// Setting files.
    #[arg(long, required = true, num_args = 1..)]
    pub setting: Vec<PathBuf>,
    /// A struct (JSON, docs/formats.md).
    #[arg(long = "struct")]
    pub strukt: PathBuf,
    /// Highest level to recognise (default: the setting's highest).
    #[arg(long)]
    pub level: Option<u32>,
}

/// Renders diagnostics with miette: file:line:col, the source line and a caret.
pub fn render(sources: &Sources, errors: &[DslError]) -> String {
    let handler = miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor()).with_width(100);
    let mut out = String::new();
    for e in errors {
        let (l, c) = sources.line_col(e.span);
        let (name, text) = sources
            .files
            .get(e.span.file as usize)
            .map(|f| (f.path.display().to_string(), f.text.clone()))
            .unwrap_or_else(|| ("<command line>".into(), String::new()));
        let len = (e.span.end.saturating_sub(e.span.start)).max(1) as usize;
        let start = (e.span.start as usize).min(text.len());
        let len = len.min(text.len().saturating_sub(start));
        let report = miette::miette!(
            labels = vec![miette::LabeledSpan::at(start..start + len, "here")],
            "{name}:{l}:{c}: {e}"
        )
        .with_source_code(miette::NamedSource::new(name, text));
        let _ = handler.render_report(&mut out, report.as_ref());
    }
    out
}

pub fn setting(files: &[PathBuf]) -> miette::Result<Setting> {
    let (sources, r) = load_setting(files);
    r.map(|(s, _)| s)
        .map_err(|e| miette::miette!("{}", render(&sources, &e)))
}

/// A one-screen summary of a setting.
pub fn summary(st: &Setting) -> String {
    let al = st.alphabet();
    let mut out = format!(
        "{} primal class(es), {} primitive(s): {}\n",
        al.primal_classes().len(),
        al.len(),
        al.primitives()
            .iter()
            .map(|p| p.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let mut users: BTreeMap<u32, usize> = BTreeMap::new();
    for c in st.classes() {
        let mut cs = c.constraints();
        cs.extend(c.overlaps.iter().copied());
        cs.sort_unstable();
        cs.dedup();
        for x in cs {
            *users.entry(x.0).or_default() += 1;
        }
    }
    for level in 0..=st.max_level() {
        let cons: Vec<_> = st
            .constraints()
            .iter()
            .enumerate()
            .filter(|(_, c)| c.level == level)
            .collect();
        let shared = cons
            .iter()
            .filter(|(i, _)| users.get(&(*i as u32)).copied().unwrap_or(0) >= 2)
            .count();
        let classes = st.classes_at(level);
        let names: Vec<String> = classes
            .iter()
            .map(|&c| {
                let cl = st.class(c);
                match &cl.symbol {
                    Some(s) => format!("{} ({s})", cl.name),
                    None => cl.name.clone(),
                }
            })
            .collect();
        out.push_str(&format!(
            "level {level}: {} constraint(s), {shared} shared by several classes; {} class(es): {}\n",
            cons.len(),
            classes.len(),
            names.join(", ")
        ));
    }
    out
}

pub fn check(a: CheckArgs) -> miette::Result<ExitCode> {
    let (sources, r) = load_setting(&a.files);
    match r {
        Ok((st, _)) => {
            print!("{}", summary(&st));
            Ok(ExitCode::SUCCESS)
        }
        Err(errors) => {
            eprint!("{}", render(&sources, &errors));
            eprintln!("{} error(s)", errors.len());
            Ok(ExitCode::from(1))
        }
    }
}

pub fn fmt(a: FmtArgs) -> miette::Result<ExitCode> {
    let mut bad = false;
    for f in &a.files {
        let text = std::fs::read_to_string(f).map_err(|e| miette::miette!("cannot read {}: {e}", f.display()))?;
        let sources = Sources {
            files: vec![ets::dsl::compile::SourceFile {
                path: f.clone(),
                text: text.clone(),
            }],
        };
        let tree = match ets::dsl::parser::parse(&text, 0) {
            Ok(t) => t,
            Err(e) => {
                eprint!("{}", render(&sources, &[e]));
                bad = true;
                continue;
            }
        };
        let out = ets::dsl::printer::print(&tree);
        if out != text {
            if a.check {
                println!("would reformat {}", f.display());
                bad = true;
            } else {
                std::fs::write(f, out).map_err(|e| miette::miette!("cannot write {}: {e}", f.display()))?;
                println!("formatted {}", f.display());
            }
        }
    }
    Ok(if bad { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

pub fn generate_cmd(a: GenerateArgs) -> miette::Result<ExitCode> {
    let st = setting(&a.setting)?;
    let class = st
        .class_id(&a.class)
        .ok_or_else(|| miette::miette!("no class `{}` in the setting", a.class))?;
    let opts = GenerateOptions {
        max_steps: a.max_steps,
        ..Default::default()
    };
    let level = st.class(class).level;
    if level == 0 {
        let mut s = Struct::new(st.alphabet().clone());
        generate(&st, class, &mut s, a.seed, opts, &mut |_, _, _| {}).map_err(|e| miette::miette!("{e}"))?;
        println!("{}", json::write_struct(&s));
    } else {
        let mut ls = LevelStruct::new(level, st.classes().len());
        let e = generate(&st, class, &mut ls, a.seed, opts, &mut |_, _, _| {}).map_err(|e| miette::miette!("{e}"))?;
        use ets::ets::Host;
        let nodes: Vec<serde_json::Value> = (0..ls.len() as u32)
            .map(|n| serde_json::json!({"id": n, "class": st.class(ets::ets::ClassId(ls.node_kind(n))).name}))
            .collect();
        let links: Vec<serde_json::Value> = ls
            .links()
            .iter()
            .map(|l| serde_json::json!({"constraint": st.constraint(l.constraint).name, "members": l.members}))
            .collect();
        let j = serde_json::json!({"level": level, "nodes": nodes, "links": links, "element": e.nodes});
        println!("{}", serde_json::to_string_pretty(&j).expect("serialisable"));
    }
    Ok(ExitCode::SUCCESS)
}

pub fn recognize_cmd(a: RecognizeArgs) -> miette::Result<ExitCode> {
    let st = setting(&a.setting)?;
    let text =
        std::fs::read_to_string(&a.strukt).map_err(|e| miette::miette!("cannot read {}: {e}", a.strukt.display()))?;
    let s = json::read_struct(&text, Some(st.alphabet().clone()))
        .map_err(|e| miette::miette!("{}: {e}", a.strukt.display()))?;
    let h = recognize_all(&st, &s, a.level);
    let j = ets::ets::hierarchy::HierarchyJson::new(&st, &s, &h);
    println!("{}", serde_json::to_string_pretty(&j).expect("serialisable"));
    Ok(ExitCode::SUCCESS)
}
