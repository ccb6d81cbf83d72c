//! Overlap graphs that scale: one level's elements as nodes, their overlaps (Def. of overlapping
//! class elements, §3.4.1; the level-(n+1) struct's class element links, §3.4.2) as edges labelled
//! by the constraints the two elements share, in the style of Figs. 3.8, 4.32 and 4.39.
//!
//! Layouts, none of them a force simulation over the whole graph:
//! - [`Layout::Anchored`]: each element at the mean of its *anchors* — points of a plane the domain
//!   gives (a Go element: its vertices) — and the elements that fall on one spot stacked there. Linear
//!   in the elements and edges; drawn here as SVG, and printed as DOT with pinned positions that
//!   graphviz draws as they are.
//! - [`Layout::Clustered`]: the elements of each class as one labelled block, blocks in reading
//!   order; for elements without anchors, drawn here without graphviz. Linear too.
//! - [`Layout::Force`]: graphviz's multilevel force layout (`sfdp`) with node overlap removal and
//!   straight edges: O(n log n); the DOT route for graphs of any domain.
//! - [`Layout::Spring`]: the first layout of `ets dot` (`neato`, overlap removal by spacing, edges
//!   routed around nodes): the most compact picture of a small graph, minutes beyond a few hundred
//!   elements.

use graphviz_rust::dot_structures::{Attribute, Edge, EdgeTy, Graph, Id, Node, NodeId, Stmt, Vertex};
use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::{PALETTE, attr, esc, quoted};
use crate::ets::Setting;
use crate::ets::hierarchy::LevelResult;

/// One element as a picture shows it.
#[derive(Debug, Clone, PartialEq)]
pub struct ElementView {
    /// A stable id (e.g. `L1:3`), the DOT node name.
    pub id: String,
    /// Its class.
    pub class: String,
    /// A short description drawn under the class (e.g. its vertices).
    pub detail: String,
    /// The whole description (a tooltip in SVG).
    pub tooltip: String,
    /// Points of the domain's plane it stands on (grid units, y down); empty if the domain has none.
    pub anchors: Vec<(f64, f64)>,
}

/// A reference grid under an anchored picture (a Go board: columns A–T, rows 19–1).
#[derive(Debug, Clone, PartialEq)]
pub struct Grid {
    /// Column names, left to right.
    pub cols: Vec<String>,
    /// Row names, top to bottom.
    pub rows: Vec<String>,
}

/// An overlap graph ready to lay out: elements and labelled edges between them.
#[derive(Debug, Clone, PartialEq)]
pub struct LevelView {
    /// A caption.
    pub title: String,
    /// The nodes.
    pub elements: Vec<ElementView>,
    /// Edges `(a, b, constraints)` between indices of `elements`.
    pub edges: Vec<(usize, usize, Vec<String>)>,
    /// The plane the anchors lie in, if it is a grid worth drawing.
    pub grid: Option<Grid>,
}

impl LevelView {
    /// The view of every element of one recognised level of any domain (no anchors): nodes named
    /// `L{level}:{index}`, edges from the level's overlap graph.
    pub fn of_level(setting: &Setting, level: &LevelResult, title: &str) -> Self {
        let elements = level
            .elements
            .iter()
            .enumerate()
            .map(|(i, e)| ElementView {
                id: format!("L{}:{i}", level.level),
                class: setting.class(e.class).name.clone(),
                detail: String::new(),
                tooltip: format!("{} L{}:{i}", setting.class(e.class).name, level.level),
                anchors: Vec::new(),
            })
            .collect();
        let edges = level
            .overlaps()
            .edges
            .iter()
            .map(|(a, b, cs)| {
                (
                    *a as usize,
                    *b as usize,
                    cs.iter().map(|&c| setting.constraint(c).name.clone()).collect(),
                )
            })
            .collect();
        LevelView {
            title: title.to_string(),
            elements,
            edges,
            grid: None,
        }
    }
}

/// How to lay an overlap graph out (see the module's documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// Elements at their anchors.
    Anchored,
    /// Elements grouped by class.
    Clustered,
    /// graphviz `sfdp`.
    Force,
    /// graphviz `neato` with spacing and routed edges (the first layout; small graphs only).
    Spring,
}

