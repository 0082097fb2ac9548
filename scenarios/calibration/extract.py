#!/usr/bin/python3
"""Numbers behind the conclusions of the calibration studies (scenarios/calibration/README.md).

usage: /usr/bin/python3 scenarios/calibration/extract.py STUDY [RESULTS_DIR]

Reads RESULTS_DIR/STUDY/runs/sweep.h5 (default RESULTS_DIR = results/calibration), prints
the mean over seeds of the metrics the study's conclusion quotes, per mechanism and design
point, and for some studies numbers taken from the per-run files under runs/runs/
(lambda trajectory, median lag, per-tier delay, GC drain).  Needs python3-h5py,
python3-numpy and python3-pandas (Debian packages).
"""
import sys
import os
import h5py
import numpy as np
import pandas as pd

METRICS = {
    "01-lambda": ["delay_p99", "delay_p99.waiting_game", "fires.waiting_game", "censored.waiting_game",
                  "delay_max.waiting_game", "revenue_proposer", "efficiency"],
    "02-reserve": ["fires", "censored", "revenue_proposer", "welfare", "efficiency", "util_mean"],
    "03-vcg-fp": ["censored", "delay_p99", "revenue_proposer", "welfare", "efficiency", "util_mean"],
    "04-fairness-window": ["jain", "w_p90", "delay_p99.default_gba", "delay_p99.fragmenter",
                           "delay_p99.liquidation_bot", "censored", "efficiency", "basefee_mean"],
    "05-fragmentation": ["attack_gain", "svc_per_paid.fragmenter", "svc_per_paid.default_gba",
                         "delay_p99.fragmenter", "delay_p99.default_gba", "jain", "efficiency"],
    "06-median-ema": ["jain", "w_p10", "w_p50", "w_p90", "delay_p99.default_gba",
                      "delay_p99.fragmenter", "efficiency", "basefee_mean"],
    "07-tiers": ["delay_p99", "tips", "burn", "basefee_mean", "util_mean"],
    "08-lane-fee-multiplier": ["util_mean", "burn", "basefee_mean", "fires", "delay_p99"],
    "09-basefee-rule": ["basefee_mean", "basefee_cv", "reversals", "util_mean", "empty_share",
                        "delay_p99", "burn"],
    "10-lane-size-cap": ["timers", "fires.priority_tier", "censored.priority_tier", "fires.default_gba",
                         "delay_p99.default_gba", "delay_p99.priority_tier", "util_mean", "efficiency",
                         "burn"],
    "11-gba-headroom": ["censored.default_gba", "fires.default_gba", "delay_p99.default_gba",
                        "delay_max.default_gba", "basefee_mean", "paid.default_gba"],
    "12-gc-isolation": ["censored", "delay_p50.default_gba", "delay_p99.default_gba",
                        "delay_max.default_gba", "util_mean"],
}


def load(path):
    d = h5py.File(path, "r")["runs"][:]
    cols = {}
    for k in d.dtype.names:
        v = d[k]
        cols[k] = v.astype(str) if v.dtype.kind in "SO" else v
    df = pd.DataFrame(cols)
    first = list(df.columns).index("blocks")
    params = [c for c in df.columns[:first] if c not in ("run_id", "point", "seed", "mechanism")]
    return df, params


def run_file(rdir, row):
    return os.path.join(rdir, "runs", row["run_id"], row["mechanism"] + ".h5")


def lam(df, rdir):
    if "params_lambda_control" not in df.columns:
        # version 2: a fixed lambda per point; the zero bids' service instead
        print("\nzero-bid (waiting_game) timers served: fires / (fires + censored), mean over seeds")
        for (m, l0), g in df.groupby(["mechanism", "params_lambda"]):
            f, c = g["fires.waiting_game"], g["censored.waiting_game"]
            print("  %s lambda %.3f: %.3f" % (m, l0, (f / (f + c)).mean()))
        return
    print("\nlambda_control = on: lambda at the last block (mean, min, max over seeds)")
    sel = df[(df["mechanism"] == "bias-vcg") & (df["params_lambda_control"] == "on")]
    for l0, g in sel.groupby("params_lambda"):
        last = [h5py.File(run_file(rdir, r), "r")["blocks"]["lambda_ppb"][-1] / 1e9 for _, r in g.iterrows()]
        print("  lambda0 %.3f -> %.4f (%.4f .. %.4f)" % (l0, np.mean(last), min(last), max(last)))


def ratio(df):
    print("\nrevenue ratio bias-vcg / bias-fp (mean over seeds of revenue_proposer)")
    # Version 1 of the study also swept vcg_payment; version 2 runs critical only.
    keys = [k for k in ("params_vcg_payment", "params_lane_timer_cycles") if k in df.columns]
    for key, g in df.groupby(keys if len(keys) > 1 else keys[0]):
        key = key if isinstance(key, tuple) else (key,)
        v = g[g["mechanism"] == "bias-vcg"]["revenue_proposer"].mean()
        f = g[g["mechanism"] == "bias-fp"]["revenue_proposer"].mean()
        label = " ".join("%s %s" % (k[len("params_"):], x) for k, x in zip(keys, key))
        print("  %s: VCG/FP = %.4f" % (label, v / f))


