//! Posting a pattern to the ACADEMY (seed `000_…`, "Pattern Database", "Generalization",
//! "Specialization"): a new pattern A either matches a known pattern B exactly (B's signature is
//! updated), or merges into B by generalization (|E_A − E_B| < 200, the generalization cell table)
//! or by specialization (E_A > E_B + 200, the specialization cell table), or is inserted.
//!
//! The signature update is the ELO-weighted mean the seed describes (its formula as printed,
//! `(E·V·N + e·v)/(N+1)`, is not a mean; the seeds' README): with the new pattern carrying `n`
//! players of average ELO `e` and value `v`,
//! `N' = N + n`, `E' = (E·N + e·n)/(N + n)`, `V' = (E·N·V + e·n·v)/(E·N + e·n)` — for `n = 1` the
//! seed's `N + 1` and `(E·N + e)/(N + 1)`. ELO weights are taken as at least 1.
//!
//! The cell tables, for the first player (the second player's rows are the same with black and
//! white swapped):
//!
//! | generalization: one cell | the other | becomes |
//! |---|---|---|
//! | `x` | `b` or `B` | `B` |
//! | `b` | `B` | `B` |
//! | `-` | `x`, `b` or `B` | `1` |
//! | `x`, `b` or `B` | `o`, `w` or `W` | `#` (*) |
//!
//! | specialization: A's cell | B's cell | becomes |
//! |---|---|---|
//! | `x` | `B` | `x` |
//! | `b` | `B` | `b` |
//! | `x`, `b` or `B` | `1` | `B` |
//! | `x`, `b` or `B` | `#` | `#` (*) |
//! | `x` or `b` / `B` | `#` | `B` / `1` (**) |
//!
//! (*) only when both values are > 0.66 or both < 0.33; (**) the other cases. Equal cells stay.
//! In generalization a cell that already admits the other's content (`1` beside `x`, `#` beside
//! anything) is kept (the larger one): a known pattern once generalized still covers the patterns
//! it was made from. Any other pair of different cells prevents the merge.

use super::notation::{Area, Cell, Game, Pattern, Signature};

/// Settings of the matching process.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PostRules {
    /// The ELO band of generalization (`|E_A − E_B| <` this) and the margin of specialization
    /// (`E_A > E_B +` this). The seed: 200.
    pub elo_band: f64,
    /// A value above this is a strict positive evaluation (the seed: 0.66).
    pub positive: f64,
    /// A value below this is a strict negative evaluation (the seed: 0.33).
    pub negative: f64,
    /// Whether the game is symmetric (P_A and P_B compatible whatever they are); Go is.
    pub symmetric: bool,
}

impl Default for PostRules {
    fn default() -> Self {
        PostRules {
            elo_band: 200.0,
            positive: 0.66,
            negative: 0.33,
            symmetric: true,
        }
    }
}

impl PostRules {
    /// Whether two values allow the don't-care `#`: both strictly positive or both strictly
    /// negative.
    pub fn definitive(&self, va: f64, vb: f64) -> bool {
        (va > self.positive && vb > self.positive) || (va < self.negative && vb < self.negative)
    }
}

/// The generalization cell table for a pair of cells, `a` the new pattern's and `b` the known
/// one's (the table's rows in either order); `None`: the pair prevents a merge. `definitive`: whether both values are strict positive or both strict negative.
pub fn generalize_cell(a: Cell, b: Cell, definitive: bool) -> Option<Cell> {
    if a == b {
        return Some(a);
    }
    if let Some(c) = generalize_black(a, b, definitive) {
        return Some(c);
    }
    if let Some(c) = generalize_black(a.swapped(), b.swapped(), definitive) {
        return Some(c.swapped());
    }
    // the edge is part of the area's shape: it pairs only with itself
    if a == Cell::Off || b == Cell::Off {
        return None;
    }
    // a known cell that already admits the new content is kept; a new cell that admits the known
    // one's content widens it (a new `#` under the same condition as the table's)
    if a.within(b) {
        return Some(b);
    }
    if b.within(a) {
        return (a != Cell::Any || definitive).then_some(a);
    }
    None
}

/// The first player's rows of the generalization table (unordered pairs).
fn generalize_black(a: Cell, b: Cell, definitive: bool) -> Option<Cell> {
    use Cell::*;
    let pair = |p: Cell, q: Cell| (a == p && b == q) || (a == q && b == p);
    if pair(X, BKing) || pair(X, BPiece) || pair(BKing, BPiece) {
        return Some(BPiece);
    }
    if (a == Empty && b.is_black_piece()) || (b == Empty && a.is_black_piece()) {
        return Some(NoWhite);
    }
    if (a.is_black_piece() && b.is_white_piece()) || (a.is_white_piece() && b.is_black_piece()) {
        return definitive.then_some(Any);
    }
    None
}

