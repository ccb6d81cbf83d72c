//! What a game record posts to the ACADEMY (seed `000_…`: "each record's players are posting
//! players"; the Fuseki and Yose libraries are post-mortem tasks of the ACADEMY).
//!
//! - **Fuseki**: the game's opening as move keys (`B dd`, SGF coordinates) in the canonical
//!   orientation of the board (of the eight symmetries, the one whose transformed move sequence
//!   is least; the same opening played in another corner is the same line), under the root named
//!   by the board size; each player posts its ELO and the value for the first player, which from
//!   a record is the result (1, ½, 0).
//! - **Yose**: each move within the last `yose_tail` (20%) of the average game length (the game
//!   just posted included), the last one being the final position: the area of `radius` around
//!   the move after it was played, addressed to the mover, with the mover's ELO, and with the
//!   value 0.5 (a record holds no evaluation) passed through the post-mortem of the mover's
//!   result: √0.5 on a win, 0.25 on a loss, 0.5 on a draw. Games without a result post no Yose
//!   pattern.
//! - **Chuban**: a middle-game pattern is posted by a player under the insertion criterion
//!   ([`super::usage::Usage::should_post`]), which needs the player's evaluations; see
//!   [`chuban_posts`].

use serde::{Deserialize, Serialize};

use super::elo::{elo_of_rank, outcome_of_result};
use super::library::{Academy, Change, Library, Outcome, Posted, post_mortem};
use super::notation::{Area, Pattern, Signature};
use super::usage::Usage;
use crate::go::board::{Color, Point};
use crate::go::game::Replay;

/// One post: the unit that the store logs and that a replay repeats.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Post {
    /// A pattern (area key, signature) to a pattern library.
    Pattern {
        /// `chuban` or `yose`.
        library: String,
        /// The area as [`Area::key`].
        area: String,
        /// N, E, V, P.
        sig: (u32, f64, f64, u8),
    },
    /// A game's opening to the Fuseki library.
    Opening {
        /// The root (board size).
        root: String,
        /// Move keys.
        moves: Vec<String>,
        /// The game's length.
        len: usize,
        /// Each posting player's ELO and value for the first player.
        players: Vec<(f64, f64)>,
        /// The first player's result: 0 win, 1 loss, 2 draw.
        result: Option<u8>,
    },
}

impl Post {
    /// A pattern post.
    pub fn pattern(p: &Pattern, library: Library) -> Post {
        Post::Pattern {
            library: library.name().to_string(),
            area: p.area.key(),
            sig: (p.sig.n, p.sig.e, p.sig.v, p.sig.p),
        }
    }
}

/// Applies a post to an ACADEMY in memory: what became of a pattern post, and the changes.
pub fn apply(a: &mut Academy, post: &Post) -> Result<(Option<Posted>, Vec<Change>), String> {
    match post {
        Post::Pattern { library, area, sig } => {
            let lib = Library::from_name(library)
                .filter(|l| *l != Library::Fuseki)
                .ok_or_else(|| format!("`{library}` is not a pattern library (chuban, yose)"))?;
            let area = Area::from_key(area).ok_or_else(|| format!("`{area}` is not an area"))?;
            let p = Pattern {
                area,
                sig: Signature {
                    n: sig.0,
                    e: sig.1,
                    v: sig.2,
                    p: sig.3,
                },
                library: None,
            };
            let (posted, changes) = a.post(&p, lib);
            Ok((Some(posted), changes))
        }
        Post::Opening {
            root,
            moves,
            len,
            players,
            result,
        } => {
            let r = result.map(|r| match r {
                0 => Outcome::Win,
                1 => Outcome::Loss,
                _ => Outcome::Draw,
            });
            Ok((None, a.post_opening(root, moves, *len, players, r)))
        }
    }
}

/// How a record is read.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RecordSettings {
    /// The ELO of a player whose rank is missing or unreadable.
    pub default_elo: f64,
    /// The radius of Yose areas (2: 5×5).
    pub radius: usize,
}

impl Default for RecordSettings {
    fn default() -> Self {
        RecordSettings {
            default_elo: 2000.0,
            radius: 2,
        }
    }
}

/// The players' ELOs (black, white) of a record.
pub fn players(r: &Replay, s: &RecordSettings) -> (f64, f64) {
    let of = |rank: &Option<String>| rank.as_deref().and_then(elo_of_rank).unwrap_or(s.default_elo);
    (of(&r.info.black_rank), of(&r.info.white_rank))
}

