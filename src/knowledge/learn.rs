//! The two passes of Forme_K over a game (Bouzy & Chaslot 2005, §3.2 `creerPatterns`, §4.2
//! `calculerProbabilites`): creation at the played moves, and counting at every tested point.
//!
//! Counting caches, per player to move, the deepest pattern found at each point together with
//! how far the walk read; a point is walked again only when the board changed within that
//! distance since that player last moved. The counts are those of walking every tested point
//! afresh (a test checks it on real games).

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Instant;

use rustc_hash::{FxHashMap, FxHashSet};

use super::corpus::{Broken, Streamed, stream_batched};
use super::forme_k::{Fact, Grid, Prune, Tree, Walk};
use super::order::{Order, distance};
use super::pattern_store::{self as ps, GameRow, Phase, Settings};
use super::position::{Analysis, Position, positions};
use crate::go::board::{Board, Cell, Color};
use crate::go::game::Replay;
use crate::store::{Store, StoreError};

/// The facts of every played move of a game (at most `kmax` each), in move order: the patterns
/// pass 1 creates.
pub fn create_game(replay: &Replay, kmax: usize) -> Vec<Vec<Fact>> {
    positions(replay)
        .iter()
        .map(|p| {
            let g = Grid::new(p.board, p.mover);
            Walk::new(&g, p.played.col as i32, p.played.row as i32)
                .take(kmax)
                .collect()
        })
        .collect()
}

/// What counting one game found.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GameCount {
    /// Positions (moves played on the board).
    pub positions: u64,
    /// Tested points (legal moves of those positions).
    pub tests: u64,
}

/// Counts one game (pass 2): for every tested point, `ends[d] += 1` where `d` is the deepest
/// pattern of `tree` matching there (at most `kmax` facts); for every played move,
/// `played_ends[d] += 1`. [`Tree::accumulate`] turns them into `n_match` and `n_played`.
pub fn count_game(tree: &Tree, replay: &Replay, kmax: usize, ends: &mut [u32], played_ends: &mut [u32]) -> GameCount {
    count_game_by(Counter::default(), tree, replay, kmax, ends, played_ends)
}

/// [`count_game`] with a given counter ([`Counter::hashed`]: the route before the frozen tree, a
/// peer for tests and benchmarks).
pub fn count_game_by(
    mut c: Counter,
    tree: &Tree,
    replay: &Replay,
    kmax: usize,
    ends: &mut [u32],
    played_ends: &mut [u32],
) -> GameCount {
    let mut out = GameCount::default();
    for pos in positions(replay) {
        let legal = Analysis::new(pos.board).legal_points(&pos);
        out.positions += 1;
        out.tests += legal.len() as u64;
        let nodes = c.deepest(tree, &pos, &legal, kmax);
        for (p, &d) in legal.iter().zip(&nodes) {
            ends[d as usize] += 1;
            if *p == pos.played {
                played_ends[d as usize] += 1;
            }
        }
    }
    out
}

/// Counts one game walking every tested point afresh (the plain route, kept for tests).
pub fn count_game_fresh(
    tree: &Tree,
    replay: &Replay,
    kmax: usize,
    ends: &mut [u32],
    played_ends: &mut [u32],
) -> GameCount {
    let mut out = GameCount::default();
    for pos in positions(replay) {
        let legal = Analysis::new(pos.board).legal_points(&pos);
        out.positions += 1;
        out.tests += legal.len() as u64;
        let g = Grid::new(pos.board, pos.mover);
        for p in legal {
            let d = tree.deepest(&mut Walk::new(&g, p.col as i32, p.row as i32), kmax);
            ends[d as usize] += 1;
            if p == pos.played {
                played_ends[d as usize] += 1;
            }
        }
    }
    out
}

/// A player's last board, and per point (deepest node, distance read).
type Seen = (Vec<u8>, Vec<(u32, u32)>);

