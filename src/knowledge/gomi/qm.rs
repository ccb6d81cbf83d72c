//! Step 3 of Gomi's strategy σ (J. Hurd, *The Design of Gomi*, §2): the probability that move m's
//! winning probability p_m is the largest among the legal moves,
//!
//! q_m = ∫ f_m(x) ∏_{j≠m} F_j(x) dx,
//!
//! the p_j independent with densities f_j (each a Beta distribution, possibly restricted to an
//! interval by reachability). Moves with the same distribution are grouped; the integral is taken
//! only above a cut-off below which some distribution has no mass (10⁻¹⁴), on Gauss–Legendre
//! panels placed around every contending distribution (from its mean out to 21 standard
//! deviations, no closer than a quarter of the smallest), with each distribution's CDF carried
//! along the panels by the panel rule's integration matrix (so the only special-function calls
//! are one incomplete Beta per distribution at the cut-off), each only on the panels that meet
//! its support, and the product ∏ F_j kept directly (q_m's integrand is f_m times the product over
//! F_m, no logarithms). Accuracy is checked against
//! adaptive quadrature with `statrs`'s exact CDFs and against Monte Carlo (tests); speed by
//! `cargo bench --bench gomi`.

use std::sync::OnceLock;

use statrs::function::beta::{beta_reg, ln_beta};

use super::estimate::Counts;
use super::quad::Panel;

/// The distribution of one move's winning probability: Beta(α, β) restricted to `[lo, hi]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Dist {
    /// α.
    pub alpha: f64,
    /// β.
    pub beta: f64,
    /// Lower end of the support.
    pub lo: f64,
    /// Upper end.
    pub hi: f64,
}

impl Dist {
    /// B_{r,n} on [0, 1].
    pub fn posterior(c: Counts) -> Dist {
        let (alpha, beta) = c.beta();
        Dist {
            alpha,
            beta,
            lo: 0.0,
            hi: 1.0,
        }
    }
    /// The distribution of 1 − p (the other player's view).
    pub fn flipped(self) -> Dist {
        Dist {
            alpha: self.beta,
            beta: self.alpha,
            lo: 1.0 - self.hi,
            hi: 1.0 - self.lo,
        }
    }
    /// Restricted to `[lo, hi]` (intersected with its support).
    pub fn within(self, lo: f64, hi: f64) -> Dist {
        Dist {
            lo: self.lo.max(lo),
            hi: self.hi.min(hi),
            ..self
        }
    }
    fn truncated(&self) -> bool {
        self.lo > 0.0 || self.hi < 1.0
    }
    fn mass(&self) -> f64 {
        if self.truncated() {
            beta_reg(self.alpha, self.beta, self.hi) - beta_reg(self.alpha, self.beta, self.lo)
        } else {
            1.0
        }
    }
    /// The CDF (exact, `statrs`).
    pub fn cdf(&self, x: f64) -> f64 {
        if x <= self.lo {
            return 0.0;
        }
        if x >= self.hi {
            return 1.0;
        }
        let b0 = if self.lo > 0.0 {
            beta_reg(self.alpha, self.beta, self.lo)
        } else {
            0.0
        };
        (beta_reg(self.alpha, self.beta, x) - b0) / self.mass()
    }
    /// The density.
    pub fn pdf(&self, x: f64) -> f64 {
        if x < self.lo || x > self.hi {
            return 0.0;
        }
        super::estimate::beta_pdf(self.alpha, self.beta, x) / self.mass()
    }
    fn mean_sd(&self) -> (f64, f64) {
        let (a, b) = (self.alpha, self.beta);
        let m = a / (a + b);
        let s = (a * b / ((a + b) * (a + b) * (a + b + 1.0))).sqrt();
        let s = s.min(self.hi - self.lo).max(1e-12);
        (m.clamp(self.lo, self.hi), s)
    }
    fn key(&self) -> [u64; 4] {
        [
            self.alpha.to_bits(),
            self.beta.to_bits(),
            self.lo.to_bits(),
            self.hi.to_bits(),
        ]
    }
}

