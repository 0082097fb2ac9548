#!/usr/bin/python3
"""study.py STUDY [--runs DIR] [--h4 DIR] [--p5 DIR] [--out FILE] [--json FILE]
-- the comparisons a calibration study asks for, with 95 % intervals, from
its sweep summaries, and the robustness of its conclusions.

For each comparison of STUDIES[STUDY] the rows of DIR/sweep.h5 (/runs) are
paired by seed (and by every design parameter the comparison does not name):
a per-seed ratio a_s / b_s or difference a_s - b_s, whose mean and
Student-t interval mean +/- t(n-1, 0.975) s / sqrt(n) are printed per level
of the `by` parameter.  The t quantile is GSL's gsl_cdf_tdist_Pinv, called
through ctypes.

Robustness (STUDIES[...]["robust"]): `--make-variant h4|p5 STUDY SRC DST`
writes the sweep SRC restricted to the levels the conclusions rest on, at
4 x the horizon (h4) or 5 x the population with the same market structure
(p5); with --h4 / --p5 (their sweep directories) each conclusion gets a
paired equivalence test (TOST): the 90 % t interval of the per-seed
difference variant - 1 x lies within +/- its stated margin, "holds", or
not, "does not hold".  The section also states the design size, each run
file's convergence (root attribute `convergence`, DESIGN-NOTES N77) and
what the efficiency is measured against (the bound's gap where known).
--json writes the same numbers for answers.py.

Run until convergence: `--extend COWSIM DIR` reruns every run file of DIR
whose strategic populations did not converge at 2 x, then 4 x its horizon
(EXTEND_CAP) until they do, into DIR/extend/, and prints the records that
run.sh keeps as DIR/extend.json; the section then states per design point
and mechanism "converged at block X" or "not converged by the cap".

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
            {"label": "bias-vcg learners: paid / welfare, ratio to lambda = 0.005", "metric": "paid/welfare",
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
            {"label": "bias-fp: share of blocks violating the CIP-5 §9.3 invariant (bias_slack_violated, whole run)",
             "metric": "bias_slack_violated", "op": "value", "null": 0.0, "a": {"mechanism": "bias-fp"}, "by": "params_lambda"},
            {"label": "bias-vcg: share of blocks violating the CIP-5 §9.3 invariant (bias_slack_violated, whole run)",
             "metric": "bias_slack_violated", "op": "value", "null": 0.0, "a": {"mechanism": "bias-vcg"}, "by": "params_lambda"},
            {"label": "bias-vcg: mean invariant deficit of the violating blocks (bias_slack_deficit, whole run)",
             "metric": "bias_slack_deficit", "op": "value", "null": 0.0, "a": {"mechanism": "bias-vcg"}, "by": "params_lambda"},
        ],
    },
    "02-reserve": {
        "question": "the reserve price under both readings of CIP-5 §9.5 (reserve_mode payment-floor: it floors the payment; bid-gate: bids below it never fire; SPEC-FINDINGS S10) with learners that may wait (learning_wait) under bias-vcg and bias-fp at load 1.0",
        "comparisons": [
            {"label": "bias-vcg revenue (paid), ratio to reserve 0", "metric": "paid", "op": "ratio",
             "a": {"mechanism": "bias-vcg"}, "b": {"params_reserve_price": 0.0}, "by": ["params_reserve_mode", "params_reserve_price"]},
            {"label": "bias-fp revenue (paid), ratio to reserve 0", "metric": "paid", "op": "ratio",
             "a": {"mechanism": "bias-fp"}, "b": {"params_reserve_price": 0.0}, "by": ["params_reserve_mode", "params_reserve_price"]},
            {"label": "bias-vcg welfare, ratio to reserve 0", "metric": "welfare", "op": "ratio",
             "a": {"mechanism": "bias-vcg"}, "b": {"params_reserve_price": 0.0}, "by": ["params_reserve_mode", "params_reserve_price"]},
            {"label": "bias-fp welfare, ratio to reserve 0", "metric": "welfare", "op": "ratio",
             "a": {"mechanism": "bias-fp"}, "b": {"params_reserve_price": 0.0}, "by": ["params_reserve_mode", "params_reserve_price"]},
            {"label": "revenue ratio VCG / FP (revenue equivalence = 1)", "metric": "paid", "op": "ratio",
             "a": {"mechanism": "bias-vcg"}, "b": {"mechanism": "bias-fp"}, "by": ["params_reserve_mode", "params_reserve_price"]},
        ],
    },
    "03-vcg-fp": {
        "question": "VCG (critical payment) vs first price (bias-fp) revenue as congestion rises, both with Hedge learners that may wait (learning_wait)",
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
        "question": "lane size and the per-timer cap across demand levels, for light (100k-gas) and heavy (400k-cycle) users whose over-cap work is refused (reject) or split at the cap by the engine (split, N86)",
        "comparisons": [
            {"label": "welfare, cap 550k / cap 250k (eip1559)", "metric": "welfare", "op": "ratio",
             "a": {"mechanism": "eip1559", "params_max_cycles_per_fire": 550000.0},
             "b": {"params_max_cycles_per_fire": 250000.0}, "by": ["events_0_mult", "params_lane_timer_cycles", "params_over_cap"]},
            {"label": "light users' p99 delay, cap 550k - cap 250k (eip1559)", "metric": "delay_p99.default_gba",
             "op": "diff", "a": {"mechanism": "eip1559", "params_max_cycles_per_fire": 550000.0},
             "b": {"params_max_cycles_per_fire": 250000.0}, "by": ["events_0_mult", "params_lane_timer_cycles", "params_over_cap"]},
            {"label": "light users' p99 delay, cap 550k - cap 250k (bias-vcg, learners)", "metric": "delay_p99.default_gba",
             "op": "diff", "a": {"mechanism": "bias-vcg", "params_max_cycles_per_fire": 550000.0},
             "b": {"params_max_cycles_per_fire": 250000.0}, "by": ["events_0_mult", "params_lane_timer_cycles", "params_over_cap"]},
            {"label": "heavy users' timers never fired (censored), cap 550k (eip1559)",
             "metric": "censored.priority_tier", "op": "value", "null": 0.0,
             "a": {"mechanism": "eip1559", "params_max_cycles_per_fire": 550000.0},
             "by": ["events_0_mult", "params_lane_timer_cycles", "params_over_cap"]},
            {"label": "welfare, over_cap split / reject at the 250k cap (eip1559)", "metric": "welfare", "op": "ratio",
             "a": {"mechanism": "eip1559", "params_over_cap": "split", "params_max_cycles_per_fire": 250000.0},
             "b": {"params_over_cap": "reject"}, "by": ["events_0_mult", "params_lane_timer_cycles"]},
            {"label": "welfare, over_cap split / reject at the 250k cap (bias-vcg, learners)", "metric": "welfare",
             "op": "ratio", "a": {"mechanism": "bias-vcg", "params_over_cap": "split", "params_max_cycles_per_fire": 250000.0},
             "b": {"params_over_cap": "reject"}, "by": ["events_0_mult", "params_lane_timer_cycles"]},
            {"label": "largest actor's share of the lane cycles used (eip1559)", "metric": "lane_share_max", "op": "value",
             "null": 0.0, "a": {"mechanism": "eip1559"},
             "by": ["events_0_mult", "params_max_cycles_per_fire", "params_lane_timer_cycles", "params_over_cap"]},
            {"label": "largest actor's lane share over the mean active actor's (eip1559)", "metric": "lane_share_max.rel",
             "op": "value", "null": 1.0, "a": {"mechanism": "eip1559"},
             "by": ["events_0_mult", "params_max_cycles_per_fire", "params_lane_timer_cycles", "params_over_cap"]},
            {"label": "largest actor's share of the lane cycles used (bias-vcg)", "metric": "lane_share_max", "op": "value",
             "null": 0.0, "a": {"mechanism": "bias-vcg"},
             "by": ["events_0_mult", "params_max_cycles_per_fire", "params_lane_timer_cycles", "params_over_cap"]},
        ],
    },
    "11-gba-headroom": {
        "warmup": "pre-event",
        "question": "default-GBA headroom and evaluation time (D4) under a demand surge: censored default-GBA timers, their delay and what they pay",
        "comparisons": [
            {"label": "default-GBA timers censored, schedule - fire evaluation", "metric": "censored.default_gba",
             "op": "diff", "a": {"params_default_gba_eval": "schedule"}, "b": {"params_default_gba_eval": "fire"},
             "by": ["events", "params_gba_headroom"]},
            {"label": "default-GBA p99 delay, schedule - fire evaluation", "metric": "delay_p99.default_gba",
             "op": "diff", "a": {"params_default_gba_eval": "schedule"}, "b": {"params_default_gba_eval": "fire"},
             "by": ["events", "params_gba_headroom"]},
            {"label": "default-GBA users' payment, schedule / fire evaluation", "metric": "paid.default_gba",
             "op": "ratio", "a": {"params_default_gba_eval": "schedule"}, "b": {"params_default_gba_eval": "fire"},
             "by": ["events", "params_gba_headroom"]},
            {"label": "default-GBA timers censored under schedule evaluation, headroom h - spec 2",
             "metric": "censored.default_gba", "op": "diff", "a": {"params_default_gba_eval": "schedule"},
             "b": {"params_gba_headroom": 2.0}, "by": ["events", "params_gba_headroom"]},
        ],
    },
    "12-gc-isolation": {
        "warmup": "pre-event",
        "question": "GC-lane isolation under an outage storm: the live timers' delay, the GC drain and the end-of-block cycle spike per GC budget",
        "comparisons": [
            {"label": "honest users' p99 delay, GC budget - spec 5M (eip1559)", "metric": "delay_p99.default_gba",
             "op": "diff", "a": {"mechanism": "eip1559", "params_gc_lane": "isolated"},
             "b": {"params_gc_cycles_per_block": 5000000.0}, "by": "params_gc_cycles_per_block"},
            {"label": "honest users' p99 delay, GC budget - spec 5M (fifo-capped)", "metric": "delay_p99.default_gba",
             "op": "diff", "a": {"mechanism": "fifo-capped", "params_gc_lane": "isolated"},
             "b": {"params_gc_cycles_per_block": 5000000.0}, "by": "params_gc_cycles_per_block"},
            # the counterfactual (N85): the same budget taken from the timer lane
            {"label": "honest users' p99 delay, shared GC lane - isolated (eip1559)", "metric": "delay_p99.default_gba",
             "op": "diff", "a": {"mechanism": "eip1559", "params_gc_lane": "shared"},
             "b": {"params_gc_lane": "isolated"}, "by": "params_gc_cycles_per_block"},
            {"label": "honest users' p99 delay, shared GC lane - isolated (fifo-capped)",
             "metric": "delay_p99.default_gba", "op": "diff", "a": {"mechanism": "fifo-capped", "params_gc_lane": "shared"},
             "b": {"params_gc_lane": "isolated"}, "by": "params_gc_cycles_per_block"},
            {"label": "honest users' fires, shared GC lane - isolated (eip1559)", "metric": "fires.default_gba",
             "op": "diff", "a": {"mechanism": "eip1559", "params_gc_lane": "shared"},
             "b": {"params_gc_lane": "isolated"}, "by": "params_gc_cycles_per_block"},
            {"label": "blocks with GC work (the drain), eip1559", "metric": "blocks.gc_cycles.nonzero", "op": "value",
             "null": 0.0, "a": {"mechanism": "eip1559"}, "by": ["params_gc_cycles_per_block", "params_gc_lane"]},
            {"label": "largest GC cycles in one block (the end-of-block spike), eip1559", "metric": "blocks.gc_cycles.max",
             "op": "value", "null": 0.0, "a": {"mechanism": "eip1559", "params_gc_lane": "isolated"},
             "by": "params_gc_cycles_per_block"},
            {"label": "largest end-of-block cycles in one block (eob_cycles), eip1559", "metric": "blocks.eob_cycles.max",
             "op": "value", "null": 0.0, "a": {"mechanism": "eip1559"}, "by": ["params_gc_cycles_per_block", "params_gc_lane"]},
        ],
    },
}


# The robustness of each conclusion (study.py docstring): the levels it
# rests on (a sweep grid restricted to them, same seeds, rerun at 4 x the
# horizon and 5 x the population) and, per comparison, the margin of its
# equivalence test and why that margin.
ROBUST = {
    "01-lambda": {"grid": {"params.lambda": [0.005, 0.2]}, "checks": [
        {"comparison": "bias-fp learners: paid / welfare, ratio to lambda = 0.005", "margin": 0.05,
         "why": "5 % of the learners' payment per value; the λ answer turns on a payment change of 10 % or more"},
        {"comparison": "bias-vcg: share of fires won by zero bids (waiting_game fires / fires)", "margin": 0.02,
         "why": "2 points of the fire share; the zero bidders are 5 % of demand, so 2 points is 40 % of their service"}]},
    "02-reserve": {"grid": {"params.reserve_price": [0, 100000000]}, "checks": [
        {"comparison": "bias-fp revenue (paid), ratio to reserve 0", "margin": 0.05,
         "why": "5 % of revenue, the smallest gain a reserve recommendation would rest on"},
        {"comparison": "revenue ratio VCG / FP (revenue equivalence = 1)", "margin": 0.05,
         "why": "5 % of the ratio: equivalence is read as |ratio - 1| < 0.05"}]},
    "03-vcg-fp": {"grid": {"params.lane_timer_cycles": [1875000, 1500000, 1200000]}, "checks": [
        {"comparison": "revenue ratio VCG / FP (paid)", "margin": 0.05,
         "why": "5 % of the ratio: the answer (equivalence or not) is read as |ratio - 1| against 0.05, so a shift "
                "below 0.05 cannot change it"}]},
    "04-fairness-window": {"grid": {"params.fairness_window": [50, 200]}, "checks": [
        {"comparison": "entrant's p99 delay, window W - window 200", "margin": 2.0,
         "why": "2 blocks of p99, a fifth of the effect the window recommendation rests on in version 2"},
        {"comparison": "incumbents' p99 delay, window W - window 200", "margin": 2.0,
         "why": "2 blocks of p99, the incumbents' harm read as negligible below it"}]},
    "05-fragmentation": {"grid": {"agents[1].params.k": [1, 10]}, "checks": [
        {"comparison": "gain from fragmenting, per-actor W: attack_gain(K) / attack_gain(K = 1)", "margin": 0.05,
         "why": "5 % of the gain; the recommendation compares per-actor and per-deployer gains of 10 % or more"},
        {"comparison": "gain from fragmenting, per-deployer W: attack_gain(K) / attack_gain(K = 1)", "margin": 0.05,
         "why": "5 % of the gain, as for per-actor W"}]},
    "06-median-ema": {"grid": {"params.median_ema": [0, 0.1]}, "checks": [
        {"comparison": "incumbents' p99 delay, median_ema - off", "margin": 2.0,
         "why": "2 blocks of p99, the harm read as negligible below it"},
        {"comparison": "entrant's p99 delay, median_ema - off", "margin": 2.0, "why": "2 blocks of p99"}]},
    "07-tiers": {"grid": {"params.tier_urgent": [2.5]}, "checks": [
        {"comparison": "economy (tier 1) p99 delay - standard (tier 0)", "margin": 2.0,
         "why": "2 blocks of p99: tiers are recommended for the ordering, and an ordering survives a 2-block shift "
                "of a gap of 5 or more"},
        {"comparison": "urgent (tier 3) p99 delay - standard (tier 0)", "margin": 2.0, "why": "2 blocks of p99"}]},
    "08-lane-fee-multiplier": {"grid": {"params.lane_fee_multiplier": [0.8, 1.0],
                                        "params.lane_fee_multiplier_scope": ["fire"]}, "checks": [
        {"comparison": "paid by users, ratio to multiplier 1.0", "margin": 0.02,
         "why": "2 % of payment: the subsidy question is whether 0.8 changes payment by 20 % or not at all"},
        {"comparison": "mean utilisation, multiplier m - 1.0", "margin": 0.02,
         "why": "2 points of utilisation, a tenth of what a subsidy that works would add"}]},
    "09-basefee-rule": {"grid": {}, "checks": [
        {"comparison": "basefee coefficient of variation, ratio to eip1559", "margin": 0.1,
         "why": "10 % of the CV, the smallest stability gain that would favour a rule"},
        {"comparison": "mean lane utilisation, difference to eip1559", "margin": 0.02,
         "why": "2 points of utilisation around the 0.5 target"}]},
    "10-lane-size-cap": {"grid": {"events[0].mult": [2], "params.lane_timer_cycles": [2000000]}, "checks": [
        {"comparison": "welfare, cap 550k / cap 250k (eip1559)", "margin": 0.02,
         "why": "2 % of welfare, the smallest effect the cap recommendation rests on"},
        {"comparison": "welfare, over_cap split / reject at the 250k cap (eip1559)", "margin": 0.02,
         "why": "2 % of welfare, as for the cap itself: the split's gain is read against the cap's effect"},
        {"comparison": "largest actor's lane share over the mean active actor's (eip1559)", "margin": 0.5,
         "why": "half the mean actor's share: the raw share falls with 5 x the actors by construction, so the "
                "check is on the share relative to the mean one; monopolisation would be tens of mean shares"}]},
    "11-gba-headroom": {"grid": {"params.gba_headroom": [2.0]}, "checks": [
        {"comparison": "default-GBA timers censored, schedule - fire evaluation", "margin": 25.0,
         "why": "25 timers, under 1 % of the surge's default-GBA timers; D4's answer rests on differences of "
                "hundreds"}]},
    "12-gc-isolation": {"grid": {"params.gc_cycles_per_block": [250000, 5000000]}, "checks": [
        {"comparison": "honest users' p99 delay, GC budget - spec 5M (eip1559)", "margin": 2.0,
         "why": "2 blocks of p99: the answer is that the budget does not touch live timers"},
        {"comparison": "honest users' p99 delay, shared GC lane - isolated (eip1559)", "margin": 5.0,
         "why": "5 blocks of p99, a quarter of the 20 blocks the storm's 40M GC cycles fill a shared 2M lane: "
                "the answer is the harm isolation prevents"}]},
}
for _k, _v in ROBUST.items():
    STUDIES[_k]["robust"] = _v


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
        if name == "lane_share_max":  # lane_share_max.rel: relative to the mean share
            # the largest actor's share of the lane cycles its window's fires used
            f = self._fires(T)
            tot = float(f["cycles"].sum())
            sh = np.bincount(f["actor"], weights=f["cycles"].astype(float))
            if tot <= 0:
                return float("nan")
            # _rel: over the mean share of the actors with a fire (scale free)
            return float(sh.max() / tot * ((sh > 0).sum() if kind == "rel" else 1))
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


# whole-run metrics read from /runs: the optimum is over the whole run's
# demand; the §9.3 slack metrics (analysis/README.md) over its blocks
WHOLE_RUN = ("efficiency", "bias_slack_violated", "bias_slack_deficit")


def get(r, metric, mode, T=None):
    """metric of /runs row r over the window after its run file's
    truncation point (or after T); "efficiency" is the whole-run value."""
    if metric in WHOLE_RUN:
        return r[metric]
    rf = runfile(r, mode)
    return rf.metric(metric, rf.T if T is None else T)


def compare(rows, c, mode, seeds=False):
    """{level: [per-seed values]} for comparison c, each over the window
    after the later of the two runs' truncation points ([(seed, value)]
    with seeds=True)."""
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
            v = get(r, c["metric"], mode)
            out.setdefault(lvl, []).append((r["seed"], v) if seeds else v)
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
        v = v if math.isfinite(v) else float("nan")
        out.setdefault(lvl, []).append((r["seed"], v) if seeds else v)
    return out


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


def short(v):
    """A level's text: numbers as %g; a JSON object or list (a grid value
    that replaces params or events) as its k=v pairs, without the keys that
    only say what it is (type, tier) or that no design here varies."""
    if isinstance(v, float):
        return "%g" % v
    v = str(v)
    if v[:1] not in "{[":
        return v
    x = json.loads(v)
    x = x if isinstance(x, list) else [x]
    return "; ".join(",".join("%s=%s" % (k, w) for k, w in d.items() if k not in ("type", "tier", "delay_mean", "ttl"))
                     for d in x)


def lvl_text(lvl):
    if isinstance(lvl, tuple):
        return " / ".join(short(v) for v in lvl)
    return str(lvl)


def conv_of(r, mode):
    """(every population converged, {mechanism: [final mean price]}) of
    run file r, or None without a strategic population."""
    c = h5py.File(runfile(r, mode).path, "r").attrs.get("convergence")
    c = json.loads(c.decode() if isinstance(c, bytes) else c) if c is not None else None
    pops = (c or {}).get("populations") or []
    if not pops:
        return None
    return all(p.get("converged") for p in pops), [p.get("final_mean") for p in pops]


def level_rows(rows, c, lvl):
    """The run files of comparison c's level lvl (its a and b sides: the
    mechanisms either names, or every one)."""
    by = c.get("by")
    by = by if isinstance(by, list) else [by]
    lv = lvl if isinstance(lvl, tuple) else (lvl,)
    mechs = set(x.get("mechanism") for x in (c["a"], c.get("b", {}))) - {None}
    return [r for r in rows if all(r.get(b) == v for b, v in zip(by, lv)) and (not mechs or r["mechanism"] in mechs)]


def why_not(rows, vrows, c, lvl, mode, name):
    """Evidence for a check that does not hold: per mechanism, the run
    files whose strategic populations converged and their mean final
    price, at 1 x and in the variant."""
    parts = []
    for tag, rs in (("1 x", level_rows(rows, c, lvl)), (name, level_rows(vrows, c, lvl))):
        by = {}
        for r in rs:
            cv = conv_of(r, mode)
            if cv is None:
                continue
            e = by.setdefault(r["mechanism"], [0, 0, []])
            e[0] += 1
            e[1] += cv[0]
            e[2] += [x for x in cv[1] if x is not None]
        if by:
            parts.append("%s: %s" % (tag, ", ".join("%s %d of %d converged, mean final price %.4g" % (
                m, e[1], e[0], sum(e[2]) / len(e[2]) if e[2] else float("nan")) for m, e in sorted(by.items()))))
    if not parts:
        return "%s at %s does not hold; no strategic population, so not a learning effect." % (name, lvl_text(lvl))
    return "%s at %s does not hold. Learners: %s." % (name, lvl_text(lvl), "; ".join(parts))


def convergence(rows, mode):
    """Per mechanism: (run files with a strategic population, those whose
    every population converged, the blocks they converged at, the
    strategies) from each run file's root attribute `convergence`
    (sim/cs_converge.h, DESIGN-NOTES N77)."""
    out = {}
    for r in rows:
        h = h5py.File(runfile(r, mode).path, "r")
        c = h.attrs.get("convergence")
        if c is None:
            continue
        c = json.loads(c.decode() if isinstance(c, bytes) else c)
        pops = c.get("populations") or [] if c else []
        if not pops:
            continue
        e = out.setdefault(r["mechanism"], [0, 0, [], set()])
        e[0] += 1
        if all(p.get("converged") for p in pops):
            e[1] += 1
            e[2].append(max(int(p.get("at") or 0) for p in pops))
        e[3].update("%s (%s)" % (p["kind"], p["strategy"]) for p in pops)
    return out


def conv_text(rows, mode, what):
    cv = convergence(rows, mode)
    if not cv:
        return "%s: no strategic population (no scenario entry with a `strategy` under these mechanisms), " \
               "so convergence does not apply: every agent's rule is fixed." % what, {}
    parts, js = [], {}
    for m in sorted(cv):
        n, k, at, strat = cv[m]
        at = sorted(at)
        parts.append("%s %d of %d run files converged%s [%s]" % (
            m, k, n, (" (at block median %d, max %d)" % (at[len(at) // 2], at[-1])) if at else "",
            ", ".join(sorted(strat))))
        js[m] = {"runs": n, "converged": k, "at_median": at[len(at) // 2] if at else None}
    return "%s: %s." % (what, "; ".join(parts)), js


# The bound's gap sample (analysis/README.md "Bound gap": off unless asked):
# 2 windows of 4 blocks a run file, the README's example.
GAP_WINDOWS, GAP_WIDTH = 2, 4


def bound_gaps(binary, d, most=2):
    """The bound's gap (cowsim compare --json: bound_gap, the Lagrangian
    bound against the exact MILP optimum on sampled windows, issue 27 item
    5) of the run files of the sweep's first seed, at most `most` design
    points spread over the design, on GAP_WINDOWS windows of GAP_WIDTH
    blocks each; JSON lines for DIR/bound_gap.json."""
    import subprocess
    rows = load(d)[0]
    s0 = min(r["seed"] for r in rows)
    rids = sorted(set(r["run_id"] for r in rows if r["seed"] == s0))
    rids = [rids[i * len(rids) // most] for i in range(most)] if len(rids) > most else rids
    out = []
    for rid in rids:
        files = sorted(glob.glob(os.path.join(d, "runs", rid, "*.h5")))
        js = json.loads(subprocess.run([binary, "compare", "--json", "--gap-windows", str(GAP_WINDOWS), "--gap-width",
                                        str(GAP_WIDTH)] + files, check=True,
                                       stdout=subprocess.PIPE).stdout)
        for run in js["runs"]:
            g = run.get("bound_gap")
            out.append({"run_id": rid, "mechanism": run["mechanism"], "efficiency_vs": run.get("efficiency_vs"),
                        "gap": g and g.get("gap"), "gap_max": g and g.get("gap_max"),
                        "windows": g and g.get("windows"), "solved": g and g.get("solved")})
    return out


def gap_text(rows):
    """What the efficiency is measured against, and the bound's gap where
    the run files carry it (/runs bound_gap) or bound_gap.json beside the
    sweep (study.py --gap) holds it."""
    if "efficiency" not in rows[0]:
        return "Efficiency benchmark: none in this sweep."
    ex = [r for r in rows if r.get("opt_exact") == 1]
    gaps = [r["bound_gap"] for r in rows if "bound_gap" in r and math.isfinite(r["bound_gap"])]
    gp = os.path.join(rows[0]["_dir"], "bound_gap.json")
    if not gaps and os.path.exists(gp):
        gj = json.load(open(gp))
        gaps = [g["gap"] for g in gj if g["gap"] is not None and math.isfinite(g["gap"])]
        gmax = [g["gap_max"] for g in gj if g["gap_max"] is not None and math.isfinite(g["gap_max"])]
        if gaps:
            g = sorted(gaps)
            return ("Efficiency benchmark: %d of %d run files against the exact optimum (opt_exact 1), %d against the "
                    "Lagrangian upper bound of the optimum (opt_exact 0), where efficiency is a lower bound of the true "
                    "one. The bound's gap ((bound - exact MILP optimum) / exact on sampled windows, cowsim compare "
                    "--json on %d run files of the first seed; windows solved %d of %d): median %.4g, max %.4g, "
                    "largest single window %.4g." % (len(ex), len(rows), len(rows) - len(ex), len(gj),
                                                      sum(x["solved"] or 0 for x in gj), sum(x["windows"] or 0 for x in gj),
                                                      g[len(g) // 2], g[-1], max(gmax) if gmax else float("nan")))
    s = ("Efficiency benchmark: %d of %d run files against the exact optimum (opt_exact 1), %d against the "
         "Lagrangian upper bound of the optimum (opt_exact 0), where efficiency is a lower bound of the true one."
         % (len(ex), len(rows), len(rows) - len(ex)))
    if gaps:
        g = sorted(gaps)
        s += " The bound's gap ((bound - exact MILP optimum) / exact on sampled windows, /runs bound_gap): median %.4g, max %.4g over %d run files." \
             % (g[len(g) // 2], g[-1], len(g))
    else:
        s += " The bound's gap: not measured in these run files (no exact-optimum sample; issue 27 item 5)."
    return s


VARIANTS = (("h4", "4 x horizon"), ("p5", "5 x population"))


def is_reference(c, lvl):
    """Whether lvl is the comparison's own reference level (a ratio or a
    difference to itself: 1 or 0 by construction, nothing to test)."""
    if c["op"] == "value":
        return False
    by = c.get("by")
    by = by if isinstance(by, list) else [by]
    lv = lvl if isinstance(lvl, tuple) else (lvl,)
    keys = [k for k in c["b"] if k in by]
    return bool(keys) and all(lv[by.index(k)] == c["b"][k] for k in keys)


def tost(base, var, margin):
    """Paired equivalence test: d_s = var_s - base_s over the seeds both
    hold; the 90 % t interval of the mean of d (the two one-sided 5 % tests
    of TOST); holds when it lies within (-margin, margin)."""
    b = dict((s, v) for s, v in base if math.isfinite(v))
    d = [v - b[s] for s, v in var if math.isfinite(v) and s in b]
    n = len(d)
    if n < 2:
        return float("nan"), float("nan"), float("nan"), n, "not tested"
    mu = sum(d) / n
    hw = _tinv(0.95, n - 1) * math.sqrt(sum((x - mu) ** 2 for x in d) / (n - 1)) / math.sqrt(n)
    ok = -margin < mu - hw and mu + hw < margin
    return mu, mu - hw, mu + hw, n, "holds" if ok else "does not hold"


def canon_events(rows, shift):
    """A swept "events" column (study 11's surge shapes) as canonical JSON
    with the h4 variant's shift (3 x the horizon) taken back, so the
    variant's levels pair with the 1 x levels."""
    for r in rows:
        if isinstance(r.get("events"), str) and r["events"][:1] == "[":
            ev = json.loads(r["events"])
            for e in ev:
                if e.get("at", 1) > 1:
                    e["at"] -= shift
            r["events"] = json.dumps(ev, sort_keys=True)


def robustness(study, rows, vdirs, mode):
    """Markdown lines and a JSON list: each conclusion's TOST at 4 x
    horizon and 5 x population (STUDIES[study]["robust"])."""
    rb = STUDIES[study].get("robust")
    out, js = [], []
    if not rb:
        return out, js
    out.append("### Robustness: equivalence at 4 x horizon and 5 x population (TOST)")
    out.append("")
    out.append("Each conclusion below rests on the listed levels; they are rerun (same seeds) at 4 x the horizon "
               "(%s) and at 5 x the population (%s). Per level: d = variant - 1 x, paired by seed; the 90 %% t "
               "interval of its mean (two one-sided 5 %% tests); **holds** when it lies inside (-margin, +margin), "
               "**does not hold** otherwise." % (H4_TEXT, P5_TEXT))
    out.append("")
    vrows = dict((k, load(d)[0]) for k, d in vdirs.items() if d)
    b0 = int(rows[0]["blocks"])
    canon_events(rows, 0)
    for k, vr in vrows.items():
        canon_events(vr, 3 * b0 if k == "h4" else 0)
    for chk in rb["checks"]:
        c = next(x for x in STUDIES[study]["comparisons"] if x["label"] == chk["comparison"])
        base = compare(rows, c, mode, seeds=True)
        out.append("**%s** -- margin +/- %g: %s" % (c["label"], chk["margin"], chk["why"]))
        out.append("")
        whys = []
        out.append("| level | 1 x mean | variant | variant mean | n | d, mean [90 % t interval] | verdict |")
        out.append("|---|---|---|---|---|---|---|")
        for key, name in VARIANTS:
            if key not in vrows:
                out.append("| - | - | %s | not run | - | - | not tested |" % name)
                js.append({"comparison": c["label"], "variant": key, "verdict": "not tested"})
                continue
            var = compare(vrows[key], c, mode, seeds=True)
            for lvl in sorted(var, key=lambda v: (isinstance(v, str), v)):
                if lvl not in base or is_reference(c, lvl):
                    continue
                mu, lo, hi, n, verdict = tost(base[lvl], var[lvl], chk["margin"])
                bm = ci([v for _, v in base[lvl]])[0]
                vm = ci([v for _, v in var[lvl]])[0]
                out.append("| %s | %.4g | %s | %.4g | %d | %.4g [%.4g, %.4g] | %s |"
                           % (lvl_text(lvl), bm, name, vm, n, mu, lo, hi, verdict))
                if verdict != "holds":
                    whys.append(why_not(rows, vrows[key], c, lvl, mode, name) + " " + (
                        ("The mean shift %.4g is within the margin but its interval is not: %d seeds cannot show "
                         "equivalence at this margin." % (mu, n)) if abs(mu) < chk["margin"] else
                        ("The mean shift %.4g is beyond the margin." % mu)))
                js.append({"comparison": c["label"], "variant": key, "level": lvl_text(lvl), "base": bm,
                           "variant_mean": vm, "d": mu, "lo": lo, "hi": hi, "n": n, "margin": chk["margin"],
                           "verdict": verdict})
        out.append("")
        for w in whys:
            out.append("- " + w)
        if whys:
            out.append("")
    return out, js


def section(study, runs, vdirs):
    s = STUDIES[study]
    rows, attrs = load(runs)
    canon_events(rows, 0)
    seeds = sorted(set(r["seed"] for r in rows))
    blocks = int(rows[0]["blocks"])
    out = ["## Study section (scenarios/calibration/study.py %s)" % study, ""]
    out.append("Question: %s." % s["question"])
    out.append("")
    na = actors(runs)
    mechs = sorted(set(r["mechanism"] for r in rows))
    out.append("Design size: %d actors, %d blocks, %d seeds (%s .. %s), %d design points, mechanisms %s: %d run files."
               % (na, blocks, len(seeds), seeds[0], seeds[-1], int(attrs["n_points"]), ", ".join(mechs), len(rows)))
    js = {"study": study, "actors": na, "blocks": blocks, "seeds": len(seeds), "points": int(attrs["n_points"]),
          "run_files": len(rows), "mechanisms": mechs}
    for key, name in VARIANTS:
        if vdirs.get(key):
            vr, va = load(vdirs[key])
            out.append("Robustness design (%s): %d actors, %d blocks, %d seeds, %d design points: %d run files."
                       % (name, actors(vdirs[key]), int(vr[0]["blocks"]), len(set(r["seed"] for r in vr)),
                          int(va["n_points"]), len(vr)))
    out.append("")
    mode = s.get("warmup", "mser")
    ctext, js["convergence"] = conv_text(rows, mode, "Convergence (sim/cs_converge.h criterion, 1 x horizon)")
    out.append(ctext)
    for key, name in VARIANTS:
        if vdirs.get(key):
            ctext, js["convergence_" + key] = conv_text(load(vdirs[key])[0], mode, "At " + name)
            out.append("")
            out.append(ctext)
    out.append("")
    ep = os.path.join(runs, "extend.json")
    pl, js["convergence_points"] = point_conv(rows, json.load(open(ep)) if os.path.exists(ep) else [], mode)
    out += pl
    js["gap"] = gap_text(rows)
    out.append(js["gap"])
    out.append("")
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
    js["comparisons"] = []
    for c in s["comparisons"]:
        res = compare(rows, c, mode)
        out.append("### %s" % c["label"])
        out.append("")
        kind = {"ratio": "per-seed ratio", "diff": "paired per-seed difference", "value": "value"}[c["op"]]
        lab = s.get("level")
        by = c.get("by")
        bys = " / ".join(by) if isinstance(by, list) else (by or "")
        out.append("| %s | %sn | %s, mean [95 %% t interval] |" % (bys, lab[0] + " | " if lab else "", kind))
        out.append("|---|---|---|" + ("---|" if lab else ""))
        for lvl in sorted(res, key=lambda v: (isinstance(v, str), v)):
            mu, hw, n = ci(res[lvl])
            out.append("| %s | %s%d | %s |" % (lvl_text(lvl), lab[1](lvl) + " | " if lab else "", n, fmt(mu, hw)))
            js["comparisons"].append({"label": c["label"], "level": lvl_text(lvl), "mean": mu, "hw": hw, "n": n})
        out.append("")
    rl, js["robust"] = robustness(study, rows, vdirs, mode)
    out += rl
    return "\n".join(out) + "\n", js


H4_TEXT = ("blocks x 4; events and an entrant's arrival and exit moved 3 x the horizon later, so the same "
           "episode follows a warm start; an event that sets demand for the whole run (at block 1) is stretched")
P5_TEXT = ("5 x the actors of every population, each at a fifth of its rate, same load; an entrant (fragmenter) "
           "stays one deployer with 5 x its identities at the same total rate; tip-floor bots and the storm stay")

ENTRANTS = ("fragmenter",)


def shift_events(evs, B, k):
    """Events of a B-block run for a k x B-block run: an event after block 1
    moved (k - 1) B later (the same episode after a warm start), one that
    sets demand for the whole run (at block 1, with a duration) stretched."""
    for e in evs:
        if e.get("at", 1) > 1:
            e["at"] += (k - 1) * B
        elif "duration" in e:
            e["duration"] = k * B - e["at"]


def stretch(scn, k):
    """Scenario scn at k x its horizon, events and an entrant's arrival and
    exit moved (k - 1) horizons later (shift_events)."""
    B = scn["blocks"]
    scn["blocks"] = k * B
    shift_events(scn.get("events", []), B, k)
    for ag in scn["agents"]:
        for key in ("enter_at", "exit_at"):
            if key in ag:
                ag[key] += (k - 1) * B


EXTEND_CAP = 4  # the horizon is doubled up to 4 x the design's (two doublings)


def extend(binary, d, cap=EXTEND_CAP):
    """Run until convergence (issue 27 item 2): every run file of sweep
    directory d whose strategic populations did not all converge
    (root attribute `convergence`) is rerun from its own scenario at 2 x
    its horizon (stretch), then 4 x, ... up to cap x, until every
    population converged.  Writes d/extend/<run>-<mechanism>-x<k>/ and returns one record per
    such run file (JSON lines for d/extend.json)."""
    import subprocess
    rows = load(d)[0]
    out = []
    os.makedirs(os.path.join(d, "extend"), exist_ok=True)
    for r in rows:
        cv = conv_of(r, "mser")
        if cv is None or cv[0]:
            continue
        rec = {"run_id": r["run_id"], "point": r["point"], "seed": r["seed"], "mechanism": r["mechanism"],
               "blocks": int(r["blocks"]), "tried": [], "converged": False, "at": None}
        k = 2
        while k <= cap:
            scn = json.loads(json.dumps(runfile(r, "mser").scn))
            scn["mechanism"] = r["mechanism"]
            stretch(scn, k)
            stem = os.path.join(d, "extend", "%s-%s-x%d" % (r["run_id"], r["mechanism"], k))
            json.dump(scn, open(stem + ".json", "w"), indent=1)
            subprocess.run([binary, "run", stem + ".json", "-o", stem, "--mechanism", r["mechanism"], "--quiet"],
                           check=True, stdout=subprocess.DEVNULL)
            c = json.loads(h5py.File(os.path.join(stem, r["mechanism"] + ".h5"), "r").attrs["convergence"])
            pops = c.get("populations") or []
            rec["tried"].append(scn["blocks"])
            if pops and all(p.get("converged") for p in pops):
                rec["converged"] = True
                rec["at"] = max(int(p.get("at") or 0) for p in pops)
                break
            k *= 2
        out.append(rec)
    return out


def point_conv(rows, ext, mode):
    """Per design point and mechanism: the convergence of its seeds' run
    files at the design's horizon, completed by the extension records ext
    (extend()): Markdown lines and their JSON."""
    byp = {}
    ex = dict(((e["run_id"], e["mechanism"]), e) for e in ext)
    cols = design_cols(rows)
    for r in rows:
        cv = conv_of(r, mode)
        if cv is None:
            continue
        key = (r["point"], r["mechanism"])
        e = byp.setdefault(key, {"design": ", ".join("%s=%s" % (c, short(r[c])) for c in cols),
                                 "seeds": 0, "at": [], "late": [], "never": []})
        e["seeds"] += 1
        if cv[0]:
            h = h5py.File(runfile(r, mode).path, "r").attrs["convergence"]
            e["at"].append(max(int(p.get("at") or 0) for p in json.loads(h)["populations"]))
        elif (r["run_id"], r["mechanism"]) in ex and ex[(r["run_id"], r["mechanism"])]["converged"]:
            x = ex[(r["run_id"], r["mechanism"])]
            e["late"].append((r["seed"], x["at"], x["tried"][-1]))
        else:
            x = ex.get((r["run_id"], r["mechanism"]))
            e["never"].append((r["seed"], x["tried"][-1] if x and x["tried"] else int(r["blocks"]), bool(x)))
    if not byp:
        return [], []
    B = int(rows[0]["blocks"])
    out = ["Convergence per design point (run until convergence: a run file not converged at the design's %d "
           "blocks is rerun from its own scenario at 2 x, then 4 x its horizon, up to the cap of %d x = %d blocks, "
           "study.py --extend; the comparisons above and below use the design's horizon):" % (B, EXTEND_CAP,
                                                                                             EXTEND_CAP * B), "",
           "| point | design | mechanism | status |", "|---|---|---|---|"]
    js = []
    for (pt, m) in sorted(byp):
        e = byp[(pt, m)]
        parts = []
        if e["at"]:
            parts.append("%d of %d seeds converged at block %d (latest; earliest %d)"
                         % (len(e["at"]), e["seeds"], max(e["at"]), min(e["at"])))
        for sd, at, bl in e["late"]:
            parts.append("seed %s converged at block %d of a %d-block rerun" % (sd, at, bl))
        for sd, bl, ext in e["never"]:
            parts.append(("seed %s **not converged by the cap** (%d blocks)" % (sd, bl)) if ext else
                         ("seed %s **not converged** at %d blocks (not extended: no study.py --extend record)" % (sd, bl)))
        out.append("| %s | %s | %s | %s |" % (pt, e["design"], m, "; ".join(parts)))
        js.append({"point": pt, "mechanism": m, "seeds": e["seeds"], "converged_at": e["at"],
                   "late": e["late"], "never": e["never"]})
    return out + [""], js


def make_variant(kind, study, src, dst):
    """The sweep src restricted to the levels STUDIES[study]["robust"]
    ["grid"] names (intersected with src's own grid), as kind h4 (4 x
    horizon, H4_TEXT) or p5 (5 x population, P5_TEXT)."""
    sw = json.load(open(src))
    rg = STUDIES[study].get("robust", {}).get("grid", {})
    for path, vals in rg.items():
        if path in sw.get("grid", {}):
            keep = [v for v in sw["grid"][path] if v in vals]
            sw["grid"][path] = keep or sw["grid"][path]
    base = sw["base"]
    if kind == "h4":
        B = base["blocks"]
        stretch(base, 4)
        for path, vals in sw.get("grid", {}).items():
            if path == "events":
                for v in vals:
                    shift_events(v, B, 4)
    elif kind == "p5":
        fixed = [ag for ag in base["agents"] if ag["kind"] in ENTRANTS]
        gridded = set(sw.get("grid", {}))
        scale5(sw, skip=ENTRANTS)
        for path, vals in sw.get("grid", {}).items():
            # a grid value that replaces a scaled entry's params (study 10's
            # heavy users, whole or split) gets the same fifth of its rate
            i = path[len("agents["):path.index("]")] if path.startswith("agents[") else None
            if i is not None and path.endswith("].params") and base["agents"][int(i)]["kind"] not in ENTRANTS:
                for v in vals:
                    v["rate"] = v.get("rate", 0.5) / 5
        for i, ag in enumerate(base["agents"]):
            if ag in fixed and "agents[%d].params.k" % i not in gridded:
                ag.setdefault("params", {})["k"] = ag["params"].get("k", 10) * 5
    else:
        raise SystemExit("make_variant: kind %s (h4 or p5)" % kind)
    sw["name"] = sw["name"] + "-" + kind
    base["name"] = base["name"] + "-" + kind
    json.dump(sw, open(dst, "w"), indent=2)
    return 0


def scale5(sw, k=5, skip=()):
    """sw (a sweep) with k x the agents of every entry, each at 1/k of its
    arrival rate ("rate", or k x "period" / "every_blocks"): the same load
    spread over k times the actors.  liquidation_bot (a tip floor) and
    spammer (a storm) entries stay as they are, and the kinds in skip."""
    base = sw["base"]
    for ag in base["agents"]:
        if ag["kind"] in ("liquidation_bot", "spammer") + tuple(skip):
            continue  # a fixed tip floor (studies 4-6) or a fixed storm (study 12), not the population
        if ag["kind"] in ("watcher", "demand_curve"):
            raise SystemExit("scale5: kind %s has no per-actor rate to scale" % ag["kind"])
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
                    raise SystemExit("scale5: %s: rate distribution %s not scaled" % (ag["kind"], r.get("dist")))
                r["value"] = r["value"] / k
            else:
                p["rate"] = r / k
    return sw


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
    if len(argv) == 4 and argv[1] == "--gap":
        json.dump(bound_gaps(argv[2], argv[3]), sys.stdout, indent=1)
        return 0
    if len(argv) == 4 and argv[1] == "--extend":
        json.dump(extend(argv[2], argv[3]), sys.stdout, indent=1)
        return 0
    if len(argv) == 6 and argv[1] == "--make-variant":
        return make_variant(argv[2], argv[3], argv[4], argv[5])
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
        sys.stderr.write("usage: study.py STUDY [--runs DIR] [--h4 DIR] [--p5 DIR] [--out FILE] [--json FILE]; "
                         "study.py --make-variant h4|p5 STUDY SRC DST; studies: %s\n"
                         % ", ".join(sorted(STUDIES)))
        return 2
    study = argv[1]
    runs = "results/calibration/%s/runs" % study
    vdirs, outp, jsp = {}, None, None
    i = 2
    while i < len(argv):
        if argv[i] == "--runs":
            runs = argv[i + 1]
        elif argv[i] in ("--h4", "--p5"):
            vdirs[argv[i][2:]] = argv[i + 1]
        elif argv[i] == "--out":
            outp = argv[i + 1]
        elif argv[i] == "--json":
            jsp = argv[i + 1]
        else:
            sys.stderr.write("study.py: unexpected argument %s\n" % argv[i])
            return 2
        i += 2
    text, js = section(study, runs, vdirs)
    if jsp:
        json.dump(js, open(jsp, "w"), indent=1, default=str)
    if outp:
        open(outp, "w").write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