/// The specialization cell table: `a` the new (stronger) pattern's cell, `b` the known one's.
pub fn specialize_cell(a: Cell, b: Cell, definitive: bool) -> Option<Cell> {
    if a == b {
        return Some(a);
    }
    specialize_black(a, b, definitive)
        .or_else(|| specialize_black(a.swapped(), b.swapped(), definitive).map(Cell::swapped))
}

fn specialize_black(a: Cell, b: Cell, definitive: bool) -> Option<Cell> {
    use Cell::*;
    match (a, b) {
        (X, BPiece) => Some(X),
        (BKing, BPiece) => Some(BKing),
        (X | BKing | BPiece, NoWhite) => Some(BPiece),
        (X | BKing | BPiece, Any) if definitive => Some(Any),
        (X | BKing, Any) => Some(BPiece),
        (BPiece, Any) => Some(NoWhite),
        _ => None,
    }
}

/// How a known pattern takes a posted one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// The same area: the signature is updated.
    Exact,
    /// Merged by generalization.
    Generalized,
    /// Merged by specialization.
    Specialized,
}

/// The merge of a posted pattern into a known one: the known pattern's new area and signature.
#[derive(Debug, Clone, PartialEq)]
pub struct Merge {
    /// Which rule.
    pub kind: Kind,
    /// The known pattern's area afterwards.
    pub area: Area,
    /// Its signature afterwards.
    pub sig: Signature,
    /// How many cells changed.
    pub changed: usize,
}

/// The ELO-weighted signature update: `known` joined by the players of `new`.
pub fn combine(known: Signature, new: Signature) -> Signature {
    let (n0, n1) = (known.n as f64, new.n as f64);
    let (w0, w1) = (known.e.max(1.0) * n0, new.e.max(1.0) * n1);
    Signature {
        n: known.n + new.n,
        e: (known.e * n0 + new.e * n1) / (n0 + n1),
        v: (w0 * known.v + w1 * new.v) / (w0 + w1),
        p: known.p,
    }
}

/// Whether `new` (A) can be taken by `known` (B), and how: exact match first, then
/// generalization, then specialization. Both patterns must be normalized the same way.
pub fn merge(new: &Pattern, known: &Pattern, rules: &PostRules) -> Option<Merge> {
    if !(rules.symmetric || new.sig.p == known.sig.p) {
        return None;
    }
    if new.area == known.area {
        return Some(Merge {
            kind: Kind::Exact,
            area: known.area.clone(),
            sig: combine(known.sig, new.sig),
            changed: 0,
        });
    }
    let (a, b) = (&new.area, &known.area);
    if a.rows.len() != b.rows.len() || a.rows.iter().zip(&b.rows).any(|(x, y)| x.len() != y.len()) {
        return None;
    }
    let definitive = rules.definitive(new.sig.v, known.sig.v);
    let (ea, eb) = (new.sig.e, known.sig.e);
    let kind = if eb + rules.elo_band > ea && ea > eb - rules.elo_band {
        Kind::Generalized
    } else if ea > eb + rules.elo_band {
        Kind::Specialized
    } else {
        return None;
    };
    let mut rows = Vec::with_capacity(b.rows.len());
    let mut changed = 0;
    for (ra, rb) in a.rows.iter().zip(&b.rows) {
        let mut row = Vec::with_capacity(rb.len());
        for (&ca, &cb) in ra.iter().zip(rb) {
            let c = match kind {
                Kind::Generalized => generalize_cell(ca, cb, definitive)?,
                _ => specialize_cell(ca, cb, definitive)?,
            };
            changed += usize::from(c != cb);
            row.push(c);
        }
        rows.push(row);
    }
    Some(Merge {
        kind,
        area: Area { rows },
        sig: combine(known.sig, new.sig),
        changed,
    })
}

/// Every cell letter, in the seed's order.
const CELLS: [Cell; 11] = Cell::ALL;
const NO_MERGE: u8 = 0;
const KEPT: u8 = 1;
const CHANGED: u8 = 2;

