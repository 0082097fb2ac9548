#!/usr/bin/env bash
# test_bench_core.sh -- `cowsim bench core` and its --pending option.
#
# 1. `bench core --quick --pending 2e4 --json` runs the queue lifecycle at
#    20,000 pending alone: one section pending_20000 (no other size, no
#    clearing figures), 2,000 blocks (--quick), the tiered queue delivering
#    exactly what the binary heap delivers (same_deliveries_as_heap: the
#    checksum of both delivery sequences, in order, and their counts), and
#    the per-tier counts adding up to the pending count; 3 rounds
#    (--quick), each figure the median of the rounds' figures: the
#    speedups equal the medians of the per-round lists printed beside them
#    (computed here), with their min and max; no target lines (those are
#    printed at 10^6 pending only).
#    --rounds 1: one round, its figure is the median.
# 2. Without --pending: both quick sizes (10^5 and 2 x 10^5) and the
#    clearing sections, none with target lines (printed at 10^6 pending
#    and 10^5 due only).
# 3. Misuse: --pending out of 1000..10^7, not a whole number, or without a
#    value, and --rounds out of 1..25 or not a whole number, print the
#    usage and exit 2.
# Speed targets are not checked here: a shared test machine cannot time them.
set -u
SRC=${CS_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$SRC" || exit 2
. "$(dirname "$0")/cs_test_lib.sh"

# 1. One size alone.
"$BIN" bench core --quick --pending 2e4 --json > "$T/p.json" 2> "$T/p.err"
check "[ $? -eq 0 ]" "bench core --quick --pending 2e4 exit 0 ($(head -c 300 "$T/p.err"))"
cat > "$T/p.py" <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))
secs = sorted(k for k in r if isinstance(r[k], dict))
bad = []
if secs != ["pending_20000"]:
    bad.append("sections %s, want only pending_20000" % secs)
else:
    s = r["pending_20000"]
    if s["blocks"] != 2000: bad.append("blocks %s, want 2000" % s["blocks"])
    if s["same_deliveries_as_heap"] != "yes": bad.append("tiered queue and heap deliver differently")
    if s["fired"] <= 0: bad.append("nothing fired")
    # 0 < pending <= 20,000: each block refills what the previous one fired.
    if not 0 < s["pending"] <= 20000: bad.append("pending %s" % s["pending"])
    if s["pending_tier1"] + s["pending_tier2"] + s["pending_tier3"] != s["pending"]:
        bad.append("tiers %s + %s + %s != pending %s" % (s["pending_tier1"], s["pending_tier2"],
                                                          s["pending_tier3"], s["pending"]))
    for k in ("ns_per_timer", "heap_ns_per_timer", "harness_ns_per_timer", "cpu_ns_per_timer"):
        if not s[k] > 0: bad.append("%s = %s" % (k, s[k]))
    want_rounds = int(sys.argv[2])
    if s["rounds"] != want_rounds: bad.append("rounds %s, want %d" % (s["rounds"], want_rounds))
    for key in ("speedup_vs_heap", "speedup_vs_heap_net"):
        v = sorted(float(x) for x in s[key + "_rounds"].split())
        if len(v) != want_rounds:
            bad.append("%s_rounds has %d values" % (key, len(v)))
            continue
        med = v[len(v) // 2]  # odd count: the middle value
        if "%.6g" % med != "%.6g" % s[key]: bad.append("%s %s, median of rounds %s" % (key, s[key], med))
        if key == "speedup_vs_heap" and ("%.6g" % v[0] != "%.6g" % s[key + "_min"] or
                                         "%.6g" % v[-1] != "%.6g" % s[key + "_max"]):
            bad.append("min/max %s/%s, rounds %s" % (s[key + "_min"], s[key + "_max"], v))
    if any(k.startswith("target_") or k.startswith("meets_") for k in s):
        bad.append("target lines below 10^6 pending")
print("; ".join(bad) if bad else "ok")
sys.exit(1 if bad else 0)
PYEOF
$PY "$T/p.py" "$T/p.json" 3 > "$T/p.txt" 2>&1
check "[ $? -eq 0 ]" "bench core --pending 2e4: $(cat "$T/p.txt")"
"$BIN" bench core --quick --pending 2e4 --rounds 1 --json > "$T/p1.json" 2> "$T/p1.err"
check "[ $? -eq 0 ]" "bench core --rounds 1 exit 0 ($(head -c 300 "$T/p1.err"))"
$PY "$T/p.py" "$T/p1.json" 1 > "$T/p1.txt" 2>&1
check "[ $? -eq 0 ]" "bench core --pending 2e4 --rounds 1: $(cat "$T/p1.txt")"

# 2. The default sizes and the clearing figures.
"$BIN" bench core --quick --json > "$T/q.json" 2> "$T/q.err"
check "[ $? -eq 0 ]" "bench core --quick exit 0 ($(head -c 300 "$T/q.err"))"
$PY - "$T/q.json" > "$T/q.txt" 2>&1 <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))
secs = [k for k in r if isinstance(r[k], dict)]
bad = []
if [k for k in secs if k.startswith("pending_")] != ["pending_100000", "pending_200000"]:
    bad.append("sizes %s" % secs)
if not any(k.startswith("clear_") for k in secs): bad.append("no clearing sections")
bad += ["%s: deliveries differ" % k for k in secs
        if k.startswith("pending_") and r[k]["same_deliveries_as_heap"] != "yes"]
# Targets are stated at 10^6 pending and 10^5 due: none at these sizes.
bad += ["%s: target lines" % k for k in secs if any(x.startswith(("target_", "meets_")) for x in r[k])]
print("; ".join(bad) if bad else "ok")
sys.exit(1 if bad else 0)
PYEOF
check "[ $? -eq 0 ]" "bench core --quick: $(cat "$T/q.txt")"

# 3. Misuse.
for a in "--pending 5" "--pending 2e7" "--pending 1500.5" "--pending 1e6x" "--pending" \
         "--rounds 0" "--rounds 26" "--rounds 2.5" "--rounds x" "--rounds"; do
    "$BIN" bench core $a > "$T/m.out" 2> "$T/m.err"
    rc=$?
    check "[ $rc -eq 2 ] && grep -q 'usage: cowsim bench' '$T/m.err'" "bench core $a: exit $rc, $(head -c 200 "$T/m.err")"
done

finish bench_core
