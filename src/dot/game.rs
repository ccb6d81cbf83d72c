//! The data pictures of a game take, and the only place `dot` reads Go's classification: per level,
//! the engine's elements of a classified position (class, members) with the vertices they involve
//! and their lifetimes (§4.5–4.7's naming of elements on the board), and their overlaps (§3.4.1).
//! [`GameLevel::from_classification`] is the one function that knows where a classification keeps
//! them; everything else in `dot` reads [`GameLevel`]s.
//!
//! Views of a position scale by selection, as a reader narrows a diagram: a level, classes, a region
//! of the board, the elements that came into being in a range of moves ([`Selection`]).

use crate::ets::{ClassId, ConstraintId, NodeId, Setting};
use crate::go::board::Point;
use crate::go::classify::Classification;

use super::board::Outline;
use super::view::{ElementView, Grid, LevelView};

/// One element of a level, as pictures need it.
#[derive(Debug, Clone, PartialEq)]
pub struct GameElement {
    /// Its id in its level (as `ets classify` prints it: `L{level}:{id}`).
    pub id: u32,
    /// Its class.
    pub class: ClassId,
    /// Its members: primitives at level 0, elements of the level below above it.
    pub members: Vec<NodeId>,
    /// The vertices it involves, ascending.
    pub vertices: Vec<Point>,
    /// The position (moves played) at which it came into being.
    pub born: u32,
    /// The position at which it ended, if it has (else it is alive at the last position).
    pub died: Option<u32>,
}

/// One level of a classified game up to a position.
#[derive(Debug, Clone, PartialEq)]
pub struct GameLevel {
    /// The level.
    pub level: u32,
    /// Its elements (each with the id `ets classify` prints).
    pub elements: Vec<GameElement>,
    /// Overlaps `(a, b, constraints)` with `a < b`.
    pub overlaps: Vec<(u32, u32, Vec<ConstraintId>)>,
}

impl GameLevel {
    /// Every level a classification holds, level 0 first. A level's overlaps are those of the
    /// level-(n+1) struct, whose node k is the k-th element alive at the last position; they are
    /// given here by element index.
    pub fn from_classification(c: &Classification) -> Vec<GameLevel> {
        c.hierarchy
            .levels
            .iter()
            .zip(&c.named)
            .map(|(l, named)| {
                let living: Vec<u32> = (0..named.len() as u32)
                    .filter(|&i| named[i as usize].died.is_none())
                    .collect();
                let overlaps = l
                    .overlaps()
                    .edges
                    .into_iter()
                    .map(|(a, b, cs)| (living[a as usize], living[b as usize], cs))
                    .collect();
                GameLevel {
                    level: l.level,
                    elements: l
                        .elements
                        .iter()
                        .zip(named)
                        .map(|(e, n)| GameElement {
                            id: n.id,
                            class: e.class,
                            members: e.nodes.clone(),
                            vertices: n.vertices.clone(),
                            born: n.born,
                            died: n.died,
                        })
                        .collect(),
                    overlaps,
                }
            })
            .collect()
    }

    /// The indices of the elements alive at the last position that `sel` keeps, ascending.
    pub fn select(&self, setting: &Setting, sel: &Selection) -> Vec<usize> {
        (0..self.elements.len())
            .filter(|&i| {
                let e = &self.elements[i];
                e.died.is_none()
                    && (sel.classes.is_empty() || sel.classes.contains(&setting.class(e.class).name))
                    && sel.region.is_none_or(|r| e.vertices.iter().any(|&p| r.contains(p)))
                    && sel.born.is_none_or(|(a, b)| a <= e.born && e.born <= b)
            })
            .collect()
    }
}

/// A rectangle of vertices, corners included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Region {
    /// Top-left corner (smallest column and row).
    pub lo: Point,
    /// Bottom-right corner.
    pub hi: Point,
}

impl Region {
    /// The whole board.
    pub fn board(cols: u8, rows: u8) -> Self {
        Region {
            lo: Point { col: 0, row: 0 },
            hi: Point {
                col: cols.saturating_sub(1),
                row: rows.saturating_sub(1),
            },
        }
    }

    /// Parses two GTP vertices, `D4:K10` (in any order), on a board of `cols` × `rows`.
    pub fn parse(s: &str, cols: u8, rows: u8) -> Result<Self, String> {
        let (a, b) = s
            .split_once(':')
            .ok_or_else(|| format!("`{s}` is not a region: give two corners, like D4:K10"))?;
        let vertex = |x: &str| {
            Point::from_gtp(x, rows)
                .filter(|p| p.col < cols)
                .ok_or_else(|| format!("`{x}` is not a vertex of this {cols}x{rows} board"))
        };
        let (p, q) = (vertex(a)?, vertex(b)?);
        Ok(Region {
            lo: Point {
                col: p.col.min(q.col),
                row: p.row.min(q.row),
            },
            hi: Point {
                col: p.col.max(q.col),
                row: p.row.max(q.row),
            },
        })
    }