def median_lag(df, rdir):
    print("\nmedian of fires per window that W uses, inferred from /weights as fires_in_window / (2 - W)"
          " over identities with 1 < W < 2 (the /weights column median_fires is the median in effect and"
          " ignores median_ema); incumbents' W and delay (eip1559)")
    sel = df[df["mechanism"] == "eip1559"]
    for a, g in sel.groupby("params_median_ema", sort=False):
        out = []
        for _, r in g.iterrows():
            f = h5py.File(run_file(rdir, r), "r")
            w = f["weights"][:]
            hs = np.unique(w["height"])
            wt = w["weight_ppm"] / 1e6
            ok = (wt > 1.0005) & (wt < 1.9995) & (w["fires_in_window"] > 0)
            eff = np.where(ok, w["fires_in_window"] / np.maximum(2.0 - wt, 1e-9), np.nan)
            med = np.array([np.nanmedian(eff[w["height"] == h]) if ok[w["height"] == h].any() else np.nan
                            for h in hs])
            raw = np.array([w["median_fires"][w["height"] == h][0] for h in hs], dtype=float)
            pre = np.nanmean(med[(hs >= 400) & (hs < 600)])
            mid = np.nanmean(med[(hs >= 1100) & (hs < 1300)])
            jump = mid - pre
            up = hs[(hs >= 600) & (med >= pre + 0.9 * jump)]
            down = hs[(hs >= 1300) & (med <= pre + 0.1 * jump)]
            rup = hs[(hs >= 600) & (raw >= raw[(hs >= 400) & (hs < 600)].mean() + 0.9 * jump)]
            inc = w[(w["ident"] < 10) & (w["height"] >= 800) & (w["height"] < 1300)]
            fi = f["fires"][:]
            m = (fi["agent"] < 10) & (fi["height"] >= 600) & (fi["height"] < 1400)
            out.append((pre, mid, (up[0] - 600) if len(up) else np.nan,
                        (down[0] - 1300) if len(down) else np.nan,
                        (rup[0] - 600) if len(rup) else np.nan,
                        inc["weight_ppm"].mean() / 1e6, np.percentile(fi["delay"][m], 99)))
        o = np.array(out, dtype=float)
        print("  alpha %-6g median %.1f -> %.1f; 90%% of the jump after %.0f blocks (median in effect: %.0f),"
              " back within 10%% %.0f blocks after exit; incumbents' mean W (800-1300) %.3f,"
              " p99 delay (600-1400) %.2f"
              % ((a,) + tuple(np.nanmean(o[:, [0, 1, 2, 4, 3, 5, 6]], axis=0))))


def tiers(df, rdir):
    print("\nper tier (agent groups of 4), pooled over seeds: delay p50 / p99 / mean, mean paid per fire")
    names = [(0, "standard"), (4, "economy"), (8, "fast"), (12, "urgent")]
    for (u, e), g in df[df["mechanism"] == "eip1559"].groupby(["params_tier_urgent", "params_tier_economy"]):
        fis = [h5py.File(run_file(rdir, r), "r")["fires"][:] for _, r in g.iterrows()]
        parts = []
        for lo, nm in names:
            d = np.concatenate([fi["delay"][(fi["agent"] >= lo) & (fi["agent"] < lo + 4)] for fi in fis])
            p = np.concatenate([fi["paid"][(fi["agent"] >= lo) & (fi["agent"] < lo + 4)] for fi in fis])
            parts.append("%s %g/%g/%.2f paid %.3g" % (nm, np.percentile(d, 50), np.percentile(d, 99),
                                                      d.mean(), p.mean()))
        print("  urgent %.1f economy %.1f: %s" % (u, e, "; ".join(parts)))


def gc(df, rdir):
    print("\nGC lane (from /blocks, mean over seeds): blocks with GC work, last GC block,"
          " max gc_backlog, max eob_cycles; live delay p99 over fires at heights 560-700")
    for (m, b), g in df.groupby(["mechanism", "params_gc_cycles_per_block"]):
        o = []
        for _, r in g.iterrows():
            f = h5py.File(run_file(rdir, r), "r")
            bl = f["blocks"][:]
            fi = f["fires"][:]
            nz = np.nonzero(bl["gc_cycles"])[0]
            m2 = (fi["height"] >= 560) & (fi["height"] < 700) & (fi["kind"] == 0)
            o.append((len(nz), nz.max() if len(nz) else np.nan, bl["gc_backlog"].max(), bl["eob_cycles"].max(),
                      np.percentile(fi["delay"][m2], 99)))
        o = np.array(o, dtype=float).mean(axis=0)
        print("  %-11s gc %9d: %5.1f GC blocks, last at %5.0f, backlog max %6.0f, eob max %10.0f,"
              " live p99 (560-700) %.2f" % ((m, b) + tuple(o)))


def main():
    study = sys.argv[1]
    base = sys.argv[2] if len(sys.argv) > 2 else "results/calibration"
    rdir = os.path.join(base, study, "runs")
    df, params = load(os.path.join(rdir, "sweep.h5"))
    pd.set_option("display.width", 250)
    pd.set_option("display.max_columns", 40)
    pd.set_option("display.max_rows", 500)
    cols = [c for c in METRICS.get(study, ["fires", "delay_p99"]) if c in df.columns]
    n = df.groupby(["mechanism"] + params, sort=False).size().iloc[0]
    print("%s: %d rows, %d seed(s) per point; mean over seeds" % (study, len(df), n))
    print(df.groupby(["mechanism"] + params, sort=False)[cols].mean().to_string(float_format=lambda x: "%.4g" % x))
    if study == "01-lambda":
        lam(df, rdir)
    elif study == "03-vcg-fp":
        ratio(df)
    elif study == "06-median-ema":
        median_lag(df, rdir)
    elif study == "07-tiers":
        tiers(df, rdir)
    elif study == "12-gc-isolation":
        gc(df, rdir)


if __name__ == "__main__":
    main()
