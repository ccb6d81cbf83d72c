//! A move-prediction heat map: the board with every legal move shaded by the probability the
//! model gives it, the first choices numbered, and the move actually played ringed.

use crate::go::board::{Board, Cell, Color, Point};

const CELL: f64 = 28.0;
const MARGIN: f64 = 36.0;

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The SVG: `probs` the legal moves with their probabilities (most likely first), `played` the
/// move played (ringed in blue), the first `top` numbered.
pub fn svg(b: &Board, probs: &[(Point, f64)], played: Option<Point>, top: usize, title: &str) -> String {
    let (cols, rows) = (b.cols() as f64, b.rows() as f64);
    let w = MARGIN * 2.0 + CELL * (cols - 1.0);
    let h = MARGIN * 2.0 + CELL * (rows - 1.0) + 24.0;
    let x = |c: f64| MARGIN + c * CELL;
    let y = |r: f64| MARGIN + r * CELL;
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w:.0}\" height=\"{h:.0}\" viewBox=\"0 0 {w:.0} {h:.0}\" \
         font-family=\"Helvetica, sans-serif\">\n<title>{}</title>\n",
        esc(title)
    );
    s.push_str(&format!(
        "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"#dcb35c\"/>\n",
        x(-0.6),
        y(-0.6),
        CELL * (cols - 1.0 + 1.2),
        CELL * (rows - 1.0 + 1.2)
    ));
    for c in 0..b.cols() {
        s.push_str(&format!(
            "<line x1=\"{0:.1}\" y1=\"{1:.1}\" x2=\"{0:.1}\" y2=\"{2:.1}\" stroke=\"#000\" stroke-width=\"0.7\"/>\n",
            x(c as f64),
            y(0.0),
            y(rows - 1.0)
        ));
        let name = Point { col: c, row: 0 }.gtp(1);
        s.push_str(&format!(
            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"9\" text-anchor=\"middle\">{}</text>\n",
            x(c as f64),
            y(-0.75),
            esc(name.trim_end_matches(char::is_numeric))
        ));
    }
    for r in 0..b.rows() {
        s.push_str(&format!(
            "<line x1=\"{1:.1}\" y1=\"{0:.1}\" x2=\"{2:.1}\" y2=\"{0:.1}\" stroke=\"#000\" stroke-width=\"0.7\"/>\n",
            y(r as f64),
            x(0.0),
            x(cols - 1.0)
        ));
        s.push_str(&format!(
            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"9\" text-anchor=\"end\">{}</text>\n",
            x(-0.8),
            y(r as f64) + 3.0,
            b.rows() - r
        ));
    }
    for p in b.points() {
        if let Cell::Stone(c) = b.get(p) {
            let fill = if c == Color::Black { "#111" } else { "#fafafa" };
            s.push_str(&format!(
                "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"{:.1}\" fill=\"{fill}\" stroke=\"#000\" stroke-width=\"0.7\"/>\n",
                x(p.col as f64),
                y(p.row as f64),
                CELL * 0.46
            ));
        }
    }
    // Heat: red squares whose opacity follows the probability relative to the largest.
    let max = probs.iter().map(|p| p.1).fold(0.0, f64::max).max(1e-12);
    for (i, &(p, q)) in probs.iter().enumerate() {
        let a = (q / max).sqrt().clamp(0.0, 1.0);
        if a > 0.02 {
            s.push_str(&format!(
                "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" fill=\"#d7301f\" fill-opacity=\"{:.3}\">\
                 <title>{} {:.1}%</title></rect>\n",
                x(p.col as f64) - CELL * 0.42,
                y(p.row as f64) - CELL * 0.42,
                CELL * 0.84,
                CELL * 0.84,
                0.8 * a,
                p.gtp(b.rows()),
                100.0 * q
            ));
        }
        if i < top {
            s.push_str(&format!(
                "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\" font-weight=\"bold\" text-anchor=\"middle\" fill=\"#000\">{}</text>\n",
                x(p.col as f64),
                y(p.row as f64) + 3.5,
                i + 1
            ));
        }
    }
    if let Some(p) = played {
        s.push_str(&format!(
            "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"{:.1}\" fill=\"none\" stroke=\"#1f4fd7\" stroke-width=\"2.5\"/>\n",
            x(p.col as f64),
            y(p.row as f64),
            CELL * 0.5
        ));
    }
    let played_text = match played {
        Some(p) => {
            let q = probs.iter().position(|r| r.0 == p);
            match q {
                Some(k) => format!(
                    "played {} (ranked {}, {:.1}%)",
                    p.gtp(b.rows()),
                    k + 1,
                    100.0 * probs[k].1
                ),
                None => format!("played {}", p.gtp(b.rows())),
            }
        }
        None => String::new(),
    };
    s.push_str(&format!(
        "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\">numbers: the model's first choices; ring: {}</text>\n</svg>\n",
        x(-0.6),
        h - 10.0,
        esc(&played_text)
    ));
    s
}
