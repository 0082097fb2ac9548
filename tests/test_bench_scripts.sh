#!/usr/bin/env bash
# test_bench_scripts.sh -- bench/paired.sh and bench/speed_vs.sh: the
# paired summary's arithmetic against values worked by hand, their usage
# errors (exit 2), a failed run (exit 1), {OUT} replaced by a fresh
# directory per run, and speed_vs.sh --quick of a build against itself
# (every section present, each ratio near 1).  Speeds are not checked: a
# shared test machine cannot time them.
set -u
SRC=${CS_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$SRC" || exit 2
. "$(dirname "$0")/cs_test_lib.sh"
P=bench/paired.sh
S=bench/speed_vs.sh

# 1. The summary.  Pairs (2, 1), (3, 1), (1.2, 1): sums 6.2 and 3, ratio
#    6.2 / 3 = 2.0667; per-pair ratios 2, 3, 1.2, median 2 (the middle one,
#    not the mean 2.067), least 1.2, greatest 3.
out=$(printf '2.0 1.0\n3.0 1.0\n1.2 1.0\n' | $P --summarize)
check "[ \"$out\" = 'pairs 3 old 6.200 new 3.000 ratio 2.067 median 2.000 min 1.200 max 3.000' ]" "summary of 3 pairs: $out"
#    An even count: ratios 2, 3, 4, 1 -> sorted 1 2 3 4, median (2 + 3) / 2;
#    a third column (the per-pair ratio paired.sh prints) is ignored, and a
#    pair whose new time is 0 is left out.
out=$(printf '2 1 9\n3 1 9\n4 1 9\n1 1 9\n5 0 9\n' | $P --summarize)
check "[ \"$out\" = 'pairs 4 old 10.000 new 4.000 ratio 2.500 median 2.500 min 1.000 max 4.000' ]" "summary of 4 pairs: $out"
printf '' | $P --summarize > "$T/o" 2>&1
check "[ $? -eq 1 ] && grep -q 'no pairs' '$T/o'" "no pairs: exit 1"

# 2. Usage errors: exit 2.
for args in "" "-n 0 $BIN $BIN -- validate x" "-n x $BIN $BIN -- validate x" "$BIN $BIN validate x" \
            "$BIN /nonexistent -- validate x" "$BIN $BIN --"; do
    # shellcheck disable=SC2086
    $P $args > "$T/o" 2>&1
    check "[ $? -eq 2 ]" "paired.sh $args: exit 2 ($(head -c 200 "$T/o"))"
done

# 3. Two runs of a real command, {OUT} a fresh directory each time: the
#    run writes its file there (it would fail on a literal "{OUT}" left in
#    the working directory only if one existed; check none is created).
$P -n 2 "$BIN" "$BIN" -- run scenarios/minimal.json --set blocks=5 -o {OUT} --quiet > "$T/p" 2> "$T/pe"
check "[ $? -eq 0 ]" "paired.sh -n 2 on run: exit 0 ($(head -c 200 "$T/pe"))"
check "[ \$(grep -c '^[0-9.]* [0-9.]* [0-9.]*\$' '$T/p') -eq 2 ] && tail -1 '$T/p' | grep -q '^pairs 2 old '" \
    "two pair lines and the summary: $(tr '\n' '|' < "$T/p")"
check "[ ! -e '{OUT}' ]" "no literal {OUT} directory"

# 4. A run that fails stops the comparison with exit 1 and says which.
$P -n 1 "$BIN" "$BIN" -- run /nonexistent.json -o {OUT} --quiet > "$T/o" 2> "$T/oe"
check "[ $? -eq 1 ] && grep -q 'exited 3: /nonexistent.json' '$T/oe'" "failed run: exit 1 ($(head -c 200 "$T/oe"))"

# 5. speed_vs.sh: usage and an unknown base (exit 2), then --quick of the
#    build against itself.
$S > "$T/o" 2>&1
check "[ $? -eq 2 ]" "speed_vs.sh without arguments: exit 2"
$S no-such-revision-xyz "$BIN" > "$T/o" 2>&1
check "[ $? -eq 2 ] && grep -q 'neither an executable nor a git revision' '$T/o'" "unknown base: exit 2 ($(head -c 200 "$T/o"))"
$S --quick "$BIN" "$BIN" > "$T/sv" 2> "$T/sve"
check "[ $? -eq 0 ]" "speed_vs.sh --quick against itself: exit 0 ($(head -c 300 "$T/sve"))"
st_pair=$(sed -n '/^== standing/{n;p;}' "$T/sv")
check "echo '$st_pair' | grep -Eq '^[0-9.]+ [0-9.]+ [0-9.]+\$' && ! grep -q 'syntax error' '$T/sve'" \
    "standing pair line: base, new and their ratio: '$st_pair' ($(head -c 200 "$T/sve"))"
# One e2e alternation in --quick: its own ratio is the ratio of the means.
e2e_line=$(grep '^fires_per_second base' "$T/sv")
check "echo '$e2e_line' | awk '{ for (i = 1; i < NF; i++) v[\$i] = \$(i + 1) }
      END { exit !(v[\"alternations\"] == 1 && v[\"geomean\"] == v[\"ratio\"] && v[\"median\"] == v[\"ratio\"] && v[\"lowest\"] == v[\"ratio\"] && v[\"highest\"] == v[\"ratio\"]) }'" \
    "e2e line: one alternation, its geometric mean, median, lowest and highest = the ratio: '$e2e_line'"
for sec in workload arrivals e2e standing; do
    r=$(awk -v s="$sec" '$1 == s && NF == 3 { print $2 }' "$T/sv")
    check "awk -v r='$r' 'BEGIN { exit !(r > 0.33 && r < 3) }'" "$sec ratio of a build against itself near 1: '$r'"
done


# 6. COWSIM_CPU_MARK=H: one line when block H completes, with the CPU time;
#    none for a block after the last, 0, a non-number or unset.
for v in 3 9 0 3x " 3" ""; do
    rm -rf "$T/m"
    COWSIM_CPU_MARK="$v" "$BIN" run scenarios/minimal.json --set blocks=5 -o "$T/m" --quiet > /dev/null 2> "$T/me"
    n=$(grep -c 'cpu_mark' "$T/me")
    if [ "$v" = 3 ]; then
        check "[ $n -eq 1 ] && grep -Eq '^cowsim run: [a-z0-9-]+: cpu_mark block 3 process_cpu_seconds [0-9]+\.[0-9]{6}\$' '$T/me'" \
            "COWSIM_CPU_MARK=3: one mark line per mechanism run: $(tr '\n' '|' < "$T/me" | head -c 300)"
    else
        check "[ $n -eq 0 ]" "COWSIM_CPU_MARK='$v': no mark line ($n)"
    fi
done
#    The patch for an older tree: the header beside the run loop, its
#    include before the first, the mark call on the line before the
#    progress call, once; a tree that has the mark already is left alone.
mkdir -p "$T/old/sim" "$T/old/cli"
printf '#include "cs_run.h"\n#include "cs_engine.h"\n    for (;;) {\n                if (rc != CS_OK) break;\n                if (tty && (cs_sim_height(e) %% every == 0 || x))\n    }\n' \
    > "$T/old/sim/cs_run.c"
$S --mark-patch "$T/old" > "$T/o" 2>&1
check "[ $? -eq 0 ] && [ -f '$T/old/sim/cs_cpu_mark.h' ]" "mark patch: header copied ($(head -c 200 "$T/o"))"
check "[ \"\$(sed -n 1p '$T/old/sim/cs_run.c')\" = '#include \"cs_cpu_mark.h\"' ] && [ \$(grep -c cs_cpu_mark.h '$T/old/sim/cs_run.c') -eq 1 ]" \
    "mark patch: the include first, once"
check "[ \$(grep -c 'cs__print_cpu_mark' '$T/old/sim/cs_run.c') -eq 1 ] && grep -A1 'cs__print_cpu_mark' '$T/old/sim/cs_run.c' | tail -1 | grep -q 'every == 0'" \
    "mark patch: the mark call once, just before the progress call"
cp "$T/old/sim/cs_run.c" "$T/once"
$S --mark-patch "$T/old" > /dev/null 2>&1
check "cmp -s '$T/once' '$T/old/sim/cs_run.c'" "mark patch: a patched tree is left as it is"

finish bench_scripts