/// The per-player cache of deepest patterns (see the module documentation).
#[derive(Default)]
pub struct Counter {
    /// Per player: the board when they last moved, and per point (deepest node, distance read).
    seen: [Option<Seen>; 2],
    /// Match through the tree's hash map ([`Tree::deepest_hashed`]).
    hashed: bool,
}

const INVALID: u32 = u32::MAX;

impl Counter {
    /// A counter matching through the tree's hash map of children, reading a fact past a leaf:
    /// the route before [`super::forme_k::Frozen`] (tests and benchmarks compare the two).
    pub fn hashed() -> Counter {
        Counter {
            hashed: true,
            ..Counter::default()
        }
    }

    /// The deepest pattern at each of `points` (of the position's board), reusing what is still
    /// valid since the same player last moved.
    pub fn deepest(
        &mut self,
        tree: &Tree,
        pos: &Position<'_>,
        points: &[crate::go::board::Point],
        kmax: usize,
    ) -> Vec<u32> {
        let b = pos.board;
        let cols = b.cols() as usize;
        let side = match pos.mover {
            Color::Black => 0,
            Color::White => 1,
        };
        let cur = cells(b);
        let entry = self.seen[side].get_or_insert_with(|| (vec![255; cur.len()], vec![(INVALID, 0); cur.len()]));
        if entry.0.len() != cur.len() {
            *entry = (vec![255; cur.len()], vec![(INVALID, 0); cur.len()]);
        }
        let changed: Vec<(i32, i32)> = (0..cur.len())
            .filter(|&i| cur[i] != entry.0[i])
            .map(|i| ((i % cols) as i32, (i / cols) as i32))
            .collect();
        if !changed.is_empty() {
            for (i, e) in entry.1.iter_mut().enumerate() {
                if e.0 == INVALID {
                    continue;
                }
                let (x, y) = ((i % cols) as i32, (i / cols) as i32);
                if changed.iter().any(|&(cx, cy)| distance(cx - x, cy - y) <= e.1) {
                    e.0 = INVALID;
                }
            }
        }
        entry.0 = cur;
        let order = Order::get();
        let mut grid: Option<Grid> = None;
        points
            .iter()
            .map(|p| {
                let i = p.row as usize * cols + p.col as usize;
                let e = &mut entry.1[i];
                if e.0 == INVALID {
                    let g = grid.get_or_insert_with(|| Grid::new(b, pos.mover));
                    let mut w = Walk::new(g, p.col as i32, p.row as i32);
                    let d = if self.hashed {
                        tree.deepest_hashed(&mut w, kmax)
                    } else {
                        tree.deepest(&mut w, kmax)
                    };
                    *e = (d, order.dist(w.reach()));
                }
                e.0
            })
            .collect()
    }
}

fn cells(b: &Board) -> Vec<u8> {
    b.points()
        .map(|p| match b.get(p) {
            Cell::Empty => 0,
            Cell::Stone(Color::Black) => 1,
            Cell::Stone(Color::White) => 2,
        })
        .collect()
}

/// Options of a learning run.
#[derive(Debug, Clone)]
pub struct Options {
    /// Largest number of important facts (Kmax).
    pub kmax: usize,
    /// Drop patterns created fewer times than this before counting.
    pub min_played: u64,
    /// The pruning rules of §4.3, recorded with the store and applied when reading.
    pub prune: Prune,
    /// Learn from the first N games only.
    pub games: Option<usize>,
    /// Count shard `i` of `n` (1-based): the games whose key is `i − 1` modulo `n`.
    pub shard: (u64, u64),
    /// Commit counts at least this often (seconds; 0: after every batch of files). A commit of
    /// a big tree's counts takes seconds (about 6 µs per pattern updated) while the workers wait,
    /// so the interval also grows to ten times the last commit's duration: commits stay under a
    /// tenth of the run.
    pub commit_secs: f64,
    /// Files are read in batches of at least this many bytes.
    pub batch_bytes: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            kmax: 15,
            min_played: 2,
            prune: Prune::default(),
            games: None,
            shard: (1, 1),
            commit_secs: 30.0,
            batch_bytes: 4 << 20,
        }
    }
}

