//! The Gomi core loop (J. Hurd, *The Design of Gomi*, §2–§4): the pattern database Π of entries
//! (χ, φ, d), the strategy σ, sample games played with σ from a position, and the position's
//! evaluation from them (P(BlackWins), the ownership map, seki points), every entry updated from
//! each sample game.
//!
//! - **Patterns χ** — a predicate on positions: (1) the *local* pattern of a move: the 3×3 area
//!   around the move's point in the position after it (captures made), seen by the mover
//!   (own / opponent / empty / off-board) and put in canonical orientation (of the eight board
//!   symmetries, the least code); (2) *class elements* (thesis §5.3): "an element of class C is
//!   present" in a position, for the classes the ETS classification finds in the evaluated
//!   position ([`Gomi::evaluate`]'s `elements`); (3) *Forme_K patterns* from part 1's store: "the
//!   deepest Forme_K pattern matching around m's point, for the mover, before the move" for the
//!   moves of the evaluated position ([`Gomi::root_patterns`], set by the caller): each sample
//!   game's first move matches its Forme_K pattern, which takes `MoverWins` and `OwnsPoint`; at
//!   the root σ uses a move's Forme_K entry (the larger, more specific pattern) once it has been
//!   matched, its local entry otherwise.
//! - **Formulas φ** on final positions, in the pattern's player's view: `MoverWins` (BlackWins for
//!   black's patterns, its negation for white's), `OwnsPoint` (isBlackTerritory(v) — stones
//!   included, area scoring — for the move's point v), `SekiPoint` (isSeki(v)); for class
//!   elements `BlackWins` and `BlackOwnsElement` (most of the element's points black's). The
//!   number of seki points of each final position is reported by the evaluation.
//! - **d** = B_{r,n} from the counts; σ uses for each legal move m the `MoverWins` entry of m's
//!   local pattern (a pattern never seen has B_{0,0}, uniform), restricted by reachability bounds
//!   when known ([`super::estimate`]), computes q_m ([`super::qm`]) and samples.
//! - **Sample games** end after two passes or 3 × points moves; σ does not fill its own eyes (the
//!   fast board's eye rule, as in every playout policy; otherwise no sample game would end) and
//!   passes when no other move is legal. Final positions are scored by area (the fast board's
//!   count: every stone, and empty points touching one colour); dead stones are those the sample
//!   games captured. A final point is in seki when it is an empty point touching both colours, or
//!   a stone of a chain touching such a point.
//! - **Reachability**: for each local pattern, the opponent's local patterns played next (counted).
//!   σ uses them when the entry has been matched at least `reach_min` times: the successors'
//!   `MoverWins` means ± 3.3 standard deviations, seen from the mover, bound the entry's
//!   probabilities (an approximation: only the successors observed).

use std::collections::HashMap;

use super::estimate::Counts;
use super::qm::{Dist, q_max, sample};
use crate::go::board::{Color, Point};
use crate::go::fastboard::{FastBoard, FastRng, Owner, Vtx};

/// A formula on final positions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Formula {
    /// The pattern's player wins.
    MoverWins = 0,
    /// The pattern's player owns the move's point at the end (area).
    OwnsPoint = 1,
    /// The move's point is in seki at the end.
    SekiPoint = 2,
    /// Black wins (class elements).
    BlackWins = 3,
    /// Black owns most of the element's points (class elements).
    BlackOwnsElement = 4,
}

impl Formula {
    /// The name.
    pub fn name(self) -> &'static str {
        match self {
            Formula::MoverWins => "MoverWins",
            Formula::OwnsPoint => "OwnsPoint",
            Formula::SekiPoint => "isSeki",
            Formula::BlackWins => "BlackWins",
            Formula::BlackOwnsElement => "BlackOwnsElement",
        }
    }
    /// From a stored code.
    pub fn from_code(c: i64) -> Option<Formula> {
        Some(match c {
            0 => Formula::MoverWins,
            1 => Formula::OwnsPoint,
            2 => Formula::SekiPoint,
            3 => Formula::BlackWins,
            4 => Formula::BlackOwnsElement,
            _ => return None,
        })
    }
}

/// A pattern χ: a local 3×3 pattern code (bit 62 clear) or a class (bit 62 set, a hash of its
/// name).
pub type Chi = u64;

