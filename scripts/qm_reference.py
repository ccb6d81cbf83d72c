#!/usr/bin/env python3
"""q_m of `ets::knowledge::gomi::qm::overlapping_361` (361 distinct, overlapping Beta posteriors,
every one contending) to 20 significant digits with mpmath, independently of ets: the reference
values of the test `all_361_contending_against_a_20_digit_reference` in src/knowledge/gomi/qm.rs.

    python3 scripts/qm_reference.py 6 0 180      # about a minute per move

q_m = ∫ f_m(x) ∏_{j≠m} F_j(x) dx, f and F the Beta(r+1, n+1−r) density and regularized incomplete
Beta function (mpmath.betainc), integrated by Gauss–Legendre on 20 panels over [0.35, 0.85] (below
0.35 the product of the others' CDFs is under 1e-30, above 0.85 every density is).
"""
import sys

import mpmath as mp

mp.mp.dps = 20
DISTS = []
for i in range(361):
    n = 100 + i
    r = n // 2 + (i % 7)
    DISTS.append((r + 1, n + 1 - r))


def q(m):
    a, b = DISTS[m]

    def integrand(x):
        v = x ** (a - 1) * (1 - x) ** (b - 1) / mp.beta(a, b)
        for j, (aj, bj) in enumerate(DISTS):
            if j != m:
                v *= mp.betainc(aj, bj, 0, x, regularized=True)
        return v

    pts = [mp.mpf("0.35") + k * mp.mpf("0.025") for k in range(21)]
    return sum(mp.quad(integrand, [u, v], method="gauss-legendre", maxdegree=3) for u, v in zip(pts, pts[1:]))


if __name__ == "__main__":
    for arg in sys.argv[1:] or ["6"]:
        print(arg, mp.nstr(q(int(arg)), 15), flush=True)
