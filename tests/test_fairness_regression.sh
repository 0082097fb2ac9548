#!/usr/bin/env bash
# test_fairness_regression.sh -- the fairness regression suite
# (analysis/README.md "Fairness regression suite"): every scenario in
# scenarios/regression/ is run and checked with `cowsim check` against its
# committed baseline results/baselines/<scenario>.json, which must pass
# (exit 0).  Then, for each baseline, a copy with one metric moved beyond
# its tolerance (written to a temporary file) must fail (exit 1) and name
# that metric as FAIL, so the suite is shown to be able to fail.
set -u
. "$(dirname "$0")/cs_test_lib.sh"

n_scen=0
for scen in scenarios/regression/*.json; do
    name=$(basename "$scen" .json)
    base=results/baselines/$name.json
    n_scen=$((n_scen + 1))
    if [ ! -f "$base" ]; then
        bad "$name: no baseline $base"
        continue
    fi
    start=$(date +%s)
    if ! "$BIN" run "$scen" -o "$T/$name" --quiet > "$T/$name.run" 2>&1; then
        bad "$name: cowsim run failed: $(tail -3 "$T/$name.run")"
        continue
    fi
    secs=$(($(date +%s) - start))
    [ "$secs" -le 30 ] && ok || bad "$name: run took ${secs}s (regression scenarios must stay small)"
    runs=("$T/$name"/*.h5)
    [ "${#runs[@]}" -eq 1 ] && ok || bad "$name: expected one mechanism, got ${#runs[@]} files"
    run=${runs[0]}

    # 1. the committed baseline passes.
    "$BIN" check --baseline "$base" "$run" > "$T/$name.chk" 2>&1
    rc=$?
    if [ $rc -eq 0 ] && grep -q ' 0 failed' "$T/$name.chk"; then ok; else
        bad "$name: check against $base exited $rc"
        cat "$T/$name.chk" >&2
    fi

    # 2. a perturbed copy (first metric with a number, moved 3 tolerances
    # plus 1 away) fails with exit 1 and marks that metric FAIL.
    metric=$($PY - "$base" "$T/$name.perturbed.json" <<'PYEOF'
import json, sys
b = json.load(open(sys.argv[1]))
for k, e in b["metrics"].items():
    v = e["value"]
    if v is None:
        continue
    tol = max(e.get("abs", 0), e.get("rel", 0) * abs(v))
    e["value"] = v + 3 * tol + 1
    json.dump(b, open(sys.argv[2], "w"), indent=1)
    print(k)
    break
PYEOF
)
    if [ -z "$metric" ]; then
        bad "$name: baseline has no numeric metric to perturb"
        continue
    fi
    "$BIN" check --baseline "$T/$name.perturbed.json" "$run" > "$T/$name.pchk" 2>&1
    rc=$?
    [ $rc -eq 1 ] && ok || bad "$name: perturbed baseline ($metric) exited $rc, want 1"
    grep -qE "^$metric[[:space:]].*FAIL$" "$T/$name.pchk" && ok || bad "$name: $metric not reported as FAIL"
    [ "$(grep -c 'FAIL$' "$T/$name.pchk")" -eq 1 ] && ok || bad "$name: other metrics failed too"
done
[ "$n_scen" -ge 2 ] && [ "$n_scen" -le 4 ] && ok || bad "expected 2-4 regression scenarios, found $n_scen"

echo "fairness_regression: $pass passed, $fail failed"
[ $fail -eq 0 ] && [ $pass -gt 0 ]