/// The cell tables as lookups, `[specialization][definitive][a][b]`: whether the pair blocks the
/// merge, keeps the known cell or changes it (what [`merge_cost`] needs, cell by cell).
fn tables() -> &'static [[[[u8; 11]; 11]; 2]; 2] {
    static T: std::sync::OnceLock<[[[[u8; 11]; 11]; 2]; 2]> = std::sync::OnceLock::new();
    T.get_or_init(|| {
        let mut t = [[[[NO_MERGE; 11]; 11]; 2]; 2];
        for (sp, by_rule) in t.iter_mut().enumerate() {
            for (d, by_def) in by_rule.iter_mut().enumerate() {
                for &a in &CELLS {
                    for &b in &CELLS {
                        let c = if sp == 1 {
                            specialize_cell(a, b, d == 1)
                        } else {
                            generalize_cell(a, b, d == 1)
                        };
                        by_def[a as usize][b as usize] = match c {
                            None => NO_MERGE,
                            Some(c) if c == b => KEPT,
                            Some(_) => CHANGED,
                        };
                    }
                }
            }
        }
        t
    })
}

/// What [`merge`] would decide for `new` (area and signature) posted against `known`, without
/// building the merged area: the rule and the number of changed cells. `worse_than`: a
/// (rule rank, changed) to beat — the count stops (`None`) as soon as the candidate cannot be
/// at least as good (rank 0 exact, 1 generalized, 2 specialized). Equal to `merge`'s `kind` and
/// `changed` whenever it answers (tested).
pub fn merge_cost(
    new: (&Area, Signature),
    known: (&Area, Signature),
    rules: &PostRules,
    worse_than: Option<(u8, usize)>,
) -> Option<(Kind, usize)> {
    let ((a, sa), (b, sb)) = (new, known);
    if !(rules.symmetric || sa.p == sb.p) {
        return None;
    }
    if a == b {
        return Some((Kind::Exact, 0));
    }
    let (ea, eb) = (sa.e, sb.e);
    let (kind, rank) = if eb + rules.elo_band > ea && ea > eb - rules.elo_band {
        (Kind::Generalized, 1)
    } else if ea > eb + rules.elo_band {
        (Kind::Specialized, 2)
    } else {
        return None;
    };
    let limit = match worse_than {
        Some((r, _)) if rank > r => return None,
        Some((r, c)) if rank == r => c,
        _ => usize::MAX,
    };
    if a.rows.len() != b.rows.len() || a.rows.iter().zip(&b.rows).any(|(x, y)| x.len() != y.len()) {
        return None;
    }
    let definitive = rules.definitive(sa.v, sb.v);
    let mut changed = 0;
    for (ra, rb) in a.rows.iter().zip(&b.rows) {
        for (&ca, &cb) in ra.iter().zip(rb) {
            if ca == cb {
                continue;
            }
            let t = &tables()[usize::from(kind == Kind::Specialized)][usize::from(definitive)];
            match t[ca as usize][cb as usize] {
                NO_MERGE => return None,
                CHANGED => changed += 1,
                _ => {}
            }
            if changed > limit {
                return None;
            }
        }
    }
    Some((kind, changed))
}

/// The area of `p` once normalized in `game` (used to compare with stored areas).
pub fn normalized_area(p: &Pattern, game: Game) -> Area {
    p.normalized(game).area
}

#[cfg(test)]
mod tests {
    use super::*;
    use Cell::*;

    #[test]
    fn generalization_table_every_row_both_orders_and_colours() {
        let rows: &[(&[Cell], &[Cell], Cell, bool)] = &[
            (&[X], &[BKing, BPiece], BPiece, false),
            (&[BKing], &[BPiece], BPiece, false),
            (&[Empty], &[X, BKing, BPiece], NoWhite, false),
            (&[X, BKing, BPiece], &[O, WKing, WPiece], Any, true),
        ];
        for &(from, and, to, needs_definitive) in rows {
            for &a in from {
                for &b in and {
                    for (a, b, to) in [(a, b, to), (a.swapped(), b.swapped(), to.swapped())] {
                        assert_eq!(generalize_cell(a, b, true), Some(to), "{a:?} {b:?}");
                        assert_eq!(generalize_cell(b, a, true), Some(to), "{b:?} {a:?}");
                        let without = generalize_cell(a, b, false);
                        if needs_definitive {
                            assert_eq!(without, None, "# needs definitive values: {a:?} {b:?}");
                        } else {
                            assert_eq!(without, Some(to));
                        }
                    }
                }
            }
        }
        // equal cells stay; a generalized cell covers its instances; other pairs block
        assert_eq!(generalize_cell(X, X, false), Some(X));
        assert_eq!(generalize_cell(X, NoWhite, false), Some(NoWhite));
        assert_eq!(generalize_cell(Empty, NoBlack, false), Some(NoBlack));
        assert_eq!(generalize_cell(X, Any, false), Some(Any), "a known # stays");
        assert_eq!(generalize_cell(Any, X, false), None, "a new # needs definitive values");
        assert_eq!(generalize_cell(Any, X, true), Some(Any));
        assert_eq!(generalize_cell(Off, X, true), None);
        assert_eq!(generalize_cell(NoWhite, NoBlack, true), None);
        assert_eq!(generalize_cell(Empty, Off, true), None);
    }

