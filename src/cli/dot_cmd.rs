//! `ets dot`: pictures of structs, overlap graphs and boards.

use clap::{Args, ValueEnum};
use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::ExitCode;

use ets::dot::board::{Outline, board_svg};
use ets::dot::{
    Format, OverlapNode, StructPicture, classification_overlap, overlap_graph, render, struct_graph, to_dot,
};
use ets::ets::{Setting, json, recognize_all};
use ets::go::board::Point;
use ets::go::classify::{classify_game, load};
use ets::go::record::Place;

use super::go_cmds::{GameSel, RecordArgs, last_moves, load as load_game};

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum View {
    Overlap,
    Struct,
    Board,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum RenderArg {
    Svg,
    Png,
}

#[derive(Args)]
pub struct DotArgs {
    /// An SGF file (omit with --struct).
    pub file: Option<PathBuf>,
    #[command(flatten)]
    pub sel: GameSel,
    /// What to draw.
    #[arg(long, value_enum, default_value_t = View::Overlap)]
    pub view: View,
    /// The level (overlap and board views).
    #[arg(long, default_value_t = 0)]
    pub level: u32,
    /// Outline the elements of these classes (struct view: clusters; board view: outlines).
    #[arg(long, value_delimiter = ',')]
    pub highlight: Vec<String>,
    /// Struct view of a game: only these vertices, e.g. D4:K10 (default: around the last move).
    #[arg(long)]
    pub region: Option<String>,
    /// Struct view of a game: only these positions, e.g. 40..45 (default: the last two).
    #[arg(long)]
    pub moves: Option<String>,
    /// A struct file (docs/formats.md) instead of a game: any domain.
    #[arg(long = "struct")]
    pub strukt: Option<PathBuf>,
    /// Class setting files (with --struct: recognise its elements; with a game: instead of the Go setting).
    #[arg(long, num_args = 1..)]
    pub setting: Vec<PathBuf>,
    #[command(flatten)]
    pub rec: RecordArgs,
    /// Render instead of printing DOT (SVG works without graphviz; PNG needs it).
    #[arg(long, value_enum)]
    pub render: Option<RenderArg>,
    /// Output file (default: standard output).
    #[arg(short = 'o', long)]
    pub output: Option<PathBuf>,
}

fn emit(a: &DotArgs, dot: Option<String>, svg: Option<String>) -> miette::Result<ExitCode> {
    let bytes: Vec<u8> = match (a.render, dot, svg) {
        (None, Some(d), _) => d.into_bytes(),
        (None, None, Some(s)) | (Some(RenderArg::Svg), None, Some(s)) => s.into_bytes(),
        (Some(RenderArg::Png), None, Some(_)) => {
            return Err(miette::miette!(
                "the board view is drawn as SVG; use `--render svg` (PNG is not available for it)"
            ));
        }
        (Some(r), Some(d), _) => render(&d, if r == RenderArg::Svg { Format::Svg } else { Format::Png })
            .map_err(|e| miette::miette!("{e}"))?,
        (_, None, None) => unreachable!("a view yields DOT or SVG"),
    };
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

fn parse_region(s: &str, rows: u8) -> miette::Result<(Point, Point)> {
    let (a, b) = s
        .split_once(':')
        .ok_or_else(|| miette::miette!("--region takes two vertices, like D4:K10"))?;
    let p = Point::from_gtp(a, rows).ok_or_else(|| miette::miette!("`{a}` is not a vertex of this board"))?;
    let q = Point::from_gtp(b, rows).ok_or_else(|| miette::miette!("`{b}` is not a vertex of this board"))?;
    Ok((
        Point {
            col: p.col.min(q.col),
            row: p.row.min(q.row),
        },
        Point {
            col: p.col.max(q.col),
            row: p.row.max(q.row),
        },
    ))
}

fn parse_moves(s: &str) -> miette::Result<(u32, u32)> {
    let (a, b) = s
        .split_once("..")
        .ok_or_else(|| miette::miette!("--moves takes a range, like 40..45"))?;
    let p = |x: &str| {
        x.trim()
            .parse::<u32>()
            .map_err(|_| miette::miette!("`{x}` is not a move number"))
    };
    Ok((p(a)?, p(b)?))
}

pub fn run(a: DotArgs) -> miette::Result<ExitCode> {
    if let Some(sp) = &a.strukt {
        // Any domain: a struct file, and optionally a setting to recognise its elements.
        let text = std::fs::read_to_string(sp).map_err(|e| miette::miette!("cannot read {}: {e}", sp.display()))?;
        let st: Option<Setting> = if a.setting.is_empty() {
            None
        } else {
            Some(super::dsl_cmds::setting(&a.setting)?)
        };
        let s = json::read_struct(&text, st.as_ref().map(|x| x.alphabet().clone()))
            .map_err(|e| miette::miette!("{}: {e}", sp.display()))?;
        let h = st.as_ref().map(|x| recognize_all(x, &s, None));
        return match a.view {
            View::Struct => {
                let mut clusters = Vec::new();
                if let (Some(st), Some(h)) = (&st, &h) {
                    for l in &h.levels[..1] {
                        for (i, e) in l.elements.iter().enumerate() {
                            if a.highlight.is_empty() || a.highlight.contains(&st.class(e.class).name) {
                                clusters.push((format!("{} L0:{i}", st.class(e.class).name), e.nodes.clone()));
                            }
                        }
                    }
                }
                let g = struct_graph(&StructPicture {
                    strukt: &s,
                    include: &|_| true,
                    layer: None,
                    caption: &|_| String::new(),
                    clusters,
                });
                emit(&a, Some(to_dot(&g)), None)
            }
            View::Overlap => {
                let (Some(st), Some(h)) = (&st, &h) else {
                    return Err(miette::miette!(
                        "the overlap view of a struct needs --setting to recognise its elements"
                    ));
                };
                let l = h
                    .levels
                    .get(a.level as usize)
                    .ok_or_else(|| miette::miette!("the setting has no level {}", a.level))?;
                let nodes: Vec<OverlapNode> = l
                    .elements
                    .iter()
                    .enumerate()
                    .map(|(i, e)| OverlapNode {
                        id: format!("L{}:{i}", a.level),
                        class: st.class(e.class).name.clone(),
                        detail: String::new(),
                    })
                    .collect();
                let edges: Vec<_> = l
                    .overlaps()
                    .edges
                    .iter()
                    .map(|(x, y, cs)| {
                        (
                            *x as usize,
                            *y as usize,
                            cs.iter().map(|&c| st.constraint(c).name.clone()).collect(),
                        )
                    })
                    .collect();
                emit(
                    &a,
                    Some(to_dot(&overlap_graph(
                        &format!("level {} overlap graph", a.level),
                        &nodes,
                        &edges,
                    ))),
                    None,
                )
            }
            View::Board => Err(miette::miette!("the board view needs a game record")),
        };
    }
    let file = a
        .file
        .clone()
        .ok_or_else(|| miette::miette!("name an SGF file, or a struct with --struct"))?;
    let (sources, st) = load(&a.setting);
    let st = st.map_err(|e| miette::miette!("{}", super::dsl_cmds::render(&sources, &e)))?;
    let (_, replay) = load_game(&file, &a.sel)?;
    let n = a.sel.mv.unwrap_or(replay.len()).min(replay.len());
    let rows = replay.info.size.1;
    let level_needed = if a.view == View::Struct { 0 } else { a.level };
    let c = classify_game(
        std::sync::Arc::new(st.clone()),
        &replay.positions[..=n],
        &last_moves(&replay, n),
        a.rec.options(),
        Some(level_needed),
    )
    .map_err(|e| miette::miette!("{e}"))?
    .classification_at(n as u32, false);
    match a.view {
        View::Overlap => emit(
            &a,
            Some(to_dot(&classification_overlap(
                &st,
                &c,
                a.level,
                rows,
                &a.highlight,
                &format!("level {} overlap graph, after move {}", a.level, c.last),
            ))),
            None,
        ),
        View::Board => {
            let l = &c.hierarchy.levels[a.level as usize];
            let named = &c.named[a.level as usize];
            let outlines: Vec<Outline> = l
                .elements
                .iter()
                .zip(named)
                .filter(|(e, nm)| {
                    nm.died.is_none() && (a.highlight.is_empty() || a.highlight.contains(&st.class(e.class).name))
                })
                .map(|(e, nm)| Outline {
                    label: format!(
                        "{} {}",
                        st.class(e.class).name,
                        nm.vertices.iter().map(|p| p.gtp(rows)).collect::<Vec<_>>().join(" ")
                    ),
                    vertices: nm.vertices.clone(),
                })
                .collect();
            let title = format!("{} after move {n}, level {}", file.display(), a.level);
            emit(&a, None, Some(board_svg(&replay.positions[n], &outlines, &title)))
        }
        View::Struct => {
            let rec = &c.recording;
            let (lo, hi) = match &a.region {
                Some(r) => parse_region(r, rows)?,
                None => {
                    let m = replay.moves[..n].iter().rev().find_map(|m| m.point).unwrap_or(Point {
                        col: replay.info.size.0 / 2,
                        row: rows / 2,
                    });
                    (
                        Point {
                            col: m.col.saturating_sub(1),
                            row: m.row.saturating_sub(1),
                        },
                        Point {
                            col: m.col + 1,
                            row: m.row + 1,
                        },
                    )
                }
            };
            let (m0, m1) = match &a.moves {
                Some(m) => parse_moves(m)?,
                None => ((n as u32).saturating_sub(1), n as u32),
            };
            let inside = |p: Point| p.col >= lo.col && p.col <= hi.col && p.row >= lo.row && p.row <= hi.row;
            let include = |node: u32| {
                let pos = rec.position[node as usize];
                if pos < m0 || pos > m1 {
                    return false;
                }
                match rec.place[node as usize] {
                    Place::Vertex(p) => inside(p),
                    Place::Edge { of, .. } => inside(of),
                    Place::Pair { x, y, vertical } => {
                        let a = (x as i32 - 1, y as i32 - 1);
                        let b = if vertical { (a.0, a.1 + 1) } else { (a.0 + 1, a.1) };
                        [a, b].iter().any(|&(c, r)| {
                            c >= 0
                                && r >= 0
                                && inside(Point {
                                    col: c as u8,
                                    row: r as u8,
                                })
                        })
                    }
                    Place::Attention => false,
                }
            };
            let caption = |node: u32| match rec.place[node as usize] {
                Place::Vertex(p) => format!("{} @{}", p.gtp(rows), rec.position[node as usize]),
                _ => String::new(),
            };
            let layer = |node: u32| rec.layer[node as usize];
            let wanted: BTreeSet<&str> = a.highlight.iter().map(|s| s.as_str()).collect();
            let l0 = &c.hierarchy.levels[0];
            let clusters: Vec<(String, Vec<u32>)> = l0
                .elements
                .iter()
                .enumerate()
                .filter(|(_, e)| wanted.contains(st.class(e.class).name.as_str()))
                .filter(|(_, e)| e.nodes.iter().any(|&x| include(x)))
                .map(|(i, e)| (format!("{} L0:{i}", st.class(e.class).name), e.nodes.clone()))
                .collect();
            let g = struct_graph(&StructPicture {
                strukt: &rec.strukt,
                include: &include,
                layer: Some(&layer),
                caption: &caption,
                clusters,
            });
            emit(&a, Some(to_dot(&g)), None)
        }
    }
}
