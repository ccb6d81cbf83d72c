//! The knowledge components of the move decision (issue 20 item 2; thesis §5.3.3, the seeds), each
//! switchable for ablations, and learning by playing (item 4):
//!
//! - [`RankerSource`]: the move-prediction ranker of the store (issue 18): its most probable moves
//!   become candidates and MCTS priors in proportion to their probability.
//! - [`FormeKSource`] and [`FormeKBook`]: Forme_K (seed `004_…`) as a preselector — the moves whose
//!   deepest matched pattern gives the highest `P(i|p)` (the seed's best setting: 2 of the 7
//!   preselected moves from Forme_K) — and as an opening book that answers while its best pattern is
//!   confident (matched often enough, with `P(i|p)` high enough and clear of the next).
//! - [`FusekiBook`]: the ACADEMY's Fuseki library (seed `000_…`): the stored continuation of the
//!   game's opening (in its canonical orientation) with the best value for the mover among the
//!   patterns the player accepts (average ELO above its own − 200); the 25% rule is kept by the
//!   player ([`crate::knowledge::academy::usage::OpeningBudget`]).
//! - [`GomiSource`]: Gomi's σ (seed `001_…`) as a prior: q_m, the probability that move m has the
//!   largest winning probability under the entries of its local pattern, for the moves with the
//!   largest q_m.
//! - [`Learner`]: after a finished game (GTP `ets-learn`, sent by `ets arena`), the ACADEMY's
//!   post-mortem and insertion rules (Fuseki and Yose posts of the record; Chuban posts under the
//!   insertion criterion with the player's own evaluations) and Gomi's entries updated from the
//!   game as a sample game, both written to the store.
//!
//! Every interpretation is in `docs/semantics.md`, "Player: knowledge components".

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use crate::go::board::{Board, Color, Point};
use crate::go::fastboard::{FastBoard, FastRng, Vtx};
use crate::knowledge::academy::db::{Settings as AcademySettings, Shared};
use crate::knowledge::academy::games::{
    Post, RecordSettings, canonical_symmetry, chuban_posts, record_posts, transform_point,
};
use crate::knowledge::academy::library::{Academy, Library};
use crate::knowledge::academy::usage::Usage;
use crate::knowledge::gomi::play::{Gomi, SampleGame, Settings as GomiSettings, local_pattern};
use crate::knowledge::gomi::store::{Loaded, load as load_gomi};
use crate::knowledge::position::Position;
use crate::knowledge::predict::Model;

use super::components::{CandidateSource, OpeningBook, Proposal};
use super::state::GameState;

/// The message when a component needs a store and none is given.
pub fn needs_store(component: &str) -> String {
    format!(
        "component `{component}` needs a knowledge store: give `--store FILE` (or `store = \"FILE\"` in the \
         settings); the ranker and Forme_K read one made by `ets learn GAMES --store FILE`, the ACADEMY and \
         Gomi create their tables in it and learn from arena games"
    )
}

/// A position of the game as move prediction reads it.
fn position_of<'a>(board: &'a Board, game: &GameState, color: Color) -> Position<'a> {
    let fb = &game.board;
    let ko = fb.ko().filter(|&(c, _)| c == color).and_then(|(_, v)| fb.point(v));
    let n = game.moves.len();
    let last = [
        n.checked_sub(1).and_then(|i| fb.point(game.moves[i].1)),
        n.checked_sub(2).and_then(|i| fb.point(game.moves[i].1)),
    ];
    Position {
        board,
        mover: color,
        // Not read when ranking (the move to be found).
        played: Point { col: 0, row: 0 },
        number: n,
        ko,
        last,
    }
}

/// One move as the ranker and Forme_K see it.
#[derive(Debug, Clone, Copy)]
pub struct Ranked {
    /// The move.
    pub mv: Vtx,
    /// The ranker's probability.
    pub p: f64,
    /// Forme_K's smoothed `P(i|p)` of the deepest pattern matched.
    pub q: f64,
    /// That pattern's matches and plays (its statistics in the store).
    pub matched: u64,
    /// Plays.
    pub played: u64,
}

/// The last ranking: (board hash, moves played, colour) and the moves.
type RankCache = Option<((u64, usize, Color), Arc<Vec<Ranked>>)>;