    #[test]
    fn specialization_table_every_row_and_colour() {
        let rows: &[(&[Cell], Cell, Cell, Option<bool>)] = &[
            (&[X], BPiece, X, None),
            (&[BKing], BPiece, BKing, None),
            (&[X, BKing, BPiece], NoWhite, BPiece, None),
            (&[X, BKing, BPiece], Any, Any, Some(true)),
            (&[X, BKing], Any, BPiece, Some(false)),
            (&[BPiece], Any, NoWhite, Some(false)),
        ];
        for &(from_a, from_b, to, definitive) in rows {
            for &a in from_a {
                for (a, b, to) in [(a, from_b, to), (a.swapped(), from_b.swapped(), to.swapped())] {
                    for d in [false, true] {
                        if definitive.is_some_and(|x| x != d) {
                            continue;
                        }
                        assert_eq!(specialize_cell(a, b, d), Some(to), "{a:?} {b:?} {d}");
                    }
                }
            }
        }
        assert_eq!(specialize_cell(X, X, false), Some(X));
        assert_eq!(specialize_cell(X, O, true), None);
        assert_eq!(
            specialize_cell(BPiece, X, true),
            None,
            "A more general than B: no specialization"
        );
        assert_eq!(specialize_cell(Empty, NoWhite, true), None);
    }

    fn pat(key: &str, n: u32, e: f64, v: f64) -> Pattern {
        Pattern {
            area: Area::from_key(key).unwrap(),
            sig: Signature { n, e, v, p: 1 },
            library: None,
        }
    }

    #[test]
    fn exact_match_updates_by_the_elo_weighted_mean() {
        // B = <3; 165; 0.78>, A = <1; 700; 0.12>: N = 4, E = (165·3 + 700)/4 = 298.75,
        // V = (165·3·0.78 + 700·0.12)/(165·3 + 700) = (386.1 + 84)/1195 = 0.393389…
        let m = merge(
            &pat("x-/-o", 1, 700.0, 0.12),
            &pat("x-/-o", 3, 165.0, 0.78),
            &PostRules::default(),
        )
        .unwrap();
        assert_eq!(m.kind, Kind::Exact);
        assert_eq!(m.sig.n, 4);
        assert!((m.sig.e - 298.75).abs() < 1e-12);
        assert!((m.sig.v - 470.1 / 1195.0).abs() < 1e-12);
        // one player of the same ELO: the plain mean
        let m = merge(
            &pat("x", 1, 1000.0, 1.0),
            &pat("x", 1, 1000.0, 0.0),
            &PostRules::default(),
        )
        .unwrap();
        assert_eq!((m.sig.n, m.sig.e, m.sig.v), (2, 1000.0, 0.5));
    }

    #[test]
    fn generalization_needs_the_elo_band_and_the_table() {
        let r = PostRules::default();
        // E_A = 1199, E_B = 1000: within the band → - and x become 1
        let m = merge(&pat("x-/-o", 1, 1199.0, 0.5), &pat("xx/-o", 1, 1000.0, 0.5), &r).unwrap();
        assert_eq!(
            (m.kind, m.area.key().as_str(), m.changed),
            (Kind::Generalized, "x1/-o", 1)
        );
        // E_A = 800 exactly B − 200: outside (strict), and not a specialization either
        assert_eq!(
            merge(&pat("x-/-o", 1, 800.0, 0.5), &pat("xx/-o", 1, 1000.0, 0.5), &r),
            None
        );
        // x against o needs definitive values
        assert_eq!(merge(&pat("o-", 1, 1000.0, 0.5), &pat("x-", 1, 1000.0, 0.9), &r), None);
        let m = merge(&pat("o-", 1, 1000.0, 0.7), &pat("x-", 1, 1000.0, 0.9), &r).unwrap();
        assert_eq!(m.area.key(), "#-");
        let m = merge(&pat("o-", 1, 1000.0, 0.1), &pat("x-", 1, 1000.0, 0.3), &r).unwrap();
        assert_eq!(m.area.key(), "#-");
        // an off-board cell never merges with a cell
        assert_eq!(merge(&pat("+-", 1, 1000.0, 0.5), &pat("x-", 1, 1000.0, 0.5), &r), None);
        // different shapes never merge
        assert_eq!(
            merge(&pat("x-", 1, 1000.0, 0.5), &pat("x-/--", 1, 1000.0, 0.5), &r),
            None
        );
    }

