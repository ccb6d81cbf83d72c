//! A Forme_K pattern as a class of the class language (thesis §3.4.2, §4.6): a level-1 class
//! over the Go setting's level-0 classes, whose elements are the places where the pattern's
//! region reads as the pattern.
//!
//! The pattern's *region* is every point it reads: its centre (empty: a move is advised there)
//! and every vertex up to its last important fact in the neighbour order, with what the pattern
//! says is there (empty, own stone, opponent stone), and its known edges. The class has one
//! level-1 constraint per orientation (the eight symmetries, duplicates dropped) for a given
//! player to move (own stones black or white): a variable per region vertex — an element of C1
//! (black stone), C2 (white stone) or C3 (empty vertex) — joined along a spanning tree of the
//! region by the proximity elements between neighbours (C8–C13), each link "overlapping on" the
//! side constraints of the two vertices (Con_2..5, 7..10, 12..15); a known edge is the
//! stone-or-vertex-beside-edge element (C14–C16) on that side of the vertex next to it.
//!
//! The tree matches a pattern at a point when the *least* of the eight readings there begins with
//! it; the class recognizes every reading. They differ only where a reading that ties with the
//! pattern's up to its last ring of equal distance is less than it on points of that ring the
//! pattern does not hold (`docs/semantics.md`); a test checks both on real positions.

use super::forme_k::{Kind, Tree};
use super::order::{Order, Sym};
use crate::go::board::Color;

/// A region in canonical form: its vertices with their contents, and its edges.
type RegionKey = (Vec<((i32, i32), Content)>, Vec<(i32, i32)>);

/// What a region vertex holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Content {
    /// Empty.
    Empty,
    /// A stone of the player to move.
    Own,
    /// An opponent's stone.
    Opp,
}

/// A pattern's region in its own frame: vertices (offsets from the centre, the centre first) with
/// their content, and its known sides (`(dx, dy)` of the first off-board point on the axis).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Region {
    /// Vertices and what they hold, in the neighbour order (the centre first).
    pub vertices: Vec<((i32, i32), Content)>,
    /// Known edges: the first off-board offset on each known side's axis.
    pub edges: Vec<(i32, i32)>,
}

/// The region of pattern `node`.
pub fn region(tree: &Tree, node: u32) -> Region {
    let o = Order::get();
    let facts = tree.facts(node);
    let mut vertices = vec![((0, 0), Content::Empty)];
    let mut edges = Vec::new();
    let last = facts.last().map_or(0, |f| f.pos as usize + 1);
    let mut sides = [i32::MAX; 4];
    let mut fi = 0;
    for j in 0..last {
        let (dx, dy) = o.offset(j);
        let fact = facts.get(fi).filter(|f| f.pos as usize == j).copied();
        if let Some(f) = fact {
            fi += 1;
            match f.kind {
                Kind::Edge => {
                    match (dx.signum(), dy.signum()) {
                        (-1, _) => sides[0] = -dx,
                        (1, _) => sides[1] = dx,
                        (_, -1) => sides[2] = -dy,
                        _ => sides[3] = dy,
                    }
                    edges.push((dx, dy));
                }
                Kind::Own => vertices.push(((dx, dy), Content::Own)),
                Kind::Opp => vertices.push(((dx, dy), Content::Opp)),
                Kind::Empty => vertices.push(((dx, dy), Content::Empty)),
            }
            continue;
        }
        let [l, r, u, d] = sides;
        if dx <= -l || dx >= r || dy <= -u || dy >= d {
            continue;
        }
        vertices.push(((dx, dy), Content::Empty));
    }
    Region { vertices, edges }
}

impl Region {
    /// The region under a symmetry.
    pub fn transformed(&self, s: Sym) -> Region {
        Region {
            vertices: self.vertices.iter().map(|&((x, y), c)| (s.apply(x, y), c)).collect(),
            edges: self.edges.iter().map(|&(x, y)| s.apply(x, y)).collect(),
        }
    }

    /// The region in a canonical form (vertices and edges sorted), to drop duplicate orientations.
    fn key(&self) -> RegionKey {
        let mut v = self.vertices.clone();
        v.sort();
        let mut e = self.edges.clone();
        e.sort();
        (v, e)
    }

    /// The distinct orientations of the region.
    pub fn orientations(&self) -> Vec<Region> {
        let mut seen = std::collections::BTreeSet::new();
        Sym::ALL
            .iter()
            .map(|&s| self.transformed(s))
            .filter(|r| seen.insert(r.key()))
            .collect()
    }
}

/// The level-0 class number of a vertex's content when `mover` is to play (C1 black stone, C2
/// white stone, C3 empty vertex).
fn vertex_class(c: Content, mover: Color) -> (u32, char) {
    match (c, mover) {
        (Content::Empty, _) => (3, 'e'),
        (Content::Own, Color::Black) | (Content::Opp, Color::White) => (1, 'b'),
        _ => (2, 'w'),
    }
}

