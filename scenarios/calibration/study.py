#!/usr/bin/python3
"""study.py STUDY [--runs DIR] [--x5 DIR] [--out FILE] -- the comparisons a
calibration study asks for, with 95 % intervals, from its sweep summaries.

For each comparison of STUDIES[STUDY] the rows of DIR/sweep.h5 (/runs) are
paired by seed (and by every design parameter the comparison does not name):
a per-seed ratio a_s / b_s or difference a_s - b_s, whose mean and
Student-t interval mean +/- t(n-1, 0.975) s / sqrt(n) are printed per level
of the `by` parameter.  The t quantile is GSL's gsl_cdf_tdist_Pinv, called
through ctypes.  With --x5, the same comparisons on the x5-population sweep
(study.py --make-x5: 5 x the agents of every entry, each at a fifth of its
rate, same load) give the
scale check: per row "holds" when both intervals lie on the same side of
the null value (1 for a ratio, 0 for a difference) or both contain it,
"changes" otherwise.

Warm-up is removed.  Each run file gets a truncation point T: MSER-5
(White 1997; the algorithm of analysis/cs_stats.c cs_stat_mser5, ported
below) on its per-block lane utilisation, over the whole horizon for a
steady study, or over the blocks before the first event for a study whose
question is an event (STUDIES[...]["warmup"] = "pre-event": MSER-5 on the
whole series would read the event itself as a transient and may cut it
away; truncating before the event keeps it in the window).  Every metric
is then recomputed from the run file over the window: /blocks rows of
height > T (utilisation, basefee, burn, GC), /fires rows of fire height > T
(fires, paid, welfare, delays, Jain, attack gain, reversals), /timers rows
due after T (censored, starved).  A paired comparison uses the later of its
two runs' points, so both sides cover the same blocks.  `efficiency` (the
GLPK optimum of the whole run's demand) is the one whole-run metric.
`--check-window DIR` recomputes every windowed metric at T = 0 and compares
it with the C metrics in DIR/sweep.h5 (/runs); `--points DIR` prints each
run file's truncation point.

Writes Markdown (the study section of report.md) to --out or stdout.
Needs python3-h5py and numpy (Debian).
"""
import ctypes
import glob
import json
import math
import os
import sys

import h5py
import numpy as np

ctypes.CDLL("libgslcblas.so.0", mode=ctypes.RTLD_GLOBAL)
_gsl = ctypes.CDLL("libgsl.so.27")
_tinv = _gsl.gsl_cdf_tdist_Pinv
_tinv.restype = ctypes.c_double
_tinv.argtypes = [ctypes.c_double, ctypes.c_double]

