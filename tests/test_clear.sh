#!/bin/bash
# test_clear.sh -- `cowsim clear` end to end (DESIGN §5).
#   1. every scenarios/auctions/X.json clears to exactly X.expected (--json);
#      the expected files hold the hand-checked cases of test_mech_*.c;
#   2. the human table runs (exit 0) for every example;
#   3. bad inputs exit 2 and name the JSON path and the constraint; an
#      unreadable file exits 3.
# Usage: bash tests/test_clear.sh PATH-TO-COWSIM   (run from the source root)
set -u
BIN=${1:-${CS_BIN:-}}
SRC=${CS_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
if [ -z "$BIN" ] || [ ! -x "$BIN" ]; then
    echo "test_clear: no cowsim binary (got '$BIN')" >&2
    exit 1
fi
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

n=0
for f in "$SRC"/scenarios/auctions/*.json; do
    exp=${f%.json}.expected
    n=$((n + 1))
    if [ ! -f "$exp" ]; then bad "$f has no .expected"; continue; fi
    if "$BIN" clear "$f" --json > "$TMP/out.json" 2> "$TMP/err"; then
        if diff -u "$exp" "$TMP/out.json" > "$TMP/diff"; then ok; else bad "$f differs:"; cat "$TMP/diff" >&2; fi
    else
        bad "$f: exit $?"; cat "$TMP/err" >&2
    fi
    if "$BIN" clear "$f" > "$TMP/table" 2>&1 && grep -q '^fired ' "$TMP/table"; then ok; else bad "$f: table"; fi
done
[ "$n" -ge 4 ] && ok || bad "fewer than 4 examples ($n)"

# expect_err NAME EXIT PATTERN JSON: the input must exit EXIT and print PATTERN on stderr.
expect_err() {
    local name=$1 code=$2 pat=$3
    printf '%s\n' "$4" > "$TMP/$name.json"
    "$BIN" clear "$TMP/$name.json" --json > "$TMP/out" 2> "$TMP/err"
    local rc=$?
    if [ "$rc" -ne "$code" ]; then bad "$name: exit $rc, want $code"; cat "$TMP/err" >&2; return; fi
    if grep -qF -- "$pat" "$TMP/err"; then ok; else bad "$name: stderr lacks '$pat':"; cat "$TMP/err" >&2; fi
}

T='{"id":"t0","actor":"a","cycles":10,"bid":1}'
expect_err cycles0 2 'timers[3].cycles: must be an integer >= 1' \
    "{\"mechanism\":\"bias-vcg\",\"timers\":[$T,{\"id\":\"t1\",\"actor\":\"a\",\"cycles\":5,\"bid\":1},{\"id\":\"t2\",\"actor\":\"b\",\"cycles\":7,\"bid\":1},{\"id\":\"t3\",\"actor\":\"b\",\"cycles\":0,\"bid\":2}]}"
expect_err cycles_frac 2 'timers[0].cycles: must be an integer >= 1' \
    '{"mechanism":"fifo","timers":[{"id":"t0","actor":"a","cycles":2.5}]}'
expect_err unknown_mech 2 "mechanism: unknown mechanism 'vickrey' (valid: fifo, fifo-capped, score, bias-vcg, bias-fp, eip1559, gba-tip, greedy, slot-booking, priority-classes)" \
    "{\"mechanism\":\"vickrey\",\"timers\":[$T]}"
expect_err lambda_range 2 'params.lambda: must be a number in [0, 10]' \
    "{\"mechanism\":\"bias-vcg\",\"params\":{\"lambda\":11},\"timers\":[$T]}"
expect_err enum_word 2 'params.vcg_payment: must be one of spec|critical' \
    "{\"mechanism\":\"bias-vcg\",\"params\":{\"vcg_payment\":\"vickrey\"},\"timers\":[$T]}"
expect_err unknown_param 2 'params.lamda: unknown parameter' \
    "{\"mechanism\":\"bias-vcg\",\"params\":{\"lamda\":0.1},\"timers\":[$T]}"
expect_err unknown_key 2 'timers[0].colour: unknown key' \
    '{"mechanism":"fifo","timers":[{"id":"t0","actor":"a","cycles":1,"colour":"red"}]}'
expect_err dup_id 2 'timers[1].id: duplicate of timers[0].id' \
    "{\"mechanism\":\"bias-fp\",\"timers\":[$T,$T]}"
expect_err fees_missing 2 'timers[0].max_fee: required by mechanism eip1559' \
    '{"mechanism":"eip1559","timers":[{"id":"t0","actor":"a","cycles":1,"max_priority_fee":3}]}'
expect_err bid_missing 2 'timers[0].bid: required by mechanism score' \
    '{"mechanism":"score","timers":[{"id":"t0","actor":"a","cycles":1}]}'
expect_err bad_u128 2 'timers[0].balance: must be a non-negative integer' \
    '{"mechanism":"eip1559","timers":[{"id":"t0","actor":"a","cycles":1,"max_fee":1,"max_priority_fee":1,"balance":"-5"}]}'
expect_err no_timers 2 'timers: required' '{"mechanism":"fifo"}'
expect_err malformed 2 '$: malformed JSON' '{"mechanism":"fifo",'
# issue 25 #4: a key given twice (the first would be read silently), like every other loader
expect_err dup_bid 2 'timers[0].bid: duplicate key' \
    '{"mechanism":"bias-fp","timers":[{"id":"t0","actor":"a","cycles":1,"bid":5,"bid":99999999}]}'
expect_err dup_top 2 'mechanism: duplicate key' \
    '{"mechanism":"bias-fp","mechanism":"fifo","timers":[{"id":"t0","actor":"a","cycles":1,"bid":5}]}'
expect_err dup_param 2 'params.lambda: duplicate key' \
    '{"mechanism":"bias-fp","params":{"lambda":0.1,"lambda":0.2},"timers":[{"id":"t0","actor":"a","cycles":1,"bid":5}]}'
# issue 25 #3: totals above 2^128 - 1 (3 (2^127 + 1) payments; a lane burn of
# 2^80 x 2^48 cycles) and saturated priorities are refused, not wrapped
B1=170141183460469231731687303715884105729
expect_err pay_over 2 'totals.payments: exceeds 2^128 - 1' \
    "{\"mechanism\":\"bias-fp\",\"timers\":[{\"id\":\"t0\",\"actor\":\"a\",\"cycles\":1,\"bid\":\"$B1\"},{\"id\":\"t1\",\"actor\":\"b\",\"cycles\":1,\"bid\":\"$B1\"},{\"id\":\"t2\",\"actor\":\"c\",\"cycles\":1,\"bid\":\"$B1\"}]}"
expect_err burn_over 2 'totals.burn: exceeds 2^128 - 1' \
    '{"mechanism":"eip1559","basefee_lane":"1208925819614629174706176","budget_cycles":281474976710656,"params":{"lane_timer_cycles":281474976710656,"max_cycles_per_fire":281474976710656},"timers":[{"id":"t0","actor":"a","cycles":281474976710656,"max_fee":"1208925819614629174706176","max_priority_fee":0}]}'
expect_err bias_sat 2 'timers[0].bid: bid + Bias reaches 2^128 - 1' \
    '{"mechanism":"bias-vcg","timers":[{"id":"t0","actor":"a","cycles":1,"bid":"340282366920938463463374607431768211455"},{"id":"t1","actor":"b","cycles":1,"bid":"5"}]}'
# 2^125 + 1 and 2^125 + 2 at w_bid 1 would tie at the cap
expect_err score_sat 2 'timers[1].bid: w_bid * bid exceeds 2^125' \
    '{"mechanism":"score","timers":[{"id":"t0","actor":"a","cycles":1,"bid":"42535295865117307932921825928971026432"},{"id":"t1","actor":"b","cycles":1,"bid":"42535295865117307932921825928971026433"}]}'
# two payments of 2^126 sum exactly to 2^127
printf '%s\n' '{"mechanism":"bias-fp","timers":[{"id":"t0","actor":"a","cycles":1,"bid":"85070591730234615865843651857942052864"},{"id":"t1","actor":"b","cycles":1,"bid":"85070591730234615865843651857942052864"}]}' > "$TMP/big.json"
if "$BIN" clear "$TMP/big.json" --json 2> "$TMP/err" | grep -q '"payments":.*"170141183460469231731687303715884105728"'; then ok; else bad "big payments not exact"; fi
# issue 25 #1: actors "p\u0000q" and "p\u0000r" would merge into "p"
expect_err nul_actor 2 '$: escaped NUL (\u0000) in a string at line 1, column 52' \
    '{"mechanism":"fifo","timers":[{"id":"t0","actor":"p\u0000q","cycles":1},{"id":"t1","actor":"p\u0000r","cycles":1}]}'
# issue 25 #2: 2^53 + 1 reads as 2^53; 2^64 - 1 as a number said "must be an integer >= 0"
expect_err big_bid 2 'timers[0].bid: integers of 2^53 or more lose precision as JSON numbers; give it as a decimal string' \
    '{"mechanism":"bias-fp","timers":[{"id":"t0","actor":"a","cycles":1,"bid":9007199254740993}]}'
expect_err big_height 2 'height: integers of 2^53 or more lose precision as JSON numbers; give it as a decimal string' \
    '{"mechanism":"fifo","height":18446744073709551615,"timers":[{"id":"t0","actor":"a","cycles":1}]}'

"$BIN" clear "$TMP/does-not-exist.json" > /dev/null 2>&1
rc=$?
[ "$rc" -eq 3 ] && ok || bad "missing file: exit $rc, want 3"
"$BIN" clear > /dev/null 2>&1
rc=$?
[ "$rc" -eq 2 ] && ok || bad "no argument: exit $rc, want 2"

echo "clear: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
