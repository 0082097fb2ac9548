#!/usr/bin/env bash
# test_bench_backlog.sh -- `cowsim bench backlog --quick --json`: every
# section and figure is there, the figures agree with each other, and the
# standing-backlog workload times the blocks after its warm-up: its fires,
# timers and deferred timers are those of blocks 301-400 of the same
# scenario run by `cowsim run` (the issue's literal workload, 400 blocks),
# read from that run's /blocks and /timers.  An off-by-one in the warm-up
# (the blocks counted from 300 or from 302, the counts taken before the
# last warm-up block) gives other numbers.  The paired segments
# (workload_standing_paired) are checked the same way: the fires of their
# timed blocks, incremental and full, are those of the reference's blocks
# each segment times (ABBA order, one untimed block before each segment).
# Speeds are not checked: a shared test machine cannot time them; only
# that the figures agree (the geometric mean lies between the pairs'
# extremes and inside its interval).
set -u
SRC=${CS_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$SRC" || exit 2
. "$(dirname "$0")/cs_test_lib.sh"

# 1. The quick benchmark: exit 0 and one JSON object.
"$BIN" bench backlog --quick --json > "$T/b.json" 2> "$T/b.err"
check "[ $? -eq 0 ]" "bench backlog --quick --json exit 0 ($(head -c 300 "$T/b.err"))"

# 2. The reference: the literal workload for 400 blocks.
"$BIN" run bench/backlog.json --set blocks=400 --set params.lane_basefee_initial=1000 -o "$T/ref" --quiet \
    > /dev/null 2> "$T/r.err"
check "[ $? -eq 0 ]" "reference run exit 0 ($(head -c 300 "$T/r.err"))"

# 3. Sections, figures and their agreement.
$PY - "$T/b.json" "$T/ref/eip1559.h5" > "$T/c.txt" 2>&1 <<'PYEOF'
import json, sys
import h5py
r = json.load(open(sys.argv[1]))
bad = []
def need(cond, what):
    if not cond:
        bad.append(what)
def close(a, b, what, rel=2e-3):
    need(abs(a - b) <= rel * max(abs(a), abs(b), 1e-12), "%s: %r against %r" % (what, a, b))

sections = ["workload", "workload_full_ranking", "workload_startup", "workload_startup_full_ranking",
            "workload_standing", "workload_standing_full_ranking", "workloads_compared", "arrivals_only",
            "workload_standing_paired", "backlog_scaling", "backlog_scaling_full_ranking", "arrivals_draws"]
for s in sections:
    need(s in r, "section " + s)
if bad:
    print("; ".join(bad)); sys.exit(1)
need(r["quick"] == 1, "quick 1")
need(r["standing_override"] == "params.lane_basefee_initial=1000", "standing_override")

for name in ["workload", "workload_startup", "workload_standing"]:
    w, f = r[name], r[name + "_full_ranking"]
    blocks = w["blocks"]
    close(w["arrivals"], 2000.0 * blocks, name + " arrivals = 2,000 a block")
    close(w["due_per_block"], w["fires_per_block"] + w["deferred_per_block"], name + " due = fired + deferred")
    close(w["fires_per_block"], w["fires"] / blocks, name + " fires per block")
    close(w["ms_per_block"], w["cpu_seconds"] * 1e3 / blocks, name + " ms per block")
    close(w["arrivals_per_cpu_second"], w["arrivals"] / w["cpu_seconds"], name + " arrivals per CPU second")
    close(f["arrivals_per_cpu_second"], w["arrivals"] / f["cpu_seconds"], name + " full: arrivals per CPU second")
    close(f["incremental_speedup"], w["arrivals_per_cpu_second"] / f["arrivals_per_cpu_second"],
          name + " incremental_speedup")
    need(f["fires"] == w["fires"], name + " full ranking fires the same timers")
    close(f["deferred_per_block"], w["deferred_per_block"], name + " full ranking defers the same")
    need(w["meets_arrivals_target"] == (1 if w["arrivals_per_cpu_second"] >= 8e6 else 0), name + " meets_arrivals_target")
    need(f["meets_speedup_target"] == (1 if f["incremental_speedup"] >= 2.5 else 0), name + " meets_speedup_target")
need(r["workload"]["blocks"] == 100 and "warm_up_blocks" not in r["workload"], "workload: 100 blocks, no warm-up")
need(r["workload_startup"]["blocks"] == 100 and "warm_up_blocks" not in r["workload_startup"],
     "workload_startup: 100 blocks, no warm-up")
st = r["workload_standing"]
need(st["warm_up_blocks"] == 300 and st["blocks"] == 100, "workload_standing: 100 blocks after 300")

# The standing figures are blocks 301-400 of the reference run.
f5 = h5py.File(sys.argv[2], "r")
b = f5["blocks"][:]
seg = b[(b["height"] >= 301) & (b["height"] <= 400)]
need(len(seg) == 100, "reference: blocks 301-400")
fired = int(seg["fired"].sum())
deferred = float(seg["deferred"].sum()) / 100.0
t = f5["timers"][:]
sched = int(((t["sched_height"] >= 301) & (t["sched_height"] <= 400)).sum())
need(st["fires"] == fired, "standing fires %d against the reference's %d in blocks 301-400" % (st["fires"], fired))
close(st["deferred_per_block"], deferred, "standing deferred per block against the reference's")
need(st["timers"] == sched, "standing timers %d against the reference's %d scheduled in blocks 301-400" % (st["timers"], sched))
# And not blocks 300-399 or 302-401 (the check above can tell them apart).
other = int(b[(b["height"] >= 300) & (b["height"] <= 399)]["fired"].sum())
need(other != fired, "reference: blocks 300-399 fire a different count (the check has teeth)")
# The paired segments: 4 pairs of 10 timed blocks after 300, each after
# one untimed block: segment i times blocks 302 + 11 i .. 311 + 11 i; pair
# k runs incremental first for even k.
pr = r["workload_standing_paired"]
need(pr["warm_up_blocks"] == 300 and pr["pairs"] == 4 and pr["blocks_per_segment"] == 10, "paired: 4 pairs of 10 after 300")
inc_f = full_f = 0
for k in range(4):
    for j in range(2):
        i = 2 * k + j
        lo = 302 + 11 * i
        n = int(b[(b["height"] >= lo) & (b["height"] <= lo + 9)]["fired"].sum())
        is_full = (j == 1) if k % 2 == 0 else (j == 0)
        if is_full:
            full_f += n
        else:
            inc_f += n
close(pr["fires_per_block_incremental"], inc_f / 40.0, "paired: incremental segments' fires a block against the reference's")
close(pr["fires_per_block_full_ranking"], full_f / 40.0, "paired: full segments' fires a block against the reference's")
need(inc_f != full_f, "paired: the two paths' segments fire different counts (the check has teeth)")
g = pr["incremental_speedup"]
need(pr["incremental_speedup_min_pair"] <= g <= pr["incremental_speedup_max_pair"], "paired: geometric mean within the pairs")
need(pr["incremental_speedup_lo95"] <= g <= pr["incremental_speedup_hi95"], "paired: geometric mean within its interval")
gm = pr["main_thread_incremental_speedup"]
need(pr["main_thread_incremental_speedup_lo95"] <= gm <= pr["main_thread_incremental_speedup_hi95"], "paired: main thread within its interval")
close(pr["arrivals_per_cpu_second"], 2000.0 / (pr["ms_per_block_incremental"] * 1e-3), "paired: arrivals per CPU second")
need(pr["meets_speedup_target"] == 0, "paired: --quick meets no target")
print("; ".join(bad) if bad else "standing: %d fires, %d timers, %.1f deferred a block in blocks 301-400" % (fired, sched, deferred))
sys.exit(1 if bad else 0)
PYEOF
check "[ $? -eq 0 ]" "figures: $(head -c 600 "$T/c.txt")"

# 4. Usage: an unknown option is exit 2.
"$BIN" bench backlog --bogus > "$T/u" 2>&1
check "[ $? -eq 2 ]" "bench backlog --bogus: exit 2 ($(head -c 200 "$T/u"))"

finish bench_backlog
