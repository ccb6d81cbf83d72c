//! Move prediction: the model (Forme_K patterns with their statistics, and the ranker), the
//! samples of a game (every position with the features of every legal move), training the
//! ranker on a collection (leave-one-game-out: a game's own counts are taken out of the pattern
//! statistics while its positions are trained on), and ranking the moves of a position.

use std::path::PathBuf;

use rustc_hash::FxHashSet;

use super::classes::{ClassAttention, GameClasses, PositionClasses};
use super::corpus::{Streamed, stream_batched};
use super::features::{Families, FeatureSpace, Own, PatternModel, Raw, raw};
use super::forme_k::{Stats, Tree};
use super::learn::Counter;
use super::position::{Analysis, Position, positions};
use super::ranker::{Ids, Ranker, Train};
use crate::go::board::Point;
use crate::go::game::Replay;

/// A trained move predictor.
pub struct Model {
    /// The pattern tree.
    pub tree: Tree,
    /// Pattern statistics per node.
    pub stats: Vec<Stats>,
    /// Largest k matched.
    pub kmax: usize,
    /// Smoothing weight of a parent's estimate.
    pub alpha: f64,
    /// Patterns matched at least this often are features of their own.
    pub min_match_id: u64,
    /// The attention of the classification its class features read.
    pub attention: ClassAttention,
    /// The ranker.
    pub ranker: Ranker,
}

/// One position of a game with the raw features of its legal moves.
#[derive(Debug, Clone)]
pub struct Sample {
    /// Moves played before it.
    pub number: usize,
    /// The legal moves.
    pub points: Vec<Point>,
    /// Their raw features.
    pub raws: Vec<Raw>,
    /// The index of the move played.
    pub played: usize,
}

/// Settings of [`game_samples`].
#[derive(Debug, Clone, Copy)]
pub struct Sampling {
    /// Take the game's own counts out of the statistics (training on games the patterns were
    /// counted on).
    pub leave_out: bool,
    /// Keep every n-th position (1: all).
    pub every: usize,
    /// Read the ETS classification of every position (the class features), with this attention.
    pub classes: Option<ClassAttention>,
}

impl Model {
    /// The pattern part as the features read it.
    pub fn patterns(&self) -> PatternModel<'_> {
        PatternModel {
            tree: &self.tree,
            stats: &self.stats,
            kmax: self.kmax,
            alpha: self.alpha,
            min_match_id: self.min_match_id,
        }
    }

    /// The candidates' feature ids (nothing new interned).
    pub fn ids(&self, s: &Sample) -> Vec<Ids> {
        let mut out = Vec::with_capacity(s.raws.len());
        let mut buf = Ids::new();
        for r in &s.raws {
            self.ranker.space.lookup(r, &mut buf);
            out.push(buf.clone());
        }
        out
    }

    /// The probability of every legal move of a sample.
    pub fn probabilities(&self, s: &Sample) -> Vec<f64> {
        self.ranker.probabilities(&self.ids(s))
    }

    /// The samples of a game (see [`game_samples`]).
    pub fn samples(&self, replay: &Replay, sampling: Sampling) -> Vec<Sample> {
        game_samples(&self.patterns(), replay, sampling)
    }

    /// Whether the ranker reads the ETS class features.
    pub fn uses_classes(&self) -> bool {
        self.ranker.space.families().classes
    }

    /// The classification its class features read (`None`: it uses none).
    pub fn class_attention(&self) -> Option<ClassAttention> {
        self.uses_classes().then_some(self.attention)
    }

    /// The ranked moves of one position: (point, probability, raw features), most likely first;
    /// `classes`: the classification of the position, when the ranker uses class features.
    pub fn rank(&self, pos: &Position<'_>, classes: Option<&PositionClasses>) -> Vec<(Point, f64, Raw)> {
        let an = Analysis::new(pos.board);
        let legal = an.legal_points(pos);
        let mut c = Counter::default();
        let nodes = c.deepest(&self.tree, pos, &legal, self.kmax);
        let pm = self.patterns();
        let raws: Vec<Raw> = legal
            .iter()
            .zip(&nodes)
            .map(|(&p, &d)| {
                let mut r = raw(pos, &an, &pm, None, p, d);
                if let Some(c) = classes {
                    r.classes = c.keys(pos, &an, p);
                }
                r
            })
            .collect();
        let s = Sample {
            number: pos.number,
            points: legal,
            raws,
            played: 0,
        };
        let p = self.probabilities(&s);
        let mut v: Vec<(Point, f64, Raw)> = s
            .points
            .into_iter()
            .zip(p)
            .zip(s.raws)
            .map(|((pt, p), r)| (pt, p, r))
            .collect();
        v.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        v
    }
}