const CLASS_BIT: u64 = 1 << 62;
const FORME_K_BIT: u64 = 1 << 61;

/// The χ of the Forme_K pattern `id` of part 1's store.
pub fn forme_k_chi(id: u32) -> Chi {
    FORME_K_BIT | id as u64
}

/// The Forme_K pattern id of χ, if χ is one.
pub fn forme_k_id(chi: Chi) -> Option<u32> {
    (chi & (CLASS_BIT | FORME_K_BIT) == FORME_K_BIT).then_some((chi & 0xffff_ffff) as u32)
}

/// The χ of a class name.
pub fn class_chi(name: &str) -> Chi {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    (h & (CLASS_BIT - 1)) | CLASS_BIT
}

/// Whether χ is a class pattern.
pub fn is_class(chi: Chi) -> bool {
    chi & CLASS_BIT != 0
}

/// The eight symmetries as permutations of the 3×3 neighbours (row-major, centre left out:
/// NW N NE W E SW S SE).
fn perms() -> &'static [[usize; 8]; 8] {
    static P: std::sync::OnceLock<[[usize; 8]; 8]> = std::sync::OnceLock::new();
    P.get_or_init(|| {
        let pos: [(i32, i32); 8] = [(-1, -1), (0, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (0, 1), (1, 1)];
        let mut out = [[0; 8]; 8];
        for (s, row) in out.iter_mut().enumerate() {
            for (k, &(x, y)) in pos.iter().enumerate() {
                let (mut a, mut b) = if s & 1 == 1 { (y, x) } else { (x, y) };
                if s & 2 != 0 {
                    a = -a;
                }
                if s & 4 != 0 {
                    b = -b;
                }
                row[k] = pos.iter().position(|&p| p == (a, b)).expect("a neighbour");
            }
        }
        out
    })
}

/// The local pattern of `color` playing `v` on `b` (a legal move): the 3×3 cells after the move,
/// 0 empty, 1 own, 2 opponent, 3 off-board, in canonical orientation.
pub fn local_pattern(b: &FastBoard, color: Color, v: Vtx) -> Chi {
    let w = b.vtx(Point { col: 0, row: 1 }).0 as i32 - b.vtx(Point { col: 0, row: 0 }).0 as i32;
    let offs = [-w - 1, -w, -w + 1, -1, 1, w - 1, w, w + 1];
    // opponent chains captured by the move: neighbours in atari whose liberty is v
    let mut captured: [Vtx; 4] = [Vtx::PASS; 4];
    let mut nc = 0;
    for n in b.neighbours(v) {
        if b.color_at(n) == Some(color.other()) && b.liberty_count(n) == 1 {
            captured[nc] = b.chain_head(n);
            nc += 1;
        }
    }
    let mut cells = [0u8; 8];
    for (k, o) in offs.iter().enumerate() {
        let u = Vtx((v.0 as i32 + o) as u16);
        cells[k] = if !b.on_board(u) {
            3
        } else {
            match b.color_at(u) {
                None => 0,
                Some(c) if c == color => 1,
                Some(_) => {
                    if nc > 0 && captured[..nc].contains(&b.chain_head(u)) {
                        0
                    } else {
                        2
                    }
                }
            }
        };
    }
    let mut best = u64::MAX;
    for p in perms() {
        let mut code = 0u64;
        for k in 0..8 {
            code = code * 4 + cells[p[k]] as u64;
        }
        best = best.min(code);
    }
    best
}

/// Settings of the sample games.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Settings {
    /// Komi (black's area − white's area − komi > 0: black wins).
    pub komi: f32,
    /// Use reachability bounds in σ.
    pub reach: bool,
    /// Matches an entry needs before its reachability bounds are used.
    pub reach_min: u64,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            komi: 7.0,
            reach: true,
            reach_min: 30,
        }
    }
}

/// The pattern database Π in memory.
#[derive(Debug, Clone, Default)]
pub struct Gomi {
    /// (χ, φ) → counts.
    pub entries: HashMap<(Chi, Formula), Counts>,
    /// χ → the opponent's patterns played next, with counts.
    pub reach: HashMap<Chi, HashMap<Chi, u32>>,
    /// Class names of class patterns.
    pub class_names: HashMap<Chi, String>,
    /// Settings.
    pub settings: Settings,
    /// The Forme_K patterns (χ from [`forme_k_chi`]) of the moves of the position being evaluated,
    /// by point: set by the caller before [`Gomi::evaluate`]; empty for none.
    pub root_patterns: HashMap<Vtx, Chi>,
    bounds: HashMap<Chi, (f64, f64)>,
}