const NODES: usize = 8;
const OFFSETS: [f64; 25] = [
    -21.0, -16.0, -12.0, -9.0, -7.0, -5.0, -4.0, -3.0, -2.0, -1.5, -1.0, -0.5, 0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 4.0, 5.0,
    7.0, 9.0, 12.0, 16.0, 21.0,
];

fn panel() -> &'static Panel {
    static P: OnceLock<Panel> = OnceLock::new();
    P.get_or_init(|| Panel::new(NODES))
}

struct Group {
    d: Dist,
    count: usize,
    mean: f64,
    sd: f64,
    lnorm: f64,
    sup: (f64, f64),
}

/// How [`q_max_with`] lays its grid.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Grid {
    /// The least panel width, in standard deviations of the narrowest contending distribution.
    pub gap: f64,
    /// Whether each distribution's span (where its CDF is carried; 0 below, 1 above) ends where a
    /// tail bound puts its mass beyond under 10⁻¹⁷ (log-concave densities: the tail beyond x is at
    /// most f(x)/|(ln f)′(x)|), rather than at 21 standard deviations from its mean.
    pub tight_spans: bool,
}

impl Grid {
    /// The grid of [`q_max`]: panels of at least two standard deviations, spans by tail bounds.
    pub const FAST: Grid = Grid {
        gap: 2.0,
        tight_spans: true,
    };
    /// The first implementation's grid (kept as the benchmark's peer and a second route in
    /// tests): panels of a quarter deviation, spans of ±21 deviations.
    pub const FINE: Grid = Grid {
        gap: 0.25,
        tight_spans: false,
    };
}

/// Where a distribution's CDF moves: from where less than 10⁻¹⁷ of its mass lies below to where
/// less than 10⁻¹⁷ lies above, found by stepping out from the mean by standard deviations and
/// bounding the tail by f(x)/|(ln f)′(x)| (valid past the mode of a log-concave density; Beta
/// posteriors have α, β ≥ 1). At most ±40 deviations; clipped to the support.
fn tight_span(d: &Dist, mean: f64, sd: f64, lnorm: f64) -> (f64, f64) {
    const EPS: f64 = 1e-17;
    let (a1, b1) = (d.alpha - 1.0, d.beta - 1.0);
    let lf = |x: f64| {
        (if a1 == 0.0 { 0.0 } else { a1 * x.ln() }) + (if b1 == 0.0 { 0.0 } else { b1 * (1.0 - x).ln() }) + lnorm
    };
    let g = |x: f64| a1 / x - b1 / (1.0 - x);
    if a1 < 0.0 || b1 < 0.0 {
        return ((mean - 21.0 * sd).max(d.lo), (mean + 21.0 * sd).min(d.hi));
    }
    let mut hi = d.hi;
    let mut lo = d.lo;
    for k in 6..=40 {
        let x = mean + k as f64 * sd;
        if x >= d.hi {
            break;
        }
        let gx = g(x);
        if gx < 0.0 && lf(x).exp() < EPS * -gx {
            hi = x;
            break;
        }
    }
    for k in 6..=40 {
        let x = mean - k as f64 * sd;
        if x <= d.lo {
            break;
        }
        let gx = g(x);
        if gx > 0.0 && lf(x).exp() < EPS * gx {
            lo = x;
            break;
        }
    }
    (lo, hi)
}

/// q_m for every move (in the order given). The values sum to 1 up to rounding.
pub fn q_max(dists: &[Dist]) -> Vec<f64> {
    q_max_with(dists, Grid::FAST)
}