# Each study: the comparisons it asks for.  a / b select rows by column
# value ("mechanism" or a design column such as "params_fairness_identity");
# op is "ratio" (a_s / b_s) or "diff" (a_s - b_s); by is the design column
# whose levels get one row each (a list: one row per combination; None: one
# row); rows of every other design column are paired, never pooled across.
# b_metric (default: metric) compares two metrics of the same run (b: {}).  metric may be "x/y", the
# ratio of two /runs columns in the same row, or "blocks.COL.max" /
# "blocks.COL.nonzero" read from the run's own file (/blocks), or
# "entry.E.pQQ" (delay percentile of scenario entry E's fires, /fires).  null: the value the scale
# check's verdict compares against (default 1 for a ratio, 0 otherwise).
STUDIES = {
    "01-lambda": {
        "question": "the bias growth rate lambda with strategic bidders, and the CIP-5 §9.3 failure mode: do bidders underbid and let Bias carry them",
        "comparisons": [
            {"label": "bias-fp learners: paid / welfare, ratio to lambda = 0.005", "metric": "paid/welfare", "op": "ratio",
             "a": {"mechanism": "bias-fp"}, "b": {"params_lambda": 0.005}, "by": "params_lambda"},
            {"label": "bias-vcg truthful bidders: paid / welfare, ratio to lambda = 0.005", "metric": "paid/welfare",
             "op": "ratio", "a": {"mechanism": "bias-vcg"}, "b": {"params_lambda": 0.005}, "by": "params_lambda"},
            {"label": "bias-fp: share of fires won by zero bids (waiting_game fires / fires)",
             "metric": "fires.waiting_game/fires", "op": "value", "null": 0.0, "a": {"mechanism": "bias-fp"},
             "by": "params_lambda"},
            {"label": "bias-vcg: share of fires won by zero bids (waiting_game fires / fires)",
             "metric": "fires.waiting_game/fires", "op": "value", "null": 0.0, "a": {"mechanism": "bias-vcg"},
             "by": "params_lambda"},
            {"label": "p99 delay, bias-fp - bias-vcg", "metric": "delay_p99", "op": "diff",
             "a": {"mechanism": "bias-fp"}, "b": {"mechanism": "bias-vcg"}, "by": "params_lambda"},
            {"label": "efficiency against the optimum (welfare / welfare_opt, whole run), bias-vcg", "metric": "efficiency", "null": 1.0,
             "op": "value", "a": {"mechanism": "bias-vcg"}, "by": "params_lambda"},
            {"label": "efficiency against the optimum (welfare / welfare_opt, whole run), bias-fp", "metric": "efficiency", "null": 1.0,
             "op": "value", "a": {"mechanism": "bias-fp"}, "by": "params_lambda"},
        ],
    },
    "02-reserve": {
        "question": "the reserve price with truthful VCG and learning first-price bidders at load 1.0",
        "comparisons": [
            {"label": "bias-vcg revenue (paid), ratio to reserve 0", "metric": "paid", "op": "ratio",
             "a": {"mechanism": "bias-vcg"}, "b": {"params_reserve_price": 0.0}, "by": "params_reserve_price"},
            {"label": "bias-fp revenue (paid), ratio to reserve 0", "metric": "paid", "op": "ratio",
             "a": {"mechanism": "bias-fp"}, "b": {"params_reserve_price": 0.0}, "by": "params_reserve_price"},
            {"label": "bias-vcg welfare, ratio to reserve 0", "metric": "welfare", "op": "ratio",
             "a": {"mechanism": "bias-vcg"}, "b": {"params_reserve_price": 0.0}, "by": "params_reserve_price"},
            {"label": "bias-fp welfare, ratio to reserve 0", "metric": "welfare", "op": "ratio",
             "a": {"mechanism": "bias-fp"}, "b": {"params_reserve_price": 0.0}, "by": "params_reserve_price"},
            {"label": "revenue ratio VCG / FP (revenue equivalence = 1)", "metric": "paid", "op": "ratio",
             "a": {"mechanism": "bias-vcg"}, "b": {"mechanism": "bias-fp"}, "by": "params_reserve_price"},
        ],
    },
    "03-vcg-fp": {
        "question": "VCG (critical payment, truthful bidders) vs first price (bias-fp, Hedge learners) revenue as congestion rises",
        # load = 1.5M gas a block of demand / lane_timer_cycles
        "level": ("load", lambda lane: "%.2f" % (1.5e6 / lane)),
        "comparisons": [
            {"label": "revenue ratio VCG / FP (paid)", "metric": "paid", "op": "ratio",
             "a": {"mechanism": "bias-vcg"}, "b": {"mechanism": "bias-fp"}, "by": "params_lane_timer_cycles"},
            {"label": "welfare difference VCG - FP", "metric": "welfare", "op": "diff",
             "a": {"mechanism": "bias-vcg"}, "b": {"mechanism": "bias-fp"}, "by": "params_lane_timer_cycles"},
        ],
    },
    "04-fairness-window": {
        "warmup": "pre-event",
        "question": "FAIRNESS_WINDOW_BLOCKS with a large entrant arriving and leaving: the incumbents' harm and the entrant's service",
        "comparisons": [
            {"label": "incumbents' p99 delay, window W - window 200", "metric": "delay_p99.default_gba", "op": "diff",
             "a": {}, "b": {"params_fairness_window": 200.0}, "by": "params_fairness_window"},
            {"label": "entrant's p99 delay, window W - window 200", "metric": "delay_p99.fragmenter", "op": "diff",
             "a": {}, "b": {"params_fairness_window": 200.0}, "by": "params_fairness_window"},
            {"label": "Jain over every actor, ratio to window 200", "metric": "jain", "op": "ratio",
             "a": {}, "b": {"params_fairness_window": 200.0}, "by": "params_fairness_window"},
        ],
    },
    "06-median-ema": {
        "warmup": "pre-event",
        "question": "median EMA smoothing of W with a large entrant arriving and leaving: the incumbents' harm and the entrant's service",
        "comparisons": [
            {"label": "incumbents' p99 delay, median_ema - off", "metric": "delay_p99.default_gba", "op": "diff",
             "a": {}, "b": {"params_median_ema": 0.0}, "by": "params_median_ema"},
            {"label": "entrant's p99 delay, median_ema - off", "metric": "delay_p99.fragmenter", "op": "diff",
             "a": {}, "b": {"params_median_ema": 0.0}, "by": "params_median_ema"},
            {"label": "incumbents' p99 delay (level)", "metric": "delay_p99.default_gba", "op": "value", "null": 0.0,
             "a": {}, "by": "params_median_ema"},
        ],
    },
    "05-fragmentation": {
        "warmup": "pre-event",
        "question": "the fragmenter's gain (attack_gain) under per-actor vs per-deployer W",
        "comparisons": [
            {"label": "attack_gain, per-actor W", "metric": "attack_gain", "op": "value", "null": 1.0,
             "a": {"params_fairness_identity": "actor"}, "by": "agents_1_params_k"},
            {"label": "attack_gain, per-deployer W", "metric": "attack_gain", "op": "value", "null": 1.0,
             "a": {"params_fairness_identity": "deployer"}, "by": "agents_1_params_k"},
            {"label": "gain from fragmenting, per-actor W: attack_gain(K) / attack_gain(K = 1)",
             "metric": "attack_gain", "op": "ratio",
             "a": {"params_fairness_identity": "actor"}, "b": {"agents_1_params_k": 1.0}, "by": "agents_1_params_k"},
            {"label": "gain from fragmenting, per-deployer W: attack_gain(K) / attack_gain(K = 1)",
             "metric": "attack_gain", "op": "ratio",
             "a": {"params_fairness_identity": "deployer"}, "b": {"agents_1_params_k": 1.0},
             "by": "agents_1_params_k"},
            {"label": "honest p99 delay, per-actor - per-deployer W", "metric": "delay_p99.default_gba", "op": "diff",
             "a": {"params_fairness_identity": "actor"}, "b": {"params_fairness_identity": "deployer"},
             "by": "agents_1_params_k"},
            {"label": "efficiency against the optimum (welfare / welfare_opt, whole run), per-actor W",
             "metric": "efficiency", "null": 1.0, "op": "value", "a": {"params_fairness_identity": "actor"},
             "by": "agents_1_params_k"},
            {"label": "efficiency against the optimum (welfare / welfare_opt, whole run), per-deployer W",
             "metric": "efficiency", "null": 1.0, "op": "value", "a": {"params_fairness_identity": "deployer"},
             "by": "agents_1_params_k"},
        ],
    },
    "07-tiers": {
        "warmup": "pre-event",
        "question": "tier multipliers with mixed tips (liquidation bots' floor, best-response tippers, W): what each tier buys in delay",
        "comparisons": [
            {"label": "economy (tier 1) p99 delay - standard (tier 0)", "metric": "entry.1.p99", "op": "diff",
             "a": {}, "b": {}, "b_metric": "entry.0.p99", "by": "params_tier_urgent"},
            {"label": "fast (tier 2) p99 delay - standard (tier 0)", "metric": "entry.2.p99", "op": "diff",
             "a": {}, "b": {}, "b_metric": "entry.0.p99", "by": "params_tier_urgent"},
            {"label": "urgent (tier 3) p99 delay - standard (tier 0)", "metric": "entry.3.p99", "op": "diff",
             "a": {}, "b": {}, "b_metric": "entry.0.p99", "by": "params_tier_urgent"},
            {"label": "best-response tippers p99 delay - standard (tier 0)", "metric": "entry.4.p99", "op": "diff",
             "a": {}, "b": {}, "b_metric": "entry.0.p99", "by": "params_tier_urgent"},
        ],
    },
    "08-lane-fee-multiplier": {
        "question": "the lane fee multiplier under both readings of what it scales (lane_fee_multiplier_scope: lane = the lane basefee only; fire = also the CIP-3 cycle basefee of timer fires; DESIGN-NOTES N38) on an under-utilised and a busy lane",
        "comparisons": [
            {"label": "mean utilisation, multiplier m - 1.0", "metric": "util_mean", "op": "diff",
             "a": {}, "b": {"params_lane_fee_multiplier": 1.0}, "by": ["params_lane_fee_multiplier_scope", "events_0_mult", "params_lane_fee_multiplier"]},
            {"label": "paid by users, ratio to multiplier 1.0", "metric": "paid", "op": "ratio",
             "a": {}, "b": {"params_lane_fee_multiplier": 1.0},
             "by": ["params_lane_fee_multiplier_scope", "events_0_mult", "params_lane_fee_multiplier"]},
            {"label": "burn, ratio to multiplier 1.0", "metric": "burn", "op": "ratio",
             "a": {}, "b": {"params_lane_fee_multiplier": 1.0}, "by": ["params_lane_fee_multiplier_scope", "events_0_mult", "params_lane_fee_multiplier"]},
            {"label": "welfare, ratio to multiplier 1.0", "metric": "welfare", "op": "ratio",
             "a": {}, "b": {"params_lane_fee_multiplier": 1.0}, "by": ["params_lane_fee_multiplier_scope", "events_0_mult", "params_lane_fee_multiplier"]},
            {"label": "mean charged lane basefee (/blocks.basefee_lane, multiplier applied), ratio to multiplier 1.0", "metric": "basefee_mean", "op": "ratio",
             "a": {}, "b": {"params_lane_fee_multiplier": 1.0}, "by": ["params_lane_fee_multiplier_scope", "events_0_mult", "params_lane_fee_multiplier"]},
        ],
    },
    "09-basefee-rule": {
        "warmup": "pre-event",
        "question": "the lane basefee update rule (D2) with value-capped elastic demand: stability, utilisation and service of cip1 and additive against eip1559",
        "comparisons": [
            {"label": "basefee coefficient of variation, ratio to eip1559", "metric": "basefee_cv", "op": "ratio",
             "a": {}, "b": {"params_basefee_rule": "eip1559"}, "by": "params_basefee_rule"},
            {"label": "clearing-price reversals (sawtooth count), difference to eip1559", "metric": "reversals",
             "op": "diff", "a": {}, "b": {"params_basefee_rule": "eip1559"}, "by": "params_basefee_rule"},
            {"label": "mean lane utilisation, difference to eip1559", "metric": "util_mean", "op": "diff",
             "a": {}, "b": {"params_basefee_rule": "eip1559"}, "by": "params_basefee_rule"},
            {"label": "welfare, ratio to eip1559", "metric": "welfare", "op": "ratio",
             "a": {}, "b": {"params_basefee_rule": "eip1559"}, "by": "params_basefee_rule"},
            {"label": "p99 delay, difference to eip1559", "metric": "delay_p99", "op": "diff",
             "a": {}, "b": {"params_basefee_rule": "eip1559"}, "by": "params_basefee_rule"},
        ],
    },
    "10-lane-size-cap": {
        "question": "lane size and the per-timer cap across demand levels, for light (100k-gas) and heavy (400k-gas) users",
        "comparisons": [
            {"label": "welfare, cap 550k / cap 250k (eip1559)", "metric": "welfare", "op": "ratio",
             "a": {"mechanism": "eip1559", "params_max_cycles_per_fire": 550000.0},
             "b": {"params_max_cycles_per_fire": 250000.0}, "by": ["events_0_mult", "params_lane_timer_cycles"]},
            {"label": "light users' p99 delay, cap 550k - cap 250k (eip1559)", "metric": "delay_p99.default_gba",
             "op": "diff", "a": {"mechanism": "eip1559", "params_max_cycles_per_fire": 550000.0},
             "b": {"params_max_cycles_per_fire": 250000.0}, "by": ["events_0_mult", "params_lane_timer_cycles"]},
            {"label": "light users' p99 delay, cap 550k - cap 250k (bias-vcg, truthful)", "metric": "delay_p99.default_gba",
             "op": "diff", "a": {"mechanism": "bias-vcg", "params_max_cycles_per_fire": 550000.0},
             "b": {"params_max_cycles_per_fire": 250000.0}, "by": ["events_0_mult", "params_lane_timer_cycles"]},
            {"label": "heavy users' timers never fired (censored), cap 550k (eip1559)",
             "metric": "censored.priority_tier", "op": "value", "null": 0.0,
             "a": {"mechanism": "eip1559", "params_max_cycles_per_fire": 550000.0},
             "by": ["events_0_mult", "params_lane_timer_cycles"]},
        ],
    },
    "11-gba-headroom": {
        "warmup": "pre-event",
        "question": "default-GBA headroom and evaluation time (D4) under a demand surge: censored default-GBA timers, their delay and what they pay",
        "comparisons": [
            {"label": "default-GBA timers censored, schedule - fire evaluation", "metric": "censored.default_gba",
             "op": "diff", "a": {"params_default_gba_eval": "schedule"}, "b": {"params_default_gba_eval": "fire"},
             "by": "params_gba_headroom"},
            {"label": "default-GBA p99 delay, schedule - fire evaluation", "metric": "delay_p99.default_gba",
             "op": "diff", "a": {"params_default_gba_eval": "schedule"}, "b": {"params_default_gba_eval": "fire"},
             "by": "params_gba_headroom"},
            {"label": "default-GBA users' payment, schedule / fire evaluation", "metric": "paid.default_gba",
             "op": "ratio", "a": {"params_default_gba_eval": "schedule"}, "b": {"params_default_gba_eval": "fire"},
             "by": "params_gba_headroom"},
            {"label": "default-GBA timers censored under schedule evaluation, headroom h - spec 2",
             "metric": "censored.default_gba", "op": "diff", "a": {"params_default_gba_eval": "schedule"},
             "b": {"params_gba_headroom": 2.0}, "by": "params_gba_headroom"},
        ],
    },
    "12-gc-isolation": {
        "warmup": "pre-event",
        "question": "GC-lane isolation under an outage storm: the live timers' delay, the GC drain and the end-of-block cycle spike per GC budget",
        "comparisons": [
            {"label": "honest users' p99 delay, GC budget - spec 5M (eip1559)", "metric": "delay_p99.default_gba",
             "op": "diff", "a": {"mechanism": "eip1559"}, "b": {"params_gc_cycles_per_block": 5000000.0},
             "by": "params_gc_cycles_per_block"},
            {"label": "honest users' p99 delay, GC budget - spec 5M (fifo-capped)", "metric": "delay_p99.default_gba",
             "op": "diff", "a": {"mechanism": "fifo-capped"}, "b": {"params_gc_cycles_per_block": 5000000.0},
             "by": "params_gc_cycles_per_block"},
            {"label": "blocks with GC work (the drain), eip1559", "metric": "blocks.gc_cycles.nonzero", "op": "value",
             "null": 0.0, "a": {"mechanism": "eip1559"}, "by": "params_gc_cycles_per_block"},
            {"label": "largest GC cycles in one block (the end-of-block spike), eip1559", "metric": "blocks.gc_cycles.max",
             "op": "value", "null": 0.0, "a": {"mechanism": "eip1559"}, "by": "params_gc_cycles_per_block"},
            {"label": "largest end-of-block cycles in one block (eob_cycles), eip1559", "metric": "blocks.eob_cycles.max",
             "op": "value", "null": 0.0, "a": {"mechanism": "eip1559"}, "by": "params_gc_cycles_per_block"},
        ],
    },
}