/// One sample game: the moves with their patterns, and the final position.
#[derive(Debug, Clone)]
pub struct SampleGame {
    /// Each move: who played, where, its local pattern (`None` for a pass).
    pub moves: Vec<(Color, Vtx, Option<Chi>)>,
    /// The final position.
    pub last: FastBoard,
    /// Black's area − white's area − komi.
    pub score: f32,
}

/// What the sample games say about a position.
#[derive(Debug, Clone, PartialEq)]
pub struct Evaluation {
    /// Sample games played.
    pub games: usize,
    /// Black won in this many.
    pub black_wins: usize,
    /// The mean final score (black − white − komi).
    pub mean_score: f64,
    /// Per point (row by row from the top): the fraction of sample games in which black owned it
    /// at the end.
    pub black_owns: Vec<f64>,
    /// Per point: the fraction in which it was in seki.
    pub seki: Vec<f64>,
    /// The mean number of seki points in the final positions.
    pub seki_points: f64,
    /// Stones of the evaluated position that the other colour owns in most sample games (dead).
    pub dead: Vec<Point>,
    /// The area score of the evaluated position with the dead stones removed (black − white − komi).
    pub score_now: f32,
    /// Board size.
    pub size: (usize, usize),
}

impl Evaluation {
    /// P(BlackWins) estimated from the sample games.
    pub fn p_black_wins(&self) -> f64 {
        self.black_wins as f64 / self.games.max(1) as f64
    }
}

fn seki_map(b: &FastBoard) -> Vec<bool> {
    let mut seki = vec![false; b.padded_len()];
    let mut heads = Vec::new();
    for v in b.points() {
        if b.is_empty(v) && b.playout_owner(v) == Owner::Neutral {
            let mut both = (false, false);
            for n in b.neighbours(v) {
                match b.color_at(n) {
                    Some(Color::Black) => both.0 = true,
                    Some(Color::White) => both.1 = true,
                    None => {}
                }
            }
            if both.0 && both.1 {
                seki[v.0 as usize] = true;
                for n in b.neighbours(v) {
                    if b.color_at(n).is_some() {
                        heads.push(b.chain_head(n));
                    }
                }
            }
        }
    }
    if !heads.is_empty() {
        for v in b.points() {
            if b.color_at(v).is_some() && heads.contains(&b.chain_head(v)) {
                seki[v.0 as usize] = true;
            }
        }
    }
    seki
}

impl Gomi {
    /// An empty database.
    pub fn new(settings: Settings) -> Gomi {
        Gomi {
            settings,
            ..Gomi::default()
        }
    }

    /// The counts of an entry (zero if never matched).
    pub fn counts(&self, chi: Chi, phi: Formula) -> Counts {
        self.entries.get(&(chi, phi)).copied().unwrap_or_default()
    }

    /// Recomputes the reachability bounds of every entry matched at least `reach_min` times.
    pub fn refresh_bounds(&mut self) {
        self.bounds.clear();
        if !self.settings.reach {
            return;
        }
        for (&chi, next) in &self.reach {
            if self.counts(chi, Formula::MoverWins).n < self.settings.reach_min || next.len() < 2 {
                continue;
            }
            let (mut lo, mut hi) = (1.0f64, 0.0f64);
            for &nx in next.keys() {
                let c = self.counts(nx, Formula::MoverWins);
                let (a, b) = c.beta();
                let m = a / (a + b);
                let s = (a * b / ((a + b) * (a + b) * (a + b + 1.0))).sqrt();
                // the successor is the opponent's: its value for the mover is 1 − p
                lo = lo.min(1.0 - (m + 3.3 * s));
                hi = hi.max(1.0 - (m - 3.3 * s));
            }
            let (lo, hi) = (lo.max(0.0), hi.min(1.0));
            if hi - lo > 1e-3 && (lo > 0.0 || hi < 1.0) {
                self.bounds.insert(chi, (lo, hi));
            }
        }
    }

