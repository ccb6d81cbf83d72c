//! The Forme_K neighbour order and the eight board symmetries (Bouzy & Chaslot 2005, §3.1:
//! "the neighbouring intersections are ordered by a distance … a pre-defined order avoids ties
//! between intersections at the same distance from the pattern's centre").
//!
//! An *offset* `(dx, dy)` is a vertex relative to the pattern's centre (columns to the right,
//! rows downward, as [`crate::go::board::Point`] counts them). Offsets are ordered by
//!
//! 1. the distance `d = |dx| + |dy| + max(|dx|, |dy|)` (the distance of Stern et al. 2006 and
//!    Coulom 2007 for nested Go patterns: 2 for the four neighbours, 3 for the diagonals, 4 for
//!    the two-point neighbours, 5 for the knight's moves …),
//! 2. then the squared Euclidean distance `dx² + dy²`,
//! 3. then the row (`dy`, upper first), then the column (`dx`, left first),
//!
//! which is a total order (the last two keys name the offset). The order covers every offset with
//! `|dx|, |dy| ≤ MAX_SIDE`, enough for any board SGF can describe (52 × 52) including the first
//! off-board vertex beyond each side. The order is written down in `docs/semantics.md`.
//!
//! The first two keys are invariant under the eight symmetries of the square (rotations and
//! reflections); the tie-breaks are not, which is why a pattern's eight transforms read the same
//! board in eight different sequences ([`super::forme_k`] picks one canonical sequence).

use std::sync::OnceLock;

/// The largest board side (SGF's 52) — and the largest |dx|, |dy| the order covers.
pub const MAX_SIDE: i32 = 52;

/// The Forme_K distance of an offset: `|dx| + |dy| + max(|dx|, |dy|)`.
pub fn distance(dx: i32, dy: i32) -> u32 {
    let (a, b) = (dx.unsigned_abs(), dy.unsigned_abs());
    a + b + a.max(b)
}

/// One of the eight symmetries of the square, acting on offsets: `0` is the identity, `1..=3`
/// the rotations by 90°, 180°, 270° (clockwise on the screen), `4..=7` the reflections (the
/// rotations composed with the left–right mirror).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sym(pub u8);

impl Sym {
    /// All eight.
    pub const ALL: [Sym; 8] = [Sym(0), Sym(1), Sym(2), Sym(3), Sym(4), Sym(5), Sym(6), Sym(7)];

    /// The transformed offset.
    pub fn apply(self, dx: i32, dy: i32) -> (i32, i32) {
        let (x, y) = if self.0 >= 4 { (-dx, dy) } else { (dx, dy) };
        match self.0 % 4 {
            0 => (x, y),
            1 => (-y, x),
            2 => (-x, -y),
            _ => (y, -x),
        }
    }

    /// The inverse symmetry.
    pub fn inverse(self) -> Sym {
        (0..8)
            .map(Sym)
            .find(|s| {
                let (a, b) = self.apply(1, 2);
                s.apply(a, b) == (1, 2)
            })
            .expect("the dihedral group is closed")
    }
}

/// The order: offsets sorted as the module documentation says, with each symmetry's image
/// precomputed (`image(s, j)` is the board offset read at order position `j` under `s`).
pub struct Order {
    dx: Vec<i8>,
    dy: Vec<i8>,
    dist: Vec<u16>,
    ring_end: Vec<u32>,
    by_dist: Vec<u32>,
    img: [Vec<(i8, i8)>; 8],
}

