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
set -u
BIN=${1:-build/cowsim}
R=${2:-3}
SRC=$(cd "$(dirname "$0")/.." && pwd)
SCN="$SRC/bench/fairness.json"
PY=/usr/bin/python3
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

load() { cut -d' ' -f1-3 /proc/loadavg; }
# secs K BLOCKS: wall seconds of one run (output in $T/K-BLOCKS).
secs() {
    rm -rf "$T/$1-$2"
    local s e
    s=$(date +%s%N)
    "$BIN" run "$SCN" --set "agents[0].params.k=$1" --set "blocks=$2" -o "$T/$1-$2" --quiet > /dev/null 2> "$T/err" || {
        echo "run k=$1 blocks=$2 failed: $(cat "$T/err")" >&2
        exit 1
    }
    e=$(date +%s%N)
    echo $(( (e - s) / 1000 ))
}
# per_block K: microseconds per block at K identities.
per_block() {
    local a b
    a=$(secs "$1" 3000)
    b=$(secs "$1" 9000)
    awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", (b - a) / 6000 }'
}
: > "$T/small"
: > "$T/large"
for r in $(seq 1 "$R"); do
    if [ $((r % 2)) -eq 1 ]; then
        s=$(per_block 1000); l=$(per_block 100000)
    else
        l=$(per_block 100000); s=$(per_block 1000)
    fi
    echo "$s" >> "$T/small"
    echo "$l" >> "$T/large"
    echo "repeat $r (load $(load)): 1k identities $s us/block, 100k identities $l us/block"
done
"$PY" - "$T" <<'PYEOF' || exit 1
import sys, h5py, numpy as np
t = sys.argv[1]
n = {}
for k in (1000, 100000):
    with h5py.File(f"{t}/{k}-9000/gba-tip.h5", "r") as f:
        fires, blocks = f["fires"], f["blocks"]
        n[k] = len(fires)
        actors = len(np.unique(fires["actor"]))
        print(f"k {k}: {len(fires)} fires in {len(blocks)} blocks ({len(fires) / len(blocks):.2f} per block), {actors} actors fired")
        if actors != k:
            sys.exit(f"only {actors} of {k} actors fired")
if n[1000] != n[100000]:
    sys.exit(f"fires differ: {n[1000]} vs {n[100000]}")
PYEOF
small=$(sort -n "$T/small" | awk '{v[NR]=$1} END {print v[int((NR + 1) / 2)]}')
large=$(sort -n "$T/large" | awk '{v[NR]=$1} END {print v[int((NR + 1) / 2)]}')
awk -v s="$small" -v l="$large" 'BEGIN {
    r = l / s
    printf "per_block_us_1k_identities   %s\nper_block_us_100k_identities %s\nratio_100k_vs_1k             %.3f\nmeets_target (<= 1.5)        %d\n", s, l, r, r <= 1.5
}'
