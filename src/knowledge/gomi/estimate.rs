//! Gomi's estimates (J. Hurd, *The Design of Gomi*, §4.1): an entry whose pattern χ matched n
//! times with its formula φ satisfied r times has d = B_{r,n} = Beta(r + 1, n + 1 − r); the
//! conservative estimate of `P(φ | ρ) | ρ matches χ` is
//!
//! d(p) = ∫ d_q(p) dB_{r,n}(q),  d_q(p) = q/p if p > q, else (1 − q)/(1 − p),
//!
//! "the maximum proportion of positions that can have probability p" when the average is q.
//! Computed by numerical integration (adaptive Gauss–Kronrod, the Beta density and regularized
//! incomplete Beta function from `statrs`); a closed form checks it.
//!
//! Reachability (§4.1, last sentence: "keep track of which patterns are reachable in one move")
//! refines d: under σ, a position's probability is an average of its successors', so if the
//! successors of the positions matching χ all have probabilities within `[lo, hi]`, so does every
//! position matching χ, and the most extreme split becomes
//! d_q(p) = (q − lo)/(p − lo) if p > q, else (hi − q)/(hi − p), for p, q in `[lo, hi]`, with the
//! Beta restricted to `[lo, hi]`. `[0, 1]` gives the seed's formula.

use statrs::function::beta::{beta_reg, inv_beta_reg, ln_beta};

use super::quad::integrate;

/// The counts of an entry: n matches, r of them with the formula satisfied.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Counts {
    /// Matches.
    pub n: u64,
    /// Satisfactions (r ≤ n).
    pub r: u64,
}

impl Counts {
    /// The Beta parameters (α, β) = (r + 1, n + 1 − r).
    pub fn beta(self) -> (f64, f64) {
        ((self.r + 1) as f64, (self.n + 1 - self.r) as f64)
    }
    /// The posterior mean (r + 1)/(n + 2).
    pub fn mean(self) -> f64 {
        (self.r + 1) as f64 / (self.n + 2) as f64
    }
    /// One more match, satisfied or not.
    pub fn add(&mut self, satisfied: bool) {
        self.n += 1;
        self.r += u64::from(satisfied);
    }
}

/// The most extreme split: d_q(p) within `[lo, hi]` (the seed's formula for `[0, 1]`).
pub fn d_q(p: f64, q: f64, lo: f64, hi: f64) -> f64 {
    if p < lo || p > hi {
        return 0.0;
    }
    if p > q {
        (q - lo) / (p - lo)
    } else if p < q {
        (hi - q) / (hi - p)
    } else {
        1.0
    }
}

/// The Beta(α, β) density.
pub fn beta_pdf(a: f64, b: f64, x: f64) -> f64 {
    if !(0.0..=1.0).contains(&x) {
        return 0.0;
    }
    let lx = if x > 0.0 { x.ln() } else { f64::NEG_INFINITY };
    let l1 = if x < 1.0 { (1.0 - x).ln() } else { f64::NEG_INFINITY };
    let t = (a - 1.0) * if a == 1.0 { 0.0 } else { lx } + (b - 1.0) * if b == 1.0 { 0.0 } else { l1 };
    (t - ln_beta(a, b)).exp()
}

/// Break points for integrating a Beta(α, β) density over `[lo, hi]`: around its mean, out to
/// 30 standard deviations, so that no adaptive panel steps over the spike.
fn breaks(a: f64, b: f64, lo: f64, hi: f64, extra: f64) -> Vec<f64> {
    let m = a / (a + b);
    let s = (a * b / ((a + b) * (a + b) * (a + b + 1.0))).sqrt();
    let mut v = vec![lo, hi, extra.clamp(lo, hi)];
    for t in [
        -30.0, -16.0, -8.0, -4.0, -2.0, -1.0, 0.0, 1.0, 2.0, 4.0, 8.0, 16.0, 30.0,
    ] {
        v.push((m + t * s).clamp(lo, hi));
    }
    v.sort_by(f64::total_cmp);
    v.dedup();
    v
}

/// The conservative estimate d(p) for an entry with `counts`, its probabilities known to lie in
/// `[lo, hi]` (reachability; `[0, 1]` when unknown), by numerical integration.
pub fn conservative(p: f64, counts: Counts, lo: f64, hi: f64) -> f64 {
    let (a, b) = counts.beta();
    let z = if lo <= 0.0 && hi >= 1.0 {
        1.0
    } else {
        beta_reg(a, b, hi) - beta_reg(a, b, lo)
    };
    if z <= 0.0 {
        return d_q(p, p.clamp(lo, hi), lo, hi);
    }
    let bp = breaks(a, b, lo, hi, p);
    let mut total = 0.0;
    for w in bp.windows(2) {
        total += integrate(|q| d_q(p, q, lo, hi) * beta_pdf(a, b, q), w[0], w[1], 1e-14);
    }
    total / z
}

