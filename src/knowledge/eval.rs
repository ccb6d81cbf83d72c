//! Judging move prediction on games never used for training: for every position, the rank the
//! model gave the move played and its probability; summarised as top-1/5/10 agreement and mean
//! log-probability, overall and per game phase (moves 1–30, 31–100, 101+), with 95% confidence
//! intervals that treat the positions of one game as correlated (a game-clustered standard
//! error: games are the independent units).

use serde::Serialize;

/// One evaluated position.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Record {
    /// The game (its index in the evaluation).
    pub game: usize,
    /// Moves played before the position.
    pub number: usize,
    /// Rank of the move played among the legal moves (1: the model's first choice).
    pub rank: usize,
    /// The probability the model gave it (natural log).
    pub logp: f64,
    /// Legal moves.
    pub legal: usize,
}

/// A mean with its 95% confidence interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Estimate {
    /// The mean.
    pub mean: f64,
    /// Lower end of the 95% interval.
    pub lo: f64,
    /// Upper end.
    pub hi: f64,
}

/// The figures of a set of positions.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    /// Positions.
    pub positions: usize,
    /// Games.
    pub games: usize,
    /// The move played ranked first.
    pub top1: Estimate,
    /// Ranked in the first five.
    pub top5: Estimate,
    /// Ranked in the first ten.
    pub top10: Estimate,
    /// Mean natural-log probability of the move played.
    pub logp: Estimate,
}

/// The game phases reported.
pub const PHASES: [(&str, usize, usize); 3] = [("1-30", 0, 30), ("31-100", 30, 100), ("101+", 100, usize::MAX)];

/// The phase of a position (`number` moves played before it).
pub fn phase_of(number: usize) -> usize {
    PHASES
        .iter()
        .position(|&(_, a, b)| number >= a && number < b)
        .unwrap_or(2)
}

/// The mean of `x` over records and its game-clustered 95% interval.
pub fn clustered(records: &[Record], x: impl Fn(&Record) -> f64) -> Estimate {
    let n = records.len();
    if n == 0 {
        return Estimate {
            mean: f64::NAN,
            lo: f64::NAN,
            hi: f64::NAN,
        };
    }
    let mean = records.iter().map(&x).sum::<f64>() / n as f64;
    let mut by_game: std::collections::BTreeMap<usize, f64> = Default::default();
    for r in records {
        *by_game.entry(r.game).or_insert(0.0) += x(r) - mean;
    }
    let g = by_game.len() as f64;
    let ss: f64 = by_game.values().map(|s| s * s).sum();
    // Cluster-robust variance of the mean, with the small-sample factor G/(G−1).
    let var = if g > 1.0 {
        ss / (n as f64 * n as f64) * g / (g - 1.0)
    } else {
        0.0
    };
    let h = 1.96 * var.sqrt();
    Estimate {
        mean,
        lo: mean - h,
        hi: mean + h,
    }
}

/// The summary of a set of records.
pub fn summarize(records: &[Record]) -> Summary {
    let games = records
        .iter()
        .map(|r| r.game)
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    Summary {
        positions: records.len(),
        games,
        top1: clustered(records, |r| (r.rank == 1) as u8 as f64),
        top5: clustered(records, |r| (r.rank <= 5) as u8 as f64),
        top10: clustered(records, |r| (r.rank <= 10) as u8 as f64),
        logp: clustered(records, |r| r.logp),
    }
}

/// The rank of entry `played` among `p` (1-based; ties count against the played move, so a
/// model that gives every move the same probability ranks it last among the tied).
pub fn rank_of(p: &[f64], played: usize) -> usize {
    let x = p[played];
    1 + p.iter().enumerate().filter(|&(i, &q)| i != played && q >= x).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_and_intervals() {
        assert_eq!(rank_of(&[0.2, 0.5, 0.3], 1), 1);
        assert_eq!(rank_of(&[0.2, 0.5, 0.3], 0), 3);
        assert_eq!(rank_of(&[0.5, 0.5], 0), 2);
        let recs: Vec<Record> = (0..100)
            .map(|i| Record {
                game: i / 10,
                number: i,
                rank: if i % 4 == 0 { 1 } else { 7 },
                logp: -1.0,
                legal: 200,
            })
            .collect();
        let s = summarize(&recs);
        assert_eq!(s.positions, 100);
        assert_eq!(s.games, 10);
        assert!((s.top1.mean - 0.25).abs() < 1e-12);
        assert!(s.top1.lo < 0.25 && s.top1.hi > 0.25);
        assert_eq!(s.top10.mean, 1.0);
        assert_eq!(s.logp.lo, -1.0);
        assert_eq!(phase_of(0), 0);
        assert_eq!(phase_of(30), 1);
        assert_eq!(phase_of(100), 2);
    }
}