    /// The distribution σ uses for a move whose local pattern is `chi`.
    pub fn dist(&self, chi: Chi) -> Dist {
        let d = Dist::posterior(self.counts(chi, Formula::MoverWins));
        match self.bounds.get(&chi) {
            Some(&(lo, hi)) => {
                let r = d.within(lo, hi);
                if r.cdf(hi) > 0.0 && (r.hi - r.lo) > 1e-3 && mass_ok(&d, lo, hi) {
                    r
                } else {
                    d
                }
            }
            None => d,
        }
    }

    /// The strategy σ: a move for `color` on `b` (a pass when nothing but own-eye fills is legal),
    /// with its local pattern.
    pub fn sigma(&self, b: &FastBoard, color: Color, rng: &mut FastRng) -> (Vtx, Option<Chi>) {
        self.sigma_at(b, color, rng, false)
    }

    /// σ; at the evaluated position (`root`) a move's Forme_K entry is used once it has been
    /// matched.
    fn sigma_at(&self, b: &FastBoard, color: Color, rng: &mut FastRng, root: bool) -> (Vtx, Option<Chi>) {
        let mut moves = Vec::new();
        let mut chis = Vec::new();
        let mut dists = Vec::new();
        for v in b.empty_points() {
            if b.is_eye(color, v) || !b.is_legal(color, v) {
                continue;
            }
            let chi = local_pattern(b, color, v);
            moves.push(v);
            chis.push(chi);
            let fk = if root { self.root_patterns.get(&v) } else { None };
            dists.push(match fk {
                Some(&f) if self.counts(f, Formula::MoverWins).n > 0 => self.dist(f),
                _ => self.dist(chi),
            });
        }
        if moves.is_empty() {
            return (Vtx::PASS, None);
        }
        let q = q_max(&dists);
        let i = sample(&q, rng.unit());
        (moves[i], Some(chis[i]))
    }

    /// The q_m of every candidate move of `color` (σ's distribution), for display.
    pub fn move_probabilities(&self, b: &FastBoard, color: Color) -> Vec<(Vtx, f64)> {
        let mut moves = Vec::new();
        let mut dists = Vec::new();
        for v in b.empty_points() {
            if b.is_eye(color, v) || !b.is_legal(color, v) {
                continue;
            }
            moves.push(v);
            dists.push(self.dist(local_pattern(b, color, v)));
        }
        let q = q_max(&dists);
        moves.into_iter().zip(q).collect()
    }

    /// Plays one sample game with σ from `b`, `to_move` first.
    pub fn sample_game(&self, b: &FastBoard, to_move: Color, rng: &mut FastRng) -> SampleGame {
        let mut board = b.clone();
        let limit = 3 * board.cols() * board.rows();
        let mut color = to_move;
        let mut moves = Vec::new();
        while board.passes() < 2 && moves.len() < limit {
            let (v, chi) = self.sigma_at(&board, color, rng, moves.is_empty() && !self.root_patterns.is_empty());
            board.play_legal(color, v);
            moves.push((color, v, chi));
            color = color.other();
        }
        let score = board.playout_score() as f32 - self.settings.komi;
        SampleGame {
            moves,
            last: board,
            score,
        }
    }

