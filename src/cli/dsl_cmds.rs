//! `ets check`, `ets fmt`, `ets generate`, `ets recognize`: the class language and the engine's two
//! directions (generation and recognition) for any domain, at any level.

use clap::Args;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use ets::dsl::{DslError, ErrorKind, Sources, load_setting};
use ets::ets::hierarchy::{ApplicationJson, ElementJson, HierarchyJson, LevelJson, OverlapJson};
use ets::ets::json::{self, Ident, Names};
use ets::ets::{
    Element, GenerateOptions, LevelStruct, OverlapGraph, Setting, Struct, generate, recognize_all, recognize_level,
};

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
    /// The class to generate an element of (any level).
    #[arg(long)]
    pub class: String,
    /// Seed of the random choices.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Most generation steps.
    #[arg(long, default_value_t = 64)]
    pub max_steps: usize,
    /// A struct (of the class's level) the element forms in: it supplies the first step's context
    /// when it holds a match of it (§4.5.2), and the output is it with the element added.
    #[arg(long)]
    pub environment: Option<PathBuf>,
}

#[derive(Args)]
pub struct RecognizeArgs {
    /// Setting files.
    #[arg(long, required = true, num_args = 1..)]
    pub setting: Vec<PathBuf>,
    /// A struct (JSON, docs/formats.md): level 0, or a level-n struct of the setting's classes.
    #[arg(long = "struct")]
    pub strukt: PathBuf,
    /// Highest level to recognise (default: the setting's highest).
    #[arg(long)]
    pub level: Option<u32>,
}

/// Renders diagnostics with miette: file:line:col, the source line with a caret, secondary
/// labels (the other end of an unterminated block, a first declaration) and help.
pub fn render(sources: &Sources, errors: &[DslError]) -> String {
    let handler = miette::GraphicalReportHandler::new_themed(miette::GraphicalTheme::unicode_nocolor()).with_width(100);
    let mut out = String::new();
    for e in errors {
        let prefix = if e.is_error() { "" } else { "warning: " };
        let severity = if e.is_error() {
            miette::Severity::Error
        } else {
            miette::Severity::Warning
        };
        let Some(span) = e.span.filter(|s| (s.file as usize) < sources.files.len()) else {
            let mut r = miette::MietteDiagnostic::new(format!("{prefix}{e}")).with_severity(severity);
            if let Some(h) = &e.help {
                r = r.with_help(h.clone());
            }
            let _ = handler.render_report(&mut out, &r);
            continue;
        };
        let f = &sources.files[span.file as usize];
        let (name, text) = (f.path.display().to_string(), f.text.as_str());
        let (l, c) = sources.line_col(span);
        let clamp = |s: ets::dsl::ast::Span| {
            let start = (s.start as usize).min(text.len());
            let len = (s.end.saturating_sub(s.start) as usize).min(text.len() - start);
            start..start + len.max(usize::from(start < text.len()))
        };
        let primary = match e.kind {
            ErrorKind::Unterminated { .. } => "the file ends here",
            _ => "here",
        };
        let mut labels = vec![miette::LabeledSpan::new_primary_with_span(
            Some(primary.into()),
            clamp(span),
        )];
        let mut notes = Vec::new();
        for (s, t) in &e.labels {
            if s.file == span.file {
                labels.push(miette::LabeledSpan::new_with_span(Some(t.clone()), clamp(*s)));
            } else if let Some(g) = sources.files.get(s.file as usize) {
                let (l2, c2) = sources.line_col(*s);
                notes.push(format!("{t}: {}:{l2}:{c2}", g.path.display()));
            }
        }
        if let Some(h) = &e.help {
            notes.push(h.clone());
        }
        let mut d = miette::MietteDiagnostic::new(format!("{prefix}{name}:{l}:{c}: {e}"))
            .with_severity(severity)
            .with_labels(labels);
        if !notes.is_empty() {
            d = d.with_help(notes.join("\n"));
        }
        let report = miette::Report::new(d).with_source_code(miette::NamedSource::new(name, text.to_string()));
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
        Ok((st, origins)) => {
            if !origins.warnings.is_empty() {
                eprint!("{}", render(&sources, &origins.warnings));
                eprintln!("{} warning(s)", origins.warnings.len());
            }
            print!("{}", summary(&st));
            Ok(ExitCode::SUCCESS)
        }
        Err(diags) => {
            eprint!("{}", render(&sources, &diags));
            let errors = diags.iter().filter(|d| d.is_error()).count();
            let warnings = diags.len() - errors;
            if warnings > 0 {
                eprintln!("{errors} error(s), {warnings} warning(s)");
            } else {
                eprintln!("{errors} error(s)");
            }
            Ok(ExitCode::from(1))
        }
    }
}