/// A node's box, in SVG units (points), centre and size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Placed {
    /// Centre x.
    pub x: f64,
    /// Centre y (down).
    pub y: f64,
    /// Width.
    pub w: f64,
    /// Height.
    pub h: f64,
}

/// Every node placed, and the picture's extent.
#[derive(Debug, Clone, PartialEq)]
pub struct Placement {
    /// One per element, in order.
    pub nodes: Vec<Placed>,
    /// Labelled boxes drawn under the nodes (a class block of the clustered layout).
    pub frames: Vec<(String, Placed)>,
    /// Where the grid's lines run: x of each column, y of each row.
    pub grid_lines: Option<(Vec<f64>, Vec<f64>)>,
    /// How far outside the grid its names stand (clear of the nodes on its border), across and down.
    pub grid_names_offset: (f64, f64),
    /// Width.
    pub width: f64,
    /// Height.
    pub height: f64,
}

const FONT: f64 = 9.0;
const CHAR_W: f64 = 5.4;
const LINE_H: f64 = 11.0;
const TOP: f64 = 34.0;
const MARGIN: f64 = 30.0;
/// A node's detail is cut to this many characters (the whole of it is in the tooltip).
pub const DETAIL_CHARS: usize = 22;

fn lines(e: &ElementView) -> Vec<String> {
    let mut v = vec![e.class.clone()];
    if !e.detail.is_empty() {
        v.push(short(&e.detail, DETAIL_CHARS));
    }
    v
}

/// `s` cut to `n` characters, an ellipsis marking the cut.
pub fn short(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(n.saturating_sub(1)).collect();
        t.push('…');
        t
    }
}

fn size(e: &ElementView) -> (f64, f64) {
    let ls = lines(e);
    let w = ls.iter().map(|l| l.chars().count()).max().unwrap_or(1) as f64 * CHAR_W + 10.0;
    (w, ls.len() as f64 * LINE_H + 6.0)
}

