//! `ets dot`: pictures of structs, overlap graphs and boards.
//!
//! A game's picture is of one position (`--move N`, default the end); it scales by what it shows
//! (a level, classes, a region, the elements born in a range of moves) and by layouts that cost time
//! linear in what is drawn. Flags that do not fit the game or the setting are usage errors (exit 2);
//! unreadable or malformed files are input errors (exit 1).

use clap::error::ErrorKind;
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::mpsc;
use std::time::Duration;

use ets::dot::board::{BoardPicture, board_picture_svg};
use ets::dot::game::{GameLevel, Region, Selection, outlines, overlap_view};
use ets::dot::raster::svg_to_png;
use ets::dot::view::{Layout, LevelView, place_anchored, place_clustered, placed_svg, view_dot};
use ets::dot::{Format, StructPicture, have_dot, render, struct_graph, to_dot};
use ets::ets::{Setting, json, recognize_all};
use ets::go::board::Point;
use ets::go::classify::{Classification, classify_game, load};
use ets::go::record::Place;

use super::go_cmds::{GameSel, RecordArgs, last_moves};

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq, Debug)]
pub enum View {
    Overlap,
    Struct,
    Board,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq, Debug)]
pub enum RenderArg {
    Svg,
    Png,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq, Debug)]
pub enum LayoutArg {
    /// Elements at their vertices on the board (games; linear time).
    Anchored,
    /// Elements grouped by class (linear time, no graphviz needed).
    Clustered,
    /// graphviz's multilevel force layout, sfdp (seconds for thousands of elements).
    Force,
    /// graphviz's neato with spacing and routed edges: compact for a few dozen elements, minutes
    /// beyond a few hundred (the first layout of `ets dot`).
    Spring,
}

#[derive(Args)]
pub struct DotArgs {
    /// An SGF file (omit with --struct).
    pub file: Option<PathBuf>,
    #[command(flatten)]
    pub sel: GameSel,
    /// What to draw [default: board for a game, struct for --struct].
    #[arg(long, value_enum)]
    pub view: Option<View>,
    /// The level [default: the setting's highest in the board view, 0 otherwise].
    #[arg(long)]
    pub level: Option<u32>,
    /// Only the elements of these classes (board and overlap views); the struct view outlines them.
    #[arg(long, value_delimiter = ',', value_name = "CLASSES")]
    pub highlight: Vec<String>,
    /// Only these vertices, e.g. D4:K10 (board and overlap views: elements with a vertex there; struct
    /// view: primitives there, default around the last move).
    #[arg(long)]
    pub region: Option<String>,
    /// A range of moves, e.g. 40..45. Struct view: the positions drawn (default: the last two).
    /// Board and overlap views: the position after the range's last move, and only the elements
    /// that came into being within the range.
    #[arg(long)]
    pub moves: Option<String>,
    /// How to lay out the overlap view [default: anchored for a game; for --struct, force with
    /// graphviz, clustered without].
    #[arg(long, value_enum)]
    pub layout: Option<LayoutArg>,
    /// The struct view refuses to draw more primitives than this (graphviz takes minutes beyond a few
    /// thousand); narrow --region or --moves instead.
    #[arg(long, default_value_t = 3000)]
    pub max_nodes: usize,
    /// A struct file (docs/formats.md) instead of a game: any domain.
    #[arg(long = "struct")]
    pub strukt: Option<PathBuf>,
    /// Class setting files (with --struct: recognise its elements; with a game: instead of the Go setting).
    #[arg(long, num_args = 1..)]
    pub setting: Vec<PathBuf>,
    #[command(flatten)]
    pub rec: RecordArgs,
    /// Render instead of printing DOT (board view: SVG), as SVG or PNG; graphviz's `dot` draws the
    /// layouts it computes when installed, a pure-Rust route everything else.
    #[arg(long, value_enum)]
    pub render: Option<RenderArg>,
    /// Output file (default: standard output).
    #[arg(short = 'o', long)]
    pub output: Option<PathBuf>,
}

/// Why `ets dot` stopped: a command line that does not fit (exit 2) or bad input (exit 1).
enum Fail {
    Usage(String),
    Input(miette::Report),
}

impl From<miette::Report> for Fail {
    fn from(r: miette::Report) -> Self {
        Fail::Input(r)
    }
}

type R<T> = Result<T, Fail>;

fn usage<T>(msg: impl Into<String>) -> R<T> {
    Err(Fail::Usage(msg.into()))
}