def tq(n):
    """t(n-1, 0.975)."""
    return _tinv(0.975, n - 1)


def ci(x):
    """mean, half-width of the 95 % t interval, n (finite values only)."""
    x = [v for v in x if math.isfinite(v)]
    n = len(x)
    if n == 0:
        return float("nan"), float("nan"), 0
    mu = sum(x) / n
    if n < 2:
        return mu, float("nan"), n
    sd = math.sqrt(sum((v - mu) ** 2 for v in x) / (n - 1))
    return mu, tq(n) * sd / math.sqrt(n), n


def load(d):
    f = h5py.File(os.path.join(d, "sweep.h5"), "r")
    r = f["runs"][:]
    rows = []
    for x in r:
        row = {}
        for k in r.dtype.names:
            v = x[k]
            row[k] = v.decode() if isinstance(v, bytes) else (v.item() if hasattr(v, "item") else v)
        row["_dir"] = d
        rows.append(row)
    return rows, dict(f.attrs)


def design_cols(rows):
    """The swept columns: those between "mechanism" and "blocks" in /runs
    (cs_sweep.h: run_id, point, seed, mechanism, the design, then the
    metrics)."""
    ks = list(rows[0])
    return ks[ks.index("mechanism") + 1:ks.index("blocks")]


CENSORED = ("pending", "expired", "insufficient")  # outcomes of a timer never fired (README "censored")