/// [`q_max`] on a chosen grid.
pub fn q_max_with(dists: &[Dist], grid: Grid) -> Vec<f64> {
    let mut out = vec![0.0; dists.len()];
    if dists.is_empty() {
        return out;
    }
    // group equal distributions
    let mut order: Vec<usize> = (0..dists.len()).collect();
    order.sort_by_key(|&i| dists[i].key());
    let mut groups: Vec<Group> = Vec::new();
    let mut member = vec![0usize; dists.len()];
    for &i in &order {
        let d = dists[i];
        if groups.last().is_none_or(|g| g.d.key() != d.key()) {
            let (mean, sd) = d.mean_sd();
            let lnorm = -ln_beta(d.alpha, d.beta) - d.mass().max(1e-300).ln();
            let sup = if grid.tight_spans {
                tight_span(&d, mean, sd, lnorm)
            } else {
                ((mean - 21.0 * sd).max(d.lo), (mean + 21.0 * sd).min(d.hi))
            };
            groups.push(Group {
                d,
                count: 0,
                mean,
                sd,
                lnorm,
                sup,
            });
        }
        let g = groups.len() - 1;
        groups[g].count += 1;
        member[i] = g;
    }
    if groups.len() == 1 {
        return vec![1.0 / dists.len() as f64; dists.len()];
    }
    // the cut-off: below it the distribution with the highest lower tail has no mass
    let top = groups
        .iter()
        .enumerate()
        .max_by(|a, b| {
            (a.1.mean - 8.0 * a.1.sd)
                .max(a.1.d.lo)
                .total_cmp(&(b.1.mean - 8.0 * b.1.sd).max(b.1.d.lo))
        })
        .map(|(i, _)| i)
        .expect("groups");
    let g = &groups[top];
    let mut cut = (g.mean - 8.0 * g.sd).max(g.d.lo);
    while cut > g.d.lo && g.d.cdf(cut) > 1e-14 {
        cut = (cut - g.sd).max(g.d.lo);
    }
    for g in groups.iter().filter(|g| g.count > 1) {
        // the largest of `count` equal moves is below x with probability F(x)^count
        let q = (1e-14f64).powf(1.0 / g.count as f64);
        let a = statrs::function::beta::beta_reg(g.d.alpha, g.d.beta, g.d.lo);
        let z = g.d.mass();
        let x = statrs::function::beta::inv_beta_reg(g.d.alpha, g.d.beta, (a + q * z).min(1.0));
        if x.is_finite() && x > cut && g.d.cdf(x).powi(g.count as i32) <= 1e-13 {
            cut = x;
        }
    }
    let end = groups.iter().map(|g| g.sup.1).fold(cut, f64::max);
    if end <= cut {
        // every distribution is a point below the cut-off: share equally
        return vec![1.0 / dists.len() as f64; dists.len()];
    }
    // a move's q is at most P(p_m > cut): below 10⁻¹² it does not contend (q = 0)
    let mut at_cut = vec![0.0; groups.len()];
    let contending: Vec<usize> = (0..groups.len())
        .filter(|&k| {
            if groups[k].sup.1 <= cut {
                return false;
            }
            at_cut[k] = groups[k].d.cdf(cut);
            1.0 - at_cut[k] > 1e-12
        })
        .collect();
    let min_sd = contending.iter().map(|&k| groups[k].sd).fold(f64::INFINITY, f64::min);
    // panels
    let mut bp = vec![cut, end];
    for &k in &contending {
        let g = &groups[k];
        for t in OFFSETS {
            bp.push(g.mean + t * g.sd);
        }
        bp.push(g.d.lo);
        bp.push(g.d.hi);
    }
    bp.retain(|&x| x >= cut && x <= end);
    bp.sort_by(f64::total_cmp);
    // the ends of restricted supports are kinks: always panel boundaries
    let mut kinks: Vec<f64> = contending
        .iter()
        .flat_map(|&k| [groups[k].d.lo, groups[k].d.hi])
        .filter(|&x| x > cut && x < end)
        .collect();
    let gap = grid.gap * min_sd;
    let mut cuts = vec![bp[0]];
    for &x in &bp[1..] {
        let last = cuts[cuts.len() - 1];
        if (x - last >= gap.max(1e-12) || x == end) && x - last > 1e-15 {
            cuts.push(x);
        }
    }
    if *cuts.last().expect("cuts") < end {
        cuts.push(end);
    }
    cuts.append(&mut kinks);
    cuts.sort_by(f64::total_cmp);
    cuts.dedup_by(|a, b| (*a - *b).abs() < 1e-15);
    let np = cuts.len() - 1;
    let rule = panel();
    let mut sm = [[0.0f64; NODES]; NODES];
    let mut wv = [0.0f64; NODES];
    for (i, row) in sm.iter_mut().enumerate() {
        wv[i] = rule.w[i];
        for (k, x) in row.iter_mut().enumerate() {
            *x = rule.s[i][k];
        }
    }
    let nn = np * NODES;
    let mut xs = Vec::with_capacity(nn);
    let mut ws = Vec::with_capacity(nn);
    for p in 0..np {
        let (u, v) = (cuts[p], cuts[p + 1]);
        let h = 0.5 * (v - u);
        for i in 0..NODES {
            xs.push(0.5 * (u + v) + h * rule.x[i]);
            ws.push(h * rule.w[i]);
        }
    }
    let lx: Vec<f64> = xs.iter().map(|x| x.ln()).collect();
    let l1: Vec<f64> = xs.iter().map(|x| (1.0 - x).ln()).collect();
    // Per contending group, on the panels that meet its support only (below them F is its value
    // at the cut-off, above them 1, the density taken as 0): the density and the CDF at every
    // node, kept in one flat array (`off[ci]` where the group's first panel starts). `prod` is
    // ∏_k F_k^count at every node: the factors inside the supports are multiplied in directly,
    // those below them summed in logs per panel (`below`) and applied once per panel.
    let mut span = Vec::with_capacity(contending.len());
    let mut off = Vec::with_capacity(contending.len() + 1);
    let mut size = 0usize;
    for &k in &contending {
        let g = &groups[k];
        let p0 = cuts.partition_point(|&c| c <= g.sup.0).saturating_sub(1).min(np);
        let p1 = cuts.partition_point(|&c| c < g.sup.1).min(np);
        let p1 = p1.max(p0);
        span.push((p0, p1));
        off.push(size);
        size += (p1 - p0) * NODES;
    }
    off.push(size);
    let mut dens = vec![0.0; size];
    let mut cdf = vec![0.0; size];
    let mut prod = vec![1.0; nn];
    // factors F = 0 are counted instead of multiplied in, so that a move whose own F is 0 at a
    // node still finds the product of the others there in O(1)
    let mut zeros = vec![0u32; nn];
    let mut below = vec![0.0; np + 1];
    let mut f = [0.0; NODES];
    for (ci, &k) in contending.iter().enumerate() {
        let g = &groups[k];
        let (a1, b1) = (g.d.alpha - 1.0, g.d.beta - 1.0);
        let c = g.count as i32;
        let (p0, p1) = span[ci];
        // panels 0..p0 lie below the support: F = F(cut)
        if p0 > 0 {
            below[p0] += c as f64 * at_cut[k].max(1e-300).ln();
        }
        let mut fstart = at_cut[k];
        for p in p0..p1 {
            let (u, v) = (cuts[p], cuts[p + 1]);
            let h = 0.5 * (v - u);
            let base = p * NODES;
            let local = off[ci] + (p - p0) * NODES;
            for (i, fi) in f.iter_mut().enumerate() {
                let j = base + i;
                let x = xs[j];
                *fi = if x < g.d.lo || x > g.d.hi {
                    0.0
                } else {
                    let t = if a1 == 0.0 { 0.0 } else { a1 * lx[j] } + if b1 == 0.0 { 0.0 } else { b1 * l1[j] };
                    (t + g.lnorm).exp()
                };
            }
            for i in 0..NODES {
                let mut acc = 0.0;
                for k2 in 0..NODES {
                    acc += sm[i][k2] * f[k2];
                }
                let fx = (fstart + h * acc).clamp(0.0, 1.0);
                dens[local + i] = f[i];
                cdf[local + i] = fx;
                if fx == 0.0 {
                    zeros[base + i] += c as u32;
                } else {
                    prod[base + i] *= if c == 1 { fx } else { fx.powi(c) };
                }
            }
            let mut acc = 0.0;
            for k2 in 0..NODES {
                acc += wv[k2] * f[k2];
            }
            fstart = (fstart + h * acc).clamp(0.0, 1.0);
        }
    }
    // below[p] holds the groups whose support starts at panel p; panel p takes those starting later
    let mut later = 0.0;
    for p in (0..np).rev() {
        later += below[p + 1];
        if later != 0.0 {
            let m = later.exp();
            for x in &mut prod[p * NODES..(p + 1) * NODES] {
                *x *= m;
            }
        }
    }
    let mut qg = vec![0.0; groups.len()];
    for (ci, &k) in contending.iter().enumerate() {
        let (p0, p1) = span[ci];
        let mut q = 0.0;
        for (l, j) in (p0 * NODES..p1 * NODES).enumerate() {
            let fj = dens[off[ci] + l];
            if fj == 0.0 {
                continue;
            }
            let fk = cdf[off[ci] + l];
            // the others' product: F_k^(count−1) ∏_{k′≠k} F_k′^count′
            let rest = match (fk > 0.0, zeros[j]) {
                (true, 0) => prod[j] / fk,
                (false, 1) if groups[k].count == 1 => prod[j],
                _ => 0.0,
            };
            q += ws[j] * fj * rest;
        }
        qg[k] = q;
    }
    for (i, o) in out.iter_mut().enumerate() {
        *o = qg[member[i]];
    }
    out
}

