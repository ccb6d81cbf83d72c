//! Numerical integration for Gomi's estimates: adaptive Gauss–Kronrod (7–15 points) for single
//! integrals, and Gauss–Legendre panels with their integration matrix (the integral of the
//! interpolating polynomial from a panel's start to each node), used to carry many cumulative
//! distribution functions along one grid at once.

/// Gauss–Kronrod 15-point nodes (non-negative half) and weights, with the embedded 7-point Gauss
/// weights.
const XGK: [f64; 8] = [
    0.991_455_371_120_812_6,
    0.949_107_912_342_758_5,
    0.864_864_423_359_769_1,
    0.741_531_185_599_394_4,
    0.586_087_235_467_691_1,
    0.405_845_151_377_397_2,
    0.207_784_955_007_898_5,
    0.0,
];
const WGK: [f64; 8] = [
    0.022_935_322_010_529_22,
    0.063_092_092_629_978_55,
    0.104_790_010_322_250_2,
    0.140_653_259_715_525_9,
    0.169_004_726_639_267_9,
    0.190_350_578_064_785_4,
    0.204_432_940_075_298_9,
    0.209_482_141_084_727_8,
];
const WG: [f64; 4] = [
    0.129_484_966_168_869_7,
    0.279_705_391_489_276_7,
    0.381_830_050_505_118_9,
    0.417_959_183_673_469_4,
];

fn gk15(f: &mut impl FnMut(f64) -> f64, a: f64, b: f64) -> (f64, f64) {
    let c = 0.5 * (a + b);
    let h = 0.5 * (b - a);
    let fc = f(c);
    let mut k = fc * WGK[7];
    let mut g = fc * WG[3];
    for j in 0..7 {
        let x = h * XGK[j];
        let s = f(c - x) + f(c + x);
        k += WGK[j] * s;
        if j % 2 == 1 {
            g += WG[j / 2] * s;
        }
    }
    (k * h, ((k - g) * h).abs())
}

/// ∫_a^b f by adaptive Gauss–Kronrod to an absolute tolerance `tol`.
pub fn integrate(mut f: impl FnMut(f64) -> f64, a: f64, b: f64, tol: f64) -> f64 {
    if b <= a {
        return 0.0;
    }
    let mut stack = vec![(a, b, tol, 0u32)];
    let mut total = 0.0;
    while let Some((a, b, t, depth)) = stack.pop() {
        let (v, e) = gk15(&mut f, a, b);
        if e <= t || depth >= 40 || b - a < 1e-15 {
            total += v;
        } else {
            let m = 0.5 * (a + b);
            stack.push((a, m, t / 2.0, depth + 1));
            stack.push((m, b, t / 2.0, depth + 1));
        }
    }
    total
}

/// Legendre polynomial P_n(x) and its derivative.
fn legendre(n: usize, x: f64) -> (f64, f64) {
    let (mut p0, mut p1) = (1.0, x);
    if n == 0 {
        return (1.0, 0.0);
    }
    for k in 2..=n {
        let p2 = ((2 * k - 1) as f64 * x * p1 - (k - 1) as f64 * p0) / k as f64;
        p0 = p1;
        p1 = p2;
    }
    let d = n as f64 * (x * p1 - p0) / (x * x - 1.0);
    (p1, d)
}

/// An n-point Gauss–Legendre rule on [−1, 1] with its integration matrix.
#[derive(Debug, Clone)]
pub struct Panel {
    /// Nodes, increasing.
    pub x: Vec<f64>,
    /// Weights.
    pub w: Vec<f64>,
    /// `s[i][k]`: ∫_{−1}^{x_i} ℓ_k, ℓ_k the Lagrange polynomial of node k.
    pub s: Vec<Vec<f64>>,
}

impl Panel {
    /// The rule with `n` nodes.
    pub fn new(n: usize) -> Panel {
        let mut x = vec![0.0; n];
        let mut w = vec![0.0; n];
        for i in 0..n {
            let mut z = (std::f64::consts::PI * (i as f64 + 0.75) / (n as f64 + 0.5)).cos();
            for _ in 0..100 {
                let (p, d) = legendre(n, z);
                let dz = p / d;
                z -= dz;
                if dz.abs() < 1e-16 {
                    break;
                }
            }
            let (_, d) = legendre(n, z);
            x[n - 1 - i] = z;
            w[n - 1 - i] = 2.0 / ((1.0 - z * z) * d * d);
        }
        // ℓ_k(t) = w_k Σ_{m<n} (m + ½) P_m(x_k) P_m(t); ∫_{−1}^{x} P_0 = x + 1,
        // ∫_{−1}^{x} P_m = (P_{m+1}(x) − P_{m−1}(x)) / (2m + 1).
        let mut s = vec![vec![0.0; n]; n];
        for (i, row) in s.iter_mut().enumerate() {
            for (k, cell) in row.iter_mut().enumerate() {
                let mut v = 0.5 * (x[i] + 1.0);
                for m in 1..n {
                    let int = (legendre(m + 1, x[i]).0 - legendre(m - 1, x[i]).0) / (2 * m + 1) as f64;
                    v += (m as f64 + 0.5) * legendre(m, x[k]).0 * int;
                }
                *cell = w[k] * v;
            }
        }
        Panel { x, w, s }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gauss_kronrod_integrates_known_integrals() {
        assert!((integrate(|x| x.exp(), 0.0, 1.0, 1e-13) - (1f64.exp() - 1.0)).abs() < 1e-12);
        assert!((integrate(|x| 1.0 / (1.0 + x * x), 0.0, 1.0, 1e-13) - std::f64::consts::FRAC_PI_4).abs() < 1e-12);
        // a kink
        assert!((integrate(|x: f64| (x - 0.3).abs(), 0.0, 1.0, 1e-12) - (0.045 + 0.245)).abs() < 1e-10);
    }

    #[test]
    fn the_panel_rule_and_its_integration_matrix_are_exact_for_polynomials() {
        let p = Panel::new(8);
        let sum: f64 = p.w.iter().sum();
        assert!((sum - 2.0).abs() < 1e-14);
        // ∫_{−1}^{x} t^5 dt = (x^6 − 1)/6, exact for degree < 8
        for i in 0..8 {
            let v: f64 = (0..8).map(|k| p.s[i][k] * p.x[k].powi(5)).sum();
            assert!((v - (p.x[i].powi(6) - 1.0) / 6.0).abs() < 1e-14, "{i}");
        }
        let v: f64 = (0..8).map(|k| p.w[k] * p.x[k].powi(14)).sum();
        assert!((v - 2.0 / 15.0).abs() < 1e-14);
    }
}
