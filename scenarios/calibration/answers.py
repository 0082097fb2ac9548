#!/usr/bin/python3
"""answers.py [RESULTS_DIR] -- the Phase-5 answer sheet,
RESULTS_DIR/ANSWERS.md (default results/calibration), from the study
summaries study.py --json wrote (RESULTS_DIR/<study>/study.json).

For each open parameter of the specs (ANSWERS below: the study that
answers it, the comparison and the rule) the sheet gives the recommended
value, its interval, the design behind it (design size, convergence, the
efficiency benchmark), each robustness verdict of the study with its
numbers, and what would change the answer.  Rules, on the comparison's
rows (mean and 95 % t interval per level; `filter` keeps the levels whose
text starts with it):
  best         the level with the largest (goal max) or smallest (min)
               mean; interval = every level whose 95 % interval overlaps
               the best one's (not distinguishable from it at this size)
  largest_ok   the largest level whose mean satisfies mean <= le (or
               >= ge); interval = every level whose 95 % interval reaches
               the condition
  sign         at the levels starting with `level` (equal to it with
               `exact`) and ending with `suffix`: "above" / "below" / "contains" the null value (0,
               or `null`) by its 95 % interval
  report       the rows at the listed levels, no pick (a question, not a
               parameter)
Nothing here is typed by hand: every number comes from study.json.
"""
import json
import math
import os
import sys

ANSWERS = [
    {"param": "lambda (CIP-5 §9.2 bias growth rate)", "study": "01-lambda", "rule": "largest_ok",
     "cmp": "bias-vcg: share of blocks violating the CIP-5 §9.3 invariant (bias_slack_violated, whole run)", "le": 0.05,
     "why": "the largest λ whose blocks break the §9.3 invariant in at most 5 % of the blocks where a bias rule "
            "deferred a candidate (learners under bias-vcg)",
     "change": "a higher bias_scale (Sobol: λ acts with bias_scale), a load far from 0.95, or a violation "
               "tolerance other than 5 %"},
    {"param": "reserve_price (CIP-5 §9.5) under the payment-floor reading (D14)", "study": "02-reserve",
     "rule": "largest_ok", "cmp": "bias-fp welfare, ratio to reserve 0", "ge": 0.99, "filter": "payment-floor / ",
     "why": "the largest reserve that keeps first-price welfare within 1 % of reserve 0",
     "change": "the bid-gate reading (rows below), values of another scale (the reserve is 0.02-0.4 of the "
               "mean value here), or a welfare tolerance other than 1 %"},
    {"param": "reserve_price under the bid-gate reading (SPEC-FINDINGS S10)", "study": "02-reserve",
     "rule": "largest_ok", "cmp": "bias-fp welfare, ratio to reserve 0", "ge": 0.99, "filter": "bid-gate / ",
     "why": "as above, with bids below the reserve never firing",
     "change": "as above"},
    {"param": "payment rule (D6: VCG critical payment vs first price) -- revenue", "study": "03-vcg-fp",
     "rule": "report", "cmp": "revenue ratio VCG / FP (paid)", "levels": ["1875000.0", "1500000.0", "1200000.0"],
     "why": "VCG / FP revenue per seed at load 0.8 / 1.0 / 1.25 (lane 1.875M / 1.5M / 1.2M cycles)",
     "change": "learners that have not converged (convergence above), another population size (5 x check)"},
    {"param": "FAIRNESS_WINDOW_BLOCKS (CIP-1 rev §8)", "study": "04-fairness-window", "rule": "best", "goal": "max",
     "cmp": "Jain over every actor, ratio to window 200",
     "why": "the window with the highest Jain index over every actor against window 200",
     "change": "an entrant of another size or stay, or a criterion on one group (entrant or incumbents) only"},
    {"param": "fairness identity (D12: actor or deployer)", "study": "05-fragmentation", "rule": "sign",
     "cmp": "honest p99 delay, per-actor - per-deployer W", "level": "10.0", "exact": True,
     "above": "deployer (honest users wait longer under per-actor W)",
     "below": "actor (honest users wait less under per-actor W)",
     "contains": "either (no difference in honest p99 at K = 10)",
     "why": "honest users' p99 delay under per-actor minus per-deployer W with a fragmenter of K = 10",
     "change": "a fragmenter that cannot share one deployer identity (per-deployer W needs deployers to be known)"},
    {"param": "median_ema (W's median smoothing)", "study": "06-median-ema", "rule": "best", "goal": "min",
     "cmp": "incumbents' p99 delay, median_ema - off",
     "why": "the smoothing that raises the incumbents' p99 delay least against off (0)",
     "change": "an entrant that stays longer than the smoothing's memory"},
    {"param": "tier_urgent (CIP-1 rev §7.3 priority tier multiplier)", "study": "07-tiers", "rule": "best",
     "goal": "min", "cmp": "urgent (tier 3) p99 delay - standard (tier 0)",
     "why": "the urgent multiplier that gives urgent timers the shortest p99 against standard",
     "change": "loads below 0.9 (no tier binds) or tips that do not follow the p50 rule"},
    {"param": "lane_fee_multiplier (CIP-1 rev §5, §16 subsidy)", "study": "08-lane-fee-multiplier", "rule": "best",
     "goal": "max", "cmp": "welfare, ratio to multiplier 1.0", "filter": "fire / 1 / ",
     "why": "the multiplier with the highest welfare on the idle lane under the `fire` reading (the one where "
            "a subsidy reaches users)",
     "change": "the `lane` reading (inert on an idle lane), a busy lane (the controller undoes the multiplier)"},
    {"param": "lane basefee rule (D2)", "study": "09-basefee-rule", "rule": "best", "goal": "min",
     "cmp": "basefee coefficient of variation, ratio to eip1559",
     "why": "the rule with the steadiest lane basefee (CV ratio to eip1559)",
     "change": "demand that is not value-capped (inelastic default-GBA users only: F1)"},
    {"param": "MAX_CYCLES_PER_FIRE_AUCTION_PHASE (CIP-1 rev §10)", "study": "10-lane-size-cap", "rule": "sign",
     "cmp": "welfare, cap 550k / cap 250k (eip1559)", "level": "2 / 2e+06 / ", "null": 1.0,
     "above": "550k (more welfare)", "below": "250k (more welfare)", "contains": "250k (spec; no welfare difference)",
     "why": "eip1559 welfare with the 550k against the 250k cap at 2 x demand on the spec's 2M lane, heavy users' "
            "400k work refused at the cap (first row, over_cap reject) and split at it by the engine (second, over_cap "
            "split, N86)",
     "change": "heavy users that cannot split their work (the reject row); the largest actor's lane share (study section)"},
    {"param": "default GBA evaluation time (D4) at headroom 2", "study": "11-gba-headroom", "rule": "sign",
     "cmp": "default-GBA timers censored, schedule - fire evaluation", "level": "", "suffix": " / 2",
     "above": "fire (schedule censors more)", "below": "schedule (fire censors more)",
     "contains": "either (no difference in censored timers)",
     "why": "censored default-GBA timers, schedule minus fire evaluation, per surge shape, at headroom 2",
     "change": "a surge shape outside those swept"},
    {"param": "TIMER_GC_CYCLES (CIP-1 rev §9)", "study": "12-gc-isolation", "rule": "best", "goal": "min",
     "cmp": "largest GC cycles in one block (the end-of-block spike), eip1559",
     "why": "the budget with the smallest end-of-block GC spike (the live timers' p99 is the robustness check); "
            "the drain (blocks with GC work) is the price",
     "change": "a storm larger than the swept one; a GC lane that shares the timer lane (gc_lane shared, N85: "
               "the study section's shared - isolated rows price the isolation)"},
]