/// The move-prediction model of the store, shared by the ranker and Forme_K, with the ranking of
/// the last position asked for.
pub struct Predictor {
    model: Model,
    cache: Mutex<RankCache>,
}

impl Predictor {
    /// Loads the model of the store at `path`.
    pub fn load(path: &Path) -> Result<Predictor, String> {
        if !path.exists() {
            return Err(format!(
                "{}: no such store (make one with `ets learn GAMES --store {}`)",
                path.display(),
                path.display()
            ));
        }
        let mut store = crate::store::Store::open(&path.to_string_lossy()).map_err(|e| e.to_string())?;
        let model = crate::knowledge::rank_store::load_model(&mut store).map_err(|e| e.to_string())?;
        Ok(Predictor {
            model,
            cache: Mutex::new(None),
        })
    }

    /// Every legal move of `color` now, ranked (most probable first).
    pub fn rank(&self, game: &GameState, color: Color) -> Arc<Vec<Ranked>> {
        let key = (game.board.hash(), game.moves.len(), color);
        if let Some((k, r)) = &*self.cache.lock().expect("cache")
            && *k == key
        {
            return r.clone();
        }
        let board = game.board.to_board();
        let pos = position_of(&board, game, color);
        let fb = &game.board;
        let out: Vec<Ranked> = self
            .model
            .rank(&pos, None)
            .into_iter()
            .map(|(p, prob, raw)| {
                let s = self.model.stats.get(raw.node as usize).copied().unwrap_or_default();
                Ranked {
                    mv: fb.vtx(p),
                    p: prob,
                    q: raw.q as f64,
                    matched: s.n_match,
                    played: s.n_played,
                }
            })
            // Rule code agrees on legality (the fast board has superko too).
            .filter(|r| fb.is_legal(color, r.mv))
            .collect();
        let out = Arc::new(out);
        *self.cache.lock().expect("cache") = Some((key, out.clone()));
        out
    }
}

/// The ranker's most probable moves as candidates (weight: probability over the largest).
pub struct RankerSource {
    /// The model.
    pub predictor: Arc<Predictor>,
    /// How many moves.
    pub top: usize,
}

impl CandidateSource for RankerSource {
    fn name(&self) -> &'static str {
        "ranker"
    }
    fn propose(&self, game: &GameState, color: Color) -> Vec<Proposal> {
        let r = self.predictor.rank(game, color);
        let max = r.first().map_or(0.0, |x| x.p);
        r.iter()
            .take(self.top)
            .filter(|x| x.p > 0.0 && max > 0.0)
            .map(|x| Proposal {
                mv: x.mv,
                weight: (x.p / max) as f32,
                reason: format!("ranker p={:.3}", x.p),
            })
            .collect()
    }
}

/// Forme_K as a preselector: the moves with the highest `P(i|p)` of their deepest pattern.
pub struct FormeKSource {
    /// The model.
    pub predictor: Arc<Predictor>,
    /// How many moves (the seed: 2).
    pub top: usize,
}

fn by_q(r: &[Ranked]) -> Vec<Ranked> {
    let mut v = r.to_vec();
    v.sort_by(|a, b| b.q.total_cmp(&a.q).then(a.mv.cmp(&b.mv)));
    v
}

impl CandidateSource for FormeKSource {
    fn name(&self) -> &'static str {
        "forme_k"
    }
    fn propose(&self, game: &GameState, color: Color) -> Vec<Proposal> {
        let v = by_q(&self.predictor.rank(game, color));
        let max = v.first().map_or(0.0, |x| x.q);
        v.iter()
            .take(self.top)
            .filter(|x| x.q > 0.0 && max > 0.0)
            .map(|x| Proposal {
                mv: x.mv,
                weight: (x.q / max) as f32,
                reason: format!("Forme_K P(i|p)={:.3} ({} of {} matches)", x.q, x.played, x.matched),
            })
            .collect()
    }
}

/// Forme_K's best pattern as an opening book, while it is confident.
pub struct FormeKBook {
    /// The model.
    pub predictor: Arc<Predictor>,
    /// The pattern must have been matched at least this often.
    pub min_matches: u64,
    /// … with `P(i|p)` at least this …
    pub min_p: f64,
    /// … and at least this many times the next best move's.
    pub margin: f64,
}

