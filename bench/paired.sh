#!/usr/bin/env bash
# bench/paired.sh [-n PAIRS] [-m BLOCK] OLD NEW -- ARGS...
#   Time two cowsim builds on the same command, alternating OLD and NEW
#   PAIRS times (default 5), and compare their CPU time (user + sys of the
#   process and all its threads, from bash's own `time`, so no package is
#   needed).  Alternating pairs see the same machine load, so their ratio
#   is steadier than two separate series on a shared machine.  In ARGS,
#   {OUT} stands for a fresh output directory per run (removed after it).
#   -m BLOCK: each run gets COWSIM_CPU_MARK=BLOCK (cli/cs_cpu_mark.h) and
#   counts only its CPU time after that block (its total less the CPU time
#   `cowsim run` prints when the block completes).
#   Prints one line per pair, "old_cpu new_cpu old/new", then the summary
#   (bench/paired.sh --summarize).  Exit 1 when a run fails, 4 when a run
#   printed no mark for -m.
# bench/paired.sh --summarize < LINES
#   The summary of lines "old_cpu new_cpu ...": the sums, the ratio of the
#   sums, and the median, least and greatest per-pair ratio:
#   "pairs N old S new S ratio R median M min A max B".
set -uo pipefail

summarize() {
    awk 'NF >= 2 && $2 > 0 {
            n++; so += $1; sn += $2; r[n] = $1 / $2
         }
         END {
            if (n == 0) { print "paired: no pairs"; exit 1 }
            # insertion sort of the per-pair ratios (n is small)
            for (i = 2; i <= n; i++) {
                v = r[i]
                for (j = i - 1; j >= 1 && r[j] > v; j--) r[j + 1] = r[j]
                r[j + 1] = v
            }
            med = (n % 2) ? r[(n + 1) / 2] : (r[n / 2] + r[n / 2 + 1]) / 2
            printf "pairs %d old %.3f new %.3f ratio %.3f median %.3f min %.3f max %.3f\n",
                   n, so, sn, so / sn, med, r[1], r[n]
         }'
}

if [ "${1:-}" = "--summarize" ]; then
    summarize
    exit $?
fi

usage() {
    echo "usage: bench/paired.sh [-n PAIRS] [-m BLOCK] OLD NEW -- ARGS...   ({OUT} in ARGS: a fresh directory per run)" >&2
    echo "       bench/paired.sh --summarize < LINES" >&2
    exit 2
}

PAIRS=5
MARK=""
while [ "${1:-}" = "-n" ] || [ "${1:-}" = "-m" ]; do
    if [ "$1" = "-n" ]; then PAIRS=${2:-}; else MARK=${2:-}; fi
    shift 2 || usage
done
case "$PAIRS" in '' | *[!0-9]* | 0) usage ;; esac
[ -z "$MARK" ] || case "$MARK" in *[!0-9]* | 0) usage ;; esac
[ $# -ge 4 ] || usage
OLD=$1
NEW=$2
[ "$3" = "--" ] || usage
shift 3
[ -x "$OLD" ] || { echo "paired: not an executable: $OLD" >&2; exit 2; }
[ -x "$NEW" ] || { echo "paired: not an executable: $NEW" >&2; exit 2; }

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# cpu_of BIN: run BIN with ARGS ({OUT} replaced), print its CPU seconds
# (with -m, those after block MARK).
cpu_of() {
    local bin=$1 a args=() env=()
    rm -rf "$TMP/out"
    for a in "${ARGS[@]}"; do args+=("${a//\{OUT\}/$TMP/out}"); done
    [ -n "$MARK" ] && env=("COWSIM_CPU_MARK=$MARK")
    local TIMEFORMAT='%U %S'
    { time env "${env[@]}" "$bin" "${args[@]}" > "$TMP/stdout" 2> "$TMP/stderr"; } 2> "$TMP/time"
    local rc=$?
    if [ $rc -ne 0 ]; then
        echo "paired: $bin exited $rc: $(head -c 300 "$TMP/stderr")" >&2
        return 1
    fi
    local m=0
    if [ -n "$MARK" ]; then
        m=$(sed -n 's/.*cpu_mark block [0-9]* process_cpu_seconds \([0-9.]*\).*/\1/p' "$TMP/stderr" | head -1)
        [ -n "$m" ] || { echo "paired: $bin printed no cpu_mark line for block $MARK" >&2; return 4; }
    fi
    awk -v m="$m" '{ printf "%.3f\n", $1 + $2 - m }' "$TMP/time"
}

ARGS=("$@")
: > "$TMP/pairs"
for ((i = 1; i <= PAIRS; i++)); do
    o=$(cpu_of "$OLD") || exit $?
    n=$(cpu_of "$NEW") || exit $?
    echo "$o $n" | awk '{ printf "%s %s %.3f\n", $1, $2, ($2 > 0 ? $1 / $2 : 0) }' | tee -a "$TMP/pairs"
done
summarize < "$TMP/pairs"