/// Progress of a learning run.
#[derive(Debug, Clone)]
pub enum Event {
    /// Pass 1 read this many more games.
    Created(u64),
    /// Pass 1 done; pass 2 will count this many games.
    Counting(u64),
    /// Pass 2 counted this many more games.
    Counted(u64),
    /// Counts committed to the store.
    Committed,
    /// A record that could not be read (skipped).
    Broken(Broken),
}

/// What a learning run did.
#[derive(Debug, Clone, Default)]
pub struct Report {
    /// Games in the creation list.
    pub games: u64,
    /// Games met twice (the same content; learned once).
    pub duplicates: u64,
    /// Records skipped because they could not be read.
    pub broken: u64,
    /// Patterns created by pass 1.
    pub created: u64,
    /// Patterns kept for counting (played at least `min_played` times).
    pub patterns: u64,
    /// Games counted before this run (a resumed run).
    pub counted_before: u64,
    /// Games counted by this run.
    pub counted: u64,
    /// Positions and tested points counted by this run.
    pub positions: u64,
    /// Tested points counted by this run.
    pub tests: u64,
    /// Seconds in pass 1 and pass 2.
    pub secs: (f64, f64),
    /// Every game of the list is now counted in this store.
    pub complete: bool,
}

/// Pass 1 over a corpus: the pruned pattern tree and the creation list, in corpus order.
pub fn create_corpus(
    files: &[PathBuf],
    opts: &Options,
    on: &mut dyn FnMut(Event),
    report: &mut Report,
) -> (Tree, Vec<GameRow>) {
    let mut tree = Tree::new();
    let mut created: Vec<u32> = vec![0];
    let mut games: Vec<GameRow> = Vec::new();
    let mut seen: FxHashSet<u64> = FxHashSet::default();
    let limit = opts.games.unwrap_or(usize::MAX);
    let kmax = opts.kmax;
    stream_batched(
        files,
        opts.batch_bytes,
        usize::MAX,
        |g| Some(create_game(&g.replay, kmax)),
        |batch| {
            let mut n = 0;
            for item in batch {
                match item {
                    Streamed::Broken(b) => {
                        report.broken += 1;
                        on(Event::Broken(b));
                    }
                    Streamed::Game {
                        file,
                        index,
                        key,
                        moves,
                        result,
                    } => {
                        if games.len() >= limit {
                            break;
                        }
                        if !seen.insert(key) {
                            report.duplicates += 1;
                            continue;
                        }
                        for facts in result.unwrap_or_default() {
                            for id in tree.create(&facts) {
                                if id as usize >= created.len() {
                                    created.resize(id as usize + 1, 0);
                                }
                                created[id as usize] += 1;
                            }
                        }
                        games.push(GameRow {
                            key,
                            file: files[file].display().to_string(),
                            index,
                            moves,
                        });
                        n += 1;
                    }
                }
            }
            on(Event::Created(n));
            games.len() < limit
        },
    );
    report.created = tree.len() as u64 - 1;
    let min = opts.min_played;
    tree.retain(|id| created[id as usize] as u64 >= min);
    report.patterns = tree.len() as u64 - 1;
    report.games = games.len() as u64;
    (tree, games)
}