/// The anchored layout: an element at the mean of its anchors, snapped to a half-grid; the
/// elements of one spot stacked (at most four high, then side by side). Grid units are scaled so
/// the widest node fits between half-grid neighbours. Elements without anchors go in rows below.
pub fn place_anchored(v: &LevelView) -> Placement {
    let sizes: Vec<(f64, f64)> = v.elements.iter().map(size).collect();
    let mut spots: BTreeMap<(i64, i64), Vec<usize>> = BTreeMap::new();
    let mut loose = Vec::new();
    for (i, e) in v.elements.iter().enumerate() {
        if e.anchors.is_empty() {
            loose.push(i);
            continue;
        }
        let n = e.anchors.len() as f64;
        let (sx, sy) = e.anchors.iter().fold((0.0, 0.0), |(a, b), &(x, y)| (a + x, b + y));
        spots
            .entry(((2.0 * sx / n).round() as i64, (2.0 * sy / n).round() as i64))
            .or_default()
            .push(i);
    }
    const STACK: usize = 4;
    let max_w = sizes.iter().map(|s| s.0).fold(40.0, f64::max);
    let node_h = sizes.iter().map(|s| s.1).fold(LINE_H + 6.0, f64::max);
    let tallest = spots.values().map(|s| s.len().min(STACK)).max().unwrap_or(1) as f64;
    // half a grid unit, across and down
    let hx = max_w + 14.0;
    // no flatter than a board: wide nodes (long class names) spread the rows too
    let hy = (tallest * (node_h + 4.0) + 10.0).max(0.6 * hx);
    let (min_x, min_y) = spots
        .keys()
        .chain(grid_keys(v).iter())
        .fold((i64::MAX, i64::MAX), |(a, b), &(x, y)| (a.min(x), b.min(y)));
    let (max_x, max_y) = spots
        .keys()
        .chain(grid_keys(v).iter())
        .fold((i64::MIN, i64::MIN), |(a, b), &(x, y)| (a.max(x), b.max(y)));
    let (min_x, min_y) = if min_x == i64::MAX { (0, 0) } else { (min_x, min_y) };
    let (max_x, max_y) = if max_x == i64::MIN { (0, 0) } else { (max_x, max_y) };
    let left = MARGIN + 24.0 + max_w / 2.0;
    let top = TOP + 16.0 + hy / 2.0;
    let px = |k: i64| left + (k - min_x) as f64 * hx;
    let py = |k: i64| top + (k - min_y) as f64 * hy;
    let mut nodes = vec![
        Placed {
            x: 0.0,
            y: 0.0,
            w: 0.0,
            h: 0.0
        };
        v.elements.len()
    ];
    for (&(kx, ky), ns) in &spots {
        let cols = ns.len().div_ceil(STACK);
        let rows = ns.len().div_ceil(cols);
        for (j, &i) in ns.iter().enumerate() {
            let (c, r) = (j / rows, j % rows);
            let (w, h) = sizes[i];
            nodes[i] = Placed {
                x: px(kx) + (c as f64 - (cols - 1) as f64 / 2.0) * (max_w + 6.0),
                y: py(ky) + (r as f64 - (rows - 1) as f64 / 2.0) * (node_h + 4.0),
                w,
                h,
            };
        }
    }
    let mut width = px(max_x) + max_w / 2.0 + MARGIN;
    let mut y = py(max_y) + hy / 2.0 + 10.0;
    let grid_lines = v.grid.as_ref().map(|g| {
        (
            (0..g.cols.len()).map(|c| px(2 * c as i64)).collect(),
            (0..g.rows.len()).map(|r| py(2 * r as i64)).collect(),
        )
    });
    if !loose.is_empty() {
        let per_row = ((width - 2.0 * MARGIN) / (max_w + 8.0)).floor().max(1.0) as usize;
        let per_row = per_row.max((loose.len() as f64).sqrt().ceil() as usize);
        for (j, &i) in loose.iter().enumerate() {
            let (w, h) = sizes[i];
            nodes[i] = Placed {
                x: MARGIN + max_w / 2.0 + (j % per_row) as f64 * (max_w + 8.0),
                y: y + node_h / 2.0 + (j / per_row) as f64 * (node_h + 8.0),
                w,
                h,
            };
        }
        width = width.max(MARGIN * 2.0 + per_row as f64 * (max_w + 8.0));
        y += loose.len().div_ceil(per_row) as f64 * (node_h + 8.0);
    }
    Placement {
        nodes,
        frames: Vec::new(),
        grid_lines,
        grid_names_offset: (max_w / 2.0 + 12.0, hy / 2.0 + 4.0),
        width,
        height: y + MARGIN,
    }
}

fn grid_keys(v: &LevelView) -> Vec<(i64, i64)> {
    match &v.grid {
        Some(g) if !g.cols.is_empty() && !g.rows.is_empty() => {
            vec![(0, 0), (2 * (g.cols.len() as i64 - 1), 2 * (g.rows.len() as i64 - 1))]
        }
        _ => Vec::new(),
    }
}

