# cs_stats_ref.py -- reference statistics for the script tests, written
# from the textbook definitions with numpy only (independent of cowsim's
# C code): the normal CDF and its inverse, the Student-t interval and the
# BCa bootstrap interval of a mean (Efron 1987).
import math

import numpy as np

# t(9, 0.975) = 2.262157162740992 (Student-t table, 9 degrees of freedom:
# 2.262; test_compare_seeds.sh checks the digits by integrating the density).
T9 = 2.262157162740992


def phi(z):
    return 0.5 * (1 + math.erf(z / math.sqrt(2)))


def phinv(p):
    lo, hi = -10.0, 10.0
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if phi(mid) < p else (lo, mid)
    return (lo + hi) / 2


def tint(x, tq):
    """mean, lo, hi of the t interval with quantile tq."""
    x = np.asarray(x, float)
    m = float(x.mean())
    h = tq * float(x.std(ddof=1)) / math.sqrt(len(x))
    return m, m - h, m + h


def bca(x, B=20000, level=0.95, seed=7):
    """BCa bootstrap interval of the mean: numpy's generator, B resamples."""
    x = np.asarray(x, float)
    n = len(x)
    m = x.mean()
    jack = (x.sum() - x) / (n - 1)
    d = jack.mean() - jack
    if np.all(d == 0):
        return float(m), float(m)
    a = np.sum(d ** 3) / (6 * np.sum(d ** 2) ** 1.5)
    means = np.random.default_rng(seed).choice(x, (B, n)).mean(axis=1)
    p = (np.sum(means < m) + 0.5 * np.sum(means == m)) / B
    p = min(max(p, 0.5 / B), 1 - 0.5 / B)
    z0 = phinv(p)
    out = []
    for z in (phinv((1 - level) / 2), phinv((1 + level) / 2)):
        out.append(float(np.quantile(means, phi(z0 + (z0 + z) / (1 - a * (z0 + z))))))
    return out
