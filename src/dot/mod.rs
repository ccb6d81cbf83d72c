//! Pictures: DOT (on graphviz-rust's DOT model) for structs and overlap graphs, and SVG board
//! diagrams with elements outlined — the visualisation the thesis names as ETS's missing tool
//! (§4.4.3 and its footnote: structs are three-dimensional and unreadable by hand).
//!
//! - [`struct_graph`]: primitives as record nodes whose ports are their sites, processes from port to
//!   port, temporal layers ranked top to bottom, a style per abstract primitive, chosen elements
//!   outlined as clusters (works for any domain).
//! - [`view`]: overlap graphs — elements as nodes, overlaps as edges labelled by the shared
//!   constraints (the style of Figs. 3.8, 4.32, 4.39) — in layouts that scale (anchored at the
//!   domain's points, clustered by class, or graphviz's multilevel force layout).
//! - [`board::board_picture_svg`]: a Go position with elements drawn as outlines over the stones
//!   (Fig. 4.43).
//! - [`game`]: the data those pictures take from a classified game (engine elements, vertices,
//!   lifetimes, overlaps) and the selections that keep a picture readable (level, classes, region,
//!   moves).
//! - [`render`]: DOT to SVG or PNG with the system's graphviz `dot`, or with the pure-Rust layout-rs
//!   when `dot` is not installed; [`raster::svg_to_png`] turns any SVG into PNG without graphviz.

pub mod board;
pub mod game;
pub mod raster;
pub mod view;

pub use graphviz_rust::dot_structures::Graph;
use graphviz_rust::dot_structures::{Attribute, Edge, EdgeTy, Id, Node, NodeId, Port, Stmt, Subgraph, Vertex};
use graphviz_rust::printer::{DotPrinter, PrinterContext};
use std::collections::BTreeMap;
use std::io::Write;
use std::process::{Command, Stdio};
use thiserror::Error;

use crate::ets::{NodeId as Prim, Struct};

/// A quoted DOT identifier. `s` is DOT label text: `\n` stays a line break; quotes are escaped.
pub fn quoted(s: &str) -> Id {
    Id::Escaped(format!("\"{}\"", s.replace('"', "\\\"")))
}

pub(crate) fn attr(k: &str, v: &str) -> Attribute {
    Attribute(Id::Plain(k.to_string()), quoted(v))
}

/// Fill colours, one per abstract primitive (cycled).
pub const PALETTE: &[&str] = &[
    "#4a4a4a", "#f2f2f2", "#d9e8c4", "#9ecae1", "#fdd0a2", "#c7e9c0", "#fcbba1", "#dadaeb", "#fee391",
];
/// Outline colours for highlighted elements (cycled).
pub const OUTLINES: &[&str] = &[
    "#d7301f", "#2171b5", "#238b45", "#6a51a3", "#cc4c02", "#01665e", "#ae017e", "#525252",
];

/// What to draw of a struct.
pub struct StructPicture<'a> {
    /// The struct.
    pub strukt: &'a Struct,
    /// Which primitives to draw (cropping).
    pub include: &'a dyn Fn(Prim) -> bool,
    /// The temporal layer of a primitive, if known (primitives of one layer share a rank).
    pub layer: Option<&'a dyn Fn(Prim) -> u32>,
    /// Extra caption for a primitive (e.g. its vertex).
    pub caption: &'a dyn Fn(Prim) -> String,
    /// Elements to outline: a label and the primitives they span.
    pub clusters: Vec<(String, Vec<Prim>)>,
}

fn node_name(n: Prim) -> String {
    format!("p{n}")
}