class RunFile:
    """One run file's tables, read once; metric(name, T) over the window
    after block T (module docstring)."""

    def __init__(self, path, mode):
        h = h5py.File(path, "r")
        self.path = path
        self.b = h["blocks"][:]
        self.f = h["fires"][:]
        self.t = h["timers"][:]
        self.scn = json.loads(h.attrs["scenario_json"])
        kinds = h5py.check_enum_dtype(h["fires"].dtype["kind"])
        self.kind = dict((v, k) for k, v in kinds.items())
        outc = h5py.check_enum_dtype(h["timers"].dtype["outcome"])
        self.cens_codes = [outc[o] for o in CENSORED]
        u = self.b["utilisation"].astype(float)
        ev = [e["at"] for e in self.scn.get("events", []) if e.get("at", 1) > 1]
        if mode == "pre-event" and ev:
            u = u[: min(ev) - 1]
        self.T = mser5(u)
        self.memo = {}

    def _fires(self, T, kind=None):
        f = self.f[self.f["height"] > T]
        if kind is not None:
            f = f[np.isin(f["kind"], [v for v, k in self.kind.items() if k == kind])]
        return f

    def _timers(self, T):
        return self.t[self.t["due_height"] > T]

    def metric(self, metric, T):
        key = (metric, T)
        if key not in self.memo:
            self.memo[key] = self._metric(metric, T)
        return self.memo[key]

    def _metric(self, metric, T):
        if "/" in metric:
            num, den = metric.split("/")
            d = self.metric(den, T)
            return self.metric(num, T) / d if d else float("nan")
        if metric.startswith("blocks."):
            # blocks.<column>.max (largest over the window) or .nonzero
            _, col, agg = metric.split(".")
            b = self.b[self.b["height"] > T][col]
            return float(b.max()) if agg == "max" else float((b > 0).sum())
        if metric.startswith("entry."):
            # entry.E.pQQ = the QQth percentile (numpy 'linear', GSL's
            # definition) of the fire delay over the fires of scenario entry
            # E's agent instances (entries are numbered in order, each taking
            # `count` consecutive instance indices)
            _, e, q = metric.split(".")
            counts = [ag.get("count", 1) for ag in self.scn["agents"]]
            lo = sum(counts[: int(e)])
            f = self._fires(T)
            d = f["delay"][(f["agent"] >= lo) & (f["agent"] < lo + counts[int(e)])]
            return float(np.percentile(d, float(q[1:]))) if len(d) else float("nan")
        name, _, kind = metric.partition(".")
        kind = kind or None
        blk = self.b[self.b["height"] > T]
        if name in ("fires", "paid", "welfare", "delay_p99", "delay_p50"):
            f = self._fires(T, kind)
            if name == "fires":
                return float(len(f))
            if name == "paid":
                return float(f["paid"].sum())
            if name == "welfare":
                return float(f["value"].sum())
            return float(np.percentile(f["delay"], 99 if name == "delay_p99" else 50)) if len(f) else float("nan")
        if name == "censored":
            t = self._timers(T)
            t = t[(t["fires"] == 0) & np.isin(t["outcome"], self.cens_codes)]
            if kind is not None:
                t = t[np.isin(t["kind"], [v for v, k in self.kind.items() if k == kind])]
            return float(len(t))
        if name == "burn":
            return float(blk["burn"].sum())
        if name == "util_mean":
            return float(blk["utilisation"].mean())
        if name in ("basefee_mean", "basefee_cv"):
            x = blk["basefee_lane"].astype(float)
            mu = x.mean()
            if name == "basefee_mean":
                return float(mu)
            return float(np.sqrt(((x - mu) ** 2).mean()) / mu) if mu > 0 else float("nan")
        if name == "reversals":
            return self._reversals(T)
        if name == "jain":
            return self._jain(T)
        if name == "attack_gain":
            return self._attack_gain(T)
        raise SystemExit("study.py: metric %s has no windowed form" % metric)

    def _reversals(self, T):
        """README "reversals" over the fires of the window."""
        f = self._fires(T)
        if not len(f):
            return 0.0
        p = f["paid"] / np.maximum(f["cycles"], 1)
        o = np.lexsort((p, f["height"]))
        h, p = f["height"][o], p[o]
        first = np.ones(len(h), bool)
        first[1:] = h[1:] != h[:-1]
        d = np.diff(p[first])
        sg = np.sign(d[d != 0])
        return float((sg[1:] != sg[:-1]).sum())

    def _jain(self, T):
        """README "jain" over the window: actors with a fire in it or a
        starved timer due in it."""
        f = self._fires(T)
        t = self._timers(T)
        st = t[(t["fires"] == 0) & (t["due_height"] <= t["end_height"]) & np.isin(t["outcome"], self.cens_codes)]
        n = _span(f["actor"], st["actor"])
        fn = np.bincount(f["actor"], minlength=n).astype(float)
        dl = np.bincount(f["actor"], weights=f["delay"].astype(float), minlength=n)
        sv = np.bincount(st["actor"], minlength=n).astype(float)
        keep = (fn > 0) | (sv > 0)
        fn, dl, sv = fn[keep], dl[keep], sv[keep]
        x = np.where(fn > 0, fn / np.maximum(fn + sv, 1) / (1 + dl / np.maximum(fn, 1)), 0.0)
        q = (x * x).sum()
        return float(x.sum() ** 2 / (len(x) * q)) if q > 0 else float("nan")

    def _attack_gain(self, T):
        """README "attack_gain" over the window: per agent instance with a
        timer due in the window or a fire in it, fires / max(paid, 1)."""
        f = self._fires(T)
        t = self._timers(T)
        n = _span(f["agent"], t["agent"])
        fires = np.bincount(f["agent"], minlength=n).astype(float)
        paid = np.bincount(f["agent"], weights=f["paid"], minlength=n)
        act = (np.bincount(t["agent"], minlength=n) > 0) | (fires > 0)
        kind = np.full(n, -1)
        kind[t["agent"]] = t["kind"]
        kind[f["agent"]] = f["kind"]
        sp = fires / np.maximum(paid, 1.0)
        code = dict((k, v) for v, k in self.kind.items())
        hon = act & (kind == code.get("default_gba", -2))
        att = act & np.isin(kind, [code.get("fragmenter", -2), code.get("spammer", -2)])
        if not hon.any() or not att.any() or sp[hon].mean() <= 0:
            return float("nan")
        return float(sp[att].mean() / sp[hon].mean())


