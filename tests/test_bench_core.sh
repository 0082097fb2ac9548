#!/usr/bin/env bash
# test_bench_core.sh -- `cowsim bench core` and its --pending option.
#
# 1. `bench core --quick --pending 2e4 --json` runs the queue lifecycle at
#    20,000 pending alone: one section pending_20000 (no other size, no
#    clearing figures), 2,000 blocks (--quick), the tiered queue delivering
#    exactly what the binary heap delivers (same_deliveries_as_heap: the
#    checksum of both delivery sequences, in order, and their counts), and
#    the per-tier counts adding up to the pending count.
# 2. Without --pending: both quick sizes (10^5 and 2 x 10^5) and the
#    clearing sections.
# 3. Misuse: --pending out of 1000..10^7, not a whole number, or without a
#    value prints the usage and exits 2.
# Speed targets are not checked here: a shared test machine cannot time them.
set -u
SRC=${CS_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$SRC" || exit 2
. "$(dirname "$0")/cs_test_lib.sh"

# 1. One size alone.
"$BIN" bench core --quick --pending 2e4 --json > "$T/p.json" 2> "$T/p.err"
check "[ $? -eq 0 ]" "bench core --quick --pending 2e4 exit 0 ($(head -c 300 "$T/p.err"))"
$PY - "$T/p.json" > "$T/p.txt" 2>&1 <<'PYEOF'
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
print("; ".join(bad) if bad else "ok")
sys.exit(1 if bad else 0)
PYEOF
check "[ $? -eq 0 ]" "bench core --pending 2e4: $(cat "$T/p.txt")"

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
print("; ".join(bad) if bad else "ok")
sys.exit(1 if bad else 0)
PYEOF
check "[ $? -eq 0 ]" "bench core --quick: $(cat "$T/q.txt")"

# 3. Misuse.
for a in "--pending 5" "--pending 2e7" "--pending 1500.5" "--pending 1e6x" "--pending"; do
    "$BIN" bench core $a > "$T/m.out" 2> "$T/m.err"
    rc=$?
    check "[ $rc -eq 2 ] && grep -q 'usage: cowsim bench' '$T/m.err'" "bench core $a: exit $rc, $(head -c 200 "$T/m.err")"
done

finish bench_core