/// The clustered layout: each class's elements in a near-square block under the class's name,
/// blocks side by side in reading order, wrapping at about the width of a square picture.
pub fn place_clustered(v: &LevelView) -> Placement {
    let sizes: Vec<(f64, f64)> = v.elements.iter().map(size).collect();
    let mut classes: Vec<(&str, Vec<usize>)> = Vec::new();
    for (i, e) in v.elements.iter().enumerate() {
        match classes.iter_mut().find(|(c, _)| *c == e.class) {
            Some((_, v)) => v.push(i),
            None => classes.push((&e.class, vec![i])),
        }
    }
    let cell_w = sizes.iter().map(|s| s.0).fold(40.0, f64::max) + 16.0;
    let cell_h = sizes.iter().map(|s| s.1).fold(LINE_H + 6.0, f64::max) + 18.0;
    let area: f64 = v.elements.len() as f64 * cell_w * cell_h;
    let target = area.sqrt().max(cell_w * 4.0) * 1.3;
    let mut nodes = vec![
        Placed {
            x: 0.0,
            y: 0.0,
            w: 0.0,
            h: 0.0
        };
        v.elements.len()
    ];
    let mut frames = Vec::new();
    let (mut x, mut y, mut row_h, mut width) = (MARGIN, TOP + 10.0, 0.0f64, 0.0f64);
    for (class, members) in &classes {
        let cols = ((members.len() as f64).sqrt().ceil() as usize).max(1);
        let rows = members.len().div_ceil(cols);
        let (bw, bh) = (cols as f64 * cell_w + 10.0, rows as f64 * cell_h + 26.0);
        if x > MARGIN && x + bw > target {
            x = MARGIN;
            y += row_h + 16.0;
            row_h = 0.0;
        }
        for (j, &i) in members.iter().enumerate() {
            let (w, h) = sizes[i];
            nodes[i] = Placed {
                x: x + 5.0 + (j % cols) as f64 * cell_w + cell_w / 2.0,
                y: y + 20.0 + (j / cols) as f64 * cell_h + cell_h / 2.0,
                w,
                h,
            };
        }
        frames.push((
            format!("{class} ({})", members.len()),
            Placed {
                x: x + bw / 2.0,
                y: y + bh / 2.0,
                w: bw,
                h: bh,
            },
        ));
        x += bw + 16.0;
        width = width.max(x);
        row_h = row_h.max(bh);
    }
    Placement {
        nodes,
        frames,
        grid_lines: None,
        grid_names_offset: (0.0, 0.0),
        width: width + MARGIN,
        height: y + row_h + MARGIN,
    }
}

/// Edge colours, one per constraint name (cycled).
pub const EDGE_COLOURS: &[&str] = &[
    "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#ff7f0e",
];

fn class_fills(v: &LevelView) -> BTreeMap<&str, &'static str> {
    let mut m = BTreeMap::new();
    for e in &v.elements {
        let k = m.len();
        m.entry(e.class.as_str())
            .or_insert(PALETTE[1 + k % (PALETTE.len() - 1)]);
    }
    m
}

fn edge_colours(v: &LevelView) -> BTreeMap<&str, &'static str> {
    let mut names: Vec<&str> = v
        .edges
        .iter()
        .flat_map(|(_, _, cs)| cs.iter().map(|c| c.as_str()))
        .collect();
    names.sort_unstable();
    names.dedup();
    names
        .into_iter()
        .enumerate()
        .map(|(i, c)| (c, EDGE_COLOURS[i % EDGE_COLOURS.len()]))
        .collect()
}

/// Node centres by column and by row (rounded), to find the nodes an axis-parallel edge would
/// run under.
struct Lines {
    by_x: BTreeMap<i64, Vec<f64>>,
    by_y: BTreeMap<i64, Vec<f64>>,
}

impl Lines {
    fn of(p: &Placement) -> Self {
        let (mut by_x, mut by_y) = (BTreeMap::<i64, Vec<f64>>::new(), BTreeMap::<i64, Vec<f64>>::new());
        for n in &p.nodes {
            by_x.entry(n.x.round() as i64).or_default().push(n.y);
            by_y.entry(n.y.round() as i64).or_default().push(n.x);
        }
        Lines { by_x, by_y }
    }

    fn between(m: &BTreeMap<i64, Vec<f64>>, key: f64, a: f64, b: f64) -> bool {
        let (lo, hi) = (a.min(b) + 0.5, a.max(b) - 0.5);
        m.get(&(key.round() as i64))
            .is_some_and(|v| v.iter().any(|&t| t > lo && t < hi))
    }
}

/// The edge's path: straight, or bowed when it would run along a column or row under other nodes
/// (a stack, or a vertex's neighbour's neighbour). Returns the path and its midpoint.
fn edge_path(a: &Placed, b: &Placed, lines: &Lines) -> (String, (f64, f64)) {
    let (mx, my) = ((a.x + b.x) / 2.0, (a.y + b.y) / 2.0);
    let bowed = |c: (f64, f64), mid: (f64, f64)| {
        (
            format!("M{:.1},{:.1}Q{:.1},{:.1} {:.1},{:.1}", a.x, a.y, c.0, c.1, b.x, b.y),
            mid,
        )
    };
    if (a.x - b.x).abs() < 1.0 && Lines::between(&lines.by_x, a.x, a.y, b.y) {
        let bow = a.w.max(b.w) * 0.6 + (a.y - b.y).abs() * 0.15;
        bowed((mx + 2.0 * bow, my), (mx + bow, my))
    } else if (a.y - b.y).abs() < 1.0 && Lines::between(&lines.by_y, a.y, a.x, b.x) {
        let bow = a.h.max(b.h) * 0.8 + (a.x - b.x).abs() * 0.1;
        bowed((mx, my - 2.0 * bow), (mx, my - bow))
    } else {
        (format!("M{:.1},{:.1}L{:.1},{:.1}", a.x, a.y, b.x, b.y), (mx, my))
    }
}