def _span(*cols):
    """1 + the largest index in the (unsigned) columns, 0 when all are empty."""
    return max([int(c.max()) + 1 for c in cols if len(c)] + [0])


_FILES = {}


def runfile(r, mode):
    p = os.path.join(r["_dir"], "runs", r["run_id"], r["mechanism"] + ".h5")
    if p not in _FILES:
        _FILES[p] = RunFile(p, mode)
    return _FILES[p]


def get(r, metric, mode, T=None):
    """metric of /runs row r over the window after its run file's
    truncation point (or after T); "efficiency" is the whole-run value."""
    if metric == "efficiency":
        return r[metric]
    rf = runfile(r, mode)
    return rf.metric(metric, rf.T if T is None else T)


def compare(rows, c, mode):
    """{level: [per-seed values]} for comparison c, each over the window
    after the later of the two runs' truncation points."""
    dcols = design_cols(rows)
    keyed = {}
    for r in rows:
        keyed.setdefault(tuple((k, r[k]) for k in ["mechanism", "seed"] + dcols), r)
    out = {}
    for r in rows:
        if any(r.get(k) != v for k, v in c["a"].items()):
            continue
        by = c.get("by")
        lvl = tuple(r[b] for b in by) if isinstance(by, list) else (r[by] if by else "all")
        if c["op"] == "value":
            out.setdefault(lvl, []).append(get(r, c["metric"], mode))
            continue
        kb = dict((k, r[k]) for k in ["mechanism", "seed"] + dcols)
        kb.update(c["b"])
        rb = keyed.get(tuple((k, kb[k]) for k in ["mechanism", "seed"] + dcols))
        if rb is None:
            continue
        T = max(runfile(r, mode).T, runfile(rb, mode).T)
        va = get(r, c["metric"], mode, T)
        vb = get(rb, c.get("b_metric", c["metric"]), mode, T)
        v = va / vb if c["op"] == "ratio" else va - vb
        out.setdefault(lvl, []).append(v if math.isfinite(v) else float("nan"))
    return out


