#!/usr/bin/env bash
# test_capacity.sh -- one capacity for every compared rule (issue 24 item 1,
# DESIGN §2.4, DESIGN-NOTES N57), on scenarios/default.json shortened to 20
# blocks, every one of its seeds:
#   - the scenario's comparison does not list the unbounded `fifo`;
#   - for every listed mechanism and every block, the cycles reserved by the
#     block's fires (the sum of their /fires.gas_limit) are at most the lane
#     budget of the scenario (params.lane_timer_cycles, read from the JSON,
#     not from the run), and the fires at most params.max_fires_per_block,
#     and no actor more than params.max_fires_per_actor;
#   - /blocks.lane_cycles (the cycles the fires used) is the sum of the
#     block's /fires.cycles, so the lane a rule used is recorded (score and
#     fifo recorded 0 before);
#   - on the first seed, `compare --json` names one benchmark for every
#     mechanism (the same constraints) and every efficiency is <= 1.
#   - slot-booking and priority-classes (issue 28) are among the listed
#     mechanisms, and a two-seed run's table gives each with an interval.
# And the unbounded reference still exists: fifo on the same demand exceeds
# the lane in some block (its reserved cycles are computed the same way).
set -u
. tests/cs_test_lib.sh

SCEN=scenarios/default.json
SEEDS=$($PY -c "import json; d=json.load(open('$SCEN')); print(' '.join(str(d['seed']+i) for i in range(d.get('seeds',1))))")
for s in $SEEDS; do
    "$BIN" run "$SCEN" -o "$T/s$s" --seed "$s" --set blocks=20 --quiet > /dev/null 2> "$T/err$s"
    check "[ $? -eq 0 ]" "run $SCEN seed $s: exit 0 ($(head -c 300 "$T/err$s"))"
done
"$BIN" run "$SCEN" -o "$T/fifo" --seed 20261121 --set blocks=20 --mechanism fifo --quiet > /dev/null 2>&1
check "[ $? -eq 0 ]" "run $SCEN --mechanism fifo: exit 0"
# Issue 28: the two schedule-time rules sit in the comparison table with a
# mean and its interval across seeds (the row's first column "mean +/-
# half"); two seeds of 20 blocks, those two rules only.
"$BIN" run "$SCEN" -o "$T/tab" --seeds 2 --set blocks=20 --mechanism slot-booking,priority-classes > "$T/table" 2>&1
check "[ $? -eq 0 ]" "run $SCEN --seeds 2: exit 0"
for m in slot-booking priority-classes; do
    check "grep -Eq '^$m +[-0-9.e+]+ \\+/- [0-9.e+-]+' '$T/table'" "the default comparison lists $m with an interval"
done
first=${SEEDS%% *}
files=$($PY -c "import json; print(' '.join('$T/s$first/' + m + '.h5' for m in json.load(open('$SCEN'))['mechanism']))")
"$BIN" compare --json $files > "$T/cmp.json" 2> "$T/cmp.err"
check "[ $? -eq 0 ]" "compare --json of seed $first: exit 0 ($(head -c 300 "$T/cmp.err"))"

$PY - "$T" "$SCEN" $SEEDS > "$T/out.txt" 2>&1 <<'PYEOF'
import sys, json, collections, h5py
T, scen, seeds = sys.argv[1], sys.argv[2], sys.argv[3:]
d = json.load(open(scen))
lane = d["params"]["lane_timer_cycles"]
qb = d["params"]["max_fires_per_block"]
qa = d["params"]["max_fires_per_actor"]
mechs = d["mechanism"]
fails = []
if "fifo" in mechs:
    fails.append(f"{scen} lists the unbounded fifo in its comparison")
def per_block(path):
    f = h5py.File(path, "r")
    fi, bl = f["fires"][:], f["blocks"][:]
    res, used, n, act = collections.Counter(), collections.Counter(), collections.Counter(), collections.Counter()
    for r in fi:
        h = int(r["height"])
        res[h] += int(r["gas_limit"])
        used[h] += int(r["cycles"])
        n[h] += 1
        act[(h, int(r["actor"]))] += 1
    return fi, bl, res, used, n, act
worst = {}
for s in seeds:
    for m in mechs:
        fi, bl, res, used, n, act = per_block(f"{T}/s{s}/{m}.h5")
        if len(fi) == 0:
            fails.append(f"seed {s} {m}: no fires")
        over = [h for h in res if res[h] > lane]
        if over:
            fails.append(f"seed {s} {m}: reserved cycles above the lane {lane} in {len(over)} blocks (max {max(res.values())})")
        if qb and max(n.values(), default=0) > qb:
            fails.append(f"seed {s} {m}: {max(n.values())} fires in a block > {qb}")
        if qa and max(act.values(), default=0) > qa:
            fails.append(f"seed {s} {m}: {max(act.values())} fires of one actor in a block > {qa}")
        for r in bl:
            h = int(r["height"])
            if int(r["lane_cycles"]) != used[h]:
                fails.append(f"seed {s} {m}: block {h} lane_cycles {int(r['lane_cycles'])} != fires' cycles {used[h]}")
                break
        worst[m] = max(worst.get(m, 0), max(res.values(), default=0))
print("largest reserved cycles in a block, over every seed:", worst)
_, _, res, _, _, _ = per_block(f"{T}/fifo/fifo.h5")
print("fifo (unbounded reference) largest reserved cycles:", max(res.values()))
if max(res.values()) <= lane:
    fails.append("fifo never exceeds the lane: the reference is not unbounded")
c = json.load(open(f"{T}/cmp.json"))
runs = c["runs"]
if sorted(r["mechanism"] for r in runs) != sorted(mechs):
    fails.append(f"compare ran {[r['mechanism'] for r in runs]}")
cons = {r["mechanism"]: r.get("benchmark_constraints") for r in runs}
print("benchmark constraints:", cons)
if set(cons.values()) != {"lane budget, per-fire cap, quotas"}:
    fails.append(f"benchmarks differ: {cons}")
for r in runs:
    e = r["metrics"].get("efficiency")
    print(f"{r['mechanism']}: efficiency {e}")
    if e is None or not (0 < e <= 1 + 1e-12):
        fails.append(f"{r['mechanism']}: efficiency {e}")
for x in fails:
    print("FAIL:", x)
sys.exit(1 if fails else 0)
PYEOF
rc=$?
cat "$T/out.txt"
check "[ $rc -eq 0 ]" "one capacity and one benchmark for every compared mechanism"
finish capacity
