#!/usr/bin/env bash
# tests/cs_digest_cmp.sh TAG DIGEST_A DIGEST_B WHAT -- compare two
# bench/outputs_digest.sh DIGEST files for tests/compilers.sh and
# tests/cpus.sh: fails (exit 1) on any run that failed, when the two hold
# different lines (datasets whose bytes differ, or different counts), or
# when they are empty; prints "TAG: N datasets, WHAT" when they agree.
set -uo pipefail
TAG=$1 A=$2 B=$3 WHAT=$4
if grep -q -E 'RUN-FAILED|NO-FILE' "$A" "$B"; then
    echo "$TAG: runs failed:"
    grep -h -E 'RUN-FAILED|NO-FILE' "$A" "$B" | head
    exit 1
fi
n=$(wc -l < "$A")
delta=$(diff <(sort "$A") <(sort "$B"))
d=$(printf '%s\n' "$delta" | grep -c '^[<>]')
if [ "$n" -eq 0 ] || [ "$d" -ne 0 ]; then
    echo "$TAG: $d lines of $n datasets differ ($A against $B):"
    printf '%s\n' "$delta" | head -20
    exit 1
fi
echo "$TAG: $n datasets, $WHAT"