    #[test]
    fn specialization_needs_a_much_stronger_poster() {
        let r = PostRules::default();
        // known: "1 #" at 1000, value 0.5; new: "x o" at 1201 → 1 becomes B (= x in Go), # becomes W
        let m = merge(&pat("xo", 1, 1201.0, 0.5), &pat("1#", 2, 1000.0, 0.5), &r).unwrap();
        assert_eq!((m.kind, m.area.key().as_str()), (Kind::Specialized, "BW"));
        // definitive values keep the #
        let m = merge(&pat("xo", 1, 1201.0, 0.9), &pat("1#", 2, 1000.0, 0.8), &r).unwrap();
        assert_eq!(m.area.key(), "B#");
        // exactly 200 above: the generalization band's edge is excluded, so neither rule applies
        assert_eq!(merge(&pat("xo", 1, 1200.0, 0.5), &pat("1#", 2, 1000.0, 0.5), &r), None);
        // an empty cell where B has 1 is not in the table
        assert_eq!(merge(&pat("-o", 1, 1500.0, 0.5), &pat("1#", 2, 1000.0, 0.5), &r), None);
    }

    #[test]
    fn asymmetric_games_need_the_same_player() {
        let r = PostRules {
            symmetric: false,
            ..PostRules::default()
        };
        let mut a = pat("x", 1, 1000.0, 0.5);
        a.sig.p = 2;
        assert_eq!(merge(&a, &pat("x", 1, 1000.0, 0.5), &r), None);
        assert!(merge(&a, &pat("x", 1, 1000.0, 0.5), &PostRules::default()).is_some());
    }

    #[test]
    fn merge_cost_agrees_with_merge_and_its_bound_only_prunes_worse_candidates() {
        let cells = [Empty, X, O, NoWhite, Any, BKing, BPiece, WKing, WPiece, NoBlack];
        let mut rng = crate::go::fastboard::FastRng::new(7);
        let r = PostRules::default();
        let mut agree = [0usize; 3];
        for (i, c) in CELLS.iter().enumerate() {
            assert_eq!(*c as usize, i, "the lookup tables index cells in declaration order");
        }
        for _ in 0..20_000 {
            // 2×2 areas over a few letters, so that merges of every kind happen
            let area = |rng: &mut crate::go::fastboard::FastRng| Area {
                rows: (0..2)
                    .map(|_| {
                        (0..2)
                            .map(|_| {
                                let k = if rng.below(2) == 0 { 5 } else { 10 };
                                cells[rng.below(k)]
                            })
                            .collect()
                    })
                    .collect(),
            };
            let a = area(&mut rng);
            let b = if rng.below(4) == 0 { a.clone() } else { area(&mut rng) };
            let sa = Signature {
                n: 1,
                e: 1000.0 + 100.0 * rng.below(6) as f64,
                v: [0.1, 0.5, 0.9][rng.below(3)],
                p: 1,
            };
            let sb = Signature {
                n: 2,
                e: 1000.0 + 100.0 * rng.below(6) as f64,
                v: [0.1, 0.5, 0.9][rng.below(3)],
                p: 1,
            };
            let full = merge(
                &Pattern {
                    area: a.clone(),
                    sig: sa,
                    library: None,
                },
                &Pattern {
                    area: b.clone(),
                    sig: sb,
                    library: None,
                },
                &r,
            );
            let cost = merge_cost((&a, sa), (&b, sb), &r, None);
            assert_eq!(cost, full.as_ref().map(|m| (m.kind, m.changed)), "{a:?} {b:?}");
            if let Some((kind, changed)) = cost {
                agree[kind as usize] += 1;
                let rank = kind as u8;
                // a bound it meets or beats keeps it; a strictly better one drops it
                assert_eq!(merge_cost((&a, sa), (&b, sb), &r, Some((rank, changed))), cost);
                if changed > 0 {
                    assert_eq!(merge_cost((&a, sa), (&b, sb), &r, Some((rank, changed - 1))), None);
                }
                if rank > 0 {
                    assert_eq!(merge_cost((&a, sa), (&b, sb), &r, Some((rank - 1, usize::MAX))), None);
                }
            }
        }
        assert!(agree.iter().all(|&k| k >= 10), "every rule exercised: {agree:?}");
    }
}
