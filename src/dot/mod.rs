//! Pictures: DOT (on graphviz-rust's DOT model) for structs and overlap graphs, and SVG board
//! diagrams with elements outlined — the visualisation the thesis names as ETS's missing tool
//! (§4.4.3 and its footnote: structs are three-dimensional and unreadable by hand).
//!
//! - [`struct_graph`]: primitives as record nodes whose ports are their sites, processes from port to
//!   port, temporal layers ranked top to bottom, a style per abstract primitive, chosen elements
//!   outlined as clusters (works for any domain).
//! - [`overlap_graph`]: elements as nodes, overlaps as edges labelled by the shared constraints (the
//!   style of Figs. 3.8, 4.32, 4.39).
//! - [`board::board_svg`]: a Go position with elements drawn as outlines over the stones (Fig. 4.43).
//! - [`render`]: DOT to SVG or PNG with the system's graphviz `dot`, or to SVG with the pure-Rust
//!   layout-rs when `dot` is not installed.

pub mod board;

pub use graphviz_rust::dot_structures::Graph;
use graphviz_rust::dot_structures::{Attribute, Edge, EdgeTy, Id, Node, NodeId, Port, Stmt, Subgraph, Vertex};
use graphviz_rust::printer::{DotPrinter, PrinterContext};
use std::collections::BTreeMap;
use std::io::Write;
use std::process::{Command, Stdio};
use thiserror::Error;

use crate::ets::{NodeId as Prim, Setting, Struct};
use crate::go::classify::Classification;

/// A quoted DOT identifier. `s` is DOT label text: `\n` stays a line break; quotes are escaped.
pub fn quoted(s: &str) -> Id {
    Id::Escaped(format!("\"{}\"", s.replace('"', "\\\"")))
}

fn attr(k: &str, v: &str) -> Attribute {
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

/// One node of an overlap graph.
#[derive(Debug, Clone)]
pub struct OverlapNode {
    /// A stable id (e.g. `L1:3`).
    pub id: String,
    /// Its class.
    pub class: String,
    /// Further text (e.g. vertices).
    pub detail: String,
}

/// An overlap graph: elements as nodes, edges labelled with the constraints they overlap on.
pub fn overlap_graph(title: &str, nodes: &[OverlapNode], edges: &[(usize, usize, Vec<String>)]) -> Graph {
    let mut classes: BTreeMap<&str, usize> = BTreeMap::new();
    for n in nodes {
        let k = classes.len();
        classes.entry(n.class.as_str()).or_insert(k);
    }
    let mut stmts = vec![
        Stmt::Attribute(attr("label", title)),
        Stmt::Attribute(attr("fontname", "Helvetica")),
        Stmt::Attribute(attr("overlap", "false")),
        Stmt::Attribute(attr("layout", "neato")),
        Stmt::Attribute(attr("splines", "true")),
        Stmt::Attribute(attr("sep", "+6")),
    ];
    for n in nodes {
        let k = classes[n.class.as_str()];
        let label = if n.detail.is_empty() {
            format!("{}\\n{}", n.class, n.id)
        } else {
            format!("{}\\n{}\\n{}", n.class, n.detail, n.id)
        };
        stmts.push(Stmt::Node(Node {
            id: NodeId(quoted(&n.id), None),
            attributes: vec![
                attr("label", &label),
                attr("shape", "ellipse"),
                attr("style", "filled"),
                attr("fillcolor", PALETTE[1 + k % (PALETTE.len() - 1)]),
                attr("fontsize", "9"),
            ],
        }));
    }
    for (a, b, cs) in edges {
        stmts.push(Stmt::Edge(Edge {
            ty: EdgeTy::Pair(
                Vertex::N(NodeId(quoted(&nodes[*a].id), None)),
                Vertex::N(NodeId(quoted(&nodes[*b].id), None)),
            ),
            attributes: vec![attr("label", &cs.join("\\n")), attr("fontsize", "8")],
        }));
    }
    Graph::Graph {
        id: Id::Plain("overlaps".into()),
        strict: false,
        stmts,
    }
}

/// The overlap graph of one level of a Go classification (living elements, as `ets classify` lists
/// them); with `only`, just the elements of those classes and the overlaps among them.
/// Elements are labelled with their class and vertices (GTP names on a board of `rows` rows).
pub fn classification_overlap(
    st: &Setting,
    c: &Classification,
    level: u32,
    rows: u8,
    only: &[String],
    title: &str,
) -> Graph {
    let l = &c.hierarchy.levels[level as usize];
    let named = &c.named[level as usize];
    let living: Vec<usize> = (0..l.elements.len()).filter(|&i| named[i].died.is_none()).collect();
    let keep = |i: usize| only.is_empty() || only.contains(&st.class(l.elements[i].class).name);
    let shown: Vec<usize> = (0..living.len()).filter(|&k| keep(living[k])).collect();
    let pos = |k: usize| shown.iter().position(|&x| x == k);
    let nodes: Vec<OverlapNode> = shown
        .iter()
        .map(|&k| living[k])
        .map(|i| OverlapNode {
            id: format!("L{level}:{i}"),
            class: st.class(l.elements[i].class).name.clone(),
            detail: named[i]
                .vertices
                .iter()
                .map(|p| p.gtp(rows))
                .collect::<Vec<_>>()
                .join(" "),
        })
        .collect();
    let edges: Vec<(usize, usize, Vec<String>)> = l
        .overlaps()
        .edges
        .iter()
        .filter_map(|(a, b, cs)| {
            Some((
                pos(*a as usize)?,
                pos(*b as usize)?,
                cs.iter().map(|&x| st.constraint(x).name.clone()).collect(),
            ))
        })
        .collect();
    overlap_graph(title, &nodes, &edges)
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
    /// Portable network graphics (needs graphviz's `dot`).
    Png,
}

/// Why a picture could not be rendered.
#[derive(Debug, Error)]
pub enum RenderError {
    /// PNG needs graphviz.
    #[error("PNG output needs graphviz's `dot` (apt-get install graphviz); `--render svg` works without it")]
    PngNeedsGraphviz,
    /// `dot` failed.
    #[error("graphviz `dot` failed: {0}")]
    Dot(String),
    /// The pure-Rust layout failed.
    #[error("the built-in layout could not draw this graph: {0}")]
    Layout(String),
}

/// Whether graphviz's `dot` is installed.
pub fn have_dot() -> bool {
    Command::new("dot")
        .arg("-V")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Renders DOT text: with graphviz's `dot` when installed, else (SVG only) with layout-rs.
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
    match format {
        Format::Png => Err(RenderError::PngNeedsGraphviz),
        Format::Svg => render_builtin(dot).map(|s| s.into_bytes()),
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