/// The same for `[0, 1]` in closed form: d(p) = μ·I_p(α+1, β)/p + (1 − μ)·(1 − I_p(α, β+1))/(1 − p).
pub fn conservative_closed(p: f64, counts: Counts) -> f64 {
    let (a, b) = counts.beta();
    let mu = a / (a + b);
    let left = if p > 0.0 { mu * beta_reg(a + 1.0, b, p) / p } else { 0.0 };
    let right = if p < 1.0 {
        (1.0 - mu) * (1.0 - beta_reg(a, b + 1.0, p)) / (1.0 - p)
    } else {
        0.0
    };
    left + right
}

/// A Monte-Carlo estimate of d(p) (stratified: q from the Beta's inverse CDF at one uniform point
/// in each of `samples` strata), for tests and checks.
pub fn conservative_monte_carlo(p: f64, counts: Counts, samples: usize, seed: u64) -> f64 {
    let (a, b) = counts.beta();
    let mut rng = crate::go::fastboard::FastRng::new(seed);
    let mut sum = 0.0;
    for i in 0..samples {
        let u = (i as f64 + rng.unit()) / samples as f64;
        let q = inv_beta_reg(a, b, u);
        sum += d_q(p, q, 0.0, 1.0);
    }
    sum / samples as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn d_q_hand_computed() {
        // q = 0.3: p = 0.6 → 0.3/0.6 = 0.5; p = 0.1 → 0.7/0.9
        assert_eq!(d_q(0.6, 0.3, 0.0, 1.0), 0.5);
        assert!((d_q(0.1, 0.3, 0.0, 1.0) - 0.7 / 0.9).abs() < 1e-15);
        assert_eq!(d_q(0.3, 0.3, 0.0, 1.0), 1.0);
        // within [0.2, 0.8]: p = 0.6 → (0.3 − 0.2)/(0.6 − 0.2) = 0.25; outside → 0
        assert!((d_q(0.6, 0.3, 0.2, 0.8) - 0.25).abs() < 1e-15);
        assert_eq!(d_q(0.9, 0.3, 0.2, 0.8), 0.0);
    }

    #[test]
    fn beta_of_counts() {
        let c = Counts { n: 10, r: 7 };
        assert_eq!(c.beta(), (8.0, 4.0));
        assert_eq!(c.mean(), 8.0 / 12.0);
        // Beta(2, 2) density at 0.5 = 6 · 0.25 = 1.5
        assert!((beta_pdf(2.0, 2.0, 0.5) - 1.5).abs() < 1e-12);
    }

    #[test]
    fn no_matches_hand_computed() {
        // n = 0: q uniform. d(p) = ∫_0^p q/p dq + ∫_p^1 (1−q)/(1−p) dq = p/2 + (1−p)/2 = 1/2.
        for p in [0.05, 0.3, 0.5, 0.9] {
            assert!((conservative(p, Counts::default(), 0.0, 1.0) - 0.5).abs() < 1e-12);
        }
        // n = 1, r = 1: density 2q. d(p) = ∫_0^p 2q²/p + ∫_p^1 2q(1−q)/(1−p)
        //   = 2p²/3 + (1/3 − p² + 2p³/3)/(1 − p); at p = 0.5: 1/6 + (1/3 − 1/4 + 1/12)/0.5 = 1/2.
        assert!((conservative(0.5, Counts { n: 1, r: 1 }, 0.0, 1.0) - 0.5).abs() < 1e-12);
        // at p = 0.25: 2/48 + (1/3 − 1/16 + 1/96)/(3/4) = 1/24 + 0.375 = 0.416666…
        assert!((conservative(0.25, Counts { n: 1, r: 1 }, 0.0, 1.0) - (1.0 / 24.0 + 0.375)).abs() < 1e-12);
    }

    #[test]
    fn integration_equals_the_closed_form_and_monte_carlo() {
        for c in [
            Counts { n: 3, r: 1 },
            Counts { n: 40, r: 38 },
            Counts { n: 1000, r: 500 },
            Counts { n: 5000, r: 12 },
        ] {
            for p in [0.01, 0.2, 0.5, 0.77, 0.99] {
                let num = conservative(p, c, 0.0, 1.0);
                let closed = conservative_closed(p, c);
                assert!((num - closed).abs() < 1e-10, "{c:?} {p}: {num} vs {closed}");
                let mc = conservative_monte_carlo(p, c, 20_000, 7);
                assert!((num - mc).abs() < 1e-4, "{c:?} {p}: {num} vs MC {mc}");
            }
        }
    }

    #[test]
    fn reachability_bounds_make_the_estimate_spikier() {
        let c = Counts { n: 20, r: 10 };
        let wide = conservative(0.5, c, 0.0, 1.0);
        let narrow = conservative(0.5, c, 0.3, 0.7);
        let far_wide = conservative(0.65, c, 0.0, 1.0);
        let far_narrow = conservative(0.65, c, 0.3, 0.7);
        assert!(narrow > 0.0 && wide > 0.0);
        assert!(
            far_narrow / narrow < far_wide / wide,
            "relatively less mass far from the mean"
        );
        assert_eq!(conservative(0.9, c, 0.3, 0.7), 0.0);
    }
}
