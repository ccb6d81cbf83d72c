//! The move-prediction ranker: a probability for every legal move of a position,
//! `P(m) ∝ exp s(m)`, with
//!
//! `s(m) = Σ_f w_f + Σ_{f<g} ⟨v_f, v_g⟩` over the active binary features `f` of `m`
//! ([`super::features`]),
//!
//! a factorization machine in the conditional-logit (generalized Bradley–Terry) form. With
//! `dim = 0` it is exactly the generalized Bradley–Terry model of Coulom (2007) — a move is a
//! team of features, its strength the product of their gammas `e^{w_f}` — fitted here by
//! maximum likelihood; the latent vectors add pairwise interactions between features, as in
//! the latent-factor ranking of Wistuba & Schmidt-Thieme (2013), the best published non-neural
//! move predictor. Training minimises the log-loss of the played move over all legal moves of
//! each position with AdaGrad and L2 regularisation (see `docs/semantics.md`).

use rand::SeedableRng;
use rand::seq::SliceRandom;
use smallvec::SmallVec;

use super::features::FeatureSpace;

/// A candidate's active features.
pub type Ids = SmallVec<[u32; 16]>;

/// Hyper-parameters of training.
#[derive(Debug, Clone, PartialEq)]
pub struct Train {
    /// Latent dimension (0: the plain Bradley–Terry model).
    pub dim: usize,
    /// AdaGrad step.
    pub rate: f32,
    /// L2 weight on the linear weights.
    pub l2_w: f32,
    /// L2 weight on the latent vectors.
    pub l2_v: f32,
    /// Passes over the training positions.
    pub epochs: usize,
    /// Seed for the initial latent vectors and the order of positions.
    pub seed: u64,
}

impl Default for Train {
    fn default() -> Self {
        Train {
            dim: 8,
            rate: 0.05,
            l2_w: 1e-5,
            l2_v: 1e-4,
            epochs: 3,
            seed: 1,
        }
    }
}

/// The model: weights, latent vectors, and the feature space they are indexed by.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranker {
    /// Latent dimension.
    pub dim: usize,
    /// Linear weights, per feature id.
    pub w: Vec<f32>,
    /// Latent vectors, `dim` per feature id.
    pub v: Vec<f32>,
    /// The feature ids.
    pub space: FeatureSpace,
    gw: Vec<f32>,
    gv: Vec<f32>,
    acc_w: Vec<f32>,
    acc_v: Vec<f32>,
    mark: Vec<bool>,
    rng: rand_chacha::ChaCha8Rng,
}

impl Ranker {
    /// An untrained model.
    pub fn new(dim: usize, space: FeatureSpace, seed: u64) -> Ranker {
        let mut r = Ranker {
            dim,
            w: Vec::new(),
            v: Vec::new(),
            space,
            gw: Vec::new(),
            gv: Vec::new(),
            acc_w: Vec::new(),
            acc_v: Vec::new(),
            mark: Vec::new(),
            rng: rand_chacha::ChaCha8Rng::seed_from_u64(seed),
        };
        r.grow();
        r
    }

    /// A trained model read back (no training state).
    pub fn from_parts(dim: usize, w: Vec<f32>, v: Vec<f32>, space: FeatureSpace) -> Ranker {
        let mut r = Ranker::new(dim, space, 0);
        r.w = w;
        r.v = v;
        r.grow();
        r
    }

    /// Makes room for every id of the space (new latent vectors small and random).
    pub fn grow(&mut self) {
        use rand::RngExt;
        let n = self.space.len();
        while self.w.len() < n {
            self.w.push(0.0);
            self.gw.push(0.0);
            for _ in 0..self.dim {
                let x: f32 = self.rng.random::<f32>() - 0.5;
                self.v.push(x * 0.02);
                self.gv.push(0.0);
            }
        }
        self.gw.resize(self.w.len(), 0.0);
        self.gv.resize(self.v.len(), 0.0);
    }

    /// The score of a candidate; `sum` receives Σ v_f (length `dim`).
    #[inline]
    pub fn score_with(&self, ids: &[u32], sum: &mut [f32]) -> f32 {
        let d = self.dim;
        let mut s = 0.0f32;
        sum.iter_mut().for_each(|x| *x = 0.0);
        let mut sq = 0.0f32;
        for &f in ids {
            let f = f as usize;
            if f >= self.w.len() {
                continue;
            }
            s += self.w[f];
            let v = &self.v[f * d..f * d + d];
            for k in 0..d {
                sum[k] += v[k];
                sq += v[k] * v[k];
            }
        }
        let ss: f32 = sum.iter().map(|x| x * x).sum();
        s + 0.5 * (ss - sq)
    }

    /// The score of a candidate.
    pub fn score(&self, ids: &[u32]) -> f32 {
        let mut sum = vec![0.0; self.dim];
        self.score_with(ids, &mut sum)
    }

