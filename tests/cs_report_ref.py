# cs_report_ref.py -- how report.md prints a number, unit and best value,
# written from analysis/README.md ("cowsim report" tables) for the script
# tests that compare report.md's tables with `cowsim compare --json`
# (tests/test_report.sh, test_report_stats.sh, test_report_seeds.sh).
import math
import re

# Unit and direction of every metric ("<metric>.<kind>": the part before
# the dot): 1 higher is better, -1 lower is better, 0 neither.
UNITS = {
    "blocks": ("blocks", 0), "complete": ("flag", 0), "timers": ("count", 0), "fires": ("count", 0),
    "censored": ("count", -1), "delay_p50": ("blocks", -1), "delay_p95": ("blocks", -1),
    "delay_p99": ("blocks", -1), "delay_max": ("blocks", -1), "burn": ("base units", 0),
    "tips": ("base units", 0), "payments": ("base units", 0), "revenue_proposer": ("base units", 0),
    "welfare": ("base units", 1), "paid": ("base units", 0), "utility": ("base units", 1),
    "efficiency": ("ratio", 1), "poa": ("ratio", -1), "welfare_opt": ("base units", 0),
    "opt_exact": ("flag", 0), "bound_gap": ("ratio", 0), "efficiency_greedy": ("ratio", 1), "jain": ("ratio", 1), "gini": ("ratio", -1),
    "var_util_per_bid": ("ratio", -1), "var_eff_per_bid": ("ratio", -1), "w_p10": ("ratio (W)", 0),
    "w_p50": ("ratio (W)", 0), "w_p90": ("ratio (W)", 0), "basefee_mean": ("base units/cycle", 0),
    "basefee_cv": ("ratio", -1), "util_mean": ("ratio", 0), "full_share": ("ratio", 0),
    "empty_share": ("ratio", 0), "reversals": ("count", -1), "attack_gain": ("ratio", -1),
    "svc_per_paid": ("fires/base unit", 0), "bias_slack_violated": ("ratio", -1),
    "bias_slack_deficit": ("base units/block", -1),
}
STEADY_UNITS = {"basefee": "base units/cycle", "utilisation": "ratio", "fires": "fires/block",
                "backlog": "timers", "paid": "base units/block", "welfare": "base units/block"}


def unit(name):
    return UNITS[name.split(".")[0]]


def sig(v):
    """4 significant digits, exponent without '+' and leading zeros; '-' for None/NaN."""
    if v is None or not math.isfinite(float(v)):
        return "-"
    s = "%.4g" % float(v)
    if "e" in s:
        m, e = s.split("e")
        s = "%se%d" % (m, int(e))
    return s


# Reference allocators: columns that are never marked best (a yardstick, not a rule).
REFERENCE = {"greedy"}


def best(values, better, mechs):
    """Which values are the best of a row: among the finite values of real rules (not REFERENCE);
    ties all marked; none if they are all equal or fewer than 2."""
    take = [v is not None and math.isfinite(v) and m not in REFERENCE for v, m in zip(values, mechs)]
    fin = [v for v, t in zip(values, take) if t]
    if better == 0 or len(fin) < 2 or len(set(fin)) == 1:
        return [False] * len(values)
    b = max(fin) if better > 0 else min(fin)
    return [t and v == b for v, t in zip(values, take)]


def cell(v, lo=None, hi=None, bold=False):
    """A table cell: value (bold when best), then ' [lo, hi]' when lo is finite."""
    if v is None or not math.isfinite(v):
        return "-"
    s = "**%s**" % sig(v) if bold else sig(v)
    if lo is not None and math.isfinite(lo):
        s += " [%s, %s]" % (sig(lo), sig(hi))
    return s


def table(md, first):
    """The rows of the first table of report.md text md whose head starts '| first |': [cells]."""
    lines = md.split("\n")
    i = next(k for k, l in enumerate(lines) if l.startswith("| %s |" % first))
    rows = [[c.strip() for c in lines[i].strip().strip("|").split("|")]]
    j = i + 2
    while j < len(lines) and lines[j].startswith("|"):
        rows.append([c.strip() for c in re.split(r"(?<!\\)\|", lines[j].strip().strip("|"))])
        j += 1
    return rows
