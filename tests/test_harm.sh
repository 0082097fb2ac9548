#!/usr/bin/env bash
# test_harm.sh -- harm to honest actors through `run --harm` and `compare
# --harm` (analysis/README.md "Harm to honest actors", DESIGN-NOTES N44).
set -u
. tests/cs_test_lib.sh
D=tests/data/harm

# 1. By hand (spam-fifo.json): two heartbeats tick every 10 blocks from
#    height 11 (11, 21, 31, ...) on a fifo-capped lane of 4 fires a block;
#    the spammer's 40 timers are due at 30, FIFO takes the older due height
#    first, so blocks 30..39 fire spam only and the ticks due at 31 fire at
#    40 (delay 9); then 50 and 60.  Without the spammer: 11, 21, 31, 41, 51.
#    Per heartbeat 5 fires either way; delays [0, 0, 9, 0, 0] vs all 0:
#      delay_mean 18 / 10 = 1.8 vs 0; delay_p99 of [0 x 8, 9, 9]: GSL at
#      (10 - 1) 0.99 = 8.91 between the sorted 9s = 9, vs 0;
#      pay_per_fire 0 (zero CIP-3 basefees: no execution fee, N58);
#      welfare 2 x (4 x 2e8 + 2e8 (1 - 9 x 0.02)) = 2 x 9.64e8 = 1.928e9
#      vs 2 x 5 x 2e8 = 2e9;
#      paired delay per heartbeat 1.8 - 0 = 1.8 for both: mean 1.8, the
#      t interval [1.8, 1.8] (no spread).
"$BIN" run "$D/spam-fifo.json" -o "$T/s" --harm --quiet > "$T/s.out" 2> "$T/s.err"
check "[ $? -eq 0 ]" "run --harm exit 0"
check "[ -f '$T/s/fifo-capped.noattack.h5' ] && [ -f '$T/s/harm.h5' ]" "run --harm writes the run without attackers and harm.h5"
check "grep -q 'fifo-capped seed 5: 2 honest actors, 2 paired, fires 10 / 10' '$T/s.out'" "harm table header"
check "grep -Eq '^  delay_mean +1\.8 +0 +1\.8$' '$T/s.out'" "harm table: delay_mean 1.8 / 0 / 1.8"
check "$PY - '$T/s/harm.h5' <<'PY'
import sys, h5py
h = h5py.File(sys.argv[1], 'r')['harm'][:]
assert len(h) == 1, len(h)
r = h[0]
assert r['mechanism'] == b'fifo-capped' and r['seed'] == 5 and r['honest'] == 2 and r['paired'] == 2
assert r['fires_with'] == 10 and r['fires_without'] == 10
want = {'delay_mean_with': 1.8, 'delay_mean_without': 0, 'delay_p99_with': 9, 'delay_p99_without': 0,
        'pay_per_fire_with': 0, 'pay_per_fire_without': 0, 'welfare_with': 1.928e9, 'welfare_without': 2e9,
        'd_delay': 1.8, 'd_delay_lo': 1.8, 'd_delay_hi': 1.8, 'd_pay': 0, 'd_pay_lo': 0, 'd_pay_hi': 0}
for k, v in want.items():
    assert abs(float(r[k]) - v) <= 1e-9 * max(1.0, abs(v)), (k, float(r[k]), v)
PY" "harm.h5 holds the hand-computed row"
check "$PY -c \"import h5py, sys; sys.exit(int(h5py.File('$T/s/fifo-capped.noattack.h5', 'r').attrs['attackers_removed']) != 1)\"" \
    "the run without attackers says so (attackers_removed = 1)"

# 2. compare --harm prints the same table from the two files.
"$BIN" compare "$T/s/fifo-capped.h5" --harm > "$T/c.out" 2> "$T/c.err"
check "[ $? -eq 0 ]" "compare --harm exit 0"
check "grep -Eq '^  delay_p99 +9 +0 +9$' '$T/c.out' && grep -q 'paired delay  1.8 \\[1.8, 1.8\\]' '$T/c.out'" \
    "compare --harm: delay_p99 9 / 0 / 9 and the paired delay"
