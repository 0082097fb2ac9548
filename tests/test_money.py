#!/usr/bin/python3
"""Exact amounts and identities in run files, read the way a user reads them:
h5py + pandas.

Usage: test_money.py COWSIM SRC_DIR WORK_DIR

Runs tests/data/money.json (balances of 2^80 and one actor of 2^100, a lane
basefee of 1e17 per cycle so one fire pays more than 2^64) under eip1559 and
bias-vcg, then for every file:
  * every MONEY column <c> has <c>_hi and <c>_lo, and the float column is
    the exact amount hi * 2^64 + lo correctly rounded (Python's float(int));
  * the pandas float sum of every MONEY column agrees with its exact sum to
    1e-12 relative, and the exact sums match the exact root attributes:
    sum /blocks.burn = burned_exact, sum /blocks.tips (+ payments when they
    go to the proposer) = proposer_exact, sum /fires.paid = sum /actors.paid
    = /summary[all].paid = paid_exact, per actor sum /fires.paid =
    /actors.paid, and conservation initial + minted = sum end_balance +
    escrow + burned + proposer (DESIGN §2.6);
  * the 2^100 actor: end_balance + paid + sched_cost + cancel_cost = 2^100
    exactly, above 2^64;
  * /identities: actors 0..n-1 with ident == actor, then one row per named
    deployer; every /weights.ident joins /identities, and fires_in_window
    equals the /fires rows of that identity in [h - window, h - 1] (an
    actor's own fires, or under fairness_identity = deployer the fires of
    the /actors rows whose deployer is that ident).
Also reads the committed format-1 file: no _hi/_lo columns there, amounts
are the old u64 (the C reader's compatibility is tested in test_h5).
"""
import os
import subprocess
import sys

import h5py
import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cs_pytest import check, finish, scratch  # noqa: E402


def exact(df, col):
    """The exact amounts of MONEY column col as Python ints."""
    return [(int(h) << 64) | int(l) for h, l in zip(df[col + "_hi"], df[col + "_lo"])]


def money_cols(df):
    return [c for c in df.columns if c + "_hi" in df.columns and c + "_lo" in df.columns]


def close(a, b, rel=1e-12):
    return abs(a - b) <= rel * max(abs(a), abs(b), 1.0)


def run(cowsim, scenario, out, *extra):
    subprocess.run([cowsim, "run", scenario, "-o", out, "--quiet", *extra], check=True, stdout=subprocess.DEVNULL)


