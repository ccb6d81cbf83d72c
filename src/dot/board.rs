//! A Go position as an SVG diagram, with the elements of a level or class drawn as outlines over
//! the stones — the picture an expert draws when circling meaningful chunks (thesis Fig. 4.43).
//! Drawn directly (no layout to compute): linear in the board and the outlines, at any size.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::esc;
use super::game::Region;
use crate::go::board::{Board, Cell, Color, Point};

/// An element to outline: its label, its class and its vertices.
#[derive(Debug, Clone)]
pub struct Outline {
    /// Its description (a tooltip; listed in the legend when there are few outlines).
    pub label: String,
    /// Its class: outlines of one class share a colour.
    pub class: String,
    /// The vertices it covers.
    pub vertices: Vec<Point>,
}

/// What to draw.
#[derive(Debug, Clone)]
pub struct BoardPicture<'a> {
    /// The position.
    pub board: &'a Board,
    /// The outlines, drawn in order.
    pub outlines: &'a [Outline],
    /// A caption.
    pub title: &'a str,
    /// Only this part of the board (default: all of it).
    pub region: Option<Region>,
    /// The last move, marked on its stone.
    pub last_move: Option<Point>,
}

const CELL: f64 = 28.0;
const MARGIN: f64 = 40.0;
/// Up to this many outlines, the legend lists each; beyond, each class with its count.
pub const LEGEND_EACH: usize = 30;

/// The SVG diagram of the whole board (see [`board_picture_svg`]).
pub fn board_svg(b: &Board, outlines: &[Outline], title: &str) -> String {
    board_picture_svg(&BoardPicture {
        board: b,
        outlines,
        title,
        region: None,
        last_move: None,
    })
}