impl Order {
    /// The order (built once).
    pub fn get() -> &'static Order {
        static ORDER: OnceLock<Order> = OnceLock::new();
        ORDER.get_or_init(Order::build)
    }

    fn build() -> Order {
        let mut v: Vec<(i32, i32)> = Vec::new();
        for dy in -MAX_SIDE..=MAX_SIDE {
            for dx in -MAX_SIDE..=MAX_SIDE {
                if (dx, dy) != (0, 0) {
                    v.push((dx, dy));
                }
            }
        }
        v.sort_by_key(|&(dx, dy)| (distance(dx, dy), dx * dx + dy * dy, dy, dx));
        let img = std::array::from_fn(|s| {
            v.iter()
                .map(|&(dx, dy)| {
                    let (a, b) = Sym(s as u8).apply(dx, dy);
                    (a as i8, b as i8)
                })
                .collect()
        });
        let dist: Vec<u16> = v.iter().map(|&(x, y)| distance(x, y) as u16).collect();
        let mut ring_end = vec![0u32; v.len()];
        let mut end = v.len();
        for j in (0..v.len()).rev() {
            if j + 1 < v.len() && dist[j + 1] != dist[j] {
                end = j + 1;
            }
            ring_end[j] = end as u32;
        }
        let maxd = *dist.last().unwrap_or(&0) as usize;
        let by_dist = (0..=maxd + 1)
            .map(|d| dist.partition_point(|&x| (x as usize) <= d) as u32)
            .collect();
        Order {
            dx: v.iter().map(|p| p.0 as i8).collect(),
            dy: v.iter().map(|p| p.1 as i8).collect(),
            dist,
            ring_end,
            by_dist,
            img,
        }
    }

    /// Number of offsets.
    pub fn len(&self) -> usize {
        self.dx.len()
    }

    /// Never empty.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The offset at position `j`.
    #[inline]
    pub fn offset(&self, j: usize) -> (i32, i32) {
        (self.dx[j] as i32, self.dy[j] as i32)
    }

    /// The distance of the offset at position `j`.
    #[inline]
    pub fn dist(&self, j: usize) -> u32 {
        self.dist[j] as u32
    }

    /// The first position after `j` at a greater distance (the end of `j`'s ring).
    #[inline]
    pub fn ring_end(&self, j: usize) -> usize {
        self.ring_end[j] as usize
    }

    /// The number of offsets at distance at most `d`.
    #[inline]
    pub fn within(&self, d: u32) -> usize {
        match self.by_dist.get(d as usize) {
            Some(&n) => n as usize,
            None => self.len(),
        }
    }

    /// The offset at position `j` under symmetry `s`.
    #[inline]
    pub fn image(&self, s: Sym, j: usize) -> (i32, i32) {
        let (a, b) = self.img[s.0 as usize][j];
        (a as i32, b as i32)
    }

    /// The position of an offset in the order.
    pub fn position(&self, dx: i32, dy: i32) -> Option<usize> {
        if dx.abs() > MAX_SIDE || dy.abs() > MAX_SIDE || (dx, dy) == (0, 0) {
            return None;
        }
        let key = (distance(dx, dy), dx * dx + dy * dy, dy, dx);
        let k = |j: usize| {
            let (x, y) = self.offset(j);
            (distance(x, y), x * x + y * y, y, x)
        };
        let (mut lo, mut hi) = (0usize, self.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            if k(mid) < key { lo = mid + 1 } else { hi = mid }
        }
        (lo < self.len() && k(lo) == key).then_some(lo)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_order_begins_as_documented() {
        let o = Order::get();
        let first: Vec<(i32, i32)> = (0..12).map(|j| o.offset(j)).collect();
        // d = 2: up, left, right, down (row first, then column); d = 3: the diagonals;
        // d = 4: the two-point neighbours.
        assert_eq!(
            first,
            vec![
                (0, -1),
                (-1, 0),
                (1, 0),
                (0, 1),
                (-1, -1),
                (1, -1),
                (-1, 1),
                (1, 1),
                (0, -2),
                (-2, 0),
                (2, 0),
                (0, 2)
            ]
        );
        assert_eq!(o.len(), 105 * 105 - 1);
        for j in 1..o.len() {
            assert!(o.dist(j - 1) <= o.dist(j));
        }
        assert_eq!(o.position(1, 1), Some(7));
        assert_eq!(o.position(0, 0), None);
    }

    #[test]
    fn symmetries_form_the_dihedral_group() {
        let mut images: Vec<(i32, i32)> = Sym::ALL.iter().map(|s| s.apply(1, 2)).collect();
        images.sort();
        images.dedup();
        assert_eq!(images.len(), 8);
        for s in Sym::ALL {
            let (a, b) = s.apply(3, -5);
            assert_eq!(s.inverse().apply(a, b), (3, -5));
            assert_eq!(distance(a, b), distance(3, -5));
        }
    }
}
