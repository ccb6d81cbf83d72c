//! A Go position as an SVG diagram, with the elements of a level or class drawn as outlines over
//! the stones — the picture an expert draws when circling meaningful chunks (thesis Fig. 4.43).

use crate::go::board::{Board, Cell, Color, Point};

/// An element to outline: its label and its vertices.
#[derive(Debug, Clone)]
pub struct Outline {
    /// Shown in the legend.
    pub label: String,
    /// The vertices it covers.
    pub vertices: Vec<Point>,
}

const CELL: f64 = 28.0;
const MARGIN: f64 = 40.0;

/// The SVG diagram. Each outline traces the border of its vertices' cells, inset a little more for
/// each later outline so overlapping chunks stay visible.
pub fn board_svg(b: &Board, outlines: &[Outline], title: &str) -> String {
    let (cols, rows) = (b.cols() as f64, b.rows() as f64);
    let w = MARGIN * 2.0 + CELL * (cols - 1.0) + 220.0;
    let h = (MARGIN * 2.0 + CELL * (rows - 1.0)).max(60.0 + 16.0 * outlines.len() as f64);
    let x = |c: f64| MARGIN + c * CELL;
    let y = |r: f64| MARGIN + r * CELL;
    let mut s = String::new();
    s.push_str(&format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w:.0}\" height=\"{h:.0}\" viewBox=\"0 0 {w:.0} {h:.0}\" font-family=\"Helvetica, sans-serif\">\n"
    ));
    s.push_str(&format!("<title>{}</title>\n", esc(title)));
    s.push_str(&format!(
        "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"#dcb35c\"/>\n",
        x(-0.7),
        y(-0.7),
        CELL * (cols - 1.0 + 1.4),
        CELL * (rows - 1.0 + 1.4)
    ));
    for c in 0..b.cols() {
        s.push_str(&format!(
            "<line x1=\"{0:.1}\" y1=\"{1:.1}\" x2=\"{0:.1}\" y2=\"{2:.1}\" stroke=\"#000\" stroke-width=\"0.8\"/>\n",
            x(c as f64),
            y(0.0),
            y(rows - 1.0)
        ));
        let name = Point { col: c, row: 0 }.gtp(1);
        s.push_str(&format!(
            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\" text-anchor=\"middle\">{}</text>\n",
            x(c as f64),
            y(-0.75),
            esc(&name[..name.len() - 1])
        ));
    }
    for r in 0..b.rows() {
        s.push_str(&format!(
            "<line x1=\"{1:.1}\" y1=\"{0:.1}\" x2=\"{2:.1}\" y2=\"{0:.1}\" stroke=\"#000\" stroke-width=\"0.8\"/>\n",
            y(r as f64),
            x(0.0),
            x(cols - 1.0)
        ));
        s.push_str(&format!(
            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\" text-anchor=\"end\">{}</text>\n",
            x(-0.8),
            y(r as f64) + 3.5,
            b.rows() - r
        ));
    }
    for p in b.points() {
        if let Cell::Stone(c) = b.get(p) {
            let (fill, stroke) = if c == Color::Black {
                ("#111", "#000")
            } else {
                ("#fafafa", "#000")
            };
            s.push_str(&format!(
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"{:.1}\" fill=\"{fill}\" stroke=\"{stroke}\" stroke-width=\"0.8\"/>\n",
                x(p.col as f64),
                y(p.row as f64),
                CELL * 0.46
            ));
        }
    }
    for (i, o) in outlines.iter().enumerate() {
        let colour = super::OUTLINES[i % super::OUTLINES.len()];
        let inset = 1.5 + (i % 5) as f64 * 1.8;
        let set: std::collections::BTreeSet<Point> = o.vertices.iter().copied().collect();
        let half = CELL / 2.0 - inset;
        let mut d = String::new();
        for p in &set {
            let (cx, cy) = (x(p.col as f64), y(p.row as f64));
            let has = |dc: i32, dr: i32| {
                let (c, r) = (p.col as i32 + dc, p.row as i32 + dr);
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
                d.push_str(&format!("M{:.1},{u0:.1}L{:.1},{d0:.1}", cx - half, cx - half));
            }
            if !has(1, 0) {
                d.push_str(&format!("M{:.1},{u0:.1}L{:.1},{d0:.1}", cx + half, cx + half));
            }
            if !has(0, -1) {
                d.push_str(&format!("M{l0:.1},{:.1}L{r0:.1},{:.1}", cy - half, cy - half));
            }
            if !has(0, 1) {
                d.push_str(&format!("M{l0:.1},{:.1}L{r0:.1},{:.1}", cy + half, cy + half));
            }
        }
        s.push_str(&format!("<path d=\"{d}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\" stroke-linecap=\"round\"><title>{}</title></path>\n", esc(&o.label)));
        let ly = MARGIN + 14.0 * i as f64;
        s.push_str(&format!(
            "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"10\" height=\"10\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"2\"/><text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\">{}</text>\n",
            x(cols) + 4.0,
            ly - 9.0,
            x(cols) + 18.0,
            ly,
            esc(&o.label)
        ));
    }
    s.push_str("</svg>\n");
    s
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}