def side(mu, hw, null):
    if not math.isfinite(hw):
        return "?"
    if mu - hw > null:
        return "above"
    if mu + hw < null:
        return "below"
    return "contains"


def fmt(mu, hw):
    if not math.isfinite(mu):
        return "-"
    if not math.isfinite(hw):
        return "%.4g" % mu
    return "%.4g [%.4g, %.4g]" % (mu, mu - hw, mu + hw)


def mser5(x):
    """MSER-5 truncation point: analysis/cs_stats.c cs_stat_mser5 step by
    step (batch means of 5, d from floor(nb / 2) down to 0 on running sums,
    the smallest d on ties), so both give the same point."""
    n = len(x)
    nb = n // 5
    if nb < 2:
        return 0
    y = [sum(float(v) for v in x[5 * j:5 * j + 5]) / 5.0 for j in range(nb)]
    dmax = nb // 2
    s1 = s2 = 0.0
    for j in range(dmax, nb):
        s1 += y[j]
        s2 += y[j] * y[j]
    best, bestd = math.inf, 0
    for d in range(dmax, -1, -1):
        if d < dmax:
            s1 += y[d]
            s2 += y[d] * y[d]
        k = float(nb - d)
        ss = max(s2 - s1 * s1 / k, 0.0)
        if ss / (k * k) <= best:
            best, bestd = ss / (k * k), d
    return 5 * bestd