    /// Updates the entries from a sample game: every local pattern matched in it (the position
    /// after each move) takes the game's formulas; reachability takes each pattern's successor;
    /// the class patterns present at its start take BlackWins and BlackOwnsElement.
    pub fn learn(&mut self, g: &SampleGame, elements: &[(String, Vec<Point>)]) {
        let black_wins = g.score > 0.0;
        let seki = seki_map(&g.last);
        for (k, &(color, v, chi)) in g.moves.iter().enumerate() {
            let Some(chi) = chi else { continue };
            let wins = black_wins == (color == Color::Black);
            let owner = g.last.playout_owner(v);
            let owns = matches!(
                (owner, color),
                (Owner::Black, Color::Black) | (Owner::White, Color::White)
            );
            self.entries.entry((chi, Formula::MoverWins)).or_default().add(wins);
            self.entries.entry((chi, Formula::OwnsPoint)).or_default().add(owns);
            self.entries
                .entry((chi, Formula::SekiPoint))
                .or_default()
                .add(seki[v.0 as usize]);
            if let Some(&(_, _, Some(next))) = g.moves.get(k + 1) {
                *self.reach.entry(chi).or_default().entry(next).or_insert(0) += 1;
            }
        }
        // the first move's Forme_K pattern (the moves of the evaluated position)
        if let Some(&(color, v, _)) = g.moves.first()
            && let Some(&fk) = self.root_patterns.get(&v)
        {
            let wins = black_wins == (color == Color::Black);
            let owns = matches!(
                (g.last.playout_owner(v), color),
                (Owner::Black, Color::Black) | (Owner::White, Color::White)
            );
            self.entries.entry((fk, Formula::MoverWins)).or_default().add(wins);
            self.entries.entry((fk, Formula::OwnsPoint)).or_default().add(owns);
        }
        let mut present = std::collections::BTreeSet::new();
        for (name, pts) in elements {
            let chi = class_chi(name);
            self.class_names.entry(chi).or_insert_with(|| name.clone());
            // "an element of C is present" matches the position once; each element is a match
            // of "this element's points", whose formula is BlackOwnsElement
            if present.insert(chi) {
                self.entries
                    .entry((chi, Formula::BlackWins))
                    .or_default()
                    .add(black_wins);
            }
            let black = pts
                .iter()
                .filter(|p| g.last.playout_owner(g.last.vtx(**p)) == Owner::Black)
                .count();
            self.entries
                .entry((chi, Formula::BlackOwnsElement))
                .or_default()
                .add(2 * black > pts.len());
        }
    }

    /// Evaluates a position by `games` sample games with σ (seeded), learning from each when
    /// `learn` is set. `elements`: the class elements present in the position (class name and
    /// points), which become class patterns.
    pub fn evaluate(
        &mut self,
        b: &FastBoard,
        to_move: Color,
        games: usize,
        seed: u64,
        learn: bool,
        elements: &[(String, Vec<Point>)],
    ) -> Evaluation {
        self.refresh_bounds();
        let mut rng = FastRng::new(seed);
        let pts: Vec<Vtx> = b.points().collect();
        let mut owns = vec![0usize; pts.len()];
        let mut seki = vec![0usize; pts.len()];
        let mut wins = 0;
        let mut score = 0.0;
        let mut seki_total = 0usize;
        for _ in 0..games {
            let g = self.sample_game(b, to_move, &mut rng);
            wins += usize::from(g.score > 0.0);
            score += g.score as f64;
            let s = seki_map(&g.last);
            for (i, &v) in pts.iter().enumerate() {
                owns[i] += usize::from(g.last.playout_owner(v) == Owner::Black);
                let k = usize::from(s[v.0 as usize]);
                seki[i] += k;
                seki_total += k;
            }
            if learn {
                self.learn(&g, elements);
            }
        }
        let n = games.max(1) as f64;
        let black_owns: Vec<f64> = owns.iter().map(|&c| c as f64 / n).collect();
        let mut dead = Vec::new();
        let mut dead_v = Vec::new();
        for (i, &v) in pts.iter().enumerate() {
            let theirs = match b.color_at(v) {
                Some(Color::Black) => 1.0 - black_owns[i],
                Some(Color::White) => black_owns[i],
                None => 0.0,
            };
            if theirs > 0.5 {
                dead.push(b.point(v).expect("a point"));
                dead_v.push(v);
            }
        }
        Evaluation {
            games,
            black_wins: wins,
            mean_score: score / n,
            black_owns,
            seki: seki.iter().map(|&c| c as f64 / n).collect(),
            seki_points: seki_total as f64 / n,
            dead,
            score_now: b.area_score(self.settings.komi, &dead_v),
            size: (b.cols(), b.rows()),
        }
    }
}

