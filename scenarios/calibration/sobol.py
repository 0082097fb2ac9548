#!/usr/bin/python3
"""sobol.py -- Sobol global sensitivity analysis of lambda, reserve_price and
bias_scale together (study 1, DESIGN §7).

  sobol.py design BASE_SWEEP.json N OUT_SWEEP.json
      The Saltelli design: two N x 3 matrices A and B from the first N points
      of the 6-dimensional Sobol sequence after its first point (GSL
      gsl_qrng_sobol, through ctypes: columns 0-2 give A, columns 3-5
      shifted by 1/3 modulo 1 give B), and for each factor i the
      matrix AB_i = A with column i taken from B: N (k + 2) = 5 N points, in
      the order A, B, AB_1, AB_2, AB_3.  u in [0, 1) maps to
        lambda        = 0.005 + u (0.5 - 0.005)
        reserve_price = 0 for u < 1/4, else floor((u - 1/4) / (3/4) x 5e7)
                                               (base units per fire: a quarter
                                               of the rows at reserve 0, where
                                               bid-0 timers can fire on Bias)
        bias_scale    = floor(10^(5 + 2 u))    (1e5 .. 1e7, log-uniform)
      Each point becomes one value of the grid path "params" (the base
      params with the three factors replaced), run with the base's seeds.
  sobol.py analyze SWEEP_DIR METRIC [METRIC...]
      Per mechanism and metric (mean over the seeds of each point): the
      first-order index (Saltelli et al. 2010)
        S_i  = mean_j f(B)_j (f(AB_i)_j - f(A)_j) / V
      and the total index (Jansen 1999)
        ST_i = mean_j (f(A)_j - f(AB_i)_j)^2 / (2 V),
      V the variance of f over the rows of A and B, with 95 % percentile
      bootstrap intervals over the N rows (2,000 resamples, Python's
      random.Random(1)).  Prints Markdown.
Needs python3-h5py and numpy (Debian).
"""
import ctypes
import json
import math
import random
import sys

FACTORS = ["lambda", "reserve_price", "bias_scale"]


def sobol_points(n, dim):
    ctypes.CDLL("libgslcblas.so.0", mode=ctypes.RTLD_GLOBAL)
    g = ctypes.CDLL("libgsl.so.27")
    g.gsl_qrng_alloc.restype = ctypes.c_void_p
    g.gsl_qrng_alloc.argtypes = [ctypes.c_void_p, ctypes.c_uint]
    g.gsl_qrng_get.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_double)]
    g.gsl_qrng_free.argtypes = [ctypes.c_void_p]
    t = ctypes.c_void_p.in_dll(g, "gsl_qrng_sobol")
    q = g.gsl_qrng_alloc(t, dim)
    buf = (ctypes.c_double * dim)()
    pts = []
    for _ in range(n):
        g.gsl_qrng_get(q, buf)
        pts.append(list(buf))
    g.gsl_qrng_free(q)
    return pts


def factor_values(u):
    return {
        "lambda": round(0.005 + u[0] * (0.5 - 0.005), 6),
        "reserve_price": 0 if u[1] < 0.25 else int(math.floor((u[1] - 0.25) / 0.75 * 5e7)),
        "bias_scale": int(math.floor(10 ** (5 + 2 * u[2]))),
    }


def saltelli_rows(n):
    """The 5 n rows of the design (A, B, AB_1..3) as unit-cube points."""
    pts = sobol_points(n + 1, 6)[1:]  # the first point (all 0.5) would give A = B
    A = [p[:3] for p in pts]
    # B rotated by 1/3 (Cranley-Patterson) so that no AB_i row repeats a row
    # of A or B (the sweep refuses duplicate points)
    B = [[(u + 1.0 / 3.0) % 1.0 for u in p[3:]] for p in pts]
    rows = A + B
    for i in range(3):
        rows += [[b[k] if k == i else a[k] for k in range(3)] for a, b in zip(A, B)]
    return rows


def point_of_row(n):
    """Row of the design -> sweep point.  Rows whose factor values are equal
    (AB_reserve = A when both reserves map to 0) share one point: the sweep
    refuses duplicate points, and equal values give equal f."""
    seen, idx = {}, []
    for u in saltelli_rows(n):
        key = tuple(sorted(factor_values(u).items()))
        if key not in seen:
            seen[key] = len(seen)
        idx.append(seen[key])
    return idx, seen