/// The SVG picture of a placed overlap graph: grid (if any), class frames, edges in a colour per
/// constraint with the constraints' names at their middle, nodes on top (a fill per class).
pub fn placed_svg(v: &LevelView, p: &Placement) -> String {
    let mut s = String::with_capacity(200 * (v.elements.len() + v.edges.len()) + 1000);
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w:.0}\" height=\"{h:.0}\" viewBox=\"0 0 {w:.0} {h:.0}\" font-family=\"Helvetica, Arial, sans-serif\">",
        w = p.width,
        h = p.height
    );
    let _ = writeln!(s, "<title>{}</title>", esc(&v.title));
    let _ = writeln!(
        s,
        "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n<text x=\"{:.1}\" y=\"22\" font-size=\"14\">{}</text>",
        MARGIN,
        esc(&v.title)
    );
    if let (Some(g), Some((xs, ys))) = (&v.grid, &p.grid_lines) {
        let (x0, x1) = (xs.first().copied().unwrap_or(0.0), xs.last().copied().unwrap_or(0.0));
        let (y0, y1) = (ys.first().copied().unwrap_or(0.0), ys.last().copied().unwrap_or(0.0));
        s.push_str("<g stroke=\"#e3d2a8\" stroke-width=\"1\">\n");
        for &x in xs {
            let _ = writeln!(s, "<line x1=\"{x:.1}\" y1=\"{y0:.1}\" x2=\"{x:.1}\" y2=\"{y1:.1}\"/>");
        }
        for &y in ys {
            let _ = writeln!(s, "<line x1=\"{x0:.1}\" y1=\"{y:.1}\" x2=\"{x1:.1}\" y2=\"{y:.1}\"/>");
        }
        s.push_str("</g>\n<g font-size=\"11\" fill=\"#a08850\" text-anchor=\"middle\">\n");
        for (x, name) in xs.iter().zip(&g.cols) {
            let _ = writeln!(
                s,
                "<text x=\"{x:.1}\" y=\"{:.1}\">{}</text>",
                y0 - p.grid_names_offset.1,
                esc(name)
            );
        }
        for (y, name) in ys.iter().zip(&g.rows) {
            let _ = writeln!(
                s,
                "<text x=\"{:.1}\" y=\"{:.1}\">{}</text>",
                x0 - p.grid_names_offset.0,
                y + 4.0,
                esc(name)
            );
        }
        s.push_str("</g>\n");
    }
    for (label, f) in &p.frames {
        let _ = writeln!(
            s,
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"6\" fill=\"#fbfbfb\" stroke=\"#999\"/><text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\" fill=\"#555\">{}</text>",
            f.x - f.w / 2.0,
            f.y - f.h / 2.0,
            f.w,
            f.h,
            f.x - f.w / 2.0 + 6.0,
            f.y - f.h / 2.0 + 13.0,
            esc(label)
        );
    }
    let colours = edge_colours(v);
    let colour = |cs: &[String]| cs.first().map_or("#777", |c| colours[c.as_str()]);
    s.push_str("<g fill=\"none\" stroke-width=\"1\">\n");
    let mut mids = Vec::with_capacity(v.edges.len());
    let index = Lines::of(p);
    for (a, b, cs) in &v.edges {
        let (d, mid) = edge_path(&p.nodes[*a], &p.nodes[*b], &index);
        let _ = writeln!(s, "<path d=\"{d}\" stroke=\"{}\"/>", colour(cs));
        mids.push(mid);
    }
    s.push_str("</g>\n");
    let fills = class_fills(v);
    s.push_str("<g font-size=\"9\" text-anchor=\"middle\">\n");
    for (e, n) in v.elements.iter().zip(&p.nodes) {
        let _ = write!(
            s,
            "<g><title>{}</title><rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" rx=\"5\" fill=\"{}\" stroke=\"#555\" stroke-width=\"0.7\"/>",
            esc(&format!("{} {}", e.id, e.tooltip)),
            n.x - n.w / 2.0,
            n.y - n.h / 2.0,
            n.w,
            n.h,
            fills[e.class.as_str()]
        );
        let ls = lines(e);
        let y0 = n.y - (ls.len() as f64 - 1.0) * LINE_H / 2.0 + FONT / 3.0;
        for (k, l) in ls.iter().enumerate() {
            let _ = write!(
                s,
                "<text x=\"{:.1}\" y=\"{:.1}\">{}</text>",
                n.x,
                y0 + k as f64 * LINE_H,
                esc(l)
            );
        }
        s.push_str("</g>\n");
    }
    s.push_str("</g>\n<g font-size=\"7\" text-anchor=\"middle\" stroke=\"white\" stroke-width=\"2.5\" paint-order=\"stroke\">\n");
    for ((_, _, cs), (x, y)) in v.edges.iter().zip(&mids) {
        let _ = writeln!(
            s,
            "<text x=\"{x:.1}\" y=\"{:.1}\" fill=\"{}\">{}</text>",
            y + 2.5,
            colour(cs),
            esc(&cs.join(","))
        );
    }
    s.push_str("</g>\n</svg>\n");
    s
}

