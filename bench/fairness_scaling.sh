#!/usr/bin/env bash
# fairness_scaling.sh [COWSIM] [REPEATS] -- per-block time of a run at 1,000
# and at 100,000 fairness identities with the same fires per block (issue 14:
# within 1.5x).  bench/fairness.json spreads 57 arrivals per block round robin
# over k actors (identity = actor); k is set to 1,000 and 100,000.  The
# per-block time is (t(9,000 blocks) - t(3,000 blocks)) / 6,000, which removes
# start-up and the first fill of the window (fairness_window 1,000 blocks).
# Each repeat runs both sizes, alternating which goes first; the load average
# is printed because the machine may be shared; the summary uses the median
# per-block time of each size.  Also checks from the files that both sizes
# fired the same number of timers and that every actor fired.
# The /weights sample (every output.weights_every = 100 blocks, one row per
# identity in the window) is output that grows with the identities by
# design; each repeat also times both sizes with it off (weights_every
# 10^9), and the summary prints those times, their ratio and the /weights
# rows per block, so the scheduler's share and the output's can be told
# apart.  The target is checked on the default run, /weights included.
set -u
BIN=${1:-build/cowsim}
R=${2:-3}
SRC=$(cd "$(dirname "$0")/.." && pwd)
SCN="$SRC/bench/fairness.json"
PY=/usr/bin/python3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

load() { cut -d' ' -f1-3 /proc/loadavg; }
# secs K BLOCKS [WE]: wall microseconds of one run with output.weights_every
# WE (default 100; output in $T/K-BLOCKS-WE).
secs() {
    local we=${3:-100}
    rm -rf "$T/$1-$2-$we"
    local s e
    s=$(date +%s%N)
    "$BIN" run "$SCN" --set "agents[0].params.k=$1" --set "blocks=$2" --set "output.weights_every=$we" -o "$T/$1-$2-$we" --quiet > /dev/null 2> "$T/err" || {
        echo "run k=$1 blocks=$2 failed: $(cat "$T/err")" >&2
        exit 1
    }
    e=$(date +%s%N)
    echo $(( (e - s) / 1000 ))
}
# per_block K [WE]: microseconds per block at K identities.
per_block() {
    local a b
    a=$(secs "$1" 3000 "${2:-100}")
    b=$(secs "$1" 9000 "${2:-100}")
    awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", (b - a) / 6000 }'
}
: > "$T/small"
: > "$T/large"
: > "$T/small_nw"
: > "$T/large_nw"
OFF=1000000000
for r in $(seq 1 "$R"); do
    if [ $((r % 2)) -eq 1 ]; then
        s=$(per_block 1000); l=$(per_block 100000)
        sn=$(per_block 1000 $OFF); ln=$(per_block 100000 $OFF)
    else
        ln=$(per_block 100000 $OFF); sn=$(per_block 1000 $OFF)
        l=$(per_block 100000); s=$(per_block 1000)
    fi
    echo "$s" >> "$T/small"
    echo "$l" >> "$T/large"
    echo "$sn" >> "$T/small_nw"
    echo "$ln" >> "$T/large_nw"
    echo "repeat $r (load $(load)): 1k identities $s us/block, 100k identities $l us/block; /weights off: $sn and $ln"
done
"$PY" - "$T" <<'PYEOF' || exit 1
import sys, h5py, numpy as np
t = sys.argv[1]
n = {}
for k in (1000, 100000):
    with h5py.File(f"{t}/{k}-9000-100/gba-tip.h5", "r") as f:
        fires, blocks = f["fires"], f["blocks"]
        n[k] = len(fires)
        print(f"k {k}: /weights {len(f['weights']) / len(blocks):.1f} rows per block")
        actors = len(np.unique(fires["actor"]))
        print(f"k {k}: {len(fires)} fires in {len(blocks)} blocks ({len(fires) / len(blocks):.2f} per block), {actors} actors fired")
        if actors != k:
            sys.exit(f"only {actors} of {k} actors fired")
if n[1000] != n[100000]:
    sys.exit(f"fires differ: {n[1000]} vs {n[100000]}")
PYEOF
med() { sort -n "$1" | awk '{v[NR]=$1} END {print v[int((NR + 1) / 2)]}'; }
small=$(med "$T/small"); large=$(med "$T/large")
small_nw=$(med "$T/small_nw"); large_nw=$(med "$T/large_nw")
awk -v s="$small" -v l="$large" -v sn="$small_nw" -v ln="$large_nw" 'BEGIN {
    r = l / s
    printf "per_block_us_1k_identities   %s\nper_block_us_100k_identities %s\nratio_100k_vs_1k             %.3f\n", s, l, r
    printf "per_block_us_1k_identities_weights_off   %s\nper_block_us_100k_identities_weights_off %s\nratio_100k_vs_1k_weights_off             %.3f\n", sn, ln, ln / sn
    printf "meets_target (<= 1.5)        %d\n", r <= 1.5
}'
