#!/usr/bin/env bash
# test_symlinks.sh -- no output cowsim writes by name follows a link planted
# at that name (issue 25 #7): a run's <m>.h5.work and <m>.h5.tmp, report's
# report.md.tmp, .dat, .gp and .png, check --bless's temporary baseline.
# Every planted name is a symlink to a victim file outside the output
# directory; the victim must keep its bytes and every output must end as a
# regular file.  One run of scenarios/minimal.json (100 blocks, 2 agents).
# Usage: bash tests/test_symlinks.sh PATH-TO-COWSIM   (run from the source root)
set -u
BIN=${1:-${CS_BIN:-}}
SRC=${CS_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
printf 'victim\n' > "$T/victim"
victim_ok() { # victim_ok WHAT: the victim still holds its 7 bytes
    if [ "$(cat "$T/victim")" = victim ]; then ok; else bad "$1: the victim was written through a symlink"; fi
    printf 'victim\n' > "$T/victim"
}
regular() { # regular PATH WHAT
    if [ -f "$1" ] && [ ! -L "$1" ]; then ok; else bad "$2: $1 is not a regular file"; fi
}

# 1. run: the work file and the temporary copy
mkdir -p "$T/run"
ln -s "$T/victim" "$T/run/fifo.h5.work"
ln -s "$T/victim" "$T/run/fifo.h5.tmp"
if "$BIN" run "$SRC/scenarios/minimal.json" -o "$T/run" --quiet > "$T/out" 2>&1; then ok; else bad "run: exit $?: $(cat "$T/out")"; fi
victim_ok run
regular "$T/run/fifo.h5" run
[ ! -e "$T/run/fifo.h5.work" ] && [ ! -L "$T/run/fifo.h5.work" ] && ok || bad "run: fifo.h5.work left"

# 2. report: learn the names it writes, plant a link at each, report again
"$BIN" report "$T/run/fifo.h5" -o "$T/rep1" > "$T/out" 2>&1 || bad "report (names): $(cat "$T/out")"
mkdir -p "$T/rep2"
n=0
for f in "$T"/rep1/*; do
    b=$(basename "$f")
    case "$b" in *.dat | *.gp | *.png) ln -s "$T/victim" "$T/rep2/$b"; n=$((n + 1)) ;; esac
done
ln -s "$T/victim" "$T/rep2/report.md.tmp"
[ "$n" -ge 3 ] && ok || bad "report wrote only $n .dat/.gp/.png files"
if "$BIN" report "$T/run/fifo.h5" -o "$T/rep2" > "$T/out" 2>&1; then ok; else bad "report: exit $?: $(cat "$T/out")"; fi
victim_ok report
for f in "$T"/rep2/*; do regular "$f" report; done

# 3. check --bless: BASELINE.json.tmp
ln -s "$T/victim" "$T/base.json.tmp"
if "$BIN" check --bless "$T/base.json" "$T/run/fifo.h5" > "$T/out" 2>&1; then ok; else bad "bless: exit $?: $(cat "$T/out")"; fi
victim_ok bless
regular "$T/base.json" bless

echo "symlinks: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