def design(base_path, n, out_path):
    sw = json.load(open(base_path))
    _, seen = point_of_row(n)
    base_params = sw["base"]["params"]
    vals = []
    for key in sorted(seen, key=seen.get):
        p = dict(base_params)
        p.update(dict(key))
        vals.append(p)
    sw["grid"] = {"params": vals}
    sw["description"] = sw.get("description", "") + (
        " Saltelli design of sobol.py: N = %d, rows A, B, AB_lambda, AB_reserve_price, AB_bias_scale "
        "(%d rows, %d distinct points; rows with equal factor values share a point)." % (n, 5 * n, len(vals)))
    json.dump(sw, open(out_path, "w"), indent=1)
    return 0


def analyze(d, metrics):
    import h5py

    h = h5py.File(d + "/sweep.h5", "r")
    r = h["runs"][:]
    n = int(json.loads(h.attrs["sweep_json"])["description"].split("sobol.py: N = ")[1].split(",")[0])
    rowpt, _ = point_of_row(n)
    npts = len(rowpt)
    mechs = sorted(set(x.decode() if isinstance(x, bytes) else x for x in r["mechanism"]))
    out = ["## Sobol sensitivity of %s (sobol.py)" % ", ".join(FACTORS), "",
           "Saltelli design with N = %d base rows (%d rows), %d seed(s) per point (metric averaged over the "
           "seeds), lambda in [0.005, 0.5], reserve_price 0 on a quarter of the unit interval and [0, 5e7] on the rest, bias_scale in [1e5, 1e7] (log-uniform). "
           "S: first-order index (Saltelli 2010), ST: total index (Jansen 1999), 95 %% bootstrap intervals over "
           "the N rows." % (n, npts, len(set(r["seed"]))), ""]
    for m in mechs:
        for met in metrics:
            fp = {}
            for x in r:
                mm = x["mechanism"].decode() if isinstance(x["mechanism"], bytes) else x["mechanism"]
                if mm == m and math.isfinite(float(x[met])):
                    fp.setdefault(int(x["point"]), []).append(float(x[met]))
            f = [sum(fp[p]) / len(fp[p]) if fp.get(p) else float("nan") for p in rowpt]
            fA, fB = f[:n], f[n:2 * n]
            fAB = [f[(2 + i) * n:(3 + i) * n] for i in range(3)]

            def idx(rows):
                # centred on the mean of A and B (the estimators are shift
                # invariant in expectation; centring keeps S stable when the
                # mean is large against the spread)
                mu_c = sum(fA[j] + fB[j] for j in rows) / (2 * len(rows))
                mu = mu_c
                a = [fA[j] - mu for j in rows]
                b = [fB[j] - mu for j in rows]
                allv = a + b
                mu = 0.0
                V = sum((v - mu) ** 2 for v in allv) / (len(allv) - 1)
                res = []
                for i in range(3):
                    ab = [fAB[i][j] - mu_c for j in rows]
                    if V <= 0:
                        res.append((float("nan"), float("nan")))
                        continue
                    S = sum(bb * (x - aa) for bb, x, aa in zip(b, ab, a)) / len(rows) / V
                    ST = sum((aa - x) ** 2 for aa, x in zip(a, ab)) / len(rows) / (2 * V)
                    res.append((S, ST))
                return res

            if any(not math.isfinite(v) for v in f):
                out.append("%s / %s: undefined values, skipped." % (m, met))
                continue
            est = idx(list(range(n)))
            rng = random.Random(1)
            boots = [idx([rng.randrange(n) for _ in range(n)]) for _ in range(2000)]
            out.append("### %s, %s" % (m, met))
            out.append("")
            out.append("| factor | S [95 % interval] | ST [95 % interval] |")
            out.append("|---|---|---|")
            for i, fac in enumerate(FACTORS):
                def q(k):
                    v = sorted(b[i][k] for b in boots if math.isfinite(b[i][k]))
                    if not v:
                        return "-"
                    return "[%.3f, %.3f]" % (v[int(0.025 * (len(v) - 1))], v[int(0.975 * (len(v) - 1))])
                out.append("| %s | %.3f %s | %.3f %s |" % (fac, est[i][0], q(0), est[i][1], q(1)))
            out.append("")
    sys.stdout.write("\n".join(out) + "\n")
    return 0


def main(argv):
    if len(argv) == 5 and argv[1] == "design":
        return design(argv[2], int(argv[3]), argv[4])
    if len(argv) >= 4 and argv[1] == "analyze":
        return analyze(argv[2], argv[3:])
    sys.stderr.write("usage: sobol.py design BASE_SWEEP.json N OUT.json | analyze SWEEP_DIR METRIC...\n")
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
