#!/usr/bin/env bash
# test_lambda_invariant.sh -- the lambda loop that targets CIP-5 §9.3's
# invariant (lambda_controller = invariant, DESIGN-NOTES N70) against the
# on-chain proxy (share, N20), on scenarios/findings/bias-scale.json cut to
# 150 blocks with bias_scale 1e8 and lambda 0.5 (where every block with a
# deferred timer violates the invariant, test_bias_slack.sh), the loop on
# with lambda_epoch 10 and lambda_gain 0.9:
#   - the invariant loop's lambda path is the rule, recomputed here from
#     /blocks alone: at each close h ((h + 1) % 10 = 0) v = the share (ppm,
#     floor) of the blocks h - 10 .. h - 1 whose bias_slack is negative,
#     over those with a slack, and lambda += trunc(lambda * 900,000 *
#     (50,000 - v) / 1e12), clamped to [0.001, 0.5]; unchanged without such
#     a block, and between closes;
#   - it violates the invariant in fewer blocks than the proxy does (the
#     figures are printed);
#   - compare --json's bias_slack_violated equals the root attribute, the
#     runs' lambda_loop attributes are share and invariant, and compare's
#     text names the loop.
set -u
. tests/cs_test_lib.sh

for c in share invariant; do
    "$BIN" run scenarios/findings/bias-scale.json -o "$T/$c" --set blocks=150 --set params.bias_scale=100000000 \
        --set params.lambda=0.5 --set params.lambda_control=on --set params.lambda_epoch=10 \
        --set params.lambda_gain=0.9 --set params.lambda_controller=$c --quiet > /dev/null 2> "$T/e$c"
    check "[ $? -eq 0 ]" "run lambda_controller $c: exit 0 ($(head -c 200 "$T/e$c"))"
    "$BIN" compare --json "$T/$c/bias-vcg.h5" > "$T/$c.json" 2>&1
    check "[ $? -eq 0 ]" "compare --json $c"
done
"$BIN" compare "$T/share/bias-vcg.h5" "$T/invariant/bias-vcg.h5" > "$T/cmp.txt" 2>&1
check "grep -q 'lambda loop share)' '$T/cmp.txt' && grep -q 'lambda loop invariant)' '$T/cmp.txt'" \
    "compare names each run's lambda loop"

$PY - "$T" > "$T/out.txt" 2>&1 <<'PYEOF'
import sys, json, math, h5py
T = sys.argv[1]
fails = []
viol = {}
for c in ("share", "invariant"):
    f = h5py.File(f"{T}/{c}/bias-vcg.h5", "r")
    b = f["blocks"][:]
    la = f.attrs["lambda_loop"]
    la = la.decode() if isinstance(la, bytes) else str(la)
    if la != c:
        fails.append(f"{c}: lambda_loop attribute {la!r}")
    nb, share = int(f.attrs["bias_slack_blocks"]), float(f.attrs["bias_slack_violated"])
    viol[c] = share
    m = json.load(open(f"{T}/{c}.json"))["runs"][0]
    if m["lambda_loop"] != c or abs(m["metrics"]["bias_slack_violated"] - share) > 1e-15:
        fails.append(f"{c}: compare --json {m['lambda_loop']}, {m['metrics']['bias_slack_violated']} vs {share}")
    print(f"{c}: {nb} blocks with a slack, violated share {share:.4f}, mean deficit "
          f"{m['metrics']['bias_slack_deficit']:.4g}; lambda at 9, 19, 49, 149: "
          + ", ".join(str(int(b['lambda_ppb'][h - 1])) for h in (9, 19, 49, 149)))
    if c != "invariant":
        continue
    lam = {int(r["height"]): int(r["lambda_ppb"]) for r in b}
    slack = {int(r["height"]): float(r["bias_slack"]) for r in b}
    cur, bad, closes = 500000000, 0, 0
    for h in range(1, 151):
        if (h + 1) % 10 == 0:
            win = [slack[k] for k in range(max(1, h - 10), h) if not math.isnan(slack[k])]
            if win:
                v = sum(1 for x in win if x < 0) * 1000000 // len(win)
                num = cur * 900000 * (50000 - v)
                d = abs(num) // 10**12
                cur = min(max(cur + (d if num >= 0 else -d), 1000000), 500000000)
                closes += 1
        bad += lam[h] != cur
    print(f"invariant: {closes} updates, {bad} blocks whose lambda differs from the recomputation")
    if bad or closes < 10:
        fails.append(f"invariant: lambda path differs in {bad} blocks ({closes} updates)")
if not viol["invariant"] < viol["share"]:
    fails.append(f"the invariant loop violates in {viol['invariant']:.4f} of blocks, the proxy in {viol['share']:.4f}")
for x in fails:
    print("FAIL:", x)
sys.exit(1 if fails else 0)
PYEOF
rc=$?
cat "$T/out.txt"
check "[ $rc -eq 0 ]" "invariant loop: lambda path by the rule, fewer violating blocks than the proxy"
finish lambda_invariant