/// Learns Forme_K from a corpus into a store: pass 1 over every game (creation, then the
/// patterns created fewer than `min_played` times dropped), then pass 2 (counting) over the
/// games of the shard not yet counted in the store, committing every `commit_secs`. A store that
/// already holds the same patterns (the same games and settings) is resumed.
pub fn learn(
    store: &mut Store,
    files: &[PathBuf],
    opts: &Options,
    on: &mut dyn FnMut(Event),
) -> Result<Report, StoreError> {
    ps::init(store)?;
    let mut report = Report::default();
    let t0 = Instant::now();
    let (tree, games) = create_corpus(files, opts, on, &mut report);
    report.secs.0 = t0.elapsed().as_secs_f64();
    let settings = Settings {
        kmax: opts.kmax,
        min_played: opts.min_played,
        prune: Prune {
            min_played: 1,
            ..opts.prune
        },
    };
    match ps::settings(store)? {
        None => ps::create(store, &tree, &settings, &games)?,
        Some(s) => {
            let fp = format!("{:016x}", ps::fingerprint(&tree));
            if s != settings || ps::setting(store, "fingerprint")?.as_deref() != Some(fp.as_str()) {
                return Err(StoreError::Content(format!(
                    "{} holds patterns learned from other games or with other settings \
                     (Kmax {}, min-played {}); learn into a new store",
                    store.location(),
                    s.kmax,
                    s.min_played
                )));
            }
        }
    }
    // Pass 2.
    let t1 = Instant::now();
    let done = ps::counted_games(store)?;
    report.counted_before = done.len() as u64;
    let (i, n) = opts.shard;
    let eligible: FxHashMap<u64, (String, usize)> = games
        .iter()
        .filter(|g| g.key % n == i - 1 && !done.contains(&g.key))
        .map(|g| (g.key, (g.file.clone(), g.index)))
        .collect();
    on(Event::Counting(eligible.len() as u64));
    // The frozen tree every walk matches through, built once before the workers start.
    tree.frozen();
    let len = tree.len();
    let pool: Mutex<Vec<(Vec<u32>, Vec<u32>)>> = Mutex::new(Vec::new());
    let mut pending: Vec<(u64, u64, u64)> = Vec::new();
    let mut last = Instant::now();
    // How long the last commit took (see `Options::commit_secs`).
    let mut commit_took = 0.0f64;
    let mut failure: Option<StoreError> = None;
    let kmax = opts.kmax;
    let commit = |pending: &mut Vec<(u64, u64, u64)>, store: &mut Store| -> Result<(), StoreError> {
        let mut pool = pool.lock().expect("no panics while counting");
        let mut ends = vec![0u64; len];
        let mut played = vec![0u64; len];
        for (e, p) in pool.iter_mut() {
            for (a, b) in ends.iter_mut().zip(e.iter_mut()) {
                *a += *b as u64;
                *b = 0;
            }
            for (a, b) in played.iter_mut().zip(p.iter_mut()) {
                *a += *b as u64;
                *b = 0;
            }
        }
        tree.accumulate(&mut ends);
        tree.accumulate(&mut played);
        let deltas: Vec<(u32, u64, u64)> = (0..len)
            .filter(|&k| ends[k] > 0)
            .map(|k| (k as u32, played[k], ends[k]))
            .collect();
        ps::add_counts(store, &deltas, pending)?;
        pending.clear();
        Ok(())
    };
    stream_batched(
        files,
        opts.batch_bytes,
        usize::MAX,
        |g| {
            let (f, ix) = eligible.get(&g.key)?;
            if *ix != g.index || *f != g.file.display().to_string() {
                return None;
            }
            let mut acc = pool
                .lock()
                .expect("no panics while counting")
                .pop()
                .unwrap_or_else(|| (vec![0; len], vec![0; len]));
            let c = count_game(&tree, &g.replay, kmax, &mut acc.0, &mut acc.1);
            pool.lock().expect("no panics while counting").push(acc);
            Some((g.key, c))
        },
        |batch| {
            let mut n = 0;
            for item in batch {
                if let Streamed::Game {
                    result: Some((key, c)), ..
                } = item
                {
                    pending.push((key, c.positions, c.tests));
                    report.positions += c.positions;
                    report.tests += c.tests;
                    report.counted += 1;
                    n += 1;
                }
            }
            on(Event::Counted(n));
            let every = if opts.commit_secs <= 0.0 {
                0.0
            } else {
                opts.commit_secs.max(10.0 * commit_took)
            };
            if last.elapsed().as_secs_f64() >= every && !pending.is_empty() {
                let t = Instant::now();
                if let Err(e) = commit(&mut pending, store) {
                    failure = Some(e);
                    return false;
                }
                commit_took = t.elapsed().as_secs_f64();
                on(Event::Committed);
                last = Instant::now();
            }
            report.counted < eligible.len() as u64
        },
    );
    if let Some(e) = failure {
        return Err(e);
    }
    if !pending.is_empty() {
        commit(&mut pending, store)?;
        on(Event::Committed);
    }
    report.secs.1 = t1.elapsed().as_secs_f64();
    let (all, counted) = ps::game_counts(store)?;
    report.complete = all == counted;
    if report.complete {
        ps::set_phase(store, Phase::Counted)?;
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::sgf::Sgf;
    use crate::knowledge::forme_k::Kind;

    fn replay(s: &str) -> Replay {
        Replay::from_sgf(&Sgf::parse(s).unwrap(), 0, &[]).unwrap()
    }

    fn f(pos: u16) -> Fact {
        Fact { pos, kind: Kind::Edge }
    }

    #[test]
    fn counts_on_a_tiny_board_are_as_hand_computed() {
        // 3x3: Black plays the centre, White a corner. Kmax = 2.
        let r = replay("(;SZ[3];B[bb];W[aa])");
        let created = create_game(&r, 2);
        // The centre of an empty 3x3 board: its four edges, all at distance 4 (order positions
        // 8..11); the corner: its two near edges, put last among the neighbours (positions 2, 3).
        assert_eq!(created, vec![vec![f(8), f(9)], vec![f(2), f(3)]]);
        let mut t = Tree::new();
        for c in &created {
            t.create(c);
        }
        let (c1, c2) = (t.find(&[f(8)]).unwrap(), t.find(&[f(8), f(9)]).unwrap());
        let (a1, a2) = (t.find(&[f(2)]).unwrap(), t.find(&[f(2), f(3)]).unwrap());
        let mut e32 = vec![0; t.len()];
        let mut p32 = vec![0; t.len()];
        let gc = count_game(&t, &r, 2, &mut e32, &mut p32);
        assert_eq!(
            gc,
            GameCount {
                positions: 2,
                tests: 17
            }
        );
        let mut ends: Vec<u64> = e32.iter().map(|&x| x as u64).collect();
        let mut played: Vec<u64> = p32.iter().map(|&x| x as u64).collect();
        t.accumulate(&mut ends);
        t.accumulate(&mut played);
        // Position 1: the centre matches C1, C2; the four corners A1, A2; the edge points
        // nothing (one near edge). Position 2 (White): the four free corners match A1, A2; the
        // edge points see the black centre beside them and match nothing.
        assert_eq!((ends[c1 as usize], played[c1 as usize]), (1, 1));
        assert_eq!((ends[c2 as usize], played[c2 as usize]), (1, 1));
        assert_eq!((ends[a1 as usize], played[a1 as usize]), (8, 1));
        assert_eq!((ends[a2 as usize], played[a2 as usize]), (8, 1));
        assert_eq!((ends[0], played[0]), (17, 2));
    }

    #[test]
    fn the_cache_counts_as_walking_afresh() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/games/tom-9d");
        let files = crate::knowledge::corpus::sgf_files(&[dir]);
        let games: Vec<Replay> = files
            .iter()
            .take(3)
            .flat_map(|f| crate::knowledge::corpus::read_file(f).0)
            .map(|g| g.replay)
            .collect();
        assert!(!games.is_empty());
        let mut t = Tree::new();
        for g in &games {
            for c in create_game(g, 12) {
                t.create(&c);
            }
        }
        let mut a = (vec![0; t.len()], vec![0; t.len()]);
        let mut b = (vec![0; t.len()], vec![0; t.len()]);
        for g in &games {
            let x = count_game(&t, g, 12, &mut a.0, &mut a.1);
            let y = count_game_fresh(&t, g, 12, &mut b.0, &mut b.1);
            assert_eq!(x, y);
        }
        assert_eq!(a, b);
        assert!(a.0.iter().filter(|&&x| x > 0).count() > 100);
    }
}