pub fn fmt(a: FmtArgs) -> miette::Result<ExitCode> {
    let mut bad = false;
    for f in &a.files {
        let text = ets::dsl::load::read_source(f).map_err(|e| miette::miette!("cannot read `{}`: {e}", f.display()))?;
        let sources = Sources {
            files: vec![ets::dsl::SourceFile {
                path: f.clone(),
                text: text.clone(),
            }],
        };
        let (tree, errors) = ets::dsl::parser::parse_all(&text, 0);
        if !errors.is_empty() {
            eprint!("{}", render(&sources, &errors));
            bad = true;
            continue;
        }
        let mut out = ets::dsl::printer::print(&tree);
        if text.starts_with('\u{feff}') {
            out.insert(0, '\u{feff}'); // the editor's choice, kept
        }
        if out != text {
            if a.check {
                println!("would reformat {}", f.display());
                bad = true;
            } else {
                std::fs::write(f, out).map_err(|e| miette::miette!("cannot write `{}`: {e}", f.display()))?;
                println!("formatted {}", f.display());
            }
        }
    }
    Ok(if bad { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// Reads a file named on the command line.
pub fn read(p: &Path) -> miette::Result<String> {
    std::fs::read_to_string(p).map_err(|e| miette::miette!("cannot read `{}`: {e}", p.display()))
}

/// A struct file read against a setting: level 0 (with the names of named primitives), or level n
/// (with its nodes' identities).
pub enum AnyStruct {
    /// Level 0 (boxed: a struct is larger than a level-n one's handle).
    Level0(Box<Struct>, Names),
    /// Level n ≥ 1.
    LevelN(LevelStruct, Vec<Ident>),
}

/// Reads a struct file of any level against `st`.
pub fn read_any(p: &Path, st: &Setting) -> miette::Result<AnyStruct> {
    let text = read(p)?;
    let fail = |e: json::JsonError| miette::miette!("{}: {e}", p.display());
    if json::struct_level(&text).map_err(fail)? == 0 {
        let (s, names) = json::read_struct_named(&text, Some(st.alphabet().clone())).map_err(fail)?;
        Ok(AnyStruct::Level0(Box::new(s), names))
    } else {
        let (ls, ids) = json::read_level_struct(&text, st).map_err(fail)?;
        Ok(AnyStruct::LevelN(ls, ids))
    }
}

pub fn generate_cmd(a: GenerateArgs) -> miette::Result<ExitCode> {
    let st = setting(&a.setting)?;
    let class = st.class_id(&a.class).ok_or_else(|| {
        let names: Vec<&str> = st.classes().iter().map(|c| c.name.as_str()).collect();
        miette::miette!(
            "no class `{}` in the setting (its classes: {})",
            a.class,
            names.join(", ")
        )
    })?;
    let opts = GenerateOptions {
        max_steps: a.max_steps,
        environment_context: a.environment.is_some(),
        ..Default::default()
    };
    let level = st.class(class).level;
    let env = a.environment.as_deref().map(|p| read_any(p, &st)).transpose()?;
    let failed = |e: String| miette::miette!("no element of `{}` could be generated: {e}", a.class);
    match env {
        None | Some(AnyStruct::Level0(..)) if level == 0 => {
            let (mut s, names) = match env {
                Some(AnyStruct::Level0(s, n)) => (*s, n),
                _ => (Struct::new(st.alphabet().clone()), Names::new()),
            };
            let before = s.len();
            generate(&st, class, &mut s, a.seed, opts, &mut |_, _, _| {}).map_err(failed)?;
            // The new primitives get the next small ids after the environment's numeric ones.
            let first = s
                .nodes()
                .take(before)
                .map(|n| s.primitive(n).id)
                .filter(|id| !names.contains_key(id))
                .max()
                .map_or(1, |m| m + 1);
            let renamed: std::collections::HashMap<u64, u64> = s
                .nodes()
                .skip(before)
                .zip(first..)
                .map(|(n, id)| (s.primitive(n).id, id))
                .collect();
            let s = ets::ets::relabel(&s, |id| renamed.get(&id).copied().unwrap_or(id))
                .map_err(|e| miette::miette!("{e}"))?;
            println!("{}", json::write_struct_named(&s, &names));
        }
        None | Some(AnyStruct::LevelN(..)) if level > 0 => {
            let (mut ls, mut ids) = match env {
                Some(AnyStruct::LevelN(ls, ids)) if ls.level == level => (ls, ids),
                Some(AnyStruct::LevelN(ls, _)) => {
                    return Err(miette::miette!(
                        "`{}` is a level-{level} class, but the environment is a level-{} struct",
                        a.class,
                        ls.level
                    ));
                }
                _ => (LevelStruct::new(level, st.classes().len()), Vec::new()),
            };
            let before = ls.len();
            generate(&st, class, &mut ls, a.seed, opts, &mut |_, _, _| {}).map_err(failed)?;
            // new nodes: the next numbers not taken by the environment's numeric ids
            let first = ids
                .iter()
                .filter_map(|i| if let Ident::Id(n) = i { Some(n + 1) } else { None })
                .max()
                .unwrap_or(0);
            ids.extend((first..).take(ls.len() - before).map(Ident::Id));
            println!("{}", json::write_level_struct(&ls, &st, Some(&ids)));
        }
        _ => {
            return Err(miette::miette!(
                "`{}` is a level-{level} class, but the environment is a struct of another level",
                a.class
            ));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Recognition from a level-n struct upwards: levels `from..=top`.
fn recognize_from(st: &Setting, ls: &LevelStruct, top: Option<u32>) -> Vec<(u32, Vec<Element>, LevelStruct)> {
    let top = top.unwrap_or(st.max_level()).min(st.max_level());
    let mut out: Vec<(u32, Vec<Element>, LevelStruct)> = Vec::new();
    let mut n = ls.level;
    while n <= top {
        let host = out.last().map(|l| &l.2).unwrap_or(ls);
        let mut elements = recognize_level(st, n, host);
        elements.retain(|e| e.complete);
        let above = LevelStruct::from_elements(st, n + 1, &elements);
        out.push((n, elements, above));
        n += 1;
    }
    out
}

/// The recognition JSON of levels recognised from a level-n struct.
fn level_json(st: &Setting, levels: &[(u32, Vec<Element>, LevelStruct)], ids: &[Ident]) -> HierarchyJson {
    HierarchyJson {
        levels: levels
            .iter()
            .enumerate()
            .map(|(i, (level, elements, above))| {
                let node = |k: u32| -> String {
                    if i == 0 {
                        ids[k as usize].text()
                    } else {
                        format!("L{}:{k}", level - 1)
                    }
                };
                LevelJson {
                    level: *level,
                    elements: elements
                        .iter()
                        .enumerate()
                        .map(|(j, e)| ElementJson {
                            id: format!("L{level}:{j}"),
                            class: st.class(e.class).name.clone(),
                            nodes: e.nodes.iter().map(|&k| node(k)).collect(),
                            applications: e
                                .applications
                                .iter()
                                .map(|ap| ApplicationJson {
                                    constraint: st.constraint(ap.constraint).name.clone(),
                                    nodes: ap.nodes.iter().map(|&k| node(k)).collect(),
                                })
                                .collect(),
                            complete: e.complete,
                        })
                        .collect(),
                    overlaps: OverlapGraph::of(above)
                        .edges
                        .iter()
                        .map(|(x, y, cs)| OverlapJson {
                            a: format!("L{level}:{x}"),
                            b: format!("L{level}:{y}"),
                            constraints: cs.iter().map(|&c| st.constraint(c).name.clone()).collect(),
                        })
                        .collect(),
                }
            })
            .collect(),
    }
}

pub fn recognize_cmd(a: RecognizeArgs) -> miette::Result<ExitCode> {
    let st = setting(&a.setting)?;
    let j = match read_any(&a.strukt, &st)? {
        AnyStruct::Level0(s, names) => {
            let h = recognize_all(&st, &s, a.level);
            let mut j = HierarchyJson::new(&st, &s, &h);
            if !names.is_empty()
                && let Some(l0) = j.levels.first_mut()
            {
                let name = |x: &mut String| {
                    if let Some(n) = x.parse::<u64>().ok().and_then(|id| names.get(&id)) {
                        *x = n.clone();
                    }
                };
                for e in &mut l0.elements {
                    e.nodes.iter_mut().for_each(name);
                    for ap in &mut e.applications {
                        ap.nodes.iter_mut().for_each(name);
                    }
                }
            }
            j
        }
        AnyStruct::LevelN(ls, ids) => level_json(&st, &recognize_from(&st, &ls, a.level), &ids),
    };
    println!("{}", serde_json::to_string_pretty(&j).expect("serialisable"));
    Ok(ExitCode::SUCCESS)
}
