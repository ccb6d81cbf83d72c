//! Reading game collections for learning and evaluation: every game of every SGF file below the
//! directories given (single records and collection files alike), each named by its file, its
//! index in the file, and a key computed from its content, so that a store can tell which games it
//! has learned from. Broken records are reported and skipped; nothing stops the rest.

use std::path::{Path, PathBuf};

/// A game of a piece: its file, index, key, moves and what the work made of it — or the breakage.
type Slot<R> = Result<(usize, usize, u64, usize, Option<R>), Broken>;

use crate::go::game::Replay;
use crate::go::sgf::{Sgf, line_col};

/// One game of a corpus, replayed.
#[derive(Debug, Clone)]
pub struct Game {
    /// The file.
    pub file: PathBuf,
    /// 0-based index of the game in its file.
    pub index: usize,
    /// A 64-bit key of the game's content (board size, setup and moves): equal games have equal
    /// keys wherever they are stored.
    pub key: u64,
    /// The replayed main line.
    pub replay: Replay,
}

/// A record that could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Broken {
    /// The file.
    pub file: PathBuf,
    /// The game in the file (0-based), when the file could be split into games.
    pub index: Option<usize>,
    /// Line and column in the file, when known.
    pub at: Option<(usize, usize)>,
    /// What went wrong.
    pub message: String,
}

impl std::fmt::Display for Broken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.file.display())?;
        if let Some((l, c)) = self.at {
            write!(f, ":{l}:{c}")?;
        }
        if let Some(i) = self.index {
            write!(f, " (game {})", i + 1)?;
        }
        write!(f, ": {}", self.message)
    }
}

/// Every `.sgf` file named or below a directory named, sorted, each once.
pub fn sgf_files(paths: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_file() {
            out.push(p.clone());
            continue;
        }
        let mut stack = vec![p.clone()];
        while let Some(d) = stack.pop() {
            let Ok(rd) = std::fs::read_dir(&d) else { continue };
            for e in rd.flatten() {
                let q = e.path();
                if q.is_dir() {
                    stack.push(q);
                } else if q.extension().is_some_and(|x| x.eq_ignore_ascii_case("sgf")) {
                    out.push(q);
                }
            }
        }
    }
    out.sort();
    out.dedup();
    out
}

/// FNV-1a, 64 bits: a stable hash (the same on every machine and Rust version).
pub fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The content key of a replayed game.
pub fn game_key(r: &Replay) -> u64 {
    let mut b: Vec<u8> = vec![r.info.size.0, r.info.size.1];
    if let Some(first) = r.positions.first() {
        for p in first.points() {
            b.push(match first.get(p) {
                crate::go::board::Cell::Empty => 0,
                crate::go::board::Cell::Stone(crate::go::board::Color::Black) => 1,
                crate::go::board::Cell::Stone(crate::go::board::Color::White) => 2,
            });
        }
    }
    for m in &r.moves {
        b.push(m.color as u8);
        match m.point {
            Some(p) => b.extend([p.col, p.row]),
            None => b.extend([255, 255]),
        }
    }
    // Positions after setup in later nodes change the game too.
    if let Some(last) = r.positions.last() {
        b.extend(
            last.stones(crate::go::board::Color::Black)
                .iter()
                .flat_map(|p| [p.col, p.row]),
        );
    }
    fnv1a(&b)
}

/// A parsed file: its collections (one, or one per game tree when the whole did not parse),
/// each with the index in the file of its first game, and the records that could not be read.
pub struct Parsed {
    /// The collections and the file index of their first games.
    pub parts: Vec<(Sgf, usize)>,
    /// Broken records.
    pub broken: Vec<Broken>,
}

