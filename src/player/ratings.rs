//! Ratings from game results: the Bradley–Terry model fitted by minorization–maximization
//! (Hunter 2004), shown on the Elo scale (400·log10 γ) with 95% intervals from the observed
//! Fisher information (one engine anchored at 0), and win rates with Wilson score intervals.
//! A draw counts half a win to each side. One virtual draw of every engine against a virtual
//! opponent of rating 0 keeps the estimates finite when an engine has won or lost every game.

/// One game's result between engines `a` and `b`: `score` is 1 (a won), 0 (b won) or 0.5.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Outcome {
    /// First engine (index).
    pub a: usize,
    /// Second engine (index).
    pub b: usize,
    /// `a`'s score.
    pub score: f64,
}

/// A fitted rating.
#[derive(Debug, Clone, PartialEq)]
pub struct Rating {
    /// Elo-scale rating (the anchor is 0).
    pub elo: f64,
    /// Half-width of the 95% interval (Elo points; 0 for the anchor).
    pub ci95: f64,
    /// Games played.
    pub games: usize,
    /// Points scored.
    pub score: f64,
}

/// Fits Bradley–Terry ratings of `n` engines, anchored at engine `anchor`.
pub fn bradley_terry(n: usize, games: &[Outcome], anchor: usize) -> Vec<Rating> {
    // Wins matrix w[i][j]: points i scored against j; virtual engine n.
    let m = n + 1;
    let mut w = vec![vec![0.0f64; m]; m];
    for g in games {
        w[g.a][g.b] += g.score;
        w[g.b][g.a] += 1.0 - g.score;
    }
    for row in w.iter_mut().take(n) {
        row[n] += 0.5;
    }
    for x in w[n].iter_mut().take(n) {
        *x += 0.5;
    }
    let mut gamma = vec![1.0f64; m];
    for _ in 0..10_000 {
        let mut next = gamma.clone();
        let mut change = 0.0f64;
        for i in 0..n {
            let wins: f64 = (0..m).map(|j| w[i][j]).sum();
            let denom: f64 = (0..m)
                .filter(|&j| j != i)
                .map(|j| (w[i][j] + w[j][i]) / (gamma[i] + gamma[j]))
                .sum();
            if denom > 0.0 && wins > 0.0 {
                next[i] = wins / denom;
            }
        }
        // The virtual opponent stays at 1 (rating 0).
        next[n] = 1.0;
        for i in 0..n {
            change = change.max((next[i].ln() - gamma[i].ln()).abs());
        }
        gamma = next;
        if change < 1e-10 {
            break;
        }
    }
    let scale = 400.0 / std::f64::consts::LN_10;
    let theta: Vec<f64> = gamma.iter().map(|g| g.ln()).collect();
    // Observed information on θ (real engines only, the virtual games included).
    let mut h = vec![vec![0.0f64; m]; m];
    for i in 0..m {
        for j in 0..m {
            if i == j {
                continue;
            }
            let nij = w[i][j] + w[j][i];
            if nij == 0.0 {
                continue;
            }
            let p = 1.0 / (1.0 + (theta[j] - theta[i]).exp());
            let v = nij * p * (1.0 - p);
            h[i][i] += v;
            h[i][j] -= v;
        }
    }
    // Anchor: drop the anchor's row and column (and the virtual engine's, whose θ is fixed).
    let keep: Vec<usize> = (0..n).filter(|&i| i != anchor).collect();
    let k = keep.len();
    let mut a = vec![vec![0.0f64; k]; k];
    for (x, &i) in keep.iter().enumerate() {
        for (y, &j) in keep.iter().enumerate() {
            a[x][y] = h[i][j];
        }
    }
    let inv = invert(a);
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let games_i = games.iter().filter(|g| g.a == i || g.b == i).count();
        let score: f64 = games
            .iter()
            .map(|g| {
                if g.a == i {
                    g.score
                } else if g.b == i {
                    1.0 - g.score
                } else {
                    0.0
                }
            })
            .sum();
        let se = match keep.iter().position(|&x| x == i) {
            Some(x) => inv.as_ref().map_or(f64::INFINITY, |m| m[x][x].max(0.0).sqrt()),
            None => 0.0,
        };
        out.push(Rating {
            elo: (theta[i] - theta[anchor]) * scale,
            ci95: 1.96 * se * scale,
            games: games_i,
            score,
        });
    }
    out
}