    /// Whether `p` lies in it.
    pub fn contains(&self, p: Point) -> bool {
        (self.lo.col..=self.hi.col).contains(&p.col) && (self.lo.row..=self.hi.row).contains(&p.row)
    }

    /// The region grown by `k` vertices on every side, within a board of `cols` × `rows`.
    pub fn grown(&self, k: u8, cols: u8, rows: u8) -> Self {
        Region {
            lo: Point {
                col: self.lo.col.saturating_sub(k),
                row: self.lo.row.saturating_sub(k),
            },
            hi: Point {
                col: (self.hi.col.saturating_add(k)).min(cols.saturating_sub(1)),
                row: (self.hi.row.saturating_add(k)).min(rows.saturating_sub(1)),
            },
        }
    }
}

/// What a picture of a position shows of a level: all living elements, or those of some classes,
/// touching a region, or born in a range of positions.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Selection {
    /// Only these classes (empty: all).
    pub classes: Vec<String>,
    /// Only elements with a vertex here.
    pub region: Option<Region>,
    /// Only elements that came into being at a position in this range (inclusive).
    pub born: Option<(u32, u32)>,
}

fn vertex_list(vs: &[Point], rows: u8) -> String {
    vs.iter().map(|p| p.gtp(rows)).collect::<Vec<_>>().join(" ")
}

/// The overlap view of the `shown` elements of a level, anchored at their vertices on a board of
/// `cols` × `rows` (drawn as the grid under them, cropped to `region`; an element that reaches
/// out of the region is anchored at its vertices inside it).
pub fn overlap_view(
    setting: &Setting,
    l: &GameLevel,
    shown: &[usize],
    (cols, rows): (u8, u8),
    region: Option<Region>,
    title: &str,
) -> LevelView {
    let area = region.unwrap_or(Region::board(cols, rows));
    let mut pos = vec![usize::MAX; l.elements.len()];
    for (k, &i) in shown.iter().enumerate() {
        pos[i] = k;
    }
    let elements = shown
        .iter()
        .map(|&i| {
            let e = &l.elements[i];
            let class = setting.class(e.class).name.clone();
            let vs = vertex_list(&e.vertices, rows);
            ElementView {
                id: format!("L{}:{}", l.level, e.id),
                tooltip: format!("{class} {vs} (since move {})", e.born),
                class,
                detail: vs,
                // with a region, an element that reaches out of it stands where it touches it
                anchors: e
                    .vertices
                    .iter()
                    .filter(|&&p| area.contains(p) || !e.vertices.iter().any(|&q| area.contains(q)))
                    .map(|p| (p.col as f64 - area.lo.col as f64, p.row as f64 - area.lo.row as f64))
                    .collect(),
            }
        })
        .collect();
    let edges = l
        .overlaps
        .iter()
        .filter_map(|(a, b, cs)| {
            let (x, y) = (*pos.get(*a as usize)?, *pos.get(*b as usize)?);
            (x != usize::MAX && y != usize::MAX)
                .then(|| (x, y, cs.iter().map(|&c| setting.constraint(c).name.clone()).collect()))
        })
        .collect();
    let grid = Grid {
        cols: (area.lo.col..=area.hi.col)
            .map(|c| {
                let n = Point { col: c, row: 0 }.gtp(1);
                n[..n.len() - 1].to_string()
            })
            .collect(),
        rows: (area.lo.row..=area.hi.row).map(|r| (rows - r).to_string()).collect(),
    };
    LevelView {
        title: title.to_string(),
        elements,
        edges,
        grid: Some(grid),
    }
}

/// The outlines of the `shown` elements of a level on the board.
pub fn outlines(setting: &Setting, l: &GameLevel, shown: &[usize], rows: u8) -> Vec<Outline> {
    shown
        .iter()
        .map(|&i| {
            let e = &l.elements[i];
            let class = setting.class(e.class).name.clone();
            Outline {
                label: format!("{class} {}", vertex_list(&e.vertices, rows)),
                class,
                vertices: e.vertices.clone(),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regions_parse_in_any_order_and_refuse_what_is_off_the_board() {
        let r = Region::parse("K10:D4", 19, 19).unwrap();
        assert_eq!(r, Region::parse("D4:K10", 19, 19).unwrap());
        assert!(r.contains(Point::from_gtp("E5", 19).unwrap()));
        assert!(!r.contains(Point::from_gtp("L5", 19).unwrap()));
        assert!(Region::parse("D4:K10", 9, 9).unwrap_err().contains("K10"));
        assert!(Region::parse("D4", 9, 9).is_err());
        let g = Region::parse("A1:A1", 9, 9).unwrap().grown(2, 9, 9);
        assert_eq!((g.lo, g.hi), (Point { col: 0, row: 6 }, Point { col: 2, row: 8 }));
    }
}