/// Parses one file. A collection that does not parse as a whole is split into its top-level game
/// trees, and each is read on its own, so one broken game costs only itself.
pub fn parse_file(file: &Path) -> Parsed {
    let mut out = Parsed {
        parts: Vec::new(),
        broken: Vec::new(),
    };
    let bytes = match std::fs::read(file) {
        Ok(b) => b,
        Err(e) => {
            out.broken.push(Broken {
                file: file.to_path_buf(),
                index: None,
                at: None,
                message: format!("cannot read: {e}"),
            });
            return out;
        }
    };
    match Sgf::parse_bytes(bytes.clone()) {
        Ok(sgf) => out.parts.push((sgf, 0)),
        Err(e) => {
            let src = crate::go::sgf::normalise_encoding(bytes);
            let trees = split_trees(&src);
            if trees.len() <= 1 {
                out.broken.push(Broken {
                    file: file.to_path_buf(),
                    index: None,
                    at: Some(line_col(&src, e.offset())),
                    message: e.to_string(),
                });
                return out;
            }
            for (i, (start, end)) in trees.into_iter().enumerate() {
                match Sgf::parse_bytes(src[start..end].to_vec()) {
                    Ok(sgf) => out.parts.push((sgf, i)),
                    Err(e) => out.broken.push(Broken {
                        file: file.to_path_buf(),
                        index: Some(i),
                        at: Some(line_col(&src, start + e.offset())),
                        message: e.to_string(),
                    }),
                }
            }
        }
    }
    out
}

/// Replays game `g` of a parsed collection whose first game is game `first` of `file`.
pub fn replay_game(file: &Path, sgf: &Sgf, g: usize, first: usize) -> Result<Game, Broken> {
    let index = first + g;
    match Replay::from_sgf(sgf, g, &[]) {
        Ok(replay) => Ok(Game {
            file: file.to_path_buf(),
            index,
            key: game_key(&replay),
            replay,
        }),
        Err(e) => Err(Broken {
            file: file.to_path_buf(),
            index: Some(index),
            at: match &e {
                crate::go::game::GameError::Sgf(s) => Some(line_col(sgf.source(), s.offset())),
                _ => None,
            },
            message: e.to_string(),
        }),
    }
}

/// Reads every game of one file (see [`parse_file`]).
pub fn read_file(file: &Path) -> (Vec<Game>, Vec<Broken>) {
    let mut p = parse_file(file);
    let mut games = Vec::new();
    for (sgf, first) in &p.parts {
        for g in 0..sgf.games().len() {
            match replay_game(file, sgf, g, *first) {
                Ok(x) => games.push(x),
                Err(b) => p.broken.push(b),
            }
        }
    }
    (games, p.broken)
}

/// What [`stream`] hands on, in corpus order.
pub enum Streamed<R> {
    /// A game and what the work made of it.
    Game {
        /// The file (index into the file list).
        file: usize,
        /// The game's index in its file.
        index: usize,
        /// Its content key.
        key: u64,
        /// Moves in its main line.
        moves: usize,
        /// The work's result (`None`: it passed).
        result: Option<R>,
    },
    /// A record that could not be read.
    Broken(Broken),
}

/// Streams every game of `files` through `work` in parallel (rayon) and hands the results to
/// `sink` in corpus order (files in the order given, games in file order), a batch of files at
/// a time so that memory stays bounded: every call of `sink` receives one whole batch, after all
/// of its work is done and before any work of the next batch begins. `sink` returns `false` to
/// stop.
pub fn stream<R: Send>(
    files: &[PathBuf],
    work: impl Fn(&Game) -> Option<R> + Sync,
    sink: impl FnMut(Vec<Streamed<R>>) -> bool,
) {
    stream_batched(files, 4 << 20, usize::MAX, work, sink)
}