/// The DOT graph of a struct.
pub fn struct_graph(p: &StructPicture<'_>) -> Graph {
    let s = p.strukt;
    let al = s.alphabet();
    let mut stmts = vec![
        Stmt::Attribute(attr("rankdir", "TB")),
        Stmt::Attribute(attr("newrank", "true")),
        Stmt::Attribute(attr("nodesep", "0.15")),
        Stmt::Attribute(attr("fontname", "Helvetica")),
    ];
    let kept: Vec<Prim> = s.nodes().filter(|&n| (p.include)(n)).collect();
    let in_cluster: BTreeMap<Prim, usize> = p
        .clusters
        .iter()
        .enumerate()
        .rev()
        .flat_map(|(i, (_, ns))| ns.iter().map(move |&n| (n, i)))
        .collect();
    let node_stmt = |n: Prim| -> Stmt {
        let ap = al.primitive(s.kind_of(n));
        let ports = |side: &str, sites: &[crate::ets::Site]| -> String {
            sites
                .iter()
                .enumerate()
                .map(|(i, st)| format!("<{side}{i}>{}", st.name))
                .collect::<Vec<_>>()
                .join("|")
        };
        let cap = (p.caption)(n);
        let middle = if cap.is_empty() {
            format!("{} #{}", ap.name, s.primitive(n).id)
        } else {
            format!("{} #{}\\n{cap}", ap.name, s.primitive(n).id)
        };
        let mut parts = Vec::new();
        if !ap.initials.is_empty() {
            parts.push(format!("{{{}}}", ports("i", &ap.initials)));
        }
        parts.push(middle);
        if !ap.terminals.is_empty() {
            parts.push(format!("{{{}}}", ports("t", &ap.terminals)));
        }
        let k = s.kind_of(n).0 as usize;
        let fill = PALETTE[k % PALETTE.len()];
        let font = if k.is_multiple_of(PALETTE.len()) {
            "white"
        } else {
            "black"
        };
        Stmt::Node(Node {
            id: NodeId(Id::Plain(node_name(n)), None),
            attributes: vec![
                attr("shape", "record"),
                attr("label", &format!("{{{}}}", parts.join("|"))),
                attr("style", "filled"),
                attr("fillcolor", fill),
                attr("fontcolor", font),
                attr("fontsize", "9"),
            ],
        })
    };
    // clusters first (a primitive shared by several is drawn in the first that holds it)
    let mut placed = std::collections::BTreeSet::new();
    for (i, (label, ns)) in p.clusters.iter().enumerate() {
        let mut sub = vec![
            Stmt::Attribute(attr("label", label)),
            Stmt::Attribute(attr("style", "rounded")),
            Stmt::Attribute(attr("color", OUTLINES[i % OUTLINES.len()])),
            Stmt::Attribute(attr("penwidth", "2")),
        ];
        for &n in ns {
            if (p.include)(n) && in_cluster.get(&n) == Some(&i) && placed.insert(n) {
                sub.push(node_stmt(n));
            }
        }
        stmts.push(Stmt::Subgraph(Subgraph {
            id: Id::Plain(format!("cluster_{i}")),
            stmts: sub,
        }));
    }
    for &n in &kept {
        if !placed.contains(&n) {
            stmts.push(node_stmt(n));
        }
    }
    // ranks
    if let Some(layer) = p.layer {
        let mut by: BTreeMap<u32, Vec<Prim>> = BTreeMap::new();
        for &n in &kept {
            by.entry(layer(n)).or_default().push(n);
        }
        for (l, ns) in by {
            let mut sub = vec![Stmt::Attribute(attr("rank", "same"))];
            sub.extend(ns.iter().map(|&n| {
                Stmt::Node(Node {
                    id: NodeId(Id::Plain(node_name(n)), None),
                    attributes: vec![],
                })
            }));
            stmts.push(Stmt::Subgraph(Subgraph {
                id: Id::Plain(format!("layer_{l}")),
                stmts: sub,
            }));
        }
    }
    for (a, pr, b) in s.processes() {
        if !(p.include)(a) || !(p.include)(b) {
            continue;
        }
        let from = NodeId(
            Id::Plain(node_name(a)),
            Some(Port(Some(Id::Plain(format!("t{}", pr.from_site))), None)),
        );
        let to = NodeId(
            Id::Plain(node_name(b)),
            Some(Port(Some(Id::Plain(format!("i{}", pr.to_site))), None)),
        );
        stmts.push(Stmt::Edge(Edge {
            ty: EdgeTy::Pair(Vertex::N(from), Vertex::N(to)),
            attributes: vec![attr("arrowsize", "0.5")],
        }));
    }
    Graph::DiGraph {
        id: Id::Plain("struct".into()),
        strict: false,
        stmts,
    }
}

/// DOT text of a graph.
pub fn to_dot(g: &Graph) -> String {
    g.print(&mut PrinterContext::default())
}

/// Output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Scalable vector graphics.
    Svg,
    /// Portable network graphics.
    Png,
}

/// Why a picture could not be rendered.
#[derive(Debug, Error)]
pub enum RenderError {
    /// `dot` failed.
    #[error("graphviz `dot` failed: {0}")]
    Dot(String),
    /// The pure-Rust layout failed.
    #[error("the built-in layout could not draw this graph: {0}")]
    Layout(String),
    /// SVG could not be turned into PNG.
    #[error("could not draw the picture as PNG: {0}")]
    Raster(String),
}

/// Whether graphviz's `dot` is installed (and not turned off by `ETS_GRAPHVIZ=0`, which makes
/// every picture take the pure-Rust route). Asked once per process.
pub fn have_dot() -> bool {
    static HAVE: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *HAVE.get_or_init(|| {
        std::env::var_os("ETS_GRAPHVIZ").is_none_or(|v| v != "0")
            && Command::new("dot")
                .arg("-V")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success())
    })
}

/// Renders DOT text: with graphviz's `dot` when installed, else with layout-rs (and resvg for PNG).
pub fn render(dot: &str, format: Format) -> Result<Vec<u8>, RenderError> {
    if have_dot() {
        let t = match format {
            Format::Svg => "-Tsvg",
            Format::Png => "-Tpng",
        };
        let mut child = Command::new("dot")
            .arg(t)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|e| RenderError::Dot(e.to_string()))?;
        let mut stdin = child.stdin.take().expect("piped");
        let text = dot.to_string();
        let writer = std::thread::spawn(move || stdin.write_all(text.as_bytes()));
        let out = child.wait_with_output().map_err(|e| RenderError::Dot(e.to_string()))?;
        let _ = writer.join();
        if !out.status.success() {
            return Err(RenderError::Dot(String::from_utf8_lossy(&out.stderr).into_owned()));
        }
        return Ok(out.stdout);
    }
    let svg = render_builtin(dot)?;
    match format {
        Format::Png => raster::svg_to_png(&svg),
        Format::Svg => Ok(svg.into_bytes()),
    }
}

/// Renders DOT text to SVG with the pure-Rust layout-rs (no graphviz needed).
pub fn render_builtin(dot: &str) -> Result<String, RenderError> {
    use layout::backends::svg::SVGWriter;
    use layout::gv::{DotParser, GraphBuilder};
    let mut parser = DotParser::new(dot);
    let ast = parser.process().map_err(RenderError::Layout)?;
    let mut builder = GraphBuilder::new();
    builder.visit_graph(&ast);
    let mut vg = builder.get();
    let mut svg = SVGWriter::new();
    // layout-rs panics on some inputs; keep a panic inside a picture from taking the command down
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
        vg.do_it(false, false, false, &mut svg);
        svg.finalize()
    }));
    r.map_err(|_| RenderError::Layout("layout failed".into()))
}

/// Text escaped for SVG and XML.
pub(crate) fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
