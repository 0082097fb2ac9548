#!/usr/bin/python3
"""The Python loader (python/cowsim) on a real run and a real sweep.

Usage: test_loader.py COWSIM SRC_DIR WORK_DIR

Expected values come from outside the loader: category lists from
scenarios/schema.json and sim/cs_h5.h, defaults from the schema, amounts
from the raw h5py columns (hi * 2^64 + lo), the sweep's swept values from
its /runs table.  Checks:
  run:   dtypes (categoricals, str, float + exact int), one join per table
         (fires/timers -> actors, weights -> identities, actors.deployer ->
         identities, blocks <- fires by height, summary <- actors by kind,
         identities -> actors), the effective parameters as a Series (every
         schema parameter present; defaults, the --set override, seed,
         mechanism, an agent parameter default), a format-1 file;
  sweep: /runs dtypes and categories, the effective parameters joined from
         the run files equal the swept columns, the long-format series has
         every block of every row and its utilisation means equal the
         util_mean metric of /runs.
"""
import json
import os
import subprocess
import sys

import h5py
import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cs_pytest import check, finish, scratch  # noqa: E402


def main():
    cowsim_bin, src, work = sys.argv[1:4]
    scratch(work)
    sys.path.insert(0, os.path.join(src, "python"))
    import cowsim

    schema = json.load(open(os.path.join(src, "scenarios", "schema.json")))
    kinds = schema["$defs"]["agent_kind"]["enum"] + ["all"]
    pdefs = schema["$defs"]["params"]["properties"]

    # ---- a run -------------------------------------------------------------
    out = os.path.join(work, "run")
    subprocess.run([cowsim_bin, "run", os.path.join(src, "tests", "data", "money.json"), "-o", out,
                    "--mechanism", "eip1559", "--set", "params.lambda=0.07", "--seed", "99"],
                   check=True, stdout=subprocess.DEVNULL)
    path = os.path.join(out, "eip1559.h5")
    r = cowsim.load_run(path)
    raw = h5py.File(path, "r")
    check(r.format_version == 2 and r.mechanism == "eip1559", "run: format 2, mechanism decoded to str")
    # dtypes and categories
    for t, c in (("fires", "kind"), ("timers", "kind"), ("actors", "kind"), ("summary", "kind")):
        df = getattr(r, t)
        check(isinstance(df[c].dtype, pd.CategoricalDtype) and list(df[c].cat.categories) == kinds,
              f"run: /{t}.{c} categorical over the schema's kinds + all")
    check(list(r.timers.trigger.cat.categories) == ["HEIGHT", "INTERVAL", "WATCH"], "run: trigger categories")
    check(list(r.timers.outcome.cat.categories) == ["fired", "expired", "insufficient", "cancelled", "pending",
                                                    "rejected"], "run: outcome categories")
    check(list(r.identities.kind.cat.categories) == ["actor", "deployer"], "run: identity kind categories")
    check(len(r.fires[r.fires.kind == "default_gba"]) > 0, "run: selecting fires by kind name works")
    check(all(isinstance(x, str) and len(x) == 64 for x in r.blocks.digest), "run: digest decoded to 64-char str")
    check(list(r.identities[r.identities.kind == "deployer"].name) == ["fleet-one", "fleet-two"],
          "run: deployer names decoded to str")
    for t, c in (("blocks", "burn"), ("fires", "paid"), ("actors", "end_balance"), ("summary", "paid")):
        df = getattr(r, t)
        rawc = raw[t][:]
        want = [(int(h) << 64) | int(l) for h, l in zip(rawc[c + "_hi"], rawc[c + "_lo"])]
        check(df[c].dtype == np.float64 and df[c + "_exact"].dtype == object and
              list(df[c + "_exact"]) == want and c + "_hi" not in df.columns,
              f"run: /{t}.{c} float64 + exact ints, _hi/_lo dropped")
    check(max(r.actors.end_balance_exact) > 2**64, "run: exact amounts above 2^64 kept")
    check(r.exact("burned") == sum(r.blocks.burn_exact), "run: Run.exact('burned') = sum /blocks.burn_exact")
    # one join per table
    j = r.fires.merge(r.actors[["actor", "kind"]], on="actor", suffixes=("", "_a"))
    check(len(j) == len(r.fires) and (j.kind == j.kind_a).all(), "join fires -> actors on actor (kind agrees)")
    j = r.timers.merge(r.actors[["actor", "agent"]], on="actor", suffixes=("", "_a"))
    check(len(j) == len(r.timers) and (j.agent == j.agent_a).all(), "join timers -> actors on actor (agent agrees)")
    j = r.weights.merge(r.identities, on="ident", how="left")
    check(len(r.weights) > 0 and j.kind.notna().all(), "join weights -> identities on ident")
    j = r.actors.merge(r.identities, left_on="deployer", right_on="ident", suffixes=("", "_i")).sort_values("actor")
    want = ["fleet-one"] * 4 + ["fleet-two"] * 3 + ["fleet-one"] * 2  # actors 3-6, 9-11, 12-13 (money.json)
    check(len(j) == len(r.actors) and list(j[j.kind_i == "deployer"].name) == want and
          list(j[j.kind_i == "deployer"].actor) == [3, 4, 5, 6, 9, 10, 11, 12, 13],
          "join actors.deployer -> identities (named deployers' actors)")
    j = r.identities[r.identities.kind == "actor"].merge(r.actors, on="actor")
    check(len(j) == len(r.actors) and (j.ident == j.actor).all(), "join identities -> actors (ident == actor)")
    per_h = r.fires.groupby("height").size()
    j = r.blocks.set_index("height").join(per_h.rename("nf")).fillna({"nf": 0})
    check((j.fired == j.nf).all(), "join blocks <- fires by height (fired = fire rows)")
    per_k = r.actors.groupby("kind", observed=True).size()
    j = r.summary[r.summary.kind != "all"].set_index("kind").join(per_k.rename("na"))
    check((j.actors == j.na).all(), "join summary <- actors by kind (actors count)")
    # effective parameters
    p = r.params
    check(isinstance(p, pd.Series) and all(f"params.{k}" in p.index for k in pdefs),
          f"params: every one of the schema's {len(pdefs)} parameters present")
    check(p["params.lambda"] == 0.07 and p["params.ring_size"] == pdefs["ring_size"]["default"] and
          p["params.fairness_window"] == 50, "params: --set override, schema default, scenario value")
    check(p["seed"] == 99 and p["mechanism"] == "eip1559" and p["blocks"] == 300, "params: run seed, mechanism, blocks")
    hb = schema["$defs"]["agent_params_heartbeat"]["properties"]["period"]["default"]
    check(p["agents[0].params.period"] == hb and p["agents[0].balance"] == str(2**80) and
          p["agents[1].deployer"] == "fleet-one", "params: agent parameter default, balance, deployer")
    # format 1
    old = cowsim.load_run(os.path.join(src, "tests", "data", "h5", "run-v1.h5"))
    check(old.format_version == 1 and len(old.identities) == 0 and old.params.empty and
          sum(old.blocks.burn_exact) == old.exact("burned") and old.blocks.burn.dtype == np.float64 and
          old.summary.paid_exact.iloc[-1] == 162191970, "format-1 file: exact columns from u64, no identities")

    # issue 25: a damaged file raises CorruptRunError -- a flipped byte in a
    # chunk (Fletcher-32), a root total edited to disagree with the tables
    # (cross-check, also on the old format-1 file without checksums; the
    # edit is made through HDF5, so the header checksum stays valid)
    import shutil
    raw.close()
    bad = os.path.join(work, "bad.h5")
    shutil.copy(path, bad)
    with h5py.File(bad, "r") as f:
        off, size = f["blocks"].id.get_chunk_info(0).byte_offset, f["blocks"].id.get_chunk_info(0).size
    with open(bad, "r+b") as f:
        f.seek(off + size // 2)
        b = f.read(1)
        f.seek(off + size // 2)
        f.write(bytes([b[0] ^ 0x40]))
    try:
        cowsim.load_run(bad)
        check(False, "corrupt: a flipped chunk byte raises CorruptRunError")
    except cowsim.CorruptRunError as e:
        check("is corrupt" in str(e), "corrupt: a flipped chunk byte raises CorruptRunError")
    for src_file in (path, os.path.join(src, "tests", "data", "h5", "run-v1.h5")):
        shutil.copy(src_file, bad)
        with h5py.File(bad, "r+") as f:
            f.attrs["burned_exact"] = str(int(f.attrs["burned_exact"]) + 1)
        try:
            cowsim.load_run(bad)
            check(False, "corrupt: burned_exact + 1 raises CorruptRunError (%s)" % os.path.basename(src_file))
        except cowsim.CorruptRunError as e:
            check("burn + tips + payments differ from burned_exact + proposer_exact" in str(e),
                  "corrupt: burned_exact + 1 raises CorruptRunError (%s)" % os.path.basename(src_file))

    # N97: the root attributes' digest, computed here by the loader's own
    # Keccak-256 (published vectors first) and matched against the one the
    # C writer stored; a changed seed or scenario text raises
    # CorruptRunError; a file without a digest (format 1) still loads.
    check(cowsim.keccak256(b"").hex() ==
          "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470" and
          cowsim.keccak256(b"abc").hex() ==
          "4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45", "keccak256: published vectors")
    with h5py.File(path, "r") as f:
        check(len(f.attrs["attrs_digest"]) == 64 and cowsim.attrs_digest(f) == f.attrs["attrs_digest"],
              "attrs_digest: the loader's digest equals the writer's")
    for name, edit in (("seed", lambda v: v + 1), ("scenario_json", lambda v: v.replace("{", "{ ", 1))):
        shutil.copy(path, bad)
        with h5py.File(bad, "r+") as f:
            f.attrs[name] = edit(f.attrs[name])
        try:
            cowsim.load_run(bad)
            check(False, "corrupt: a changed %s raises CorruptRunError" % name)
        except cowsim.CorruptRunError as e:
            check("differ from their digest (attrs_digest)" in str(e), "corrupt: a changed %s raises CorruptRunError" % name)

    # ---- a sweep -----------------------------------------------------------
    sdir = os.path.join(work, "sweep")
    subprocess.run([cowsim_bin, "sweep", os.path.join(src, "scenarios", "sweeps", "grid.json"), "-o", sdir,
                    "--quiet"], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    sw = cowsim.load_sweep(os.path.join(sdir, "sweep.h5"), series=["burn", "utilisation"])
    rr = sw.runs
    rawr = h5py.File(os.path.join(sdir, "sweep.h5"), "r")["runs"][:]
    check(len(rr) == 16 and isinstance(rr.mechanism.dtype, pd.CategoricalDtype) and
          set(rr.mechanism.cat.categories) == {"fifo-capped", "eip1559"}, "sweep: 16 rows, mechanism categorical")
    check(all(isinstance(x, str) for x in rr.run_id) and rr.jain.dtype == np.float64, "sweep: run_id str, metrics float")
    check((rr["eff.params.lane_timer_cycles"].astype(float) == rawr["params_lane_timer_cycles"]).all() and
          (rr["eff.agents[0].params.rate"].astype(float) == rawr["agents_0_params_rate"]).all() and
          (rr["eff.seed"].astype(int) == rr.seed.astype(int)).all(),
          "sweep: effective parameters joined from the run files equal the swept columns")
    s = sw.series
    check(len(s) == 16 * 200 * 2 and list(s.variable.cat.categories) == ["burn", "utilisation"],
          "sweep: long series, every block of every row, 2 variables")
    u = s[s.variable == "utilisation"].groupby(["run_id", "mechanism"], observed=True).value.mean()
    j = rr.set_index(["run_id", "mechanism"]).join(u.rename("u"))
    check(np.allclose(j.u, j.util_mean, rtol=1e-12, atol=0), "sweep: join series -> runs (mean utilisation = util_mean)")

    finish("loader")


if __name__ == "__main__":
    main()