/// [`stream`] with batches of files of at least `batch_bytes` together (at least one file),
/// and at most `max_games` games per call of `sink` (a batch's games are cut in pieces).
pub fn stream_batched<R: Send>(
    files: &[PathBuf],
    batch_bytes: u64,
    max_games: usize,
    work: impl Fn(&Game) -> Option<R> + Sync,
    mut sink: impl FnMut(Vec<Streamed<R>>) -> bool,
) {
    use rayon::prelude::*;
    let mut i = 0;
    while i < files.len() {
        let mut j = i;
        let mut bytes = 0u64;
        while j < files.len() && (j == i || bytes < batch_bytes) {
            bytes += std::fs::metadata(&files[j]).map(|m| m.len()).unwrap_or(0);
            j += 1;
        }
        let parsed: Vec<Parsed> = files[i..j].par_iter().map(|f| parse_file(f)).collect();
        let mut slots = Vec::new();
        for (k, p) in parsed.iter().enumerate() {
            for (part, (sgf, first)) in p.parts.iter().enumerate() {
                for g in 0..sgf.games().len() {
                    slots.push((k, part, g, *first));
                }
            }
        }
        // File-level breakage with the first piece that reaches its file, then the games, in
        // order, a piece at a time.
        let mut reported = vec![false; parsed.len()];
        for piece in slots.chunks(max_games.max(1)) {
            let results: Vec<Slot<R>> = piece
                .par_iter()
                .map(|&(k, part, g, first)| {
                    let (sgf, _) = &parsed[k].parts[part];
                    let game = replay_game(&files[i + k], sgf, g, first)?;
                    let r = work(&game);
                    Ok((k, game.index, game.key, game.replay.moves.len(), r))
                })
                .collect();
            let mut out = Vec::with_capacity(results.len());
            let mut last_k = piece.first().map_or(0, |s| s.0);
            for (r, &(k, ..)) in results.into_iter().zip(piece) {
                for kk in last_k..=k {
                    if !reported[kk] {
                        reported[kk] = true;
                        out.extend(parsed[kk].broken.iter().cloned().map(Streamed::Broken));
                    }
                }
                last_k = k;
                out.push(match r {
                    Ok((_, index, key, moves, result)) => Streamed::Game {
                        file: i + k,
                        index,
                        key,
                        moves,
                        result,
                    },
                    Err(b) => Streamed::Broken(b),
                });
            }
            if !sink(out) {
                return;
            }
        }
        let rest: Vec<Streamed<R>> = (0..parsed.len())
            .filter(|&k| !reported[k])
            .flat_map(|k| parsed[k].broken.iter().cloned().map(Streamed::Broken))
            .collect();
        if !rest.is_empty() && !sink(rest) {
            return;
        }
        i = j;
    }
}

/// The byte ranges of the top-level game trees: `(` … matching `)`, values in `[…]` (with `\`
/// escapes) skipped. An unterminated last tree runs to the end.
pub fn split_trees(src: &[u8]) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let (mut depth, mut start, mut i) = (0usize, 0usize, 0usize);
    while i < src.len() {
        match src[i] {
            b'[' => {
                i += 1;
                while i < src.len() && src[i] != b']' {
                    if src[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b'(' => {
                if depth == 0 {
                    start = i;
                }
                depth += 1;
            }
            b')' if depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    out.push((start, i + 1));
                }
            }
            _ => {}
        }
        i += 1;
    }
    if depth > 0 {
        out.push((start, src.len()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_broken_game_costs_only_itself() {
        let dir = std::env::temp_dir().join(format!("ets-corpus-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("c.sgf");
        std::fs::write(&f, "(;SZ[9];B[ee];W[cc])\n(;SZ[9];B[ee];W[dd\n").unwrap();
        let (games, broken) = read_file(&f);
        // The second tree is cut short: read up to its last complete node (issue 16: truncated
        // records are recovered, with a warning).
        assert_eq!(games.len(), 2, "{broken:?}");
        assert_eq!(games[0].replay.moves.len(), 2);
        assert_eq!(games[1].replay.moves.len(), 1);
        assert!(broken.is_empty(), "{broken:?}");
        let g2 = dir.join("d.sgf");
        std::fs::write(&g2, "(;SZ[9];B[ee];W[cc])\n(;SZ[9];B[ee]W)\n(;SZ[9];B[cc];W[ee])\n").unwrap();
        let (games, broken) = read_file(&g2);
        assert_eq!(games.len(), 2, "{broken:?}");
        assert_eq!(broken.len(), 1);
        assert_eq!(broken[0].index, Some(1));
        assert_ne!(games[0].key, games[1].key);
        assert_eq!(games[1].index, 2);
        std::fs::remove_dir_all(&dir).ok();
    }
}