def rows_of(js, label, flt=""):
    return [r for r in js["comparisons"] if r["label"] == label and r["level"].startswith(flt)]


def num(level):
    try:
        return float(level.split(" / ")[-1])
    except ValueError:
        return level


def iv(r):
    if not math.isfinite(r["hw"] if r["hw"] is not None else float("nan")):
        return "%.4g" % r["mean"]
    return "%.4g [%.4g, %.4g]" % (r["mean"], r["mean"] - r["hw"], r["mean"] + r["hw"])


def decide(a, js):
    rs = [r for r in rows_of(js, a["cmp"], a.get("filter", "")) if r["mean"] is not None and math.isfinite(r["mean"])]
    if not rs:
        return "no rows (the study did not produce the comparison)", "-", []
    hw = lambda r: r["hw"] if r["hw"] is not None and math.isfinite(r["hw"]) else 0.0
    if a["rule"] == "best":
        sgn = 1 if a["goal"] == "max" else -1
        b = max(rs, key=lambda r: sgn * r["mean"])
        near = [r["level"] for r in rs if r["mean"] - hw(r) <= b["mean"] + hw(b) and r["mean"] + hw(r) >= b["mean"] - hw(b)]
        return b["level"], ", ".join(near), rs
    if a["rule"] == "largest_ok":
        ok = lambda m: m <= a["le"] if "le" in a else m >= a["ge"]
        good = [r for r in rs if ok(r["mean"])]
        reach = [r["level"] for r in rs if ok(r["mean"] - hw(r)) or ok(r["mean"] + hw(r))]
        if not good:
            return "none of the levels (every mean fails the condition)", ", ".join(reach) or "-", rs
        b = max(good, key=lambda r: num(r["level"]))
        return b["level"], ", ".join(reach), rs
    if a["rule"] == "sign":
        picks = []
        for r in rs:
            if a.get("exact") and r["level"] != a["level"]:
                continue
            if not r["level"].startswith(a["level"]) or not r["level"].endswith(a.get("suffix", "")):
                continue
            null = a.get("null", 0.0)
            lo, hi = r["mean"] - hw(r), r["mean"] + hw(r)
            side = "above" if lo > null else "below" if hi < null else "contains"
            picks.append("%s: %s" % (r["level"], a[side]))
        return "; ".join(picks) or "-", "per level above", rs
    return "no pick (a question, not a parameter)", "-", [r for r in rs if r["level"] in a.get("levels", [r["level"]])]


