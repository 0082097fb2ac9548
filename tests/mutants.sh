#!/usr/bin/env bash
# tests/mutants.sh [LIST [PATTERN]] -- mutation testing of the economic
# code (issue 29), part of the release suite (tests/release.sh).
#
# LIST (default tests/mutants.txt) has one mutant a line, four fields
# separated by tabs:
#   file  original  replacement  ctest-regex
# file is relative to the source root; original is text that occurs
# exactly once in it; the mutant replaces it by replacement, rebuilds
# (incrementally, in MUT_BUILD, default build-mut) and runs the ctest
# tests matching ctest-regex.  A failing test kills the mutant; a mutant
# that every test passes survives.  A mutant the compiler rejects (the
# build uses -Werror, as CI does) is
# reported as "not built" and not counted.  Blank lines and lines starting
# with # are comments.  PATTERN (a grep -E regex) runs only the lines that
# match it.
#
# Every line is checked before any is applied: a missing file, an original
# text that is not in the file or occurs more than once, or a line without
# four fields stops the run (exit 2).  The file is restored after each
# mutant and on any exit (trap), so the tree is never left mutated.
# Exit status: 0 when at least MUT_MIN % (default 95, a whole number;
# compared exactly: killed x 100 >= MUT_MIN x built) of the mutants built
# were killed, 1 otherwise, 2 on a bad list or a failed build.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
LIST=${1:-tests/mutants.txt}
PAT=${2:-}
B=${MUT_BUILD:-build-mut}
JOBS=${JOBS:-$(nproc)}
MIN=${MUT_MIN:-95}
TIMEOUT=${MUT_TIMEOUT:-300}
[ -f "$LIST" ] || { echo "mutants.sh: no list $LIST" >&2; exit 2; }

# Check every line: four fields, the file exists, original occurs once.
python3 - "$LIST" << 'EOF' || exit 2
import sys
bad = 0
for n, line in enumerate(open(sys.argv[1], encoding="utf-8"), 1):
    line = line.rstrip("\n")
    if not line.strip() or line.startswith("#"):
        continue
    f = line.split("\t")
    if len(f) != 4 or not all(f) or f[1] == f[2]:
        print(f"{sys.argv[1]}:{n}: want 4 tab-separated fields: file, original, replacement (different), ctest regex",
              file=sys.stderr)
        bad += 1
        continue
    try:
        text = open(f[0], encoding="utf-8").read()
    except OSError as e:
        print(f"{sys.argv[1]}:{n}: {f[0]}: {e.strerror}", file=sys.stderr)
        bad += 1
        continue
    c = text.count(f[1])
    if c != 1:
        print(f"{sys.argv[1]}:{n}: {f[0]}: original text {f[1]!r} occurs {c} times (must be exactly once)",
              file=sys.stderr)
        bad += 1
sys.exit(1 if bad else 0)
EOF

cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCS_WERROR=ON > /dev/null || exit 2
cmake --build "$B" -j"$JOBS" > /dev/null || { echo "mutants.sh: the unmutated tree does not build" >&2; exit 2; }

SAVED="" # the file a mutant is applied to, while it is
SAVE="$B/mutant.orig"
# cp without -p: the restored file is newer than the mutant's objects, so
# the next build recompiles it.
restore() { if [ -n "$SAVED" ]; then cp "$SAVE" "$SAVED" && SAVED=""; fi; }
trap 'restore' EXIT
trap 'restore; exit 130' INT TERM

killed=0 survived=0 unbuilt=0 n=0
SURV=()
while IFS=$'\t' read -r file orig repl regex; do
    case "$file" in '' | '#'*) continue ;; esac
    [ -n "$PAT" ] && ! printf '%s\t%s\t%s\t%s\n' "$file" "$orig" "$repl" "$regex" | grep -qE -- "$PAT" && continue
    n=$((n + 1))
    cp "$file" "$SAVE" || exit 2
    SAVED=$file
    python3 -c 'import sys; f, o, r = sys.argv[1:4]; t = open(f).read(); open(f, "w").write(t.replace(o, r, 1))' \
        "$file" "$orig" "$repl" || exit 2
    desc="$file: '$orig' -> '$repl'"
    # Build only what the tests run: test_NAME for a C test, else cowsim.
    targets=()
    for t in $(cd "$B" && ctest -N -R "$regex" | sed -n 's/^ *Test *#[0-9]*: //p'); do
        if [ -f "tests/test_$t.c" ]; then targets+=("test_$t"); else targets+=(cowsim); fi
    done
    if [ ${#targets[@]} = 0 ]; then
        restore
        echo "mutants.sh: [$n] regex '$regex' matches no test" >&2
        exit 2
    fi
    if ! cmake --build "$B" -j"$JOBS" --target "${targets[@]}" > "$B/mutant-build.log" 2>&1; then
        unbuilt=$((unbuilt + 1))
        echo "[$n] not built  $desc"
    else
        out=$(cd "$B" && ctest -R "$regex" --timeout "$TIMEOUT" --stop-on-failure 2>&1)
        who=$(printf '%s\n' "$out" | sed -n 's/^[[:space:]]*[0-9]* - \([^ ]*\) (.*/\1/p' | head -n 1)
        if printf '%s\n' "$out" | grep -q "100% tests passed"; then
            survived=$((survived + 1))
            SURV+=("$desc [$regex]")
            echo "[$n] SURVIVED   $desc"
        else
            killed=$((killed + 1))
            echo "[$n] killed by ${who:-?}  $desc"
        fi
    fi
    restore
done < "$LIST"
# The tree is back as it was; rebuild so that the build dir matches it.
cmake --build "$B" -j"$JOBS" > /dev/null 2>&1

built=$((killed + survived))
# The score shown is rounded down; the verdict compares the exact fraction
# in integers (killed x 100 >= MUT_MIN x built), as tests/coverage.sh does.
score=$(awk -v k=$killed -v b=$built 'BEGIN { printf "%.1f", b ? int(1000 * k / b) / 10 : 100 }')
echo "mutants: $n run, $built built, $killed killed, $survived survived, $unbuilt not built: score $score % (target $MIN %: killed x 100 >= $MIN x built)"
for s in "${SURV[@]}"; do echo "  survived: $s"; done
[ $((killed * 100)) -ge $((MIN * built)) ]
