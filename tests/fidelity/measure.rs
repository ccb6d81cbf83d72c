//! Precision and recall of the classification against the oracles, position by position.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use ets::ets::Setting;
use ets::go::board::{Board, Point};
use ets::go::classify::{GoTimeline, classify_game};
use ets::go::game::Replay;
use ets::go::record::RecordOptions;
use ets::go::sgf::Sgf;

use super::oracles::{Expected, Position, Shape};

/// One game of a record file.
pub struct Game {
    pub name: String,
    pub replay: Replay,
}

/// Every game tree of every `.sgf` file under `dir` (sorted by path), at most `limit` files.
pub fn games_under(dir: &Path, limit: usize) -> Vec<Game> {
    let mut files = Vec::new();
    collect(dir, &mut files);
    files.sort();
    files.truncate(limit);
    let mut out = Vec::new();
    for f in files {
        let Ok(bytes) = std::fs::read(&f) else { continue };
        let Ok(sgf) = Sgf::parse_bytes(bytes) else { continue };
        let n = sgf.games().len();
        for g in 0..n {
            if let Ok(replay) = Replay::from_sgf(&sgf, g, &[]) {
                let name = if n > 1 {
                    format!("{}#{}", f.display(), g + 1)
                } else {
                    f.display().to_string()
                };
                out.push(Game { name, replay });
            }
        }
    }
    out
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    for e in rd.flatten() {
        let p = e.path();
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|x| x.eq_ignore_ascii_case("sgf")) {
            out.push(p);
        }
    }
}

/// One disagreement: where, which class, the element, and whether the classification reported it
/// (a false positive) or missed it (a false negative).
#[derive(Clone, Debug)]
pub struct Disagreement {
    pub game: String,
    pub position: u32,
    pub shape: Shape,
    pub reported: bool,
    pub board: String,
}

/// Per class: counts and the first disagreements.
#[derive(Default, Clone, Debug)]
pub struct Tally {
    pub level: u32,
    pub tp: u64,
    pub fp: u64,
    pub fn_: u64,
    pub examples: Vec<Disagreement>,
}

impl Tally {
    pub fn precision(&self) -> f64 {
        if self.tp + self.fp == 0 {
            1.0
        } else {
            self.tp as f64 / (self.tp + self.fp) as f64
        }
    }
    pub fn recall(&self) -> f64 {
        if self.tp + self.fn_ == 0 {
            1.0
        } else {
            self.tp as f64 / (self.tp + self.fn_) as f64
        }
    }
    pub fn exact(&self) -> bool {
        self.fp == 0 && self.fn_ == 0
    }
}

/// The figures of a run: per class, and what was measured.
#[derive(Default)]
pub struct Report {
    pub classes: BTreeMap<String, Tally>,
    pub games: usize,
    pub positions: u64,
}

/// What the classification reports at one position: per class, the vertices of each element of
/// `level` alive there.
pub fn reported(st: &Setting, t: &GoTimeline, level: usize, pos: u32) -> BTreeMap<String, Vec<Shape>> {
    let mut out: BTreeMap<String, Vec<Shape>> = BTreeMap::new();
    let level = level as u32;
    for e in t.present(level, pos, false) {
        let name = st.class(t.timeline().level(level).element(e).class()).name.clone();
        out.entry(name).or_default().push(t.vertices(level, e, pos));
    }
    out
}

const EXAMPLES: usize = 6;

impl Report {
    /// Compares one position's report with the oracle's for `level`.
    pub fn compare(
        &mut self,
        game: &str,
        pos: u32,
        board: &Board,
        level: u32,
        got: &BTreeMap<String, Vec<Shape>>,
        want: &Expected,
    ) {
        for name in got.keys().chain(want.keys()) {
            self.classes.entry(name.clone()).or_insert_with(|| Tally {
                level,
                ..Tally::default()
            });
        }
        let mut names: Vec<&String> = got.keys().chain(want.keys()).collect();
        names.sort();
        names.dedup();
        for name in names {
            let tally = self.classes.get_mut(name).expect("entered above");
            let empty = Default::default();
            let w = want.get(name).unwrap_or(&empty);
            let mut left: BTreeMap<&Shape, u32> = w.iter().map(|s| (s, 1)).collect();
            let note = |shape: &Shape, reported: bool, tally: &mut Tally| {
                if tally.examples.len() < EXAMPLES {
                    tally.examples.push(Disagreement {
                        game: game.to_string(),
                        position: pos,
                        shape: shape.clone(),
                        reported,
                        board: board.ascii(),
                    });
                }
            };
            for s in got.get(name).map(|v| v.as_slice()).unwrap_or(&[]) {
                match left.get_mut(s) {
                    Some(k) if *k > 0 => {
                        *k -= 1;
                        tally.tp += 1;
                    }
                    _ => {
                        tally.fp += 1;
                        note(s, true, tally);
                    }
                }
            }
            for (s, k) in left {
                if k > 0 {
                    tally.fn_ += 1;
                    note(s, false, tally);
                }
            }
        }
    }