fn mass_ok(d: &Dist, lo: f64, hi: f64) -> bool {
    d.cdf(hi) - d.cdf(lo) > 1e-9
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(rows: &[&str]) -> FastBoard {
        let mut b = FastBoard::new(rows.len()).unwrap();
        for (r, line) in rows.iter().enumerate() {
            for (c, ch) in line.chars().enumerate() {
                let color = match ch {
                    'x' => Color::Black,
                    'o' => Color::White,
                    _ => continue,
                };
                b.play(
                    color,
                    b.vtx(Point {
                        col: c as u8,
                        row: r as u8,
                    }),
                )
                .unwrap();
            }
        }
        b
    }

    fn at(b: &FastBoard, col: u8, row: u8) -> Vtx {
        b.vtx(Point { col, row })
    }

    #[test]
    fn local_patterns_are_the_movers_view_in_canonical_orientation() {
        let b = board(&[".....", ".x...", ".....", ".....", "....o"]);
        // black at (2,2): NW is own (1), (4,4) is two away
        let p = local_pattern(&b, Color::Black, at(&b, 2, 2));
        // cells: one own diagonal, the rest empty: least code puts the 1 last (SE)
        assert_eq!(p, 1);
        // the same shape for white with colours swapped is the same pattern
        let w = board(&[".....", ".o...", ".....", ".....", "....."]);
        assert_eq!(local_pattern(&w, Color::White, at(&w, 2, 2)), 1);
        // a corner move: five off-board cells (3), least code over symmetries
        let e = board(&["...", "...", "..."]);
        let c = local_pattern(&e, Color::Black, at(&e, 0, 0));
        // off cells NW N NE W SW (3) and E S SE empty in one orientation: 3,3,3,3,0,3,0,0
        // the least: the off-board row and column at the end: 0,0,3,0,3,3,3,3
        assert_eq!(c, 0b00_00_11_00_11_11_11_11);
    }

    #[test]
    fn captures_show_as_empty() {
        // white stone at (1,0) in atari; black plays (2,0) and captures it
        let b = board(&["xo...", ".x...", ".....", ".....", "....."]);
        let p = local_pattern(&b, Color::Black, at(&b, 2, 0));
        let mut after = b.clone();
        after.play(Color::Black, at(&b, 2, 0)).unwrap();
        assert!(after.color_at(at(&b, 1, 0)).is_none());
        // recomputed on the board after the move, from an empty point's view, the same cells
        let q = {
            let mut c = [0u8; 8];
            // NW N NE off; W empty (captured); E empty; SW own; S empty; SE empty
            c[0] = 3;
            c[1] = 3;
            c[2] = 3;
            c[5] = 1;
            perms()
                .iter()
                .map(|pm| pm.iter().fold(0u64, |a, &k| a * 4 + c[k] as u64))
                .min()
                .unwrap()
        };
        assert_eq!(p, q);
    }

    #[test]
    fn sample_games_end_score_and_teach() {
        let b = FastBoard::new(9).unwrap();
        let demo = vec![("demo".to_string(), vec![Point { col: 4, row: 4 }]); 2];
        let mut g = Gomi::new(Settings::default());
        let e = g.evaluate(&b, Color::Black, 20, 1, true, &demo);
        assert_eq!(e.games, 20);
        assert!(e.black_owns.iter().all(|&x| (0.0..=1.0).contains(&x)));
        // every sample game matched patterns: MoverWins counts add up to the moves with a pattern
        let n: u64 = g
            .entries
            .iter()
            .filter(|(k, _)| k.1 == Formula::MoverWins)
            .map(|(_, c)| c.n)
            .sum();
        assert!(n > 20 * 40, "{n}");
        // two elements of one class: the class is present once per game, its elements twice
        let c = g.counts(class_chi("demo"), Formula::BlackWins);
        assert_eq!((c.n, c.r), (20, e.black_wins as u64));
        assert_eq!(g.counts(class_chi("demo"), Formula::BlackOwnsElement).n, 40);
        // deterministic with the seed
        let mut h = Gomi::new(Settings::default());
        let e2 = h.evaluate(&b, Color::Black, 20, 1, true, &demo);
        assert_eq!(e, e2);
    }

    #[test]
    fn forme_k_patterns_of_the_root_moves_learn_and_steer_sigma() {
        let b = FastBoard::new(5).unwrap();
        let mut g = Gomi::new(Settings::default());
        // the moves of column A match Forme_K pattern 1, the others pattern 2
        for v in b.empty_points() {
            let id = if b.point(v).unwrap().col == 0 { 1 } else { 2 };
            g.root_patterns.insert(v, forme_k_chi(id));
        }
        assert_eq!(forme_k_id(forme_k_chi(7)), Some(7));
        assert_eq!(forme_k_id(class_chi("x")), None);
        assert_eq!(
            forme_k_id(local_pattern(&b, Color::Black, b.vtx(Point { col: 2, row: 2 }))),
            None
        );
        let e = g.evaluate(&b, Color::Black, 12, 3, true, &[]);
        // each sample game's first move matched exactly one of them, for black
        let (c1, c2) = (
            g.counts(forme_k_chi(1), Formula::MoverWins),
            g.counts(forme_k_chi(2), Formula::MoverWins),
        );
        assert_eq!(c1.n + c2.n, 12);
        assert_eq!(c1.r + c2.r, e.black_wins as u64);
        assert_eq!(
            g.counts(forme_k_chi(1), Formula::OwnsPoint).n + g.counts(forme_k_chi(2), Formula::OwnsPoint).n,
            12
        );
        // σ at the root follows the Forme_K entries: pattern 1 always won, pattern 2 never
        g.entries
            .insert((forme_k_chi(1), Formula::MoverWins), Counts { n: 1000, r: 1000 });
        g.entries
            .insert((forme_k_chi(2), Formula::MoverWins), Counts { n: 1000, r: 0 });
        g.evaluate(&b, Color::Black, 12, 4, true, &[]);
        assert_eq!(g.counts(forme_k_chi(1), Formula::MoverWins).n, 1012);
        assert_eq!(g.counts(forme_k_chi(2), Formula::MoverWins).n, 1000);
    }

    #[test]
    fn reachability_bounds_are_stored_and_used_by_sigma() {
        let (a, b1, b2) = (11, 12, 13);
        let mut g = Gomi::new(Settings::default());
        g.entries.insert((a, Formula::MoverWins), Counts { n: 40, r: 20 });
        g.entries.insert((b1, Formula::MoverWins), Counts { n: 98, r: 48 });
        g.entries.insert((b2, Formula::MoverWins), Counts { n: 98, r: 68 });
        g.reach.entry(a).or_default().extend([(b1, 5), (b2, 7)]);
        g.refresh_bounds();
        // successors Beta(49, 51): mean 0.49, sd √(49·51/(100²·101)) = 0.0497419; Beta(69, 31):
        // mean 0.69, sd √(69·31/(100²·101)) = 0.0460198. Seen from the mover (1 − p), ± 3.3 sd:
        // lo = 1 − (0.69 + 3.3·0.0460198) = 0.1581347, hi = 1 − (0.49 − 3.3·0.0497419) = 0.6741483
        let d = g.dist(a);
        assert!((d.lo - 0.1581347).abs() < 1e-7, "{d:?}");
        assert!((d.hi - 0.6741483).abs() < 1e-7, "{d:?}");
        assert_eq!((d.alpha, d.beta), (21.0, 21.0));
        // below reach_min (30) matches, or with one successor only, no bounds
        g.entries.insert((a, Formula::MoverWins), Counts { n: 29, r: 20 });
        g.refresh_bounds();
        assert_eq!((g.dist(a).lo, g.dist(a).hi), (0.0, 1.0));
        g.entries.insert((a, Formula::MoverWins), Counts { n: 40, r: 20 });
        g.reach.get_mut(&a).unwrap().remove(&b2);
        g.refresh_bounds();
        assert_eq!((g.dist(a).lo, g.dist(a).hi), (0.0, 1.0));
    }

    #[test]
    fn a_dead_group_is_seen_dead() {
        // a white stone alone inside black's wall on 5x5: black owns it in the sample games
        // black: one chain with two eyes on the top edge; a lone white stone below
        let b = board(&["x.x.x", "xxxxx", "xx.xx", "x.o.x", "xx.xx"]);
        let mut g = Gomi::new(Settings {
            komi: 0.0,
            ..Settings::default()
        });
        let e = g.evaluate(&b, Color::Black, 30, 5, true, &[]);
        assert_eq!(e.dead, vec![Point { col: 2, row: 3 }]);
        assert_eq!(e.black_wins, 30);
        assert_eq!(e.score_now, 25.0);
    }

    #[test]
    fn seki_is_found_at_the_end() {
        // a classic seki in the corner: two shared liberties between black and white chains
        let f = board(&["x.o", "x.o", "x.o"]);
        // the middle column: empty points touching both colours → seki, with the chains beside
        let s = seki_map(&f);
        assert!(s[at(&f, 1, 1).0 as usize] && s[at(&f, 0, 0).0 as usize] && s[at(&f, 2, 2).0 as usize]);
        let g = board(&["xx.", "xx.", "..."]);
        assert!(seki_map(&g).iter().all(|&x| !x));
    }
}
