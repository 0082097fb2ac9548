#!/usr/bin/python3
"""scenarios/sweep.schema.json against the sweep parser and every shipped file.

Usage: test_sweep_schema.py COWSIM SRC_DIR WORK_DIR

  1. the schema's top-level keys are the parser's (the keys[] list of
     cs_sweep_parse in analysis/cs_sweep.c);
  2. every shipped sweep (a JSON file under scenarios/ with "base")
     validates (python3-jsonschema, draft 2020-12, base resolved against
     scenarios/schema.json), and no shipped scenario validates as a sweep;
  3. bad sweeps: the schema and `cowsim sweep` both refuse each (exit 2,
     the message naming the JSON path);
  4. a scenario given to `cowsim sweep` and a sweep given to `cowsim run` /
     `validate` are refused with one message saying which file it is.
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys

import jsonschema

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cs_pytest import check, finish, scratch  # noqa: E402


def main():
    cowsim, src, work = sys.argv[1:4]
    scratch(work)
    sc = os.path.join(src, "scenarios")
    sweep_schema = json.load(open(os.path.join(sc, "sweep.schema.json")))
    scen_schema = json.load(open(os.path.join(sc, "schema.json")))
    jsonschema.Draft202012Validator.check_schema(sweep_schema)
    resolver = jsonschema.RefResolver(sweep_schema["$id"], sweep_schema, store={scen_schema["$id"]: scen_schema})
    val = jsonschema.Draft202012Validator(sweep_schema, resolver=resolver)

    # 1. keys
    c = open(os.path.join(src, "analysis", "cs_sweep.c")).read()
    m = re.search(r'static const char \*const keys\[\] = \{([^}]*)\};', c)
    parser_keys = re.findall(r'"([a-z_]+)"', m.group(1)) if m else []
    check(sorted(parser_keys) == sorted(sweep_schema["properties"]),
          f"schema keys {sorted(sweep_schema['properties'])} == parser keys {sorted(parser_keys)}")

    # 2. shipped files
    files = sorted(glob.glob(os.path.join(sc, "**", "*.json"), recursive=True))
    nsweep = nscen = 0
    for f in files:
        if f.endswith("schema.json") or "/auctions/" in f:  # auctions: the `cowsim clear` format
            continue
        doc = json.load(open(f))
        errs = sorted(val.iter_errors(doc), key=lambda e: list(e.path))
        if isinstance(doc, dict) and "base" in doc:
            nsweep += 1
            check(not errs, f"{os.path.relpath(f, src)} validates against sweep.schema.json: "
                            f"{[e.message[:120] for e in errs[:3]]}")
        else:
            nscen += 1
            check(bool(errs), f"{os.path.relpath(f, src)} (a scenario) does not validate as a sweep")
    check(nsweep >= 16, f"shipped sweeps found: {nsweep} (scenarios/sweeps, scenarios/calibration)")
    check(nscen >= 5, f"shipped scenarios found: {nscen}")

    # 3. bad sweeps: schema and parser agree
    bad = {
        "grid-and-sobol": ({"name": "x", "base": "s.json", "grid": {"params.lambda": [0.1]},
                            "sobol": {"n": 2, "ranges": {"params.lambda": [0.1, 0.2]}}}, "grid or sobol"),
        "unknown-key": ({"name": "x", "base": "s.json", "points": 3}, "points: unknown key"),
        "dup-seeds": ({"name": "x", "base": "s.json", "seeds": [3, 3]}, "seeds[1]"),
        "seed-path": ({"name": "x", "base": "s.json", "grid": {"seed": [1, 2]}}, "seed"),
        "sobol-no-n": ({"name": "x", "base": "s.json", "sobol": {"ranges": {"params.lambda": [0.1, 0.2]}}},
                       "sobol.n: required"),
        "empty-grid-values": ({"name": "x", "base": "s.json", "grid": {"params.lambda": []}}, "grid.params.lambda"),
        "slash-name": ({"name": "a/b", "base": "s.json"}, "name:"),
    }
    shutil.copy(os.path.join(sc, "sweeps", "tiny.json"), os.path.join(work, "s.json"))
    for label, (doc, msg) in bad.items():
        p = os.path.join(work, label + ".json")
        json.dump(doc, open(p, "w"))
        check(not val.is_valid(doc), f"bad sweep {label}: the schema refuses it")
        r = subprocess.run([cowsim, "sweep", p, "-o", os.path.join(work, "out-" + label)],
                           capture_output=True, text=True)
        check(r.returncode == 2 and msg in r.stderr, f"bad sweep {label}: cowsim sweep exit 2 naming '{msg}' "
                                                     f"(got {r.returncode}: {r.stderr.strip()[:300]})")
        check(not os.path.exists(os.path.join(work, "out-" + label, "sweep.h5")), f"bad sweep {label}: nothing written")

    # 4. the wrong kind of file
    r = subprocess.run([cowsim, "sweep", os.path.join(sc, "default.json"), "-o", os.path.join(work, "o")],
                       capture_output=True, text=True)
    lines = r.stderr.strip().split("\n")
    check(r.returncode == 2 and len(lines) == 1 and "is a scenario file" in lines[0] and "cowsim run" in lines[0],
          f"sweep on a scenario: one message saying so (got {r.returncode}: {r.stderr.strip()[:300]})")
    for cmd in ("run", "validate"):
        r = subprocess.run([cowsim, cmd, os.path.join(sc, "sweeps", "grid.json"), "-o", os.path.join(work, "o")]
                           if cmd == "run" else [cowsim, cmd, os.path.join(sc, "sweeps", "grid.json")],
                           capture_output=True, text=True)
        lines = r.stderr.strip().split("\n")
        check(r.returncode == 2 and len(lines) == 1 and "is a sweep file" in lines[0] and "cowsim sweep" in lines[0],
              f"{cmd} on a sweep: one message saying so (got {r.returncode}: {r.stderr.strip()[:300]})")

    finish("sweep_schema")


if __name__ == "__main__":
    main()