/// The symmetry (0..8) of a `size`×`size` board that puts a sequence of points in its least form.
pub fn canonical_symmetry(points: &[Option<Point>], size: u8) -> u8 {
    (0..8u8)
        .min_by_key(|&s| {
            points
                .iter()
                .map(|p| p.map(|p| transform_point(p, s, size)))
                .map(|p| p.map(|p| (p.row, p.col)).unwrap_or((u8::MAX, u8::MAX)))
                .collect::<Vec<_>>()
        })
        .unwrap_or(0)
}

/// A point under symmetry `s` of a square board (bit 0 transpose, bit 1 mirror x, bit 2 mirror y).
pub fn transform_point(p: Point, s: u8, size: u8) -> Point {
    let (mut x, mut y) = if s & 1 == 1 { (p.row, p.col) } else { (p.col, p.row) };
    if s & 2 != 0 {
        x = size - 1 - x;
    }
    if s & 4 != 0 {
        y = size - 1 - y;
    }
    Point { col: x, row: y }
}

fn sgf_coord(p: Point) -> String {
    let c = |v: u8| (if v < 26 { b'a' + v } else { b'A' + v - 26 }) as char;
    format!("{}{}", c(p.col), c(p.row))
}

/// The opening's root (board size) and move keys in canonical orientation, at most `depth` moves.
pub fn opening_keys(r: &Replay, depth: usize) -> (String, Vec<String>) {
    let (cols, rows) = r.info.size;
    let pts: Vec<Option<Point>> = r.moves.iter().take(depth).map(|m| m.point).collect();
    let s = if cols == rows {
        canonical_symmetry(&pts, cols)
    } else {
        0
    };
    let keys = r
        .moves
        .iter()
        .take(depth)
        .map(|m| {
            let c = if m.color == Color::Black { "B" } else { "W" };
            match m.point {
                Some(p) => format!(
                    "{c} {}",
                    sgf_coord(if cols == rows { transform_point(p, s, cols) } else { p })
                ),
                None => format!("{c} pass"),
            }
        })
        .collect();
    (format!("{cols}x{rows}"), keys)
}

/// The first player's result of a record.
pub fn outcome(r: &Replay) -> Option<Outcome> {
    r.info.result.as_deref().and_then(outcome_of_result)
}

/// The posts of a record for the Fuseki and Yose libraries, given the ACADEMY's state (its
/// average game length and Fuseki depth). The Yose posts use the average length once this game
/// is counted.
pub fn record_posts(a: &Academy, r: &Replay, s: &RecordSettings) -> Vec<Post> {
    let (eb, ew) = players(r, s);
    let result = outcome(r);
    let len = r.moves.len();
    let depth = a.fuseki_depth(len);
    let (root, moves) = opening_keys(r, depth);
    let vb = result.map(|o| o.value()).unwrap_or(0.5);
    let mut posts = vec![Post::Opening {
        root,
        moves,
        len,
        players: vec![(eb, vb), (ew, vb)],
        result: result.map(|o| o as u8),
    }];
    let Some(result) = result else {
        return posts;
    };
    let (g, m) = a.games;
    let avg = (m + len as u64) as f64 / (g + 1) as f64;
    let tail = (a.caps.yose_tail * avg).round() as usize;
    for k in len.saturating_sub(tail)..len {
        let mv = &r.moves[k];
        let Some(p) = mv.point else { continue };
        let area = Area::around(&r.positions[k + 1], p, s.radius);
        let (elo, res, player) = match mv.color {
            Color::Black => (eb, result, 1),
            Color::White => (ew, result.flipped(), 2),
        };
        let pat = Pattern {
            area,
            sig: Signature {
                n: 1,
                e: elo,
                v: post_mortem(0.5, res),
                p: player,
            },
            library: None,
        };
        posts.push(Post::pattern(&pat, Library::Yose));
    }
    posts
}

