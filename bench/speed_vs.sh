#!/usr/bin/env bash
# bench/speed_vs.sh [--quick] BASE [NEW]
#   The speed of a build against an older one, every figure a ratio of two
#   measurements taken in the same run (alternated, bench/paired.sh), so a
#   shared or slower machine still gives a comparable answer.
#   BASE: a cowsim executable, or a git revision of this tree, which is
#   checked out into a temporary worktree and built (release, the cowsim
#   target only; a few minutes).  NEW: a cowsim executable (default
#   build/cowsim of this tree).
#   1. workload: `run bench/backlog.json` for 1,000 blocks (a congested
#      eip1559 lane: 2,000 arrivals, ~510 fires and ~490 deferred timers a
#      block), 7 pairs.  The arrivals are the same, so the CPU ratio is the
#      ratio of arrivals per CPU-second.
#   2. arrivals: the same scenario for 3,000 blocks with
#      agents[0].params.expected_wait=1e9, so nobody joins (the draws and
#      decisions, the per-block work of an empty lane), 5 pairs.
#   3. e2e: `bench e2e --json` (per-fire rows on), alternated four times
#      (base then new each time); the ratio of the mean fires_per_second
#      (wall) and of the mean main-thread CPU seconds, and each
#      alternation's own ratio (their geometric mean, median, lowest and
#      highest): one run slowed by the machine moves the means, not the
#      median.
#   4. standing: issue 26's literal workload (the same scenario with the
#      default lane basefee start, params.lane_basefee_initial=1000) in
#      its standing-backlog state: 10,000 blocks run, blocks 7,001-10,000
#      timed (~510 fires and ~3,500 due-but-deferred timers a block, after
#      the start-up flood), 3 pairs.  Each run prints its CPU time at block
#      7,000 (COWSIM_CPU_MARK, cli/cs_cpu_mark.h); the figure is the run's
#      CPU less that (bench/paired.sh -m).  A BASE revision without COWSIM_CPU_MARK gets the
#      header copied in and its run loop patched to print the mark (one
#      line, nothing else changed); a BASE executable that prints no mark
#      has no standing figure.
#   --quick: 2 pairs of 200 and 300 blocks, `bench e2e --quick` once each,
#   one standing pair of 400 blocks timed after 300 (a smoke run; its
#   ratios are not the figures).
#   The last lines give the ratios issue 26 asks for when BASE is 68af655,
#   its baseline: workload and standing 2.70 (8e6 / 3.0e6 arrivals per
#   CPU-second), arrivals 2.37 (71 ns / 30 ns), e2e 2.14 (2.5e6 / 1.17e6
#   fires/s).
set -uo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
QUICK=0
if [ "${1:-}" = "--quick" ]; then QUICK=1; shift; fi
usage() {
    echo "usage: bench/speed_vs.sh [--quick] BASE [NEW]   (BASE: a cowsim executable or a git revision)" >&2
    exit 2
}
[ $# -ge 1 ] && [ $# -le 2 ] || usage
BASE=$1
NEW=${2:-$SRC/build/cowsim}
[ -x "$NEW" ] || { echo "speed_vs: not an executable: $NEW" >&2; exit 2; }
PY=/usr/bin/python3
[ -x $PY ] || { echo "speed_vs: needs $PY (apt-get install python3)" >&2; exit 2; }

TMP=$(mktemp -d)
WT=""
cleanup() {
    [ -n "$WT" ] && git -C "$SRC" worktree remove --force "$WT" > /dev/null 2>&1
    rm -rf "$TMP"
}
trap cleanup EXIT

# An older tree without COWSIM_CPU_MARK: copy the header beside the file
# holding `cowsim run`'s block loop and print the mark after each block
# (the line before the loop's progress call).  Nothing else changes.
mark_patch() {
    local wt=$1 f
    grep -rqs COWSIM_CPU_MARK "$wt/cli" "$wt/sim" && return 0
    f=$(grep -ls 'cs_sim_height(e) % every == 0' "$wt"/cli/*.c "$wt"/sim/*.c | head -1)
    if [ -z "$f" ]; then
        echo "== $BASE: no run loop found for COWSIM_CPU_MARK; no standing figure"
        return 0
    fi
    cp "$SRC/cli/cs_cpu_mark.h" "$(dirname "$f")/" &&
        awk '/^#include "/ && !inc { print "#include \"cs_cpu_mark.h\""; inc = 1 }
             /cs_sim_height\(e\) % every == 0/ && !mk {
                 print "                if (cs_sim_height(e) == cs__cpu_mark()) cs__print_cpu_mark(list[m], cs_sim_height(e));"
                 mk = 1 }
             { print }' "$f" > "$f.mark" && mv "$f.mark" "$f"
    echo "== $BASE: COWSIM_CPU_MARK patched into ${f#$wt/}"
}

# bench/speed_vs.sh --mark-patch DIR: that patch alone, on the tree at DIR
# (tests/test_bench_scripts.sh).
if [ "$BASE" = "--mark-patch" ]; then
    [ $# -eq 2 ] && [ -d "$2" ] || usage
    mark_patch "$2"
    trap - EXIT
    rm -rf "$TMP"
    exit 0
fi

if [ -x "$BASE" ] && [ ! -d "$BASE" ]; then
    OLD=$BASE
else
    rev=$(git -C "$SRC" rev-parse --verify --quiet "$BASE^{commit}") ||
        { echo "speed_vs: neither an executable nor a git revision: $BASE" >&2; exit 2; }
    WT=$TMP/base
    echo "== building $BASE ($rev) in $WT"
    git -C "$SRC" worktree add --detach "$WT" "$rev" > /dev/null 2>&1 ||
        { echo "speed_vs: git worktree add failed for $rev" >&2; exit 1; }
    mark_patch "$WT"
    if ! { cmake -S "$WT" -B "$WT/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo > "$TMP/build.log" 2>&1 &&
           cmake --build "$WT/build" -j "$(nproc)" --target cowsim >> "$TMP/build.log" 2>&1; }; then
        tail -20 "$TMP/build.log" >&2
        echo "speed_vs: building $rev failed" >&2
        exit 1
    fi
    OLD=$WT/build/cowsim
fi
echo "== base $OLD"
echo "== new  $NEW"

if [ $QUICK = 1 ]; then WP=2; WB=200; AP=2; AB=300; ER=1; EQ=(--quick); SP=1; SB=400; SM=300
else WP=7; WB=1000; AP=5; AB=3000; ER=4; EQ=(); SP=3; SB=10000; SM=7000; fi

echo "== workload: run bench/backlog.json, $WB blocks, $WP pairs (CPU seconds: base new base/new)"
WL=$("$SRC/bench/paired.sh" -n $WP "$OLD" "$NEW" -- run "$SRC/bench/backlog.json" --set blocks=$WB -o {OUT} --quiet) || exit 1
echo "$WL"
echo "== arrivals: the same, nobody joining (expected_wait 1e9), $AB blocks, $AP pairs"
AR=$("$SRC/bench/paired.sh" -n $AP "$OLD" "$NEW" -- run "$SRC/bench/backlog.json" --set blocks=$AB \
    --set 'agents[0].params.expected_wait=1e9' -o {OUT} --quiet) || exit 1
echo "$AR"

echo "== e2e: bench e2e --json ${EQ[*]}, alternated $ER times (fires_per_second, main_thread_cpu_seconds)"
: > "$TMP/e2e"
for ((i = 1; i <= ER; i++)); do
    for side in base new; do
        bin=$OLD
        [ $side = new ] && bin=$NEW
        if ! (cd "$SRC" && "$bin" bench e2e --json "${EQ[@]}") > "$TMP/e2e.json" 2> "$TMP/e2e.err"; then
            echo "speed_vs: $bin bench e2e failed: $(head -c 300 "$TMP/e2e.err")" >&2
            exit 1
        fi
        $PY -c 'import json, sys; r = json.load(open(sys.argv[1]))
print(sys.argv[2], r["fires_per_second"], r["main_thread_cpu_seconds"])' "$TMP/e2e.json" $side | tee -a "$TMP/e2e"
    done
done
E2E=$($PY - "$TMP/e2e" <<'PYEOF'
import math, statistics, sys
base, new, ratios = [], [], []
for line in open(sys.argv[1]):
    side, fps, cpu = line.split()
    (base if side == "base" else new).append((float(fps), float(cpu)))
    if side == "new":
        ratios.append(float(fps) / base[-1][0])  # against the base run just before
mean = lambda xs: sum(xs) / len(xs)
fb, fn = mean([f for f, _ in base]), mean([f for f, _ in new])
cb, cn = mean([c for _, c in base]), mean([c for _, c in new])
print("fires_per_second base %.4g new %.4g ratio %.3f main_cpu_ratio %.3f alternations %d geomean %.3f median %.3f "
      "lowest %.3f highest %.3f" % (fb, fn, fn / fb, cb / cn, len(ratios),
                                    math.exp(mean([math.log(r) for r in ratios])), statistics.median(ratios),
                                    min(ratios), max(ratios)))
PYEOF
)
echo "$E2E"

echo "== standing: bench/backlog.json with params.lane_basefee_initial=1000, $SB blocks, blocks $((SM + 1))-$SB timed, $SP pairs"
ST=$("$SRC/bench/paired.sh" -n $SP -m $SM "$OLD" "$NEW" -- run "$SRC/bench/backlog.json" --set blocks=$SB \
    --set params.lane_basefee_initial=1000 -o {OUT} --quiet)
case $? in
    0) echo "$ST"; ST=$(echo "$ST" | tail -1) ;;
    4) echo "== standing: a build printed no COWSIM_CPU_MARK line; no standing figure"; ST="" ;;
    *) exit 1 ;;
esac

ratio() { echo "$1" | awk '{ for (i = 1; i < NF; i++) if ($i == "ratio") print $(i + 1) }'; }
echo "== ratios (new against base; issue 26's against 68af655 in brackets)"
printf "workload  %s  [2.70]\n" "$(ratio "$(echo "$WL" | tail -1)")"
printf "arrivals  %s  [2.37]\n" "$(ratio "$(echo "$AR" | tail -1)")"
printf "e2e       %s  [2.14]\n" "$(ratio "$E2E")"
printf "standing  %s  [2.70]\n" "$([ -n "$ST" ] && ratio "$ST" || echo none)"