/// Gauss–Jordan inverse (None when singular).
fn invert(mut a: Vec<Vec<f64>>) -> Option<Vec<Vec<f64>>> {
    let n = a.len();
    let mut inv: Vec<Vec<f64>> = (0..n)
        .map(|i| (0..n).map(|j| (i == j) as u8 as f64).collect())
        .collect();
    for c in 0..n {
        let p = (c..n).max_by(|&x, &y| a[x][c].abs().total_cmp(&a[y][c].abs()))?;
        if a[p][c].abs() < 1e-12 {
            return None;
        }
        a.swap(c, p);
        inv.swap(c, p);
        let d = a[c][c];
        for j in 0..n {
            a[c][j] /= d;
            inv[c][j] /= d;
        }
        for r in 0..n {
            if r != c {
                let f = a[r][c];
                if f != 0.0 {
                    for j in 0..n {
                        a[r][j] -= f * a[c][j];
                        inv[r][j] -= f * inv[c][j];
                    }
                }
            }
        }
    }
    Some(inv)
}

/// A win rate with its 95% Wilson score interval: (rate, low, high).
pub fn wilson(score: f64, games: usize) -> (f64, f64, f64) {
    if games == 0 {
        return (0.0, 0.0, 1.0);
    }
    let n = games as f64;
    let p = score / n;
    let z = 1.96f64;
    let d = 1.0 + z * z / n;
    let c = (p + z * z / (2.0 * n)) / d;
    let h = z * ((p * (1.0 - p) + z * z / (4.0 * n)) / n).sqrt() / d;
    (p, (c - h).max(0.0), (c + h).min(1.0))
}

/// The Elo difference a win rate means (±inf at 0 and 1).
pub fn elo_of_rate(p: f64) -> f64 {
    -400.0 * (1.0 / p - 1.0).log10()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_engines_match_the_logistic_formula() {
        // 75 of 100: about +191 Elo before the virtual draws pull it in a little.
        let mut g = Vec::new();
        for i in 0..100 {
            g.push(Outcome {
                a: 1,
                b: 0,
                score: if i < 75 { 1.0 } else { 0.0 },
            });
        }
        let r = bradley_terry(2, &g, 0);
        assert_eq!(r[0].elo, 0.0);
        let want = elo_of_rate(0.75);
        assert!((r[1].elo - want).abs() < 15.0, "{} vs {want}", r[1].elo);
        // The interval: about ±1.96·√(1/(n p (1−p)))·400/ln10 = ±79 Elo.
        assert!((r[1].ci95 - 79.0).abs() < 8.0, "{}", r[1].ci95);
        assert_eq!(r[1].games, 100);
        assert_eq!(r[1].score, 75.0);
    }

    #[test]
    fn all_wins_stay_finite_and_order_is_transitive() {
        let mut g = Vec::new();
        for _ in 0..10 {
            g.push(Outcome { a: 0, b: 1, score: 1.0 });
            g.push(Outcome { a: 1, b: 2, score: 1.0 });
        }
        let r = bradley_terry(3, &g, 2);
        assert!(r[0].elo.is_finite() && r[0].elo > r[1].elo && r[1].elo > 0.0);
    }

    #[test]
    fn wilson_interval() {
        let (p, lo, hi) = wilson(50.0, 100);
        assert_eq!(p, 0.5);
        assert!((lo - 0.4038).abs() < 1e-3 && (hi - 0.5962).abs() < 1e-3);
    }
}