/// Runs `ets dot`.
pub fn run(a: DotArgs) -> miette::Result<ExitCode> {
    let progress = Progress::new();
    let r = if a.strukt.is_some() {
        run_struct(&a, &progress)
    } else {
        run_game(&a, &progress)
    };
    progress.finish();
    match r {
        Ok(code) => Ok(code),
        Err(Fail::Input(e)) => Err(e),
        Err(Fail::Usage(msg)) => {
            let mut cmd = <DotArgs as Args>::augment_args(clap::Command::new("dot")).bin_name("ets dot");
            let e = cmd.error(ErrorKind::ValueValidation, msg);
            let _ = e.print();
            Ok(ExitCode::from(2))
        }
    }
}

/// A spinner on standard error that appears once a command has taken a second, naming the phase.
struct Progress {
    pb: ProgressBar,
    stop: Option<mpsc::Sender<()>>,
}

impl Progress {
    fn new() -> Self {
        let pb = ProgressBar::hidden();
        pb.set_style(ProgressStyle::with_template("{spinner} {msg} ({elapsed})").expect("template"));
        if !std::io::stderr().is_terminal() {
            return Progress { pb, stop: None };
        }
        let (tx, rx) = mpsc::channel::<()>();
        let shown = pb.clone();
        std::thread::spawn(move || {
            if rx.recv_timeout(Duration::from_secs(1)) == Err(mpsc::RecvTimeoutError::Timeout) {
                shown.set_draw_target(indicatif::ProgressDrawTarget::stderr());
                shown.enable_steady_tick(Duration::from_millis(120));
            }
        });
        Progress { pb, stop: Some(tx) }
    }

    fn phase(&self, msg: impl Into<String>) {
        self.pb.set_message(msg.into());
    }

    fn finish(mut self) {
        self.stop.take();
        self.pb.finish_and_clear();
    }
}