/// Every position of a game (every `every`-th) with the raw features of all its legal moves.
/// With `leave_out`, the game's own contribution to the pattern counts is subtracted first (its
/// counts are found by the same walks, so this costs one pass over the game).
pub fn game_samples(pm: &PatternModel<'_>, replay: &Replay, sampling: Sampling) -> Vec<Sample> {
    let ps = positions(replay);
    let mut counter = Counter::default();
    let mut own = Own::default();
    let mut kept: Vec<(usize, Analysis, Vec<Point>, Vec<u32>)> = Vec::new();
    let every = sampling.every.max(1);
    for (i, pos) in ps.iter().enumerate() {
        let take = i % every == 0;
        if !take && !sampling.leave_out {
            continue;
        }
        let an = Analysis::new(pos.board);
        let legal = an.legal_points(pos);
        let nodes = counter.deepest(pm.tree, pos, &legal, pm.kmax);
        if sampling.leave_out {
            for (p, &d) in legal.iter().zip(&nodes) {
                let e = own.entry(d).or_insert((0, 0));
                e.1 += 1;
                if *p == pos.played {
                    e.0 += 1;
                }
            }
        }
        if take {
            kept.push((i, an, legal, nodes));
        }
    }
    if sampling.leave_out {
        // Deepest-match counts to match counts: every ancestor matched too.
        let ends: Vec<(u32, (u32, u32))> = own.iter().map(|(&k, &v)| (k, v)).collect();
        own.clear();
        for (d, (p, m)) in ends {
            for id in pm.tree.path(d).into_iter().chain(std::iter::once(0)) {
                let e = own.entry(id).or_insert((0, 0));
                e.0 += p;
                e.1 += m;
            }
        }
    }
    let own = sampling.leave_out.then_some(&own);
    // A game the engine cannot classify is ranked without class features.
    let mut classes = sampling.classes.and_then(|att| GameClasses::new(replay, att).ok());
    kept.into_iter()
        .map(|(i, an, legal, nodes)| {
            let pos = &ps[i];
            let pc = classes.as_mut().map(|c| c.at(pos.number));
            let raws: Vec<Raw> = legal
                .iter()
                .zip(&nodes)
                .map(|(&p, &d)| {
                    let mut r = raw(pos, &an, pm, own, p, d);
                    if let Some(c) = &pc {
                        r.classes = c.keys(pos, &an, p);
                    }
                    r
                })
                .collect();
            let played = legal.iter().position(|&p| p == pos.played).unwrap_or(0);
            Sample {
                number: pos.number,
                points: legal,
                raws,
                played,
            }
        })
        .collect()
}

/// Progress of training.
#[derive(Debug, Clone)]
pub enum TrainEvent {
    /// An epoch begins (1-based).
    Epoch(usize),
    /// More positions trained on, and their summed log-probability before each step.
    Positions(u64, f64),
}

/// Trains a ranker on the games of `files` whose keys are in `games` (leave-one-game-out
/// statistics), `train.epochs` passes; the class features (when `families` has them) read the
/// classification with `attention`.
#[allow(clippy::too_many_arguments)]
pub fn train(
    pm: &PatternModel<'_>,
    files: &[PathBuf],
    games: &FxHashSet<u64>,
    train: &Train,
    every: usize,
    families: Families,
    attention: ClassAttention,
    on: &mut dyn FnMut(TrainEvent),
) -> Ranker {
    let mut ranker = Ranker::new(train.dim, FeatureSpace::with_families(families), train.seed);
    let chunk = 8 * rayon::current_num_threads().max(1);
    for epoch in 1..=train.epochs {
        on(TrainEvent::Epoch(epoch));
        stream_batched(
            files,
            4 << 20,
            chunk,
            |g| {
                games.contains(&g.key).then(|| {
                    game_samples(
                        pm,
                        &g.replay,
                        Sampling {
                            leave_out: true,
                            every,
                            classes: families.classes.then_some(attention),
                        },
                    )
                })
            },
            |piece| {
                let mut samples: Vec<Sample> = piece
                    .into_iter()
                    .filter_map(|it| match it {
                        Streamed::Game { result: Some(s), .. } => Some(s),
                        _ => None,
                    })
                    .flatten()
                    .collect();
                ranker.shuffle(&mut samples);
                let mut buf = Ids::new();
                let (mut n, mut lp) = (0u64, 0.0);
                for s in &samples {
                    if s.raws.len() < 2 {
                        continue;
                    }
                    let ids: Vec<Ids> = s
                        .raws
                        .iter()
                        .map(|r| {
                            ranker.space.ids(r, true, &mut buf);
                            buf.clone()
                        })
                        .collect();
                    ranker.grow();
                    lp += ranker.step(&ids, s.played, train);
                    n += 1;
                }
                on(TrainEvent::Positions(n, lp));
                true
            },
        );
    }
    ranker
}