/// The side constraint of a vertex (`b`, `w`, `e`) toward a direction (0 left, 1 up, 2 down,
/// 3 right): Con_2..5, Con_7..10, Con_12..15.
fn side(colour: char, dir: usize) -> u32 {
    let base = match colour {
        'b' => 2,
        'w' => 7,
        _ => 12,
    };
    base + dir as u32
}

/// The proximity class of two neighbours (C8..C13).
fn pair_class(a: char, b: char) -> u32 {
    match (a.min(b), a.max(b)) {
        ('b', 'b') => 8,
        ('w', 'w') => 9,
        ('e', 'e') => 10,
        ('b', 'w') => 11,
        ('b', 'e') => 12,
        _ => 13, // ('e', 'w')
    }
}

/// The direction from offset `a` to its neighbour `b` (0 left, 1 up, 2 down, 3 right).
fn dir(a: (i32, i32), b: (i32, i32)) -> usize {
    match (b.0 - a.0, b.1 - a.1) {
        (-1, 0) => 0,
        (0, -1) => 1,
        (0, 1) => 2,
        _ => 3,
    }
}

/// One orientation's level-1 constraint, in the thesis's notation: `<{variables}, {links}>`.
pub fn constraint_body(r: &Region, mover: Color) -> String {
    let mut count = [0u32; 17];
    let mut var = |k: u32| {
        count[k as usize] += 1;
        format!("c{k}_{}", count[k as usize])
    };
    let names: Vec<(String, char)> = r
        .vertices
        .iter()
        .map(|&(_, c)| {
            let (k, col) = vertex_class(c, mover);
            (var(k), col)
        })
        .collect();
    let at: std::collections::HashMap<(i32, i32), usize> =
        r.vertices.iter().enumerate().map(|(i, &(p, _))| (p, i)).collect();
    let mut vars: Vec<String> = names.iter().map(|n| n.0.clone()).collect();
    let mut links: Vec<String> = Vec::new();
    // A spanning tree: each vertex (after the centre) joins the first earlier vertex beside it.
    for i in 1..r.vertices.len() {
        let p = r.vertices[i].0;
        let parent = [(-1, 0), (0, -1), (0, 1), (1, 0)]
            .iter()
            .filter_map(|&(dx, dy)| at.get(&(p.0 + dx, p.1 + dy)).copied())
            .filter(|&j| j < i)
            .min()
            .expect("a pattern's region is connected and grows from the centre");
        let q = r.vertices[parent].0;
        let (a, ca) = (&names[parent].0, names[parent].1);
        let (b, cb) = (&names[i].0, names[i].1);
        let e = var(pair_class(ca, cb));
        links.push(format!("<{{{a}, {e}}}, Con_{}>", side(ca, dir(q, p))));
        links.push(format!("<{{{e}, {b}}}, Con_{}>", side(cb, dir(p, q))));
        vars.push(e);
    }
    // Known edges: the vertex next to the first off-board point, beside the edge on that side.
    for &(ex, ey) in &r.edges {
        let inner = (ex - ex.signum(), ey - ey.signum());
        let i = *at.get(&inner).expect("the point before an edge is in the region");
        let (a, ca) = (&names[i].0, names[i].1);
        let k = match ca {
            'b' => 14,
            'w' => 15,
            _ => 16,
        };
        let e = var(k);
        links.push(format!("<{{{a}, {e}}}, Con_{}>", side(ca, dir(inner, (ex, ey)))));
        vars.push(e);
    }
    format!("<{{{}}}, {{{}}}>", vars.join(", "), links.join(", "))
}

/// The class text for pattern `node`: one class per player to move in `movers`, each with a
/// constraint per distinct orientation; `import` names the Go level-0 setting file.
pub fn class_text(tree: &Tree, node: u32, import: &str, movers: &[Color], note: &str) -> String {
    let r = region(tree, node);
    let orients = r.orientations();
    let mut s = format!(
        "// Forme_K pattern {node} (k = {}) exported by `ets patterns export`: {note}\n\
         // Its region: {} vertices around the centre (an empty point, where the pattern advises a move), {} edge(s).\n\
         import \"{import}\";\n",
        tree.node(node).k,
        r.vertices.len(),
        r.edges.len()
    );
    for &m in movers {
        let who = if m == Color::Black { "black" } else { "white" };
        let mut names = Vec::new();
        for (i, o) in orients.iter().enumerate() {
            let name = format!("Fk{node}_{who}_{}", i + 1);
            s.push_str(&format!("constraint {name} level 1 = {};\n", constraint_body(o, m)));
            names.push(name);
        }
        s.push_str(&format!(
            "// The pattern with {who} to move (its own stones {who}).\nclass {} = \"Forme_K {node}\" level 1 {{\n    set A = {{{}}};\n    schedule A;\n}}\n",
            class_name(node, m),
            names.join(", ")
        ));
    }
    s
}

/// The exported class's name.
pub fn class_name(node: u32, mover: Color) -> String {
    format!(
        "forme_k_{node}_{}_to_move",
        if mover == Color::Black { "black" } else { "white" }
    )
}