fn emit(a: &DotArgs, bytes: Vec<u8>) -> R<ExitCode> {
    match &a.output {
        Some(p) => std::fs::write(p, &bytes).map_err(|e| miette::miette!("cannot write {}: {e}", p.display()))?,
        None => {
            use std::io::Write;
            std::io::stdout()
                .write_all(&bytes)
                .map_err(|e| miette::miette!("{e}"))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// DOT laid out by graphviz (or layout-rs without it): printed, or rendered.
fn emit_dot(a: &DotArgs, p: &Progress, dot: String) -> R<ExitCode> {
    let bytes = match a.render {
        None => dot.into_bytes(),
        Some(r) => {
            p.phase(if have_dot() {
                "graphviz is laying out and drawing"
            } else {
                "laying out (layout-rs) and drawing"
            });
            render(&dot, format(r)).map_err(|e| miette::miette!("{e}"))?
        }
    };
    emit(a, bytes)
}

/// A picture drawn here as SVG: printed as SVG (or, for an overlap view without --render, as DOT
/// with its positions pinned), or rasterised.
fn emit_svg(a: &DotArgs, p: &Progress, svg: String, dot: Option<String>) -> R<ExitCode> {
    let bytes = match (a.render, dot) {
        (None, Some(d)) => d.into_bytes(),
        (None | Some(RenderArg::Svg), _) => svg.into_bytes(),
        (Some(RenderArg::Png), _) => {
            p.phase("drawing the PNG");
            svg_to_png(&svg).map_err(|e| miette::miette!("{e}"))?
        }
    };
    emit(a, bytes)
}

fn format(r: RenderArg) -> Format {
    match r {
        RenderArg::Svg => Format::Svg,
        RenderArg::Png => Format::Png,
    }
}

/// An overlap view in the chosen layout: pinned layouts are drawn here, the others by graphviz
/// (the force layout, without graphviz, falls back to the clustered one).
fn emit_overlap(a: &DotArgs, p: &Progress, v: &LevelView, layout: Layout) -> R<ExitCode> {
    p.phase(format!(
        "laying out {} elements and {} overlaps",
        v.elements.len(),
        v.edges.len()
    ));
    let own = match layout {
        Layout::Anchored => Some(place_anchored(v)),
        Layout::Clustered => Some(place_clustered(v)),
        Layout::Force if a.render.is_some() && !have_dot() => Some(place_clustered(v)),
        _ => None,
    };
    match own {
        Some(pl) => {
            let dot = a.render.is_none().then(|| to_dot(&view_dot(v, layout)));
            let svg = if a.render.is_some() {
                placed_svg(v, &pl)
            } else {
                String::new()
            };
            emit_svg(a, p, svg, dot)
        }
        None => emit_dot(a, p, to_dot(&view_dot(v, layout))),
    }
}

fn layout_of(a: &LayoutArg) -> Layout {
    match a {
        LayoutArg::Anchored => Layout::Anchored,
        LayoutArg::Clustered => Layout::Clustered,
        LayoutArg::Force => Layout::Force,
        LayoutArg::Spring => Layout::Spring,
    }
}

/// The `--level` asked for, checked against the setting.
fn checked_level(st: &Setting, level: Option<u32>, default: u32) -> R<u32> {
    let l = level.unwrap_or(default);
    if l > st.max_level() {
        return usage(format!("--level {l}: the setting has levels 0 to {}", st.max_level()));
    }
    Ok(l)
}

/// The `--highlight` classes, checked: each a class of the setting, at `level`.
fn checked_classes(st: &Setting, names: &[String], level: u32) -> R<()> {
    for n in names {
        match st.classes().iter().find(|c| &c.name == n) {
            None => {
                let at: Vec<&str> = st
                    .classes_at(level)
                    .into_iter()
                    .map(|c| st.class(c).name.as_str())
                    .collect();
                return usage(format!(
                    "--highlight {n}: no such class (the setting has no class `{n}`); its level-{level} classes are {}",
                    at.join(", ")
                ));
            }
            Some(c) if c.level != level => {
                return usage(format!(
                    "invalid value '{n}' for '--highlight <CLASSES>': `{n}` is a level-{} class, and this picture shows level {level} (use --level {})",
                    c.level, c.level
                ));
            }
            Some(_) => {}
        }
    }
    Ok(())
}

fn parse_moves(s: &str, len: usize) -> R<(u32, u32)> {
    let Some((x, y)) = s.split_once("..") else {
        return usage(format!(
            "invalid value '{s}' for '--moves <MOVES>': give a range of moves, like 40..45"
        ));
    };
    let num = |t: &str| -> R<u32> {
        match t.trim().parse::<u32>() {
            Ok(n) => Ok(n),
            Err(_) => usage(format!(
                "invalid value '{s}' for '--moves <MOVES>': `{t}` is not a move number"
            )),
        }
    };
    let (p, q) = (num(x)?, num(y)?);
    if p > q {
        return usage(format!(
            "invalid value '{s}' for '--moves <MOVES>': the range runs backwards"
        ));
    }
    if q as usize > len {
        return usage(format!(
            "invalid value '{s}' for '--moves <MOVES>': the line has {len} moves"
        ));
    }
    Ok((p, q))
}

fn run_struct(a: &DotArgs, p: &Progress) -> R<ExitCode> {
    // Any domain: a struct file, and optionally a setting to recognise its elements.
    let sp = a.strukt.as_deref().expect("--struct");
    for (flag, given) in [
        ("--region", a.region.is_some()),
        ("--moves", a.moves.is_some()),
        ("--move", a.sel.mv.is_some()),
    ] {
        if given {
            return usage(format!("{flag} applies to games; a struct file is drawn whole"));
        }
    }
    if a.file.is_some() {
        return usage("give an SGF file or --struct, not both");
    }
    let view = a.view.unwrap_or(View::Struct);
    if a.layout.is_some() && view != View::Overlap {
        return usage("--layout applies to the overlap view");
    }
    let text = std::fs::read_to_string(sp).map_err(|e| miette::miette!("cannot read {}: {e}", sp.display()))?;
    let st: Option<Setting> = if a.setting.is_empty() {
        None
    } else {
        Some(super::dsl_cmds::setting(&a.setting)?)
    };
    let s = json::read_struct(&text, st.as_ref().map(|x| x.alphabet().clone()))
        .map_err(|e| miette::miette!("{}: {e}", sp.display()))?;
    match view {
        View::Struct => {
            let mut clusters = Vec::new();
            if let Some(st) = &st {
                checked_classes(st, &a.highlight, 0)?;
                p.phase("recognising level 0");
                let h = recognize_all(st, &s, Some(0));
                for (i, e) in h.levels[0].elements.iter().enumerate() {
                    if a.highlight.is_empty() || a.highlight.contains(&st.class(e.class).name) {
                        clusters.push((format!("{} L0:{i}", st.class(e.class).name), e.nodes.clone()));
                    }
                }
            } else if !a.highlight.is_empty() {
                return usage("--highlight needs --setting to recognise the struct's elements");
            }
            if s.len() > a.max_nodes {
                return usage(format!(
                    "the struct has {} primitives, more than --max-nodes {}: graphviz would take minutes",
                    s.len(),
                    a.max_nodes
                ));
            }
            let g = struct_graph(&StructPicture {
                strukt: &s,
                include: &|_| true,
                layer: None,
                caption: &|_| String::new(),
                clusters,
            });
            emit_dot(a, p, to_dot(&g))
        }
        View::Overlap => {
            let Some(st) = &st else {
                return usage("the overlap view of a struct needs --setting to recognise its elements");
            };
            let level = checked_level(st, a.level, 0)?;
            checked_classes(st, &a.highlight, level)?;
            p.phase(format!("recognising levels 0–{level}"));
            let h = recognize_all(st, &s, Some(level));
            let l = &h.levels[level as usize];
            let mut v = LevelView::of_level(st, l, &format!("level {level} overlap graph"));
            if !a.highlight.is_empty() {
                let keep: Vec<bool> = v.elements.iter().map(|e| a.highlight.contains(&e.class)).collect();
                let mut new = vec![usize::MAX; keep.len()];
                let mut k = 0;
                for (i, &kept) in keep.iter().enumerate() {
                    if kept {
                        new[i] = k;
                        k += 1;
                    }
                }
                v.elements = v
                    .elements
                    .into_iter()
                    .zip(&keep)
                    .filter(|(_, k)| **k)
                    .map(|(e, _)| e)
                    .collect();
                v.edges = v
                    .edges
                    .into_iter()
                    .filter(|(x, y, _)| keep[*x] && keep[*y])
                    .map(|(x, y, cs)| (new[x], new[y], cs))
                    .collect();
            }
            let layout = match a.layout {
                Some(l) => layout_of(&l),
                None if have_dot() => Layout::Force,
                None => Layout::Clustered,
            };
            emit_overlap(a, p, &v, layout)
        }
        View::Board => usage("the board view needs a game record"),
    }
}

/// The position a picture of a game shows, and the born-range of its elements.
fn position(a: &DotArgs, len: usize, view: View) -> R<(usize, Option<(u32, u32)>)> {
    let moves = match &a.moves {
        Some(m) => Some(parse_moves(m, len)?),
        None => None,
    };
    if let Some(n) = a.sel.mv
        && n > len
    {
        return usage(format!(
            "invalid value '{n}' for '--move <MV>': move {n} asked for, but the line has {len} moves"
        ));
    }
    match (view, moves, a.sel.mv) {
        (View::Struct, _, mv) => Ok((mv.unwrap_or(len), None)),
        (_, Some((_, q)), Some(n)) if n != q as usize => usage(format!(
            "--move {n} and --moves {} disagree: the board and overlap views show the position after the range's last move",
            a.moves.as_deref().unwrap_or("")
        )),
        (_, Some((p, q)), _) => Ok((q as usize, Some((p, q)))),
        (_, None, mv) => Ok((mv.unwrap_or(len), None)),
    }
}

fn run_game(a: &DotArgs, p: &Progress) -> R<ExitCode> {
    let Some(file) = a.file.clone() else {
        return usage("name an SGF file, or a struct with --struct");
    };
    let view = a.view.unwrap_or(View::Board);
    if a.layout.is_some() && view != View::Overlap {
        return usage("--layout applies to the overlap view");
    }
    p.phase("reading the class setting");
    let (sources, st) = load(&a.setting);
    let st = st.map_err(|e| miette::miette!("{}", super::dsl_cmds::render(&sources, &e)))?;
    let level = match view {
        View::Board => checked_level(&st, a.level, st.max_level())?,
        View::Overlap => checked_level(&st, a.level, 0)?,
        View::Struct => {
            if a.level.is_some_and(|l| l != 0) {
                return usage("the struct view shows level 0 (its primitives); --level applies to the other views");
            }
            0
        }
    };
    checked_classes(&st, &a.highlight, level)?;
    p.phase(format!("reading {}", file.display()));
    let l = super::input::load(&file, &a.sel)?;
    // A --move beyond the record is an input error (exit 1), as in every command (docs/formats.md).
    l.upto(a.sel.mv)?;
    let (n, born) = position(a, l.replay.len(), view)?;
    super::input::report_warnings(l.warnings(n), a.sel.strict, false)?;
    super::input::check_recording(&l, n, a.rec.options())?;
    let replay = l.replay;
    let (cols, rows) = replay.info.size;
    let region = match &a.region {
        Some(r) => match Region::parse(r, cols, rows) {
            Ok(r) => Some(r),
            Err(e) => return usage(format!("invalid value '{r}' for '--region <REGION>': {e}")),
        },
        None => None,
    };
    p.phase(format!("classifying {n} moves, levels 0–{level}"));
    let c = classify_game(
        std::sync::Arc::new(st.clone()),
        &replay.positions[..=n],
        &last_moves(&replay, n),
        a.rec.options(),
        Some(level),
    )
    .map_err(|e| miette::miette!("{e}"))?
    .classification_at(n as u32, false);
    let levels = GameLevel::from_classification(&c);
    let name = file
        .file_name()
        .map_or_else(|| file.display().to_string(), |f| f.to_string_lossy().into_owned());
    let sel = Selection {
        classes: a.highlight.clone(),
        region,
        born,
    };
    match view {
        View::Overlap => {
            let l = &levels[level as usize];
            let shown = l.select(&st, &sel);
            let title = format!(
                "{name}, level {level} overlap graph after move {n}: {} of {} elements",
                shown.len(),
                l.elements.iter().filter(|e| e.died.is_none()).count()
            );
            let v = overlap_view(&st, l, &shown, (cols, rows), region, &title);
            let layout = a.layout.as_ref().map_or(Layout::Anchored, layout_of);
            emit_overlap(a, p, &v, layout)
        }
        View::Board => {
            let l = &levels[level as usize];
            let shown = l.select(&st, &sel);
            let title = format!("{name} after move {n}, level {level}: {} elements", shown.len());
            let o = outlines(&st, l, &shown, rows);
            p.phase("drawing the board");
            let svg = board_picture_svg(&BoardPicture {
                board: &replay.positions[n],
                outlines: &o,
                title: &title,
                region,
                last_move: n.checked_sub(1).and_then(|k| replay.moves[k].point),
            });
            emit_svg(a, p, svg, None)
        }
        View::Struct => {
            let last = replay.moves[..n].iter().rev().find_map(|m| m.point);
            struct_of_game(a, p, &st, &c, &levels[0], n, region, last)
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn struct_of_game(
    a: &DotArgs,
    p: &Progress,
    st: &Setting,
    c: &Classification,
    l0: &GameLevel,
    n: usize,
    region: Option<Region>,
    last: Option<Point>,
) -> R<ExitCode> {
    let rec = &c.recording;
    let (cols, rows) = rec.size;
    // default: around the last move played (the board's centre before any)
    let area = region.unwrap_or_else(|| {
        let m = last.unwrap_or(Point {
            col: cols / 2,
            row: rows / 2,
        });
        Region { lo: m, hi: m }.grown(1, cols, rows)
    });
    let (m0, m1) = match &a.moves {
        Some(m) => parse_moves(m, n)?,
        None => ((n as u32).saturating_sub(1), n as u32),
    };
    let include = |node: u32| {
        let pos = rec.position[node as usize];
        if pos < m0 || pos > m1 {
            return false;
        }
        match rec.place[node as usize] {
            Place::Vertex(p) => area.contains(p),
            Place::Edge { of, .. } => area.contains(of),
            Place::Pair { x, y, vertical } => {
                let a = (x as i32 - 1, y as i32 - 1);
                let b = if vertical { (a.0, a.1 + 1) } else { (a.0 + 1, a.1) };
                [a, b].iter().any(|&(c, r)| {
                    c >= 0
                        && r >= 0
                        && area.contains(Point {
                            col: c as u8,
                            row: r as u8,
                        })
                })
            }
            Place::Attention => false,
        }
    };
    let count = (0..rec.strukt.len() as u32).filter(|&x| include(x)).count();
    if count > a.max_nodes {
        return usage(format!(
            "the struct view would draw {count} primitives, more than --max-nodes {}: graphviz would take minutes; narrow --region or --moves",
            a.max_nodes
        ));
    }
    let caption = |node: u32| match rec.place[node as usize] {
        Place::Vertex(p) => format!("{} @{}", p.gtp(rows), rec.position[node as usize]),
        _ => String::new(),
    };
    let layer = |node: u32| rec.layer[node as usize];
    let clusters: Vec<(String, Vec<u32>)> = l0
        .elements
        .iter()
        .enumerate()
        .filter(|(_, e)| a.highlight.contains(&st.class(e.class).name))
        .filter(|(_, e)| e.members.iter().any(|&x| include(x)))
        .map(|(i, e)| (format!("{} L0:{i}", st.class(e.class).name), e.members.clone()))
        .collect();
    p.phase(format!("drawing {count} primitives"));
    let g = struct_graph(&StructPicture {
        strukt: &rec.strukt,
        include: &include,
        layer: Some(&layer),
        caption: &caption,
        clusters,
    });
    emit_dot(a, p, to_dot(&g))
}