impl OpeningBook for FormeKBook {
    fn name(&self) -> &'static str {
        "forme_k_book"
    }
    fn lookup(&self, game: &GameState, color: Color) -> Option<Proposal> {
        let v = by_q(&self.predictor.rank(game, color));
        let best = v.first()?;
        let second = v.get(1).map_or(0.0, |x| x.q);
        (best.matched >= self.min_matches && best.q >= self.min_p && best.q >= self.margin * second).then(|| Proposal {
            mv: best.mv,
            weight: best.q as f32,
            reason: format!(
                "Forme_K book: P(i|p)={:.3} over {} matches (next {:.3})",
                best.q, best.matched, second
            ),
        })
    }
}

fn sgf_coord(p: Point) -> String {
    let c = |v: u8| (if v < 26 { b'a' + v } else { b'A' + v - 26 }) as char;
    format!("{}{}", c(p.col), c(p.row))
}

/// The game's moves as the Fuseki library keys them: the root (board size), the move keys in the
/// canonical orientation, and that orientation (a symmetry of the square board).
pub fn fuseki_keys(game: &GameState) -> (String, Vec<String>, u8) {
    let b = &game.board;
    let (cols, rows) = (b.cols() as u8, b.rows() as u8);
    let pts: Vec<Option<Point>> = game.moves.iter().map(|&(_, v)| b.point(v)).collect();
    let s = if cols == rows {
        canonical_symmetry(&pts, cols)
    } else {
        0
    };
    let keys = game
        .moves
        .iter()
        .zip(&pts)
        .map(|(&(c, _), p)| {
            let c = if c == Color::Black { "B" } else { "W" };
            match p {
                Some(p) => format!(
                    "{c} {}",
                    sgf_coord(if cols == rows { transform_point(*p, s, cols) } else { *p })
                ),
                None => format!("{c} pass"),
            }
        })
        .collect();
    (format!("{cols}x{rows}"), keys, s)
}

/// The ACADEMY's Fuseki library as an opening book (the 25% rule is the player's).
pub struct FusekiBook {
    academy: Academy,
    /// The player's ELO (it accepts patterns of average ELO above this − 200).
    pub elo: f64,
    /// The usage rules.
    pub usage: Usage,
    /// A continuation must have been reached by at least this many players.
    pub min_players: u32,
}

impl FusekiBook {
    /// Reads the ACADEMY of the store at `path` (created if absent).
    pub fn open(path: &Path, elo: f64, min_players: u32) -> Result<FusekiBook, String> {
        let mut shared =
            Shared::open(&path.to_string_lossy(), AcademySettings::default()).map_err(|e| e.to_string())?;
        let academy = shared.reload().map_err(|e| e.to_string())?;
        Ok(FusekiBook {
            academy,
            elo,
            usage: Usage::default(),
            min_players,
        })
    }

    /// The stored continuations of the game now: (move, value for the mover, players, accepted).
    pub fn continuations(&self, game: &GameState, color: Color) -> Vec<(Vtx, f64, u32, bool)> {
        if game.setup.empty_count() < game.setup.cols() * game.setup.rows() {
            return Vec::new();
        }
        let (root, keys, s) = fuseki_keys(game);
        let Some(node) = self.academy.find_opening(&root, &keys) else {
            return Vec::new();
        };
        let b = &game.board;
        let letter = if color == Color::Black { "B " } else { "W " };
        let mut out = Vec::new();
        for child in self.academy.children(node.id) {
            let Some(key) = child.mv.strip_prefix(letter) else {
                continue;
            };
            // The canonical move back on the board: the point the orientation maps onto it.
            let Some(v) = b.points().find(|&v| {
                b.point(v)
                    .is_some_and(|p| sgf_coord(transform_point(p, s, b.cols() as u8)) == key)
            }) else {
                continue;
            };
            let value = if color == Color::Black {
                child.sig.v
            } else {
                1.0 - child.sig.v
            };
            out.push((v, value, child.sig.n, self.usage.accepts(self.elo, &child.sig)));
        }
        out
    }

    /// The library's size: Fuseki nodes, Chuban and Yose patterns.
    pub fn sizes(&self) -> (usize, usize, usize) {
        (
            self.academy.nodes.len(),
            self.academy.library(Library::Chuban).count(),
            self.academy.library(Library::Yose).count(),
        )
    }
}