/// A hard 361-move set (tests and benchmarks): 100 never-seen moves (uniform, tied), 60 tied at
/// (n, r) = (10, 6), 100 distinct moves seen 1–400 times at rates 0.3–0.8, 40 peaked ones seen
/// 10⁴–10⁵ times at rates 0.78–0.82, 11 tied at (10⁵, 80,000) and 50 tied at (400, 320).
pub fn mixed_361() -> Vec<Dist> {
    let c = |n: u64, r: u64| Dist::posterior(Counts { n, r });
    let mut rng = crate::go::fastboard::FastRng::new(361);
    let mut v = Vec::with_capacity(361);
    v.extend((0..100).map(|_| c(0, 0)));
    v.extend((0..60).map(|_| c(10, 6)));
    for _ in 0..100 {
        let n = 1 + rng.below(400) as u64;
        v.push(c(n, ((n as f64 * (0.3 + 0.5 * rng.unit())) as u64).min(n)));
    }
    for _ in 0..40 {
        let n = 10_000 + rng.below(90_001) as u64;
        v.push(c(n, (n as f64 * (0.78 + 0.04 * rng.unit())) as u64));
    }
    v.extend((0..11).map(|_| c(100_000, 80_000)));
    v.extend((0..50).map(|_| c(400, 320)));
    // interleaved, as a position's legal moves would be
    let mut order: Vec<usize> = (0..v.len()).collect();
    for i in (1..order.len()).rev() {
        order.swap(i, rng.below(i + 1));
    }
    order.into_iter().map(|i| v[i]).collect()
}

