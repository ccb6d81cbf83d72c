//! `ets evolve`: a sequence of steps of any domain fed into the domain-free timeline
//! (`ets::ets::timeline`, §3.3.2, §3.4, §5.1.1), and every element of every level printed with its
//! life — born, completed, ended (and why), merged into, its formative history — in the JSON of
//! `ets classify --timeline` (`docs/formats.md`, "Timeline JSON" and "Steps").

use clap::{Args, ValueEnum};
use serde::Serialize;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use ets::ets::ids::ElementId;
use ets::ets::json::{StepFeeder, read_steps};
use ets::ets::timeline::lives::{TimelineJson, TimelineLevelJson};
use ets::ets::timeline::{EndKind, LevelDelta, Timeline};

use super::dsl_cmds::{read, setting};

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
}

#[derive(Args)]
pub struct EvolveArgs {
    /// The class setting (a `.ets` file; its imports are read with it).
    pub setting: PathBuf,
    /// The steps, in order: each `ets-struct/1` file is one step (the primitives it adds, the
    /// processes into them, earlier primitives named by identity); an `ets-timeline/1` file holds
    /// several.
    #[arg(required = true, num_args = 1..)]
    pub steps: Vec<PathBuf>,
    /// Classify levels 0 to this one (default: every level of the setting).
    #[arg(long)]
    pub level: Option<u32>,
    /// Also list elements still forming (never complete).
    #[arg(long)]
    pub forming: bool,
    /// JSON: add, per step, what it changed at every level (born, completed, extended, forked,
    /// merged, ended). The text format always shows it.
    #[arg(long)]
    pub deltas: bool,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

/// The whole run, as `ets classify --timeline --format json` prints a game's (the engine's one
/// serialiser of lives; `moves` is the last step, `vertices` the primitives an element involves),
/// with `--deltas` the steps beside it.
#[derive(Serialize)]
struct EvolveJson {
    #[serde(flatten)]
    lives: TimelineJson,
    /// With `--deltas`: per step, per level, what it changed.
    #[serde(skip_serializing_if = "Option::is_none")]
    steps: Option<Vec<StepJson>>,
}

#[derive(Serialize)]
struct StepJson {
    step: u32,
    /// The file the step came from.
    file: String,
    primitives: usize,
    levels: Vec<DeltaJson>,
}

#[derive(Serialize)]
struct DeltaJson {
    level: u32,
    born: Vec<String>,
    completed: Vec<String>,
    extended: Vec<String>,
    forked: Vec<[String; 2]>,
    merged: Vec<[String; 2]>,
    ended: Vec<String>,
}

fn delta_json(level: u32, d: &LevelDelta) -> DeltaJson {
    let id = |e: &ElementId| format!("L{level}:{e}");
    let pair = |(a, b): &(ElementId, ElementId)| [id(a), id(b)];
    DeltaJson {
        level,
        born: d.born.iter().map(id).collect(),
        completed: d.completed.iter().map(id).collect(),
        extended: d.extended.iter().map(id).collect(),
        forked: d.forked.iter().map(pair).collect(),
        merged: d.merged.iter().map(pair).collect(),
        ended: d.ended.iter().map(id).collect(),
    }
}

/// The primitives element `e` of `level` involves at step `t`: at level 0 its primitives; above,
/// those of its members present at `t` (through the applications it had made by then).
fn primitives(tl: &Timeline, level: u32, e: ElementId, t: u32, out: &mut Vec<u32>) {
    let lv = tl.level(level);
    if level == 0 {
        out.extend(lv.nodes(e).iter().copied());
        return;
    }
    let host = lv.host();
    let mut seen = Vec::new();
    for (m, step) in lv.applications_with_steps(e) {
        if step > t {
            break;
        }
        for x in lv.match_nodes(m) {
            if seen.contains(&x) || !host.present(x, t) {
                continue;
            }
            seen.push(x);
            primitives(tl, level - 1, host.below(x), t, out);
        }
    }
}

fn lives(tl: &Timeline, feeder: &StepFeeder, forming: bool) -> TimelineJson {
    ets::ets::timeline::lives::lives(tl, tl.step().unwrap_or(0), forming, |level, e, t| {
        let mut nodes = Vec::new();
        primitives(tl, level, e, t, &mut nodes);
        nodes.sort_unstable();
        nodes.dedup();
        nodes.iter().map(|&n| feeder.ident(n).text()).collect()
    })
}

pub fn run(a: EvolveArgs) -> miette::Result<ExitCode> {
    let st = Arc::new(setting(std::slice::from_ref(&a.setting))?);
    if let Some(l) = a.level
        && l > st.max_level()
    {
        return Err(miette::miette!(
            "--level {l}: the class setting has levels 0–{}",
            st.max_level()
        ));
    }
    let mut tl = Timeline::new(st.clone(), a.level);
    let mut feeder = StepFeeder::new();
    let mut steps = Vec::new();
    for p in &a.steps {
        let text = read(p)?;
        let file_steps = read_steps(&text, st.alphabet()).map_err(|e| miette::miette!("{}: {e}", p.display()))?;
        let several = file_steps.len() > 1;
        for (k, s) in file_steps.iter().enumerate() {
            let before = tl.strukt().len();
            let t = feeder.feed(&mut tl, s).map_err(|e| {
                if several {
                    miette::miette!("{}: step {} of the file: {e}", p.display(), k + 1)
                } else {
                    miette::miette!("{}: {e}", p.display())
                }
            })?;
            let file = if several {
                format!("{} (step {} of the file)", p.display(), k + 1)
            } else {
                p.display().to_string()
            };
            steps.push(StepJson {
                step: t,
                file,
                primitives: tl.strukt().len() - before,
                levels: tl
                    .levels()
                    .iter()
                    .map(|lv| delta_json(lv.number(), lv.delta()))
                    .collect(),
            });
        }
    }
    let lives = lives(&tl, &feeder, a.forming);
    match a.format {
        Format::Json => {
            let j = EvolveJson {
                lives,
                steps: a.deltas.then_some(steps),
            };
            println!("{}", serde_json::to_string_pretty(&j).expect("serialisable"));
        }
        Format::Text => print_text(&tl, &steps, &lives.levels),
    }
    Ok(ExitCode::SUCCESS)
}

fn print_text(tl: &Timeline, steps: &[StepJson], levels: &[TimelineLevelJson]) {
    println!(
        "{} step(s), {} primitives, levels 0–{}",
        steps.len(),
        tl.strukt().len(),
        tl.top()
    );
    for s in steps {
        println!("step {} ({}): {} new primitive(s)", s.step, s.file, s.primitives);
        for d in &s.levels {
            let mut parts = Vec::new();
            let mut list = |what: &str, v: Vec<String>| {
                if !v.is_empty() {
                    parts.push(format!("{what} {}", v.join(" ")));
                }
            };
            list("born", d.born.clone());
            list("completed", d.completed.clone());
            list("extended", d.extended.clone());
            list("forked", d.forked.iter().map(|[a, b]| format!("{a}→{b}")).collect());
            list("merged", d.merged.iter().map(|[a, b]| format!("{a}→{b}")).collect());
            list("ended", d.ended.clone());
            if !parts.is_empty() {
                println!("  level {}: {}", d.level, parts.join("; "));
            }
        }
    }
    for l in levels {
        println!("level {}: {} element(s)", l.level, l.elements.len());
        for e in &l.elements {
            let life = match (e.completed, e.died) {
                (None, _) => format!("born {}, forming", e.born),
                (Some(c), None) => format!("born {}, complete {c}, living", e.born),
                (Some(c), Some(d)) => format!("born {}, complete {c}, ended {d} ({})", e.born, end_name(e.end)),
            };
            let merged = e.merged_into.as_ref().map(|m| format!(" into {m}")).unwrap_or_default();
            println!("  {:<7} {:<12} {life}{merged}: {}", e.id, e.class, e.vertices.join(" "));
        }
    }
}

fn end_name(k: EndKind) -> String {
    serde_json::to_value(k)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}
