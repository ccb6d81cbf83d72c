//! `ets classify`: a game record classified level by level into the Go setting's classes.

use clap::{Args, ValueEnum};
use serde::Serialize;
use std::path::PathBuf;
use std::process::ExitCode;

use ets::go::board::Point;
use ets::go::classify::{Classification, Timeline, classify, classify_every, load};

use super::go_cmds::{GameSel, RecordArgs, last_moves};

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
}

#[derive(Args)]
pub struct ClassifyArgs {
    /// An SGF file.
    pub file: PathBuf,
    #[command(flatten)]
    pub sel: GameSel,
    /// Highest level (default: every level of the setting).
    #[arg(long)]
    pub level: Option<u32>,
    #[command(flatten)]
    pub rec: RecordArgs,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Class setting files (default: the embedded `grammars/go/` setting).
    #[arg(long, num_args = 1..)]
    pub setting: Vec<PathBuf>,
    /// Text format: mark the elements of this class on the board.
    #[arg(long, default_value = "black_block")]
    pub mark: String,
    /// Also list level-0 elements that ended before the position.
    #[arg(long)]
    pub all: bool,
    /// Every element of every position up to the move (the whole game by default), each with the
    /// move it began at, the move it ended at and (levels ≥ 1) its lineage, classified
    /// incrementally.
    #[arg(long, conflicts_with = "all")]
    pub timeline: bool,
}

#[derive(Serialize)]
struct TimelineOut {
    moves: usize,
    levels: Vec<TimelineLevel>,
}

#[derive(Serialize)]
struct TimelineLevel {
    level: u32,
    elements: Vec<TimelineElement>,
}

#[derive(Serialize)]
struct TimelineElement {
    id: String,
    class: String,
    thesis: Option<String>,
    vertices: Vec<String>,
    born: u32,
    died: Option<u32>,
    /// Levels ≥ 1: the element that began this one's lineage (itself when it continues nothing).
    #[serde(skip_serializing_if = "Option::is_none")]
    lineage: Option<String>,
}

/// A class as the text summaries name it: its name, and its thesis symbol if it has one.
fn label(cl: &ets::ets::Class) -> String {
    match &cl.symbol {
        Some(s) => format!("{} ({s})", cl.name),
        None => cl.name.clone(),
    }
}

fn timeline_of(st: &ets::ets::Setting, t: &Timeline, moves: usize, rows: u8) -> TimelineOut {
    let levels = t
        .named
        .iter()
        .enumerate()
        .map(|(level, named)| TimelineLevel {
            level: level as u32,
            elements: named
                .iter()
                .enumerate()
                .map(|(i, nm)| {
                    let cl = st.class(t.class_of(level, i));
                    TimelineElement {
                        id: format!("L{level}:{i}"),
                        class: cl.name.clone(),
                        thesis: cl.symbol.clone(),
                        vertices: nm.vertices.iter().map(|p| p.gtp(rows)).collect(),
                        born: nm.born,
                        died: nm.died,
                        lineage: (level > 0).then(|| format!("L{level}:{}", t.lineage[level - 1][i])),
                    }
                })
                .collect(),
        })
        .collect();
    TimelineOut { moves, levels }
}

fn print_timeline(st: &ets::ets::Setting, name: &str, t: &Timeline, moves: usize) {
    println!(
        "{name}: moves 0–{moves}, classified incrementally; {} primitives",
        t.recording.strukt.len()
    );
    for (level, named) in t.named.iter().enumerate() {
        // per class: elements, lineages, still alive at the end
        let mut per: std::collections::BTreeMap<String, (usize, std::collections::BTreeSet<usize>, usize)> =
            Default::default();
        for (i, nm) in named.iter().enumerate() {
            let e = per.entry(label(st.class(t.class_of(level, i)))).or_default();
            e.0 += 1;
            e.1.insert(if level == 0 { i } else { t.lineage[level - 1][i] });
            if nm.died.is_none() {
                e.2 += 1;
            }
        }
        println!(
            "level {level}: {} element(s) over the game ({} alive at the end)",
            named.len(),
            named.iter().filter(|n| n.died.is_none()).count()
        );
        println!("  {:>6} {:>8} {:>6}  class", "elems", "lineages", "alive");
        for (k, (n, lin, alive)) in per {
            println!("  {n:>6} {:>8} {alive:>6}  {k}", lin.len());
        }
    }
}

#[derive(Serialize)]
struct Out {
    #[serde(rename = "move")]
    mv: usize,
    levels: Vec<LevelOut>,
}

#[derive(Serialize)]
struct LevelOut {
    level: u32,
    elements: Vec<ElementOut>,
    overlaps: Vec<OverlapOut>,
}

#[derive(Serialize)]
struct ElementOut {
    id: String,
    class: String,
    thesis: Option<String>,
    vertices: Vec<String>,
    born: u32,
    died: Option<u32>,
}

#[derive(Serialize)]
struct OverlapOut {
    a: String,
    b: String,
    constraints: Vec<String>,
}