/// The SVG diagram. Each outline traces the border of its vertices' cells (those in the drawn
/// region), inset a little more for each later outline so overlapping chunks stay visible, in its
/// class's colour; the legend names the classes, and each outline when there are few.
pub fn board_picture_svg(p: &BoardPicture<'_>) -> String {
    let b = p.board;
    let area = p.region.unwrap_or(Region::board(b.cols(), b.rows()));
    let (c0, r0) = (area.lo.col as f64, area.lo.row as f64);
    let (cols, rows) = (
        (area.hi.col - area.lo.col) as f64 + 1.0,
        (area.hi.row - area.lo.row) as f64 + 1.0,
    );
    let mut classes: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for o in p.outlines {
        let k = classes.len();
        classes.entry(o.class.as_str()).or_insert((k, 0)).1 += 1;
    }
    let each = p.outlines.len() <= LEGEND_EACH;
    let legend_rows = if each { p.outlines.len() } else { classes.len() };
    let legend_w = if p.outlines.is_empty() { 20.0 } else { 240.0 };
    let w = MARGIN * 2.0 + CELL * (cols - 1.0) + legend_w;
    let h = (MARGIN * 2.0 + CELL * (rows - 1.0) + 14.0).max(MARGIN + 30.0 + 14.0 * legend_rows as f64);
    let x = |c: f64| MARGIN + (c - c0) * CELL;
    let y = |r: f64| MARGIN + 14.0 + (r - r0) * CELL;
    let mut s = String::with_capacity(4096 + 400 * p.outlines.len());
    let _ = writeln!(
        s,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w:.0}\" height=\"{h:.0}\" viewBox=\"0 0 {w:.0} {h:.0}\" font-family=\"Helvetica, Arial, sans-serif\">"
    );
    let _ = writeln!(s, "<title>{}</title>", esc(p.title));
    let _ = writeln!(
        s,
        "<rect width=\"100%\" height=\"100%\" fill=\"white\"/><text x=\"8\" y=\"16\" font-size=\"12\">{}</text>",
        esc(p.title)
    );
    let _ = writeln!(
        s,
        "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"#dcb35c\"/>",
        x(c0 - 0.7),
        y(r0 - 0.7),
        CELL * (cols - 1.0 + 1.4),
        CELL * (rows - 1.0 + 1.4)
    );
    // grid lines run on past the region's edge where the board goes on
    let ext = |at_edge: bool| if at_edge { 0.0 } else { 0.6 };
    let (left, right) = (
        c0 - ext(area.lo.col == 0),
        c0 + cols - 1.0 + ext(area.hi.col + 1 >= b.cols()),
    );
    let (top, bottom) = (
        r0 - ext(area.lo.row == 0),
        r0 + rows - 1.0 + ext(area.hi.row + 1 >= b.rows()),
    );
    for c in area.lo.col..=area.hi.col {
        let _ = writeln!(
            s,
            "<line x1=\"{0:.1}\" y1=\"{1:.1}\" x2=\"{0:.1}\" y2=\"{2:.1}\" stroke=\"#000\" stroke-width=\"0.8\"/>",
            x(c as f64),
            y(top),
            y(bottom)
        );
        let name = Point { col: c, row: 0 }.gtp(1);
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\" text-anchor=\"middle\">{}</text>",
            x(c as f64),
            y(r0 - 0.75),
            esc(&name[..name.len() - 1])
        );
    }
    for r in area.lo.row..=area.hi.row {
        let _ = writeln!(
            s,
            "<line x1=\"{1:.1}\" y1=\"{0:.1}\" x2=\"{2:.1}\" y2=\"{0:.1}\" stroke=\"#000\" stroke-width=\"0.8\"/>",
            y(r as f64),
            x(left),
            x(right)
        );
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\" text-anchor=\"end\">{}</text>",
            x(c0 - 0.8),
            y(r as f64) + 3.5,
            b.rows() - r
        );
    }
    for q in b.points().filter(|&q| area.contains(q)) {
        if let Cell::Stone(c) = b.get(q) {
            let fill = if c == Color::Black { "#111" } else { "#fafafa" };
            let _ = writeln!(
                s,
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"{:.1}\" fill=\"{fill}\" stroke=\"#000\" stroke-width=\"0.8\"/>",
                x(q.col as f64),
                y(q.row as f64),
                CELL * 0.46
            );
            if p.last_move == Some(q) {
                let mark = if c == Color::Black { "#fafafa" } else { "#111" };
                let _ = writeln!(
                    s,
                    "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"{:.1}\" fill=\"none\" stroke=\"{mark}\" stroke-width=\"1.5\"><title>last move</title></circle>",
                    x(q.col as f64),
                    y(q.row as f64),
                    CELL * 0.22
                );
            }
        }
    }
    for (i, o) in p.outlines.iter().enumerate() {
        let colour = super::OUTLINES[classes[o.class.as_str()].0 % super::OUTLINES.len()];
        let inset = 1.5 + (i % 5) as f64 * 1.8;
        let set: std::collections::BTreeSet<Point> = o.vertices.iter().copied().filter(|&q| area.contains(q)).collect();
        if set.is_empty() {
            continue;
        }
        let half = CELL / 2.0 - inset;
        let mut d = String::new();
        for q in &set {
            let (cx, cy) = (x(q.col as f64), y(q.row as f64));
            let has = |dc: i32, dr: i32| {
                let (c, r) = (q.col as i32 + dc, q.row as i32 + dr);
                c >= 0
                    && r >= 0
                    && set.contains(&Point {
                        col: c as u8,
                        row: r as u8,
                    })
            };
            // a side is drawn where the neighbouring vertex is not in the element; it runs on to the cell's
            // edge toward neighbours that are, so the outline of adjacent cells is continuous
            let full = CELL / 2.0;
            let (u0, d0) = (
                if has(0, -1) { cy - full } else { cy - half },
                if has(0, 1) { cy + full } else { cy + half },
            );
            let (l0, r0) = (
                if has(-1, 0) { cx - full } else { cx - half },
                if has(1, 0) { cx + full } else { cx + half },
            );
            if !has(-1, 0) {
                let _ = write!(d, "M{:.1},{u0:.1}L{:.1},{d0:.1}", cx - half, cx - half);
            }
            if !has(1, 0) {
                let _ = write!(d, "M{:.1},{u0:.1}L{:.1},{d0:.1}", cx + half, cx + half);
            }
            if !has(0, -1) {
                let _ = write!(d, "M{l0:.1},{:.1}L{r0:.1},{:.1}", cy - half, cy - half);
            }
            if !has(0, 1) {
                let _ = write!(d, "M{l0:.1},{:.1}L{r0:.1},{:.1}", cy + half, cy + half);
            }
        }
        let _ = writeln!(
            s,
            "<path d=\"{d}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\" stroke-linecap=\"round\"><title>{}</title></path>",
            esc(&o.label)
        );
    }
    // the legend
    let lx = x(c0 + cols) + 4.0;
    let entries: Vec<(String, &str)> = if each {
        p.outlines
            .iter()
            .map(|o| {
                (
                    super::view::short(&o.label, 36),
                    super::OUTLINES[classes[o.class.as_str()].0 % super::OUTLINES.len()],
                )
            })
            .collect()
    } else {
        let mut v: Vec<(&str, (usize, usize))> = classes.iter().map(|(c, k)| (*c, *k)).collect();
        v.sort_by_key(|(_, (k, _))| *k);
        v.into_iter()
            .map(|(c, (k, n))| (format!("{c} ({n})"), super::OUTLINES[k % super::OUTLINES.len()]))
            .collect()
    };
    for (i, (label, colour)) in entries.iter().enumerate() {
        let ly = MARGIN + 14.0 + 14.0 * i as f64;
        let _ = writeln!(
            s,
            "<rect x=\"{lx:.1}\" y=\"{:.1}\" width=\"10\" height=\"10\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\"/><text x=\"{:.1}\" y=\"{ly:.1}\" font-size=\"10\">{}</text>",
            ly - 9.0,
            lx + 14.0,
            esc(label)
        );
    }
    s.push_str("</svg>\n");
    s
}