    /// Each active feature's share of the score: its weight and half of each pairwise term it
    /// takes part in (the shares add up to the score).
    pub fn contributions(&self, ids: &[u32]) -> Vec<(u32, f32)> {
        let d = self.dim;
        let ok: Vec<u32> = ids.iter().copied().filter(|&f| (f as usize) < self.w.len()).collect();
        ok.iter()
            .map(|&f| {
                let vf = &self.v[f as usize * d..f as usize * d + d];
                let mut c = self.w[f as usize];
                for &g in &ok {
                    if g != f {
                        let vg = &self.v[g as usize * d..g as usize * d + d];
                        c += 0.5 * vf.iter().zip(vg).map(|(a, b)| a * b).sum::<f32>();
                    }
                }
                (f, c)
            })
            .collect()
    }

    /// The probabilities of the candidates (a softmax of their scores).
    pub fn probabilities(&self, cands: &[Ids]) -> Vec<f64> {
        let mut sum = vec![0.0; self.dim];
        let s: Vec<f64> = cands.iter().map(|c| self.score_with(c, &mut sum) as f64).collect();
        softmax(&s)
    }

    /// One step of training on a position (`played`: the index of the move played); returns
    /// the log-probability the model gave it before the step.
    pub fn step(&mut self, cands: &[Ids], played: usize, t: &Train) -> f64 {
        let d = self.dim;
        let mut sums = vec![0.0f32; cands.len() * d];
        let scores: Vec<f64> = cands
            .iter()
            .enumerate()
            .map(|(j, c)| self.score_with(c, &mut sums[j * d..j * d + d]) as f64)
            .collect();
        let p = softmax(&scores);
        let logp = p[played].max(1e-300).ln();
        // Gradient of −log p(played): (p_j − y_j) ∂s_j, gathered per feature, then one AdaGrad
        // update of each feature touched.
        let n = self.w.len();
        self.acc_w.resize(n, 0.0);
        self.acc_v.resize(n * d, 0.0);
        self.mark.resize(n, false);
        let mut touched: Vec<u32> = Vec::new();
        for (j, c) in cands.iter().enumerate() {
            let coef = (p[j] - if j == played { 1.0 } else { 0.0 }) as f32;
            if coef.abs() < 1e-7 {
                continue;
            }
            let sj = &sums[j * d..j * d + d];
            for &f in c.iter() {
                let fu = f as usize;
                if fu >= n {
                    continue;
                }
                if !self.mark[fu] {
                    self.mark[fu] = true;
                    touched.push(f);
                }
                self.acc_w[fu] += coef;
                for (k, &s) in sj.iter().enumerate().take(d) {
                    self.acc_v[fu * d + k] += coef * (s - self.v[fu * d + k]);
                }
            }
        }
        for f in touched {
            let f = f as usize;
            self.mark[f] = false;
            let g = std::mem::take(&mut self.acc_w[f]) + t.l2_w * self.w[f];
            self.gw[f] += g * g;
            self.w[f] -= t.rate * g / (self.gw[f].sqrt() + 1e-8);
            for k in 0..d {
                let i = f * d + k;
                let g = std::mem::take(&mut self.acc_v[i]) + t.l2_v * self.v[i];
                self.gv[i] += g * g;
                self.v[i] -= t.rate * g / (self.gv[i].sqrt() + 1e-8);
            }
        }
        logp
    }

    /// Shuffles a slice with the model's generator (the order of training positions).
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        v.shuffle(&mut self.rng);
    }
}

/// A numerically stable softmax.
pub fn softmax(s: &[f64]) -> Vec<f64> {
    let m = s.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let e: Vec<f64> = s.iter().map(|x| (x - m).exp()).collect();
    let z: f64 = e.iter().sum();
    e.into_iter().map(|x| x / z).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use smallvec::smallvec;

    #[test]
    fn training_learns_a_planted_preference() {
        // Feature 0 on the played move, 1 elsewhere; then 2 and 3 together are preferred.
        let space = FeatureSpace::default();
        for dim in [0, 4] {
            let mut r = Ranker::new(dim, space.clone(), 3);
            let t = Train {
                dim,
                rate: 0.1,
                ..Train::default()
            };
            let cands: Vec<Ids> = vec![smallvec![1, 2], smallvec![0, 2, 3], smallvec![1, 3]];
            let mut first = 0.0;
            for i in 0..300 {
                let lp = r.step(&cands, 1, &t);
                if i == 0 {
                    first = lp;
                }
            }
            let p = r.probabilities(&cands);
            assert!(p[1] > 0.9, "dim {dim}: {p:?}");
            assert!(first < (0.5f64).ln());
        }
    }

    #[test]
    fn the_factorization_term_is_the_pairwise_sum() {
        let mut r = Ranker::new(3, FeatureSpace::default(), 9);
        for (i, x) in r.v.iter_mut().enumerate().take(12) {
            *x = (i as f32 * 0.37).sin();
        }
        r.w[0] = 0.5;
        let ids: Ids = smallvec![0, 1, 2, 3];
        let mut direct = 0.5f32;
        for a in 0..4 {
            for b in a + 1..4 {
                direct += (0..3).map(|k| r.v[a * 3 + k] * r.v[b * 3 + k]).sum::<f32>();
            }
        }
        assert!((r.score(&ids) - direct).abs() < 1e-5);
    }
}
