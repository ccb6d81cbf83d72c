//! `ets classify`: a game record classified level by level into the Go setting's classes, through
//! one timeline (`ets::go::classify::GoTimeline`); this module only parses flags and prints.

use clap::{Args, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use ets::go::board::Point;
use ets::go::classify::{GoTimeline, classify_game, load};

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
    /// Also list elements still forming (their schedule cannot end where they stand, §5.3.2.1).
    #[arg(long)]
    pub forming: bool,
    /// Every element of the game up to the move (the whole game by default) with its life: the
    /// move it began at, became complete, ended (and why), what it merged into, and (levels ≥ 1)
    /// the moves at which each of its constraints applied.
    #[arg(long, conflicts_with = "all")]
    pub timeline: bool,
}

/// A class as the text summaries name it: its name, and its thesis symbol if it has one.
fn label(cl: &ets::ets::Class) -> String {
    match &cl.symbol {
        Some(s) => format!("{} ({s})", cl.name),
        None => cl.name.clone(),
    }
}

fn print_timeline(g: &GoTimeline, name: &str, forming: bool) {
    let st = g.setting();
    let last = g.position().unwrap_or(0);
    println!(
        "{name}: positions 0–{last}, one timeline step each; {} primitives",
        g.timeline().strukt().len()
    );
    for lv in g.timeline().levels() {
        // per class: elements, still present at the end, merged, forming
        let mut per: std::collections::BTreeMap<String, [usize; 4]> = Default::default();
        let (mut n, mut alive) = (0, 0);
        for el in lv.elements() {
            if el.is_stillborn() || (!forming && el.completed().is_none()) {
                continue;
            }
            let e = per.entry(label(st.class(el.class()))).or_default();
            e[0] += 1;
            n += 1;
            if el.present_at(last) {
                e[1] += 1;
                alive += 1;
            }
            if el.merged_into().is_some() {
                e[2] += 1;
            }
            if el.completed().is_none() {
                e[3] += 1;
            }
        }
        println!(
            "level {}: {n} element(s) over the game ({alive} present at the end)",
            lv.number()
        );
        println!(
            "  {:>6} {:>6} {:>6} {:>7}  class",
            "elems", "alive", "merged", "forming"
        );
        for (k, [n, a, m, f]) in per {
            println!("  {n:>6} {a:>6} {m:>6} {f:>7}  {k}");
        }
    }
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
    let g = classify_game(
        Arc::new(st),
        &replay.positions[..=n],
        &last_moves(&replay, n),
        a.rec.options(),
        a.level,
    )
    .map_err(|e| miette::miette!("{name}: {e}"))?;
    if a.timeline {
        match a.format {
            Format::Json => {
                // The classification is not needed once its output is made.
                let out = g.timeline_json(a.forming);
                drop(g);
                super::input::print_json_with_warnings(out, &warnings)?;
            }
            Format::Text => print_timeline(&g, &name, a.forming),
        }
        return Ok(ExitCode::SUCCESS);
    }
    let t = n as u32;
    match a.format {
        Format::Json => {
            let out = g.position_json(t, a.all, a.forming);
            drop(g);
            super::input::print_json_with_warnings(out, &warnings)?;
        }
        Format::Text => {
            let st = g.setting();
            let c = g.classification_at(t, a.forming);
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