impl OpeningBook for FusekiBook {
    fn name(&self) -> &'static str {
        "academy"
    }
    fn lookup(&self, game: &GameState, color: Color) -> Option<Proposal> {
        self.continuations(game, color)
            .into_iter()
            .filter(|&(v, value, n, ok)| ok && n >= self.min_players && value > 0.5 && game.board.is_legal(color, v))
            .max_by(|a, b| a.1.total_cmp(&b.1).then(a.2.cmp(&b.2)).then(b.0.cmp(&a.0)))
            .map(|(v, value, n, _)| Proposal {
                mv: v,
                weight: value as f32,
                reason: format!("ACADEMY Fuseki: value {value:.2} for the mover over {n} player(s)"),
            })
    }
}

/// Gomi's entries, shared by the prior and the learner.
pub struct GomiBase {
    loaded: Mutex<Loaded>,
}

impl GomiBase {
    /// Loads Gomi's entries from the store at `path` (tables created if absent).
    pub fn open(path: &Path, komi: f32) -> Result<GomiBase, String> {
        let settings = GomiSettings {
            komi,
            ..GomiSettings::default()
        };
        let mut loaded = load_gomi(&path.to_string_lossy(), Gomi::new(settings)).map_err(|e| e.to_string())?;
        loaded.gomi.refresh_bounds();
        Ok(GomiBase {
            loaded: Mutex::new(loaded),
        })
    }

    /// Entries (χ, φ) held.
    pub fn entries(&self) -> usize {
        self.loaded.lock().expect("gomi").gomi.entries.len()
    }
}

/// Gomi's σ as a prior: the moves with the largest q_m.
pub struct GomiSource {
    /// The entries.
    pub base: Arc<GomiBase>,
    /// How many moves.
    pub top: usize,
}

impl CandidateSource for GomiSource {
    fn name(&self) -> &'static str {
        "gomi"
    }
    fn propose(&self, game: &GameState, color: Color) -> Vec<Proposal> {
        let mut q = self
            .base
            .loaded
            .lock()
            .expect("gomi")
            .gomi
            .move_probabilities(&game.board, color);
        q.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        let max = q.first().map_or(0.0, |x| x.1);
        // With no entries every q_m is the same: σ says nothing.
        let min = q.last().map_or(0.0, |x| x.1);
        if max <= 0.0 || max - min < 1e-6 {
            return Vec::new();
        }
        q.into_iter()
            .take(self.top)
            .map(|(v, p)| Proposal {
                mv: v,
                weight: (p / max) as f32,
                reason: format!("Gomi sigma q_m={p:.3}"),
            })
            .collect()
    }
}

/// What a player learns from a finished game.
pub struct Learner {
    /// The store.
    pub store: std::path::PathBuf,
    /// Gomi's entries (when Gomi is on).
    pub gomi: Option<Arc<GomiBase>>,
    /// Whether the ACADEMY is fed.
    pub academy: bool,
    /// The player's ELO.
    pub elo: f64,
}

/// The first player's result of an SGF `RE` value.
fn black_score(re: &str) -> Option<f32> {
    let t = re.trim();
    let u = t.to_ascii_uppercase();
    if u == "0" || u.starts_with("DRAW") || u.starts_with("JIGO") {
        return Some(0.0);
    }
    if u.starts_with("B+") {
        Some(1.0)
    } else if u.starts_with("W+") {
        Some(-1.0)
    } else {
        None
    }
}

impl Learner {
    /// The game as an SGF record (with its result).
    pub fn record(game: &GameState, result: &str, black: &str, white: &str) -> String {
        let b = &game.board;
        let mut s = format!(
            "(;GM[1]FF[4]SZ[{}]KM[{}]PB[{}]PW[{}]RE[{}]",
            b.cols(),
            game.komi,
            black.replace(']', "\\]"),
            white.replace(']', "\\]"),
            result.replace(']', "\\]")
        );
        let setup: Vec<(Color, Point)> = game
            .setup
            .points()
            .filter_map(|v| {
                game.setup
                    .color_at(v)
                    .map(|c| (c, game.setup.point(v).expect("on board")))
            })
            .collect();
        for (c, tag) in [(Color::Black, "AB"), (Color::White, "AW")] {
            let pts: Vec<String> = setup
                .iter()
                .filter(|x| x.0 == c)
                .map(|x| format!("[{}]", sgf_coord(x.1)))
                .collect();
            if !pts.is_empty() {
                s.push_str(tag);
                s.push_str(&pts.concat());
            }
        }
        for &(c, v) in &game.moves {
            let p = b.point(v).map(sgf_coord).unwrap_or_default();
            s.push_str(&format!(";{}[{p}]", c.letter()));
        }
        s.push(')');
        s
    }

