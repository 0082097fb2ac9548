#!/usr/bin/env bash
# test_nmax.sh -- every run stores CIP-5 §9.2's N_max for its lambda, bias
# scale and competitor wealth (issue 24 item 4, DESIGN-NOTES N62,
# SPEC-FINDINGS S12): root attributes nmax_wealth_exact (the largest
# starting balance), nmax_bias_scale_exact, nmax_lambda, nmax_spec =
# ln(T/3)/lambda and nmax_exact = the least n with floor(S e^(n lambda)) >
# T + S.  Checked against values computed here, by hand:
#   T = 1e11, S = 1,      lambda 0.05: ln(1e11 + 1) / 0.05 = 506.57 -> 507,
#                                       spec ln(1e11 / 3) / 0.05 = 484.60;
#   T = 1e11, S = 1e6,    lambda 0.05: ln(1e5 + 1) / 0.05 = 230.26 -> 231;
#   T = 3e12, S = 1,      lambda 0.2:  ln(3e12 + 1) / 0.2 = 143.14 -> 144,
#                                       spec ln(1e12) / 0.2 = 138.16.
# The Python side recomputes each from the formula (float exp, with the
# boundary checked to be far from an integer) and compares exactly.
set -u
. tests/cs_test_lib.sh

mk() {
    cat > "$T/$1.json" <<JSON
{
  "name": "nmax-$1", "seed": 5, "blocks": 2, "mechanism": ["bias-vcg"],
  "params": {"bias_scale": $2, "lambda": $3},
  "agents": [{"kind": "waiting_game", "count": 2, "balance": "$4", "params": {"rate": 0.3, "ttl": 30}},
             {"kind": "waiting_game", "count": 1, "balance": "1000", "params": {"rate": 0.3, "ttl": 30}}]
}
JSON
    "$BIN" run "$T/$1.json" -o "$T/$1" --quiet > /dev/null 2> "$T/$1.err"
    check "[ $? -eq 0 ]" "run $1: exit 0 ($(head -c 200 "$T/$1.err"))"
}
mk a 1 0.05 100000000000
mk b 1000000 0.05 100000000000
mk c 1 0.2 3000000000000

$PY - "$T" > "$T/out.txt" 2>&1 <<'PYEOF'
import sys, math, h5py
T = sys.argv[1]
want = {"a": (10**11, 1, 0.05, 507, 484.60), "b": (10**11, 10**6, 0.05, 231, None), "c": (3 * 10**12, 1, 0.2, 144, 138.16)}
fails = []
for k, (w, s, lam, hand_exact, hand_spec) in want.items():
    a = h5py.File(f"{T}/{k}/bias-vcg.h5", "r").attrs
    x = math.log((w + s) / s) / lam
    assert abs(x - round(x)) > 1e-3
    exact = math.floor(x) + 1
    spec = math.log(w / 3) / lam
    got = (int(a["nmax_wealth_exact"]), int(a["nmax_bias_scale_exact"]), float(a["nmax_lambda"]),
           int(a["nmax_exact"]), float(a["nmax_spec"]))
    print(k, "stored", got, "computed exact", exact, "spec %.4f" % spec)
    if got[0] != w or got[1] != s or abs(got[2] - lam) > 1e-12:
        fails.append(f"{k}: wealth, scale or lambda {got[:3]} != {(w, s, lam)}")
    if got[3] != exact or exact != hand_exact:
        fails.append(f"{k}: nmax_exact {got[3]}, computed {exact}, by hand {hand_exact}")
    if abs(got[4] - spec) > 1e-9 * spec or (hand_spec is not None and abs(spec - hand_spec) > 0.005):
        fails.append(f"{k}: nmax_spec {got[4]}, computed {spec}, by hand {hand_spec}")
for f in fails:
    print("FAIL:", f)
sys.exit(1 if fails else 0)
PYEOF
rc=$?
cat "$T/out.txt"
check "[ $rc -eq 0 ]" "N_max stored as computed by hand"
finish nmax