/// The worst case for speed (tests and benchmarks): 361 distinct, overlapping distributions, every
/// one contending — n = 100..460 around rate 0.5 (r = n/2 + 0..6).
pub fn overlapping_361() -> Vec<Dist> {
    (0..361u64)
        .map(|i| {
            let n = 100 + i;
            Dist::posterior(Counts { n, r: n / 2 + (i % 7) })
        })
        .collect()
}

/// Samples a move index from q (the strategy σ's step 4), given a uniform number in [0, 1).
pub fn sample(q: &[f64], u: f64) -> usize {
    let total: f64 = q.iter().sum();
    let mut t = u * total;
    for (i, &x) in q.iter().enumerate() {
        if t < x {
            return i;
        }
        t -= x;
    }
    q.iter().rposition(|&x| x > 0.0).unwrap_or(0)
}

/// A reference q_m by adaptive quadrature with exact CDFs (slow; tests and checks).
pub fn q_reference(dists: &[Dist], m: usize) -> f64 {
    let fm = dists[m];
    let (mean, sd) = fm.mean_sd();
    let mut bp: Vec<f64> = vec![fm.lo, fm.hi];
    for d in dists {
        let (mu, s) = d.mean_sd();
        for t in [
            -30.0, -10.0, -5.0, -3.0, -2.0, -1.0, 0.0, 1.0, 2.0, 3.0, 5.0, 10.0, 30.0,
        ] {
            bp.push(mu + t * s);
        }
    }
    let _ = (mean, sd);
    bp.retain(|&x| x >= fm.lo && x <= fm.hi);
    bp.sort_by(f64::total_cmp);
    bp.dedup();
    let mut total = 0.0;
    for w in bp.windows(2) {
        total += super::quad::integrate(
            |x| {
                let mut v = fm.pdf(x);
                if v == 0.0 {
                    return 0.0;
                }
                for (j, d) in dists.iter().enumerate() {
                    if j != m {
                        v *= d.cdf(x);
                        if v == 0.0 {
                            break;
                        }
                    }
                }
                v
            },
            w[0],
            w[1],
            1e-12,
        );
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::go::fastboard::FastRng;
    use statrs::function::beta::inv_beta_reg;

    fn d(n: u64, r: u64) -> Dist {
        Dist::posterior(Counts { n, r })
    }

    #[test]
    fn two_uniforms_and_a_hand_computed_pair() {
        // two uniform moves: ½ each; Beta(2,1) (density 2x) against uniform: ∫ 2x · x dx = 2/3
        let q = q_max(&[d(0, 0), d(0, 0)]);
        assert_eq!(q, vec![0.5, 0.5]);
        let q = q_max(&[d(1, 1), d(0, 0)]);
        assert!((q[0] - 2.0 / 3.0).abs() < 1e-12, "{q:?}");
        assert!((q[1] - 1.0 / 3.0).abs() < 1e-12);
        // Beta(1,2) (density 2(1−x)) against Beta(2,1): ∫ 2(1−x) x² dx = 2(1/3 − 1/4) = 1/6
        let q = q_max(&[d(1, 0), d(1, 1)]);
        assert!((q[0] - 1.0 / 6.0).abs() < 1e-12, "{q:?}");
        // three uniforms and a sure loser: the loser's q is 0 when its support ends below
        let q = q_max(&[d(0, 0), d(0, 0), d(0, 0)]);
        assert!(q.iter().all(|x| (x - 1.0 / 3.0).abs() < 1e-15));
    }

    #[test]
    fn agrees_with_adaptive_quadrature_and_sums_to_one() {
        let ds = [
            d(0, 0),
            d(3, 2),
            d(40, 30),
            d(1000, 700),
            d(1000, 690),
            d(5000, 3600),
            d(10, 1),
            d(20, 10).within(0.4, 0.9),
            d(200, 150).flipped().flipped(),
        ];
        let q = q_max(&ds);
        let sum: f64 = q.iter().sum();
        assert!((sum - 1.0).abs() < 1e-9, "{sum}");
        for (m, &qm) in q.iter().enumerate() {
            let r = q_reference(&ds, m);
            assert!((qm - r).abs() < 1e-7, "move {m}: {qm} vs {r}");
        }
    }

    /// Conditional Monte Carlo: with c moves sharing m's distribution, q_m = E[∏ F_j(y)]/c over
    /// the other distributions j, y the largest of the c, of density c·f_m·F_m^{c−1}. Drawn by
    /// stratified importance sampling, uniform over [t, u] (one draw per stratum) and weighted by
    /// that density: t, below which some other move's p is under 10⁻¹³ likely to be lower, and u,
    /// above which m's p is under 10⁻¹³ likely to lie, keep the draws where the product lives; exact CDFs from `statrs` (no inverse CDF, whose error
    /// would bias the estimate).
    fn q_monte_carlo(ds: &[Dist], m: usize, samples: usize, seed: u64) -> f64 {
        let mut rng = FastRng::new(seed);
        let fm = ds[m];
        assert!(!fm.truncated());
        let c = ds.iter().filter(|d| **d == fm).count();
        let t = ds
            .iter()
            .filter(|d| **d != fm)
            .map(|d| inv_beta_reg(d.alpha, d.beta, 1e-13))
            .fold(0.0, f64::max);
        // and u, above which m's own p lies with probability under 10⁻¹³
        let u = inv_beta_reg(fm.alpha, fm.beta, 1.0 - 1e-13).clamp(t, 1.0);
        let mut s = 0.0;
        for i in 0..samples {
            let y = t + (u - t) * (i as f64 + rng.unit()) / samples as f64;
            let mut v = c as f64 * fm.pdf(y) * fm.cdf(y).powi(c as i32 - 1);
            if v == 0.0 {
                continue;
            }
            for dj in ds {
                if *dj != fm {
                    v *= dj.cdf(y);
                }
            }
            s += v;
        }
        (u - t) * s / samples as f64 / c as f64
    }

    #[test]
    fn three_hundred_sixty_one_moves_to_1e_6_against_monte_carlo() {
        // a 19x19 position's legal moves: most never seen (uniform), some seen often
        let mut rng = FastRng::new(19);
        let mut ds = Vec::new();
        for i in 0..361 {
            if i % 3 == 0 {
                ds.push(d(0, 0));
            } else {
                let n = 1 + rng.below(400) as u64;
                let r = (n as f64 * (0.3 + 0.5 * rng.unit())) as u64;
                ds.push(d(n, r.min(n)));
            }
        }
        let q = q_max(&ds);
        let sum: f64 = q.iter().sum();
        assert!((sum - 1.0).abs() < 1e-9, "{sum}");
        let mut checked = 0;
        for m in 0..ds.len() {
            if m % 3 == 0 && m > 0 {
                assert_eq!(q[m], q[0], "equal distributions, equal q");
                continue;
            }
            if q[m] > 1e-2 || m < 3 {
                let mc = q_monte_carlo(&ds, m, 10_000, m as u64);
                assert!((q[m] - mc).abs() < 1e-6, "move {m}: {} vs MC {mc}", q[m]);
                checked += 1;
            }
        }
        assert!(checked >= 3);
    }

    #[test]
    fn mixed_361_moves_with_ties_and_peaked_densities_to_1e_6_against_monte_carlo() {
        let ds = mixed_361();
        assert_eq!(ds.len(), 361);
        let q = q_max(&ds);
        let sum: f64 = q.iter().sum();
        assert!((sum - 1.0).abs() < 1e-9, "{sum}");
        // equal distributions, equal q; and the first implementation's finer grid agrees
        for i in 0..ds.len() {
            for j in 0..i {
                if ds[i] == ds[j] {
                    assert_eq!(q[i], q[j]);
                }
            }
        }
        let fine = q_max_with(&ds, Grid::FINE);
        for (m, (a, b)) in q.iter().zip(&fine).enumerate() {
            assert!((a - b).abs() < 1e-8, "move {m} ({:?}): {a} vs fine grid {b}", ds[m]);
        }
        // against Monte Carlo: the ten distinct distributions of largest q, the three peaked ones of
        // largest q, and the three of least
        let mut distinct: Vec<usize> = Vec::new();
        for m in 0..ds.len() {
            if !distinct.iter().any(|&k| ds[k] == ds[m]) {
                distinct.push(m);
            }
        }
        distinct.sort_by(|&a, &b| q[b].total_cmp(&q[a]));
        let peaked: Vec<usize> = distinct
            .iter()
            .copied()
            .filter(|&m| ds[m].alpha + ds[m].beta > 1e4)
            .collect();
        // (100 uniform moves make a peaked one's chance to lead small, but not 0)
        assert!(q[peaked[0]] > 0.0, "peaked distributions (seen ≥ 10⁴ times) contend");
        let picks: Vec<usize> = distinct[..10]
            .iter()
            .chain(&peaked[..3])
            .chain(&distinct[distinct.len() - 3..])
            .copied()
            .collect();
        let mut checked = 0;
        for m in picks {
            let mc = q_monte_carlo(&ds, m, 5_000, m as u64);
            assert!((q[m] - mc).abs() < 1e-6, "move {m} ({:?}): {} vs MC {mc}", ds[m], q[m]);
            checked += 1;
        }
        assert_eq!(checked, 16);
    }

    /// The worst case for speed, every one of 361 distributions contending. Here the Monte Carlo
    /// above is not a yardstick at 10⁻⁶: its `statrs` CDFs, multiplied 360 at a time, carry a
    /// bias of a few 10⁻⁶ (it gave 0.0725453 and 0.0725424 for move 6). The reference values are
    /// from `scripts/qm_reference.py` (mpmath, 20 digits, independent of ets).
    #[test]
    fn all_361_contending_against_a_20_digit_reference() {
        let ds = overlapping_361();
        let q = q_max(&ds);
        let sum: f64 = q.iter().sum();
        // each q within 1e-8 of the fine grid (below); their 361 errors, of one sign, add up
        assert!((sum - 1.0).abs() < 1e-6, "{sum}");
        assert!(q.iter().all(|&x| x > 0.0), "every move contends");
        let fine = q_max_with(&ds, Grid::FINE);
        for (m, (a, b)) in q.iter().zip(&fine).enumerate() {
            assert!((a - b).abs() < 1e-8, "move {m}: {a} vs fine grid {b}");
        }
        for (m, reference) in REFERENCE_361 {
            assert!((q[m] - reference).abs() < 1e-8, "move {m}: {} vs {reference}", q[m]);
        }
    }

    /// `python3 scripts/qm_reference.py 6 0 180`: the largest q of `overlapping_361`, and two others.
    const REFERENCE_361: [(usize, f64); 3] = [
        (6, 0.072_546_990_220_55),
        (0, 0.005_872_275_357_357_16),
        (180, 0.000_367_649_589_666_718),
    ];

    #[test]
    fn sampling_follows_q() {
        let ds = [d(10, 8), d(10, 5), d(0, 0)];
        let q = q_max(&ds);
        let mut rng = FastRng::new(3);
        let mut seen = [0usize; 3];
        let n = 200_000;
        for _ in 0..n {
            seen[sample(&q, rng.unit())] += 1;
        }
        for i in 0..3 {
            let f = seen[i] as f64 / n as f64;
            let se = (q[i] * (1.0 - q[i]) / n as f64).sqrt();
            assert!((f - q[i]).abs() < 5.0 * se, "{i}: {f} vs {}", q[i]);
        }
        // and q itself is what plain Monte Carlo of the argmax gives
        let mut wins = [0usize; 3];
        let m = 200_000;
        for _ in 0..m {
            let mut best = (0, -1.0);
            for (j, dj) in ds.iter().enumerate() {
                let x = inv_beta_reg(dj.alpha, dj.beta, rng.unit());
                if x > best.1 {
                    best = (j, x);
                }
            }
            wins[best.0] += 1;
        }
        for i in 0..3 {
            let f = wins[i] as f64 / m as f64;
            let se = (q[i] * (1.0 - q[i]) / m as f64).sqrt();
            assert!((f - q[i]).abs() < 5.0 * se, "{i}: {f} vs {}", q[i]);
        }
    }
}