    /// Learns from the finished `game`, which ended with SGF result `result`; `me` is the colour
    /// the player played, `values[k]` its expected value after k moves, `elements` the class
    /// elements of the final position (Gomi's class patterns). Returns a line saying what changed.
    pub fn learn(
        &self,
        game: &GameState,
        result: &str,
        me: Color,
        values: &[f64],
        elements: &[(String, Vec<Point>)],
        seed: u64,
    ) -> Result<String, String> {
        let mut said = Vec::new();
        let Some(score) = black_score(result) else {
            return Ok(format!("nothing learned: the result `{result}` names no winner"));
        };
        if self.academy {
            let (bn, wn) = if me == Color::Black {
                ("ets", "opponent")
            } else {
                ("opponent", "ets")
            };
            let text = Self::record(game, result, bn, wn);
            let sgf = crate::go::sgf::Sgf::parse(&text).map_err(|e| format!("the game's record: {e}"))?;
            let replay =
                crate::go::game::Replay::from_sgf(&sgf, 0, &[]).map_err(|e| format!("the game's record: {e}"))?;
            let mut shared =
                Shared::open(&self.store.to_string_lossy(), AcademySettings::default()).map_err(|e| e.to_string())?;
            let academy = shared.reload().map_err(|e| e.to_string())?;
            let rs = RecordSettings {
                default_elo: self.elo,
                ..RecordSettings::default()
            };
            let mut posts = record_posts(&academy, &replay, &rs);
            // The opponent's posts: the arena does not rate its opponents; they are taken to be
            // of the player's ELO (docs/semantics.md).
            let usage = Usage::default();
            let chuban = chuban_posts(&replay, values, me, &usage, &rs);
            let n_chuban = chuban.len();
            posts.extend(chuban);
            let n = posts.len();
            let fates = shared.post(&posts).map_err(|e| e.to_string())?;
            let mut kinds: HashMap<&str, usize> = HashMap::new();
            for f in fates.iter().flatten() {
                *kinds.entry(f.name()).or_default() += 1;
            }
            let a = shared.academy();
            let mut kinds: Vec<String> = kinds.into_iter().map(|(k, v)| format!("{v} {k}")).collect();
            kinds.sort();
            said.push(format!(
                "academy: {n} post(s) ({} Yose, {n_chuban} Chuban: {}); library now {} Fuseki nodes, {} Chuban, {} Yose",
                n - 1 - n_chuban,
                if kinds.is_empty() { "none".into() } else { kinds.join(", ") },
                a.nodes.len(),
                a.library(Library::Chuban).count(),
                a.library(Library::Yose).count()
            ));
            debug_assert!(posts.iter().any(|p| matches!(p, Post::Opening { .. })));
        }
        if let Some(base) = &self.gomi {
            let mut loaded = base.loaded.lock().expect("gomi");
            // The game as a sample game: each move's local pattern in the position before it;
            // the final position played out (dead stones taken off) for ownership; the real
            // result decides who won.
            let mut board = FastBoard::with_rules(game.setup.cols(), game.setup.rows(), game.setup.rules())
                .map_err(|e| e.to_string())?;
            board.copy_from(&game.setup);
            let mut moves = Vec::with_capacity(game.moves.len());
            for &(c, v) in &game.moves {
                let chi = (!v.is_pass()).then(|| local_pattern(&board, c, v));
                if board.play(c, v).is_err() {
                    break;
                }
                moves.push((c, v, chi));
            }
            let mut last = board.clone();
            last.reset_passes();
            let mut rng = FastRng::new(seed);
            last.playout(game.to_move(), &mut rng, 3 * last.cols() * last.rows(), None);
            let before = loaded.gomi.entries.len();
            let g = SampleGame {
                moves,
                last,
                score: score * (1.0 + game.komi.abs()),
            };
            loaded.gomi.learn(&g, elements);
            loaded.gomi.refresh_bounds();
            let changed = loaded.save(&self.store.to_string_lossy()).map_err(|e| e.to_string())?;
            said.push(format!(
                "gomi: {changed} entries updated, {} new; {} held",
                loaded.gomi.entries.len() - before,
                loaded.gomi.entries.len()
            ));
        }
        if said.is_empty() {
            said.push("nothing to learn (the ACADEMY and Gomi are off)".into());
        }
        Ok(said.join("; "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::fastboard::Rules;

    fn game(moves: &[&str]) -> GameState {
        let mut g = GameState::new(9, 7.0, Rules::default()).unwrap();
        let mut c = Color::Black;
        for m in moves {
            let v = g.board.from_gtp(m).unwrap();
            g.play(c, v).unwrap();
            c = c.other();
        }
        g
    }

    #[test]
    fn the_same_opening_in_another_corner_has_the_same_keys() {
        let (r1, k1, _) = fuseki_keys(&game(&["C7", "G3", "C3"]));
        let (r2, k2, _) = fuseki_keys(&game(&["G3", "C7", "G7"]));
        assert_eq!(r1, r2);
        assert_eq!(r1, "9x9");
        assert_eq!(k1, k2);
    }

    #[test]
    fn a_fuseki_line_learned_is_played_back_in_any_orientation() {
        let dir = std::env::temp_dir().join(format!("ets-fuseki-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let store = dir.join("k.sqlite");
        let _ = std::fs::remove_file(&store);
        // Black wins a game of 12 moves opened E5 C3 G7 C7: the library learns the line (its
        // depth: a third of the average game length, 4 moves).
        let g = game(&["E5", "C3", "G7", "C7", "G3", "C5", "D4", "D6", "F4", "F6", "B2", "H8"]);
        let l = Learner {
            store: store.clone(),
            gomi: None,
            academy: true,
            elo: 2000.0,
        };
        let said = l.learn(&g, "B+R", Color::Black, &[0.5; 13], &[], 1).unwrap();
        assert!(said.contains("academy: "), "{said}");
        let book = FusekiBook::open(&store, 2000.0, 1).unwrap();
        assert!(book.sizes().0 >= 2, "{:?}", book.sizes());
        // After E5 C3 the library's continuation for black is G7.
        let pos = game(&["E5", "C3"]);
        let p = book.lookup(&pos, Color::Black).expect("a book move");
        assert_eq!(pos.board.gtp(p.mv), "G7");
        // The same opening in a mirrored orientation (C3 → G3): the continuation is mirrored too.
        let mirrored = game(&["E5", "G3"]);
        let p = book.lookup(&mirrored, Color::Black).expect("a book move");
        assert_eq!(mirrored.board.gtp(p.mv), "C7");
        // White lost that line: the library has nothing good for white after E5.
        assert!(book.lookup(&game(&["E5"]), Color::White).is_none());
        // A player 300 ELO stronger does not accept the line.
        let strong = FusekiBook::open(&store, 2300.0, 1).unwrap();
        assert!(strong.lookup(&pos, Color::Black).is_none());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn gomi_learns_from_a_game_and_proposes_from_what_it_learned() {
        let dir = std::env::temp_dir().join(format!("ets-gomi-learn-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let store = dir.join("k.sqlite");
        let _ = std::fs::remove_file(&store);
        let base = Arc::new(GomiBase::open(&store, 7.0).unwrap());
        let src = GomiSource {
            base: base.clone(),
            top: 5,
        };
        let empty = game(&[]);
        assert!(
            src.propose(&empty, Color::Black).is_empty(),
            "no entries: sigma is uniform"
        );
        let l = Learner {
            store: store.clone(),
            gomi: Some(base.clone()),
            academy: false,
            elo: 2000.0,
        };
        let g = game(&["E5", "C3", "G7", "C7", "G3", "C5", "D4", "D6"]);
        let said = l.learn(&g, "W+3", Color::White, &[0.5; 9], &[], 7).unwrap();
        assert!(said.contains("gomi: "), "{said}");
        assert!(base.entries() > 0);
        // The store holds them: a fresh load sees the same entries.
        let again = GomiBase::open(&store, 7.0).unwrap();
        assert_eq!(again.entries(), base.entries());
        assert!(!src.propose(&empty, Color::Black).is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