fn node_stmt(e: &ElementView, fill: &str, extra: Vec<Attribute>) -> Stmt {
    let label = if e.detail.is_empty() {
        format!("{}\\n{}", e.class, e.id)
    } else {
        format!("{}\\n{}\\n{}", e.class, e.detail, e.id)
    };
    let mut attributes = vec![
        attr("label", &label),
        attr("style", "filled"),
        attr("fillcolor", fill),
        attr("fontsize", "9"),
    ];
    attributes.extend(extra);
    Stmt::Node(Node {
        id: NodeId(quoted(&e.id), None),
        attributes,
    })
}

/// The DOT graph of an overlap view. [`Layout::Anchored`] and [`Layout::Clustered`] pin every node
/// where [`place_anchored`] or [`place_clustered`] put it (graphviz draws it as it is, in a moment);
/// [`Layout::Force`] and [`Layout::Spring`] leave the layout to graphviz.
pub fn view_dot(v: &LevelView, layout: Layout) -> Graph {
    let mut stmts = vec![
        Stmt::Attribute(attr("label", &v.title)),
        Stmt::Attribute(attr("labelloc", "t")),
        Stmt::Attribute(attr("fontname", "Helvetica")),
    ];
    let graph_attrs: &[(&str, &str)] = match layout {
        Layout::Anchored | Layout::Clustered => &[
            ("layout", "neato"),
            ("inputscale", "72"),
            ("notranslate", "true"),
            ("splines", "false"),
        ],
        Layout::Force => &[
            ("layout", "sfdp"),
            ("overlap", "prism"),
            ("splines", "false"),
            ("outputorder", "edgesfirst"),
        ],
        Layout::Spring => &[
            ("layout", "neato"),
            ("overlap", "false"),
            ("splines", "true"),
            ("sep", "+6"),
        ],
    };
    stmts.extend(graph_attrs.iter().map(|(k, x)| Stmt::Attribute(attr(k, x))));
    let placement = match layout {
        Layout::Anchored => Some(place_anchored(v)),
        Layout::Clustered => Some(place_clustered(v)),
        _ => None,
    };
    let fills = class_fills(v);
    for (i, e) in v.elements.iter().enumerate() {
        let extra = match &placement {
            Some(p) => {
                let n = &p.nodes[i];
                vec![
                    attr("shape", "box"),
                    attr("style", "rounded,filled"),
                    attr("pos", &format!("{:.1},{:.1}!", n.x, p.height - n.y)),
                ]
            }
            None => vec![attr("shape", "ellipse")],
        };
        let mut st = node_stmt(e, fills[e.class.as_str()], vec![]);
        if let Stmt::Node(n) = &mut st {
            // a later attribute wins in graphviz; keep one of each
            n.attributes.retain(|a| !extra.iter().any(|b| a.0 == b.0));
            n.attributes.extend(extra);
        }
        stmts.push(st);
    }
    let colours = edge_colours(v);
    for (a, b, cs) in &v.edges {
        let mut attributes = vec![attr("label", &cs.join("\\n")), attr("fontsize", "8")];
        if matches!(layout, Layout::Anchored | Layout::Clustered | Layout::Force)
            && let Some(c) = cs.first()
        {
            attributes.push(attr("color", colours[c.as_str()]));
            attributes.push(attr("fontcolor", colours[c.as_str()]));
        }
        stmts.push(Stmt::Edge(Edge {
            ty: EdgeTy::Pair(
                Vertex::N(NodeId(quoted(&v.elements[*a].id), None)),
                Vertex::N(NodeId(quoted(&v.elements[*b].id), None)),
            ),
            attributes,
        }));
    }
    Graph::Graph {
        id: Id::Plain("overlaps".into()),
        strict: false,
        stmts,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn el(id: &str, class: &str, anchors: Vec<(f64, f64)>) -> ElementView {
        ElementView {
            id: id.into(),
            class: class.into(),
            detail: String::new(),
            tooltip: String::new(),
            anchors,
        }
    }

    fn overlapping(a: &Placed, b: &Placed) -> bool {
        (a.x - b.x).abs() * 2.0 < a.w + b.w && (a.y - b.y).abs() * 2.0 < a.h + b.h
    }

    #[test]
    fn anchored_nodes_never_overlap_and_keep_the_plane_order() {
        let mut es = Vec::new();
        for x in 0..5 {
            for y in 0..5 {
                es.push(el(&format!("v{x}{y}"), "vertex", vec![(x as f64, y as f64)]));
                es.push(el(
                    &format!("p{x}{y}"),
                    "pair",
                    vec![(x as f64, y as f64), (x as f64 + 1.0, y as f64)],
                ));
                if x == 2 {
                    es.push(el(&format!("s{x}{y}"), "stone", vec![(x as f64, y as f64)]));
                    es.push(el(&format!("t{x}{y}"), "play", vec![(x as f64, y as f64)]));
                }
            }
        }
        es.push(el("loose", "attention", vec![]));
        let v = LevelView {
            title: "t".into(),
            elements: es,
            edges: vec![],
            grid: None,
        };
        let p = place_anchored(&v);
        for i in 0..p.nodes.len() {
            for j in i + 1..p.nodes.len() {
                assert!(
                    !overlapping(&p.nodes[i], &p.nodes[j]),
                    "{} {}",
                    v.elements[i].id,
                    v.elements[j].id
                );
            }
            assert!(p.nodes[i].x + p.nodes[i].w / 2.0 <= p.width && p.nodes[i].y + p.nodes[i].h / 2.0 <= p.height);
        }
        // v00 left of v10, above v01
        let at = |id: &str| p.nodes[v.elements.iter().position(|e| e.id == id).unwrap()];
        assert!(at("v00").x < at("p00").x && at("p00").x < at("v10").x);
        assert!(at("v00").y < at("v01").y);
    }

    #[test]
    fn clustered_nodes_never_overlap() {
        let es: Vec<ElementView> = (0..40)
            .map(|i| el(&format!("e{i}"), ["a", "bb", "ccc"][i % 3], vec![]))
            .collect();
        let v = LevelView {
            title: "t".into(),
            elements: es,
            edges: vec![(0, 1, vec!["C".into()])],
            grid: None,
        };
        let p = place_clustered(&v);
        assert_eq!(p.frames.len(), 3);
        for i in 0..p.nodes.len() {
            for j in i + 1..p.nodes.len() {
                assert!(!overlapping(&p.nodes[i], &p.nodes[j]));
            }
        }
        roxmltree::Document::parse(&placed_svg(&v, &p)).expect("well-formed SVG");
    }
}
