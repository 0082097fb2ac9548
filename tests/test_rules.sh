#!/usr/bin/env bash
# test_rules.sh -- the rule examples of scenarios/rules/ (issue 24's
# missing rules), each run briefly and its figures recomputed from the run
# files by formulas written here.  Usage: test_rules.sh [path/to/cowsim]
set -u
cd "$(dirname "$0")/.."
. tests/cs_test_lib.sh
R=scenarios/rules
run() { "$BIN" run "$@" --quiet >/dev/null 2>"$T/err" || bad "cowsim run $*: $(cat "$T/err")"; }

# Windowed basefee (N51): basefee_lane[h+1] is EIP-1559's integer update
# (N50) of basefee_lane[h] at the mean of the last w blocks' lane cycles
# (each clipped to L, fewer at the start): with S their sum, n their count,
# T = L/2, delta = b * |S - nT| // (8 nT); up: b + max(delta, 1), down:
# b - delta; floor 1.  w = 8 from the file, and w = 1 must give another path.
run $R/basefee-window.json -o "$T/bw"
run $R/basefee-window.json -o "$T/bw1" --set params.basefee_window=1
check '"$PY" - "$T/bw/eip1559.h5" 8 <<"PYEOF"
import sys, h5py
b = h5py.File(sys.argv[1])["blocks"][:]
w, L = int(sys.argv[2]), 2000000
T = L // 2
bf = [int(x) for x in b["basefee_lane"]]
cy = [min(int(x), L) for x in b["lane_cycles"]]
ok = bf[0] == 1000 and len(bf) == 240
for h in range(len(bf) - 1):
    win = cy[max(0, h - w + 1):h + 1]
    s, n = sum(win), len(win)
    x = bf[h]
    if s > n * T: x += max(x * (s - n * T) // (8 * n * T), 1)
    elif s < n * T: x -= x * (n * T - s) // (8 * n * T)
    ok = ok and bf[h + 1] == max(x, 1)
ok = ok and len(set(cy)) > 3 and max(bf) > 2 * min(bf)
sys.exit(0 if ok else 1)
PYEOF' "windowed basefee: w = 8 path equals the windowed EIP-1559 map over the recorded lane cycles"
check '"$PY" - "$T/bw/eip1559.h5" "$T/bw1/eip1559.h5" <<"PYEOF"
import sys, h5py
a = [int(x) for x in h5py.File(sys.argv[1])["blocks"]["basefee_lane"]]
b = [int(x) for x in h5py.File(sys.argv[2])["blocks"]["basefee_lane"]]
sys.exit(0 if a != b and a[:2] == b[:2] else 1)
PYEOF' "windowed basefee: w = 1 gives another path"

# MIN_GAS_LIMIT_PER_TIMER 30,000: agents 0-1 ask for 20,000-cycle handlers
# (refused each block they try: 2 rejections a block, no timer), agents 2-3
# for 50,000 (a tick due every block from 2: 19 fires each in 20 blocks).
# With the minimum off, all four fire 19 times and nothing is refused.
run $R/min-gas-limit.json -o "$T/mg"
run $R/min-gas-limit.json -o "$T/mg0" --set params.min_gas_limit_per_timer=0
check '"$PY" - "$T/mg" "$T/mg0" <<"PYEOF"
import sys, h5py
ok = True
for d, want_rej, want_fires in ((sys.argv[1], 2, [0, 0, 19, 19]), (sys.argv[2], 0, [19, 19, 19, 19])):
    for m in ("fifo", "eip1559"):
        f = h5py.File(f"{d}/{m}.h5")
        b, t, fi = f["blocks"][:], f["timers"][:], f["fires"][:]
        ok = ok and all(int(x) == want_rej for x in b["rejected"]) and len(b) == 20
        ok = ok and [int((fi["agent"] == a).sum()) for a in range(4)] == want_fires
        ok = ok and (want_rej == 0 or int((t["agent"] <= 1).sum()) == 0)
sys.exit(0 if ok else 1)
PYEOF' "min gas limit: 20,000-cycle timers refused (2 a block), 50,000 fire; all fire with the minimum off"

# Parameter changes at epoch boundaries (N54), epochs of 10 blocks: changes
# at 13, 30 and 41 take effect at 20, 30 and 50 (block mode: 13, 30, 41).
# /blocks.quota_block is 0 (none), then 2, then 3; fire_cap 250,000 then
# 200,000; eight heartbeats a block, so fired = min(8, quota) from block 2.
run $R/param-epoch.json -o "$T/pe"
run $R/param-epoch.json -o "$T/pe0" --set params.param_changes=block
check '"$PY" - "$T/pe/fifo-capped.h5" "$T/pe0/fifo-capped.h5" <<"PYEOF"
import sys, h5py
ok = True
for path, (q2, q3, c2) in ((sys.argv[1], (20, 30, 50)), (sys.argv[2], (13, 30, 41))):
    b = h5py.File(path)["blocks"][:]
    ok = ok and [int(x) for x in b["height"]] == list(range(1, 61))
    for h, q, fired, cap in zip(b["height"], b["quota_block"], b["fired"], b["fire_cap"]):
        want_q = 3 if h >= q3 else 2 if h >= q2 else 0
        want_f = 0 if h == 1 else min(8, want_q or 8)
        ok = ok and int(q) == want_q and int(fired) == want_f and int(cap) == (200000 if h >= c2 else 250000)
sys.exit(0 if ok else 1)
PYEOF' "parameter changes: at epoch boundaries 20, 30, 50 (epoch), at 13, 30, 41 (block)"

# SYS opcodes (N55), one fire a block for eight heartbeats.  Agents 0-3
# (sys_cancel_after 4): each timer cancelled (outcome 3) was deferred
# exactly 4 times and ended at due + 4 (cancelled at the start of the block
# after its 4th deferral); none waited longer.  Agents 4-7 (TTL 3, extended
# by 3 within 1 block of the end): nothing expires although fires wait up to
# more than 3 blocks past due.  Without the policies: nothing is cancelled
# and TTL 3 timers expire.
run $R/sys-opcodes.json -o "$T/sy"
run $R/sys-opcodes.json -o "$T/sy0" --set "agents[0].sys_cancel_after=0" --set "agents[1].sys_extend_within=0"
check '"$PY" - "$T/sy/fifo-capped.h5" "$T/sy0/fifo-capped.h5" <<"PYEOF"
import sys, h5py
f = h5py.File(sys.argv[1])
t, fi, b = f["timers"][:], f["fires"][:], f["blocks"][:]
c = t[t["outcome"] == 3]
ok = len(c) >= 1 and int(b["cancelled"].sum()) == len(c) and all(int(a) <= 3 for a in c["agent"])
ok = ok and all(int(x["deferrals"]) == 4 and int(x["end_height"]) == int(x["due_height"]) + 4 for x in c)
ok = ok and int(t[t["agent"] <= 3]["deferrals"].max()) == 4
ok = ok and int(b["expired"].sum()) == 0 and int((t["outcome"] == 1).sum()) == 0
ok = ok and int(fi[fi["agent"] >= 4]["delay"].max()) > 3
g = h5py.File(sys.argv[2])
t0, b0 = g["timers"][:], g["blocks"][:]
ok = ok and int(b0["cancelled"].sum()) == 0 and int(b0["expired"].sum()) > 0
sys.exit(0 if ok else 1)
PYEOF' "SYS_CANCEL_TIMER after 4 deferrals, SYS_EXTEND_TIMER keeps TTL-3 timers alive; neither without the policy"

# Mid-run activation (N56), H = 40, thirty heartbeats of 100,000-cycle
# timers a block against a lane of 20 such fires.  Below 40 (FIFO): every
# due timer fires (30 a block from block 2, none deferred), each pays its
# CIP-3 execution fee and nothing else (no lane burn, no allocation payment,
# no tip: one fee schedule, N58), the lane basefee stays 1,000.  From 40: 20
# fires a block, 10 deferred; under eip1559 every fire also burns the lane
# basefee (and none before).  Without activation the budget binds from
# block 2.
run $R/activation.json -o "$T/ac" --check-invariants
run $R/activation.json -o "$T/ac0" --set params.activation_height=0 --mechanism eip1559
check '"$PY" - "$T/ac" "$T/ac0/eip1559.h5" <<"PYEOF"
import sys, h5py
ok = True
for m in ("eip1559", "bias-vcg"):
    f = h5py.File(f"{sys.argv[1]}/{m}.h5")
    b, fi = f["blocks"][:], f["fires"][:]
    for r in b:
        h = int(r["height"])
        if h == 1: continue
        if h < 40:
            ok = ok and int(r["fired"]) == 30 and int(r["deferred"]) == 0 and float(r["lane_burn"]) == 0
            ok = ok and float(r["payments"]) == 0 and int(r["basefee_lane"]) == 1000
        else:
            ok = ok and int(r["fired"]) == 20 and int(r["deferred"]) >= 10
    lo, hi = fi[fi["height"] < 40], fi[fi["height"] >= 40]
    ok = ok and len(lo) > 0 and float(lo["exec_fee"].min()) > 0
    ok = ok and all(int(x["paid_hi"]) == int(x["exec_fee_hi"]) and int(x["paid_lo"]) == int(x["exec_fee_lo"]) for x in lo)
    ok = ok and float(lo["lane_burn"].max()) == 0 and float(lo["alloc_payment"].max()) == 0 and float(lo["prio_tip"].max()) == 0
    if m == "eip1559": ok = ok and float(hi["lane_burn"].min()) > 0
b0 = h5py.File(sys.argv[2])["blocks"][:]
ok = ok and all(int(x) == 20 for x in b0["fired"][2:]) and float(b0["burn"][2:].min()) > 0
sys.exit(0 if ok else 1)
PYEOF' "activation at 40: FIFO below (all fire, execution fee only), the auction from 40 (20 a block, eip1559 burns the lane basefee)"

# MAX_TIMERS_PER_TARGET (N66): a cowsim timer's target is its actor, so the
# cap is max_timers_per_actor, 50 here.  Storms of 300 timers over 3 actors
# every 5 blocks from 2, due 20 later: at 2 and 27 each actor gets 50 (150
# scheduled, 150 refused), at 7, 12, 17, 22 all 300 are refused, the 150
# fire at 22 (fifo: all at once); every block else schedules and refuses
# nothing.  With the cap at 1,024 every storm's 300 land.
run $R/max-timers-per-target.json -o "$T/mt"
run $R/max-timers-per-target.json -o "$T/mt1" --set params.max_timers_per_actor=1024
check '"$PY" - "$T/mt/fifo.h5" "$T/mt1/fifo.h5" <<"PYEOF"
import sys, collections, h5py
def rows(path):
    f = h5py.File(path)
    b, t = f["blocks"][:], f["timers"][:]
    return {int(r["height"]): (int(r["scheduled"]), int(r["rejected"]), int(r["fired"])) for r in b}, t
got, t = rows(sys.argv[1])
want = {h: (0, 0, 0) for h in range(1, 31)}
for h in (2, 27): want[h] = (150, 150, 0)
for h in (7, 12, 17): want[h] = (0, 300, 0)
want[22] = (0, 300, 150)
per = collections.Counter((int(r["sched_height"]), int(r["actor"])) for r in t)
ok = got == want and sorted(per.values()) == [50] * 6
got1, _ = rows(sys.argv[2])
ok = ok and all(got1[h][:2] == ((300, 0) if h in (2, 7, 12, 17, 22, 27) else (0, 0)) for h in range(1, 31))
sys.exit(0 if ok else 1)
PYEOF' "max timers per target 50: storms of 300 over 3 actors land 150 at 2 and 27, none at 7-22; all with the cap at 1,024"

# Handler-created deferred transactions (N67, CIP-5 §6.2): heartbeats with
# 250,000-cycle gas limits ask for 2 each; a fire creates n = min(2,
# (250,000 - c) // 100,000) with c its handler's own cycles (the run with
# deferred_txs 0, fire by fire on (height, timer_id)), and its cycles and
# execution fee grow by n x 100,000 and n x 100,000 x the cycle basefee.
run $R/handler-txs.json -o "$T/ht"
run $R/handler-txs.json -o "$T/ht0" --set 'agents[0].deferred_txs=0'
check '"$PY" - "$T/ht" "$T/ht0" <<"PYEOF"
import sys, h5py
ok, seen = True, 0
for m in ("fifo", "eip1559"):
    A = h5py.File(f"{sys.argv[1]}/{m}.h5")
    a, b = A["fires"][:], h5py.File(f"{sys.argv[2]}/{m}.h5")["fires"][:]
    bc = {int(r["height"]): int(r["basefee_cycle"]) for r in A["blocks"][:]}
    key = lambda r: (int(r["height"]), int(r["timer_id"]))
    base = {key(r): r for r in b}
    ok = ok and len(a) == len(b) > 50
    for r in a:
        q = base[key(r)]
        n = min(2, (250000 - int(q["cycles"])) // 100000)
        seen += n
        ok = ok and int(r["cycles"]) - int(q["cycles"]) == 100000 * n
        ok = ok and float(r["exec_fee"]) - float(q["exec_fee"]) == 100000 * n * bc[key(r)[0]]
sys.exit(0 if ok and seen > 0 else 1)
PYEOF' "handler transactions: each fire uses and pays min(2, (250,000 - c) // 100,000) x 100,000 cycles more"

finish rules