    /// Classifies every position of `game` up to `top` and compares each level with `oracle`.
    pub fn game(&mut self, st: &Setting, g: &Game, top: u32, oracle: &dyn Fn(&Position, u32) -> Expected) {
        let r = &g.replay;
        let last: Vec<Option<Point>> = std::iter::once(None).chain(r.moves.iter().map(|m| m.point)).collect();
        let t = classify_game(
            std::sync::Arc::new(st.clone()),
            &r.positions,
            &last,
            RecordOptions::default(),
            Some(top),
        )
        .unwrap_or_else(|e| panic!("{}: {e}", g.name));
        for (pos, b) in r.positions.iter().enumerate() {
            let before = &r.positions[pos.saturating_sub(1)];
            let p = Position { board: b, before };
            for level in 1..=top {
                let got = reported(st, &t, level as usize, pos as u32);
                let want = oracle(&p, level);
                self.compare(&g.name, pos as u32, b, level, &got, &want);
            }
        }
        self.games += 1;
        self.positions += r.positions.len() as u64;
    }

    /// Adds another report's figures (the first disagreements of each are kept, in order).
    pub fn merge(&mut self, other: Report) {
        for (name, t) in other.classes {
            let mine = self.classes.entry(name).or_insert_with(|| Tally {
                level: t.level,
                ..Tally::default()
            });
            mine.tp += t.tp;
            mine.fp += t.fp;
            mine.fn_ += t.fn_;
            for d in t.examples {
                if mine.examples.len() < EXAMPLES {
                    mine.examples.push(d);
                }
            }
        }
        self.games += other.games;
        self.positions += other.positions;
    }

    /// Measures every game of `games` (in parallel) up to level `top`.
    pub fn of_games(
        st: &Setting,
        games: &[Game],
        top: u32,
        oracle: &(dyn Fn(&Position, u32) -> Expected + Sync),
    ) -> Report {
        use rayon::prelude::*;
        let parts: Vec<Report> = games
            .par_iter()
            .map(|g| {
                let mut r = Report::default();
                r.game(st, g, top, oracle);
                r
            })
            .collect();
        let mut out = Report::default();
        for r in parts {
            out.merge(r);
        }
        out
    }

    /// The table, in Markdown.
    pub fn table(&self) -> String {
        let mut s = String::new();
        let _ = writeln!(
            s,
            "| level | class | reported | expected | agree | precision | recall |"
        );
        let _ = writeln!(s, "|---|---|---:|---:|---:|---:|---:|");
        let mut rows: Vec<(&String, &Tally)> = self.classes.iter().collect();
        rows.sort_by_key(|(n, t)| (t.level, n.to_string()));
        for (n, t) in rows {
            let _ = writeln!(
                s,
                "| {} | `{}` | {} | {} | {} | {:.2} | {:.2} |",
                t.level,
                n,
                t.tp + t.fp,
                t.tp + t.fn_,
                t.tp,
                t.precision(),
                t.recall()
            );
        }
        s
    }

    /// The disagreements of the classes that are not exact, for a person to read.
    pub fn disagreements(&self, level: Option<u32>) -> String {
        let mut s = String::new();
        for (n, t) in &self.classes {
            if t.exact() || level.is_some_and(|l| l != t.level) {
                continue;
            }
            let _ = writeln!(
                s,
                "{n} (level {}): {} false positive(s), {} false negative(s)",
                t.level, t.fp, t.fn_
            );
            for d in &t.examples {
                let _ = writeln!(
                    s,
                    "  {} at move {}: {} {:?}\n{}",
                    d.game,
                    d.position,
                    if d.reported {
                        "reported, not expected"
                    } else {
                        "expected, not reported"
                    },
                    d.shape.iter().map(|p| (p.col, p.row)).collect::<Vec<_>>(),
                    d.board
                );
            }
        }
        s
    }
}