/// The Chuban posts of one player of a record under the insertion criterion: `values[k]` is the
/// player's expected value of the position after k moves (from its evaluations); a move of the
/// player from k to k+1 is posted when [`Usage::should_post`] holds, as the area around it after
/// the move, with value `values[k+1]`.
pub fn chuban_posts(r: &Replay, values: &[f64], player: Color, usage: &Usage, s: &RecordSettings) -> Vec<Post> {
    let (eb, ew) = players(r, s);
    let (me, them) = if player == Color::Black { (eb, ew) } else { (ew, eb) };
    let Some(result) = outcome(r).map(|o| if player == Color::Black { o } else { o.flipped() }) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (k, mv) in r.moves.iter().enumerate() {
        let (Some(p), true) = (mv.point, mv.color == player) else {
            continue;
        };
        if k + 1 >= values.len() {
            break;
        }
        if usage.should_post(me, them, values[k], values[k + 1], result) {
            let pat = Pattern {
                area: Area::around(&r.positions[k + 1], p, s.radius),
                sig: Signature {
                    n: 1,
                    e: me,
                    v: values[k + 1],
                    p: if player == Color::Black { 1 } else { 2 },
                },
                library: None,
            };
            out.push(Post::pattern(&pat, Library::Chuban));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::sgf::Sgf;
    use crate::knowledge::academy::library::Caps;
    use crate::knowledge::academy::notation::Game;
    use crate::knowledge::academy::posting::PostRules;

    fn replay(text: &str) -> Replay {
        let sgf = Sgf::parse(text).unwrap();
        Replay::from_sgf(&sgf, 0, &[]).unwrap()
    }

    #[test]
    fn the_same_opening_in_another_corner_is_the_same_line() {
        let a = replay("(;SZ[9];B[cc];W[gg];B[cg])");
        let b = replay("(;SZ[9];B[gg];W[cc];B[gc])");
        assert_eq!(opening_keys(&a, 3), opening_keys(&b, 3));
        assert_eq!(opening_keys(&a, 3).0, "9x9");
        // of the eight orientations, the least sequence by (row, column)
        assert_eq!(opening_keys(&a, 3).1, vec!["B cc", "W gg", "B gc"]);
    }

    #[test]
    fn a_record_posts_its_opening_and_its_yose() {
        // 10 moves, black 3d (2300) beats white 1k (2000)
        let r = replay("(;SZ[9]BR[3d]WR[1k]RE[B+R];B[ee];W[cc];B[gg];W[cg];B[gc];W[dd];B[fd];W[ce];B[ef];W[bb])");
        let a = Academy::new(Caps::default(), PostRules::default(), Game::Go);
        let posts = record_posts(&a, &r, &RecordSettings::default());
        // depth ⌊10/3⌋ = 3; tail round(0.2 · 10) = 2 moves (9 and 10)
        match &posts[0] {
            Post::Opening {
                moves, players, result, ..
            } => {
                assert_eq!(moves.len(), 3);
                assert_eq!(players, &vec![(2300.0, 1.0), (2000.0, 1.0)]);
                assert_eq!(*result, Some(0));
            }
            p => panic!("{p:?}"),
        }
        assert_eq!(posts.len(), 3);
        match (&posts[1], &posts[2]) {
            (Post::Pattern { sig: s1, .. }, Post::Pattern { sig: s2, .. }) => {
                assert_eq!(*s1, (1, 2300.0, 0.5f64.sqrt(), 1), "black won: √0.5");
                assert_eq!(*s2, (1, 2000.0, 0.25, 2), "white lost: 0.5²");
            }
            p => panic!("{p:?}"),
        }
        let mut a = a;
        for p in &posts {
            apply(&mut a, p).unwrap();
        }
        assert_eq!(a.library(Library::Yose).count(), 2);
        assert_eq!(a.average_length(), Some(10.0));
    }

    #[test]
    fn chuban_posts_follow_the_insertion_criterion() {
        let r = replay("(;SZ[9]BR[1d]WR[1d]RE[B+2.5];B[ee];W[cc];B[gg];W[cg])");
        // black's values after 0..4 moves: its move 1 raises 0.4 → 0.65 (crossing: +0.25 ≥ 0.10),
        // its move 3 raises 0.6 → 0.7 (+0.10 < 0.20)
        let v = [0.4, 0.65, 0.6, 0.7, 0.7];
        let posts = chuban_posts(&r, &v, Color::Black, &Usage::default(), &RecordSettings::default());
        assert_eq!(posts.len(), 1);
        assert!(chuban_posts(&r, &v, Color::White, &Usage::default(), &RecordSettings::default()).is_empty());
    }
}