def points(rows, mode):
    """Truncation points of every run file: {(run_id, mechanism): T}."""
    return dict(((r["run_id"], r["mechanism"]), runfile(r, mode).T) for r in rows)


def actors(d):
    for f in sorted(glob.glob(os.path.join(d, "runs", "*", "*.h5"))):
        return h5py.File(f, "r")["actors"].shape[0]
    return 0


def section(study, runs, x5):
    s = STUDIES[study]
    rows, attrs = load(runs)
    seeds = sorted(set(r["seed"] for r in rows))
    blocks = int(rows[0]["blocks"])
    out = ["## Study section (scenarios/calibration/study.py %s)" % study, ""]
    out.append("Question: %s." % s["question"])
    out.append("")
    na = actors(runs)
    out.append("Design size: %d actors, %d blocks, %d seeds (%s .. %s), %d design points, mechanisms %s."
               % (na, blocks, len(seeds), seeds[0], seeds[-1], int(attrs["n_points"]),
                  ", ".join(sorted(set(r["mechanism"] for r in rows)))))
    mode = s.get("warmup", "mser")
    pts = sorted(points(rows, mode).values())
    ev = sorted(e["at"] for e in runfile(rows[0], mode).scn.get("events", []) if e.get("at", 1) > 1)
    how = ("MSER-5 on the per-block lane utilisation of the blocks before the first event (block %d; the "
           "events are the question, so the window must keep them)" % ev[0]) if mode == "pre-event" and ev else \
        "MSER-5 on the per-block lane utilisation of the whole horizon"
    out.append("Warm-up removed: each run file is truncated at its own point, %s; points over the %d run files: "
               "median %d, max %d of %d blocks (%.1f %%). Every metric below is computed over the blocks, fires "
               "and due timers after the later of the two paired runs' points (study.py docstring)%s."
               % (how, len(pts), pts[len(pts) // 2], pts[-1], blocks, 100.0 * pts[-1] / blocks,
                  "; efficiency is the whole-run value (its optimum is over the whole run's demand)"
                  if any(c["metric"] == "efficiency" for c in s["comparisons"]) else ""))
    out.append("")
    xrows = load(x5)[0] if x5 else None
    if x5:
        out.append("Scale check: the same design with 5 x the actors of every entry, each at a fifth of its rate "
                   "(same load; study.py --make-x5), %d actors. Verdict per row: *holds* when both 95 %% intervals lie on "
                   "the same side of the null value (1 for a ratio, 0 for a difference) or both contain it."
                   % actors(x5))
        out.append("")
    for c in s["comparisons"]:
        null = c.get("null", 1.0 if c["op"] == "ratio" else 0.0)
        res = compare(rows, c, mode)
        xres = compare(xrows, c, mode) if xrows else {}
        out.append("### %s" % c["label"])
        out.append("")
        kind = {"ratio": "per-seed ratio", "diff": "paired per-seed difference", "value": "value"}[c["op"]]
        lab = s.get("level")
        by = c.get("by")
        bys = " / ".join(by) if isinstance(by, list) else (by or "")
        head = "| %s | %sn | %s, mean [95 %% t interval] |" % (bys, lab[0] + " | " if lab else "", kind)
        sep = "|---|---|---|" + ("---|" if lab else "")
        if xrows:
            head += " x5 population | scale verdict |"
            sep += "---|---|"
        out.append(head)
        out.append(sep)
        for lvl in sorted(res, key=lambda v: (isinstance(v, str), v)):
            mu, hw, n = ci(res[lvl])
            lv = " / ".join("%g" % v if isinstance(v, float) else str(v) for v in lvl) if isinstance(lvl, tuple) else lvl
            line = "| %s | %s%d | %s |" % (lv, lab[1](lvl) + " | " if lab else "", n, fmt(mu, hw))
            if xrows:
                xm, xh, xn = ci(xres.get(lvl, []))
                a, b = side(mu, hw, null), side(xm, xh, null)
                line += " %s | %s |" % (fmt(xm, xh), "holds" if a == b and a != "?" else "changes")
            out.append(line)
        out.append("")
    return "\n".join(out) + "\n"


def make_x5(src, dst, k=5):
    """The sweep src with k x the agents of every entry, each at 1/k of its
    arrival rate ("rate", or k x "period" / "every_blocks"): the same load
    spread over k times the actors.  liquidation_bot (a tip floor) and
    spammer (a storm) entries stay as they are.  Runs go to a different name."""
    import json
    sw = json.load(open(src))
    base = sw["base"]
    for ag in base["agents"]:
        if ag["kind"] in ("liquidation_bot", "spammer"):
            continue  # a fixed tip floor (studies 4-6) or a fixed storm (study 12), not the population
        if ag["kind"] in ("watcher", "demand_curve"):
            raise SystemExit("make_x5: kind %s has no per-actor rate to scale" % ag["kind"])
        ag["count"] = ag.get("count", 1) * k
        p = ag.setdefault("params", {})
        if "period" in p or "every_blocks" in p:
            for key in ("period", "every_blocks"):
                if key in p:
                    p[key] = p[key] * k
        elif ag["kind"] == "heartbeat":
            p["period"] = 10 * k  # the kind's default period is 10
        elif ag["kind"] == "oracle":
            p["every_blocks"] = 30 * k  # the kind's default every_blocks is 30
        else:
            r = p.get("rate", 0.5)
            if isinstance(r, dict):
                if r.get("dist") != "constant":
                    raise SystemExit("make_x5: %s: rate distribution %s not scaled" % (ag["kind"], r.get("dist")))
                r["value"] = r["value"] / k
            else:
                p["rate"] = r / k
    sw["name"] = sw["name"] + "-x5"
    base["name"] = base["name"] + "-x5"
    json.dump(sw, open(dst, "w"), indent=2)
    return 0


WINDOWED = ("fires", "paid", "welfare", "delay_p99", "censored", "burn", "util_mean", "basefee_mean",
            "basefee_cv", "reversals", "jain", "attack_gain")


def check_window(d):
    """Every windowed metric at T = 0 against the C metrics of d/sweep.h5
    (/runs): the port must reproduce analysis/cs_metrics.c on the whole
    run.  Relative tolerance 1e-9 (float sums in another order)."""
    rows = load(d)[0]
    bad = checked = 0
    for r in rows:
        rf = runfile(r, "mser")
        names = list(WINDOWED) + ["%s.%s" % (m, k) for k in sorted(set(rf.kind.values()))
                                  for m in ("fires", "paid", "delay_p99", "censored")]
        for m in names:
            if m not in r:
                continue
            want, got = float(r[m]), rf.metric(m, 0)
            if math.isnan(want) and math.isnan(got):
                continue
            checked += 1
            if not abs(got - want) <= 1e-9 * max(abs(want), 1.0):
                bad += 1
                sys.stderr.write("%s %s %s: window(T=0) %r, /runs %r\n" % (r["run_id"], r["mechanism"], m, got, want))
    print("check-window: %d values, %d differ" % (checked, bad))
    return 1 if bad or not checked else 0


def main(argv):
    if len(argv) == 4 and argv[1] == "--make-x5":
        return make_x5(argv[2], argv[3])
    if len(argv) == 3 and argv[2] == "--help-known":
        return 0 if argv[1] in STUDIES else 1
    if len(argv) == 3 and argv[1] == "--check-window":
        return check_window(argv[2])
    if len(argv) == 4 and argv[1] == "--points":
        rows = load(argv[3])[0]
        for (rid, mech), t in sorted(points(rows, STUDIES[argv[2]].get("warmup", "mser")).items()):
            print("%s %s %d" % (rid, mech, t))
        return 0
    if len(argv) < 2 or argv[1] not in STUDIES:
        sys.stderr.write("usage: study.py STUDY [--runs DIR] [--x5 DIR] [--out FILE]; studies: %s\n"
                         % ", ".join(sorted(STUDIES)))
        return 2
    study = argv[1]
    runs = "results/calibration/%s/runs" % study
    x5, outp = None, None
    i = 2
    while i < len(argv):
        if argv[i] == "--runs":
            runs = argv[i + 1]
        elif argv[i] == "--x5":
            x5 = argv[i + 1]
        elif argv[i] == "--out":
            outp = argv[i + 1]
        else:
            sys.stderr.write("study.py: unexpected argument %s\n" % argv[i])
            return 2
        i += 2
    text = section(study, runs, x5)
    if outp:
        open(outp, "w").write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