def check_file(path, window, identity):
    f = h5py.File(path, "r")
    a = dict(f.attrs)
    name = os.path.basename(path) + "/" + identity
    check(int(a["format_version"]) == 2, f"{name}: format_version 2")
    t = {k: pd.DataFrame(f[k][:]) for k in ("blocks", "fires", "actors", "summary", "weights", "identities")}
    attr = {k: int(a[k + "_exact"]) for k in ("burned", "proposer", "initial", "minted", "escrow", "paid")}
    expected_money = {"blocks": {"basefee_lane", "basefee_cycle", "basefee_cell", "burn", "tips", "payments", "p50_tip",
                                 "exec_fee", "lane_burn", "sched_cost", "cancel_cost", "slot_base"},
                      "fires": {"bid", "max_fee", "max_prio", "paid", "burn", "tip", "exec_fee", "lane_burn",
                                "alloc_payment", "prio_tip"},
                      "actors": {"paid", "end_balance", "sched_cost", "cancel_cost"}, "summary": {"paid"}}
    for tab, want in expected_money.items():
        df = t[tab]
        check(set(money_cols(df)) == want, f"{name}: /{tab} money columns {sorted(money_cols(df))}")
        for c in money_cols(df):
            ex = exact(df, c)
            check(df[c].dtype == np.float64 and df[c + "_hi"].dtype == np.uint64, f"{name}: /{tab}.{c} dtypes")
            bad = sum(1 for v, e in zip(df[c], ex) if v != float(e))
            check(bad == 0, f"{name}: /{tab}.{c}: {bad} rows whose float is not the exact amount rounded")
            total = sum(ex)
            check(close(float(df[c].sum()), float(total)),
                  f"{name}: /{tab}.{c} pandas sum {df[c].sum()!r} vs exact {total}")
    b, fi, ac, sm = t["blocks"], t["fires"], t["actors"], t["summary"]
    # Exact totals against the root attributes.
    burn = sum(exact(b, "burn"))
    check(burn == attr["burned"], f"{name}: sum /blocks.burn {burn} == burned_exact {attr['burned']}")
    check(close(float(b["burn"].sum()), float(attr["burned"])), f"{name}: pandas burn sum vs burned_exact")
    prop = sum(exact(b, "tips")) + sum(exact(b, "payments"))
    if "vcg" in path:  # payments_to defaults to the proposer
        check(prop == attr["proposer"], f"{name}: tips + payments {prop} == proposer_exact {attr['proposer']}")
    else:
        check(sum(exact(b, "tips")) == attr["proposer"], f"{name}: tips == proposer_exact")
    paid_f = sum(exact(fi, "paid"))
    paid_a = sum(exact(ac, "paid"))
    allrow = sm[sm.kind == h5py.check_enum_dtype(f["summary"].dtype["kind"])["all"]]
    check(len(allrow) == 1, f"{name}: one /summary row kind = all")
    paid_s = exact(allrow, "paid")[0] if len(allrow) == 1 else -1
    check(paid_f == paid_a == paid_s == attr["paid"],
          f"{name}: paid: fires {paid_f}, actors {paid_a}, summary {paid_s}, paid_exact {attr['paid']}")
    check(close(float(fi["paid"].sum()), float(attr["paid"])), f"{name}: pandas fires.paid sum vs paid_exact")
    check(close(float(ac["paid"].sum()), float(attr["paid"])), f"{name}: pandas actors.paid sum vs paid_exact")
    per = {}
    for act, p in zip(fi["actor"], exact(fi, "paid")):
        per[int(act)] = per.get(int(act), 0) + p
    mism = sum(1 for act, p in zip(ac["actor"], exact(ac, "paid")) if per.get(int(act), 0) != p)
    check(mism == 0, f"{name}: {mism} actors whose /actors.paid != exact sum of their /fires.paid")
    bal = sum(exact(ac, "end_balance"))
    check(attr["initial"] + attr["minted"] == bal + attr["escrow"] + attr["burned"] + attr["proposer"],
          f"{name}: conservation {attr['initial']} + {attr['minted']} vs {bal} + {attr['escrow']} + "
          f"{attr['burned']} + {attr['proposer']}")
    check(min(exact(ac, "end_balance")) >= 2**70, f"{name}: every end balance >= 2^70 (above u64)")
    check(attr["initial"] == 14 * 2**80 + 2**100, f"{name}: initial_exact {attr['initial']} = 14 * 2^80 + 2^100")
    # The 2^100 actor is the last one.
    last = ac[ac.actor == ac.actor.max()]
    eb, pd_ = exact(last, "end_balance")[0], exact(last, "paid")[0]
    costs = exact(last, "sched_cost")[0] + exact(last, "cancel_cost")[0]  # schedule and cancel costs (N58)
    check(eb + pd_ + costs == 2**100 and eb > 2**64,
          f"{name}: 2^100 actor: end_balance {eb} + paid {pd_} + costs {costs} == 2^100")
    # Identities.
    ids, w = t["identities"], t["weights"]
    n = len(ac)
    act_ids = ids[ids.kind == 0]
    dep_ids = ids[ids.kind == 1]
    check(list(act_ids.ident) == list(range(n)) and list(act_ids.actor) == list(range(n)),
          f"{name}: actor identities are 0..{n - 1} with ident == actor")
    check([x.decode() for x in dep_ids.name] == ["fleet-one", "fleet-two"] and list(dep_ids.ident) == [n, n + 1],
          f"{name}: deployer identities {list(dep_ids.ident)} {list(dep_ids.name)}")
    fleet = {n: "fleet-one", n + 1: "fleet-two"}
    # /actors.deployer joins /identities: own ident, or the deployer's.
    j = ac.merge(ids, left_on="deployer", right_on="ident", how="left", suffixes=("", "_id"))
    check(j.ident.notna().all(), f"{name}: every /actors.deployer is an /identities.ident")
    agents = [3, 4, 2, 3, 2, 1]  # actors per scenario entry
    deps = [None, "fleet-one", None, "fleet-two", "fleet-one", None]
    want = []
    for cnt, d in zip(agents, deps):
        want += [d] * cnt
    got = [fleet.get(int(x)) if int(x) >= n else None for x in ac.deployer]
    own = all(int(x) == i for i, x in zip(ac.actor, ac.deployer) if int(x) < n)
    check(got == want and own, f"{name}: /actors.deployer {list(ac.deployer)}")
    jw = w.merge(ids, on="ident", how="left")
    check(jw.kind.notna().all() and len(w) > 0, f"{name}: every /weights.ident is an /identities.ident")
    ident_of = {int(r.actor): (int(r.actor) if identity == "actor" else int(r.deployer)) for r in ac.itertuples()}
    fi_ident = np.array([ident_of[int(x)] for x in fi.actor])
    fh = fi.height.to_numpy()
    bad = 0
    for h in sorted(set(w.height)):
        # Tracked: identities with a fire in [h - window, h] (block h's fires
        # are recorded before the sample); counted: [h - window, h - 1].
        tracked = set(int(x) for x in fi_ident[(fh >= h - window) & (fh <= h)])
        counts = pd.Series(fi_ident[(fh >= h - window) & (fh <= h - 1)]).value_counts().to_dict()
        got = {int(r.ident): int(r.fires_in_window) for r in w[w.height == h].itertuples()}
        if got != {k: int(counts.get(k, 0)) for k in tracked}:
            bad += 1
    check(bad == 0, f"{name}: {bad} /weights samples whose fires_in_window differ from /fires joined by identity")
    f.close()


def main():
    cowsim, src, work = sys.argv[1:4]
    scratch(work)
    scen = os.path.join(src, "tests", "data", "money.json")
    for identity in ("actor", "deployer"):
        out = os.path.join(work, "money-" + identity)
        run(cowsim, scen, out, "--set", "params.fairness_identity=" + identity)
        for mech in ("eip1559", "bias-vcg"):
            check_file(os.path.join(out, mech + ".h5"), 50, identity)
    # A format-1 file (cowsim before exact amounts) still reads in pandas.
    old = h5py.File(os.path.join(src, "tests", "data", "h5", "run-v1.h5"), "r")
    ob = pd.DataFrame(old["blocks"][:])
    check(int(old.attrs["format_version"]) == 1 and "burn_hi" not in ob.columns and
          int(ob.burn.sum()) == int(old.attrs["burned_exact"]), "format-1 file: u64 burn sums to burned_exact")
    finish("money")


if __name__ == "__main__":
    main()
