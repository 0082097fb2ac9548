#!/usr/bin/env bash
# sweep_scaling.sh [COWSIM] [REPEATS] -- wall time of `cowsim sweep` with -j 1
# and -j 2 on scenarios/sweeps/scaling.json (16 runs of about 1-3 s each),
# and the speedup t(-j 1) / t(-j 2).  Each repeat runs both, alternating which
# goes first; the load average is printed before each measurement because the
# machine may be shared.  The summary uses the fastest time of each setting
# (the least disturbed one).  "parallelism" is the CPU time of the sweep and
# its workers over its wall time.  Also checks that both give the same /runs table.
set -u
BIN=${1:-build/cowsim}
R=${2:-3}
SRC=$(cd "$(dirname "$0")/.." && pwd)
SWEEP="$SRC/scenarios/sweeps/scaling.json"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

load() { cut -d' ' -f1-3 /proc/loadavg; }
# run J: time one sweep with -j J into $T/jJ; prints the wall time (s) and
# leaves "wall user sys" (s, the workers included) in $T/tJ.
run() {
    rm -rf "$T/j$1"
    /usr/bin/time -f "%e %U %S" -o "$T/t$1" "$BIN" sweep "$SWEEP" -o "$T/j$1" -j "$1" --quiet > /dev/null 2> "$T/err" || {
        echo "sweep -j $1 failed: $(cat "$T/err")" >&2
        exit 1
    }
    cut -d' ' -f1 "$T/t$1"
}
# cpu J: "cpu X s, parallelism Y" of the last -j J sweep (CPU time / wall time).
cpu() { awk '{printf "cpu %.1f s, parallelism %.2f", $2 + $3, ($2 + $3) / $1}' "$T/t$1"; }

echo "cowsim sweep scaling: $SWEEP (16 runs), $(nproc) cores, $R repeat(s)"
best1=""
best2=""
for i in $(seq 1 "$R"); do
    if [ $((i % 2)) -eq 1 ]; then
        l1=$(load); t1=$(run 1); l2=$(load); t2=$(run 2)
    else
        l2=$(load); t2=$(run 2); l1=$(load); t1=$(run 1)
    fi
    printf "repeat %d: -j 1 %7.2f s (load %s; %s)   -j 2 %7.2f s (load %s; %s)   speedup %.2f\n" \
        "$i" "$t1" "$l1" "$(cpu 1)" "$t2" "$l2" "$(cpu 2)" "$(echo "$t1 $t2" | awk '{print $1 / $2}')"
    best1=$(echo "$t1 ${best1:-$t1}" | awk '{print ($1 < $2) ? $1 : $2}')
    best2=$(echo "$t2 ${best2:-$t2}" | awk '{print ($1 < $2) ? $1 : $2}')
done
/usr/bin/python3 - "$T/j1/sweep.h5" "$T/j2/sweep.h5" <<'PYEOF'
import sys, h5py, numpy as np
a = h5py.File(sys.argv[1], "r")["runs"][:]
b = h5py.File(sys.argv[2], "r")["runs"][:]
same = a.dtype == b.dtype and len(a) == len(b) and all(
    np.array_equal(a[n], b[n], equal_nan=a[n].dtype.kind == "f") for n in a.dtype.names)
print("/runs of -j 1 and -j 2:", "identical" if same else "DIFFERENT", f"({len(a)} rows)")
sys.exit(0 if same else 1)
PYEOF
printf "best: -j 1 %.3f s, -j 2 %.3f s, speedup %.2f\n" "$best1" "$best2" "$(echo "$best1 $best2" | awk '{print $1 / $2}')"