mkdir -p "$T/lone" && cp "$T/s/fifo-capped.h5" "$T/lone/"
"$BIN" compare "$T/lone/fifo-capped.h5" --harm > /dev/null 2> "$T/l.err"
check "[ $? -eq 3 ] && grep -q 'fifo-capped.noattack.h5' '$T/l.err'" "compare --harm without the pair: exit 3 naming the missing file"
"$BIN" compare "$T/s/fifo-capped.h5" --harm --csv > /dev/null 2> "$T/j.err"
check "[ $? -eq 2 ]" "compare --harm --csv: usage, exit 2 (the harm table is text or JSON)"
cp "$T/s/fifo-capped.h5" "$T/lone/fifo-capped.noattack.h5"
"$BIN" compare "$T/lone/fifo-capped.h5" --harm > /dev/null 2> "$T/w.err"
check "[ $? -eq 2 ] && grep -q 'must be the run with its attackers' '$T/w.err'" "compare --harm with a pair that kept its attackers: exit 2"

# 3. Common random numbers: attackers listed before the honest users keep
#    their indices when removed, so every honest timer (id, actor, heights,
#    value, cycles) is the same with and without them, under both
#    mechanisms; the attackers schedule nothing in the run without them.
"$BIN" run "$D/crn.json" -o "$T/n" --harm --quiet > /dev/null 2> "$T/n.err"
check "[ $? -eq 0 ]" "run --harm crn.json exit 0"
check "$PY - '$T/n' <<'PY'
import sys, h5py
for m in ('eip1559', 'fifo-capped'):
    a = h5py.File(f'{sys.argv[1]}/{m}.h5', 'r')
    b = h5py.File(f'{sys.argv[1]}/{m}.noattack.h5', 'r')
    act = a['actors'][:]
    honest = set(int(x) for x in act['actor'][act['kind'] == 0])   # default_gba
    assert len(honest) == 3, honest
    key = lambda t: sorted((int(r['timer_id']), int(r['actor']), int(r['sched_height']), int(r['due_height']),
                            float(r['value']), int(r['gas_limit'])) for r in t if int(r['actor']) in honest)
    ta, tb = key(a['timers'][:]), key(b['timers'][:])
    assert len(ta) > 100 and ta == tb, (m, len(ta), len(tb))
    bs = b['actors'][:]
    assert (bs['scheduled'][bs['kind'] != 0] == 0).all() and (act['scheduled'][act['kind'] != 0] > 0).all()
PY" "honest timers identical with and without the attackers; attackers silent without"

# 4. role: default attacker for spammer and fragmenter; a bad value is a
#    validate error at its path.
$PY -c "
import json, sys
d = json.load(open(sys.argv[1])); d['agents'][0]['role'] = 'boss'
json.dump(d, open(sys.argv[2], 'w'))
" "$D/spam-fifo.json" "$T/bad.json"
"$BIN" validate "$T/bad.json" > /dev/null 2> "$T/b.err"
check "[ $? -eq 2 ] && grep -q 'agents\\[0\\].role: must be \"honest\" or \"attacker\"' '$T/b.err'" "role: bad value names its path"
# The spammer declared honest: nothing is removed, so no harm.
$PY -c "
import json, sys
d = json.load(open(sys.argv[1])); d['agents'][1]['role'] = 'honest'
json.dump(d, open(sys.argv[2], 'w'))
" "$D/spam-fifo.json" "$T/honest.json"
"$BIN" run "$T/honest.json" -o "$T/h" --harm --quiet > "$T/h.out" 2> "$T/h.err"
check "[ $? -eq 0 ] && grep -q 'fifo-capped seed 5: 3 honest actors' '$T/h.out' && grep -Eq '^  delay_mean +3\.96 +3\.96 +0$' '$T/h.out'" \
    "a spammer with role honest stays: 3 honest actors, no change"

finish harm