def sheet(d):
    out = ["# Phase-5 answer sheet (generated)", "",
           "Generated by `scenarios/calibration/answers.py` from each study's `study.json` (written by "
           "`study.py --json` in `scenarios/calibration/run.sh`); regenerate everything, studies and sheet, with "
           "`COWSIM=build/cowsim sh scenarios/calibration/run.sh`. No number here is typed by hand. Each answer "
           "names its rule (answers.py docstring): the recommended value is the pick of that rule on the study's "
           "comparison rows, its interval the levels the 95 % intervals cannot tell apart from it (or that can "
           "reach the rule's condition). Robustness: every conclusion's equivalence test (TOST, stated margin) "
           "at 4 x horizon and 5 x population.", ""]
    for a in ANSWERS:
        p = os.path.join(d, a["study"], "study.json")
        out.append("## %s" % a["param"])
        out.append("")
        if not os.path.exists(p):
            out.append("Not answered: study %s has no study.json (it was not run by this regeneration)." % a["study"])
            out.append("")
            continue
        js = json.load(open(p))
        pick, interval, rs = decide(a, js)
        out.append("- **Recommended:** %s (rule `%s`: %s)." % (pick, a["rule"], a["why"]))
        out.append("- **Interval:** %s." % interval)
        out.append("- **Rows** (%s, mean [95 %% t interval]): %s." % (
            a["cmp"], "; ".join("%s: %s (n %d)" % (r["level"], iv(r), r["n"]) for r in rs)))
        out.append("- **Design:** study %s, %d actors, %d blocks, %d seeds, %d design points, %d run files (%s). %s"
                   % (a["study"], js["actors"], js["blocks"], js["seeds"], js["points"], js["run_files"],
                      ", ".join(js["mechanisms"]), js["gap"]))
        cv = js.get("convergence") or {}
        cp = js.get("convergence_points") or []
        late = sum(len(x["late"]) for x in cp)
        never = sum(len(x["never"]) for x in cp)
        out.append("- **Convergence:** %s%s." % ("; ".join("%s %d of %d run files converged" % (m, c["converged"], c["runs"])
                                                        for m, c in sorted(cv.items())) or "no strategic population",
                                               ("; run until convergence (study.py --extend, 2 x then 4 x the horizon): %d "
                                                "more converged in a longer rerun, %d did not by the cap (the study "
                                                "section lists them per design point)" % (late, never)) if cp else ""))
        rb = [v for v in js.get("robust", []) if v.get("verdict") != "not tested" or "level" not in v]
        if rb:
            out.append("- **Robustness:** " + "; ".join(
                "%s, %s%s: %s" % (v["comparison"], v["variant"], (" at " + v["level"]) if "level" in v else "",
                                  ("d %.4g [%.4g, %.4g] within +/- %g: %s" % (v["d"], v["lo"], v["hi"], v["margin"], v["verdict"]))
                                  if "d" in v and v["d"] is not None and math.isfinite(v["d"]) else v["verdict"])
                for v in rb) + ".")
            bad = sorted(set(v["comparison"] + " (" + v["variant"] + ")" for v in rb if v["verdict"] != "holds"))
            if bad:
                out.append("- **Does not hold:** %s -- the answer depends on the horizon or the population there." % "; ".join(bad))
        else:
            out.append("- **Robustness:** no equivalence test was run.")
        out.append("- **What would change the answer:** %s." % a["change"])
        out.append("")
    open(os.path.join(d, "ANSWERS.md"), "w").write("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(sheet(sys.argv[1] if len(sys.argv) > 1 else "results/calibration"))