/// The JSON view; with `all`, level-0 elements that ended are listed too.
fn json_of(st: &ets::ets::Setting, c: &Classification, mv: usize, rows: u8, all: bool) -> Out {
    let mut levels = Vec::new();
    for l in &c.hierarchy.levels {
        let named = &c.named[l.level as usize];
        let listed: Vec<usize> = (0..l.elements.len())
            .filter(|&i| all || named[i].died.is_none())
            .collect();
        let elements = listed
            .iter()
            .map(|&i| {
                let e = &l.elements[i];
                let cl = st.class(e.class);
                ElementOut {
                    id: format!("L{}:{}", l.level, i),
                    class: cl.name.clone(),
                    thesis: cl.symbol.clone(),
                    vertices: named[i].vertices.iter().map(|p| p.gtp(rows)).collect(),
                    born: named[i].born,
                    died: named[i].died,
                }
            })
            .collect();
        // overlaps between listed elements: the level-(n+1) struct holds the living ones
        let living: Vec<usize> = (0..l.elements.len()).filter(|&i| named[i].died.is_none()).collect();
        let overlaps = l
            .overlaps()
            .edges
            .iter()
            .map(|(a, b, cs)| OverlapOut {
                a: format!("L{}:{}", l.level, living[*a as usize]),
                b: format!("L{}:{}", l.level, living[*b as usize]),
                constraints: cs.iter().map(|&x| st.constraint(x).name.clone()).collect(),
            })
            .collect();
        levels.push(LevelOut {
            level: l.level,
            elements,
            overlaps,
        });
    }
    Out { mv, levels }
}

pub fn run(a: ClassifyArgs) -> miette::Result<ExitCode> {
    let (sources, st) = load(&a.setting);
    let st = st.map_err(|e| miette::miette!("{}", super::dsl_cmds::render(&sources, &e)))?;
    super::input::check_level(&st, a.level)?;
    super::input::check_class(&st, "--mark", &a.mark)?;
    let l = super::input::load(&a.file, &a.sel)?;
    let n = l.upto(a.sel.mv)?;
    let warnings = super::input::report_warnings(l.warnings(n), a.sel.strict, a.format == Format::Json)?;
    super::input::check_recording(&l, n, a.rec.options())?;
    let (name, replay) = (l.name.clone(), l.replay);
    if a.timeline {
        let t = classify_every(
            &st,
            &replay.positions[..=n],
            &last_moves(&replay, n),
            a.rec.options(),
            a.level,
        )
        .map_err(|e| miette::miette!("{name}: {e}"))?;
        match a.format {
            Format::Json => println!(
                "{}",
                super::input::json_with_warnings(&timeline_of(&st, &t, n, replay.info.size.1), &warnings)
            ),
            Format::Text => print_timeline(&st, &name, &t, n),
        }
        return Ok(ExitCode::SUCCESS);
    }
    let c = classify(
        &st,
        &replay.positions[..=n],
        &last_moves(&replay, n),
        a.rec.options(),
        a.level,
    )
    .map_err(|e| miette::miette!("{name}: {e}"))?;
    let rows = replay.info.size.1;
    match a.format {
        Format::Json => println!(
            "{}",
            super::input::json_with_warnings(&json_of(&st, &c, n, rows, a.all), &warnings)
        ),
        Format::Text => {
            println!(
                "{name}: after move {n}; {} primitives, {} layers",
                c.recording.strukt.len(),
                c.recording.layer_count
            );
            for l in &c.hierarchy.levels {
                let named = &c.named[l.level as usize];
                let mut counts: std::collections::BTreeMap<String, usize> = Default::default();
                for (e, nm) in l.elements.iter().zip(named) {
                    if nm.died.is_none() || a.all {
                        *counts.entry(label(st.class(e.class))).or_default() += 1;
                    }
                }
                println!(
                    "level {}: {} element(s), {} overlap edge(s)",
                    l.level,
                    counts.values().sum::<usize>(),
                    l.overlaps().edges.len()
                );
                for (k, v) in counts {
                    println!("  {v:>5}  {k}");
                }
            }
            // the board with the elements of one class marked a, b, c, …
            let b = &replay.positions[n];
            let mut marks: std::collections::BTreeMap<Point, char> = Default::default();
            let letters: Vec<char> = ('a'..='z').chain('A'..='Z').collect();
            let mut k = 0;
            for l in &c.hierarchy.levels {
                for (e, nm) in l.elements.iter().zip(&c.named[l.level as usize]) {
                    if st.class(e.class).name == a.mark && nm.died.is_none() {
                        for p in &nm.vertices {
                            marks.entry(*p).or_insert(letters[k % letters.len()]);
                        }
                        k += 1;
                    }
                }
            }
            println!(
                "\n{} element(s) of `{}` (X black, O white, letters mark the elements):",
                k, a.mark
            );
            let board = b.ascii();
            for (r, line) in board.lines().enumerate() {
                if r == 0 {
                    println!("{line}");
                    continue;
                }
                let row = (r - 1) as u8;
                let mut out: String = line.chars().take(3).collect();
                for col in 0..b.cols() {
                    let ch = line.chars().nth(3 + 2 * col as usize + 1).unwrap_or('.');
                    out.push(' ');
                    out.push(*marks.get(&Point { col, row }).unwrap_or(&ch));
                }
                println!("{out}");
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
