#!/usr/bin/env bash
# test_fees.sh -- one fee schedule for every rule (issue 24 items 2 and 6,
# DESIGN §2.4, DESIGN-NOTES N58), on a shared-demand scenario written
# here: 6 heartbeats (a tick every 4 blocks, gas limit 100,000, handlers
# using about half of it, 37 payload bytes, a bid of 1 % of the value under
# the bid rules) on a 2,000,000-cycle lane, 80 blocks, CIP-3 cycle basefee
# 1,000 and cell basefee 10.  At most 6 fires of 100,000 cycles a block:
# nothing is ever deferred, so every rule fires the same timers at the same
# heights.  Checked with h5py from the run files, every amount exactly
# (the _hi/_lo integers):
#   - every mechanism fires the same (timer, height) pairs as fifo;
#   - each fire's exec_fee is the same under every rule and equals
#     cycles x /blocks.basefee_cycle + 37 x /blocks.basefee_cell of its block;
#   - each fire's paid = exec_fee + lane_burn + alloc_payment + prio_tip;
#     the fee rules' lane_burn is cycles x the lane basefee of the block, the
#     others' 0 (and first-draft gba-tip's, which has no lane basefee, N65);
#     bias-fp's and score's alloc_payment is the bid;
#   - /blocks.exec_fee and lane_burn are the sums over the block's fires;
#   - per actor: balance at the start = end_balance + paid + sched_cost +
#     cancel_cost + the bids still escrowed by its pending timers, and
#     sched_cost = its schedules x 1,000 x 1,000 + 37 x 10 each;
#   - with execution_fees = none (CIP-5 §6.3) fifo's fires pay nothing.
set -u
. tests/cs_test_lib.sh

cat > "$T/shared.json" <<'EOF'
{
  "name": "shared-demand",
  "seed": 2385,
  "blocks": 80,
  "mechanism": ["fifo", "fifo-capped", "score", "bias-vcg", "bias-fp", "eip1559", "gba-tip", "greedy"],
  "params": {"lane_timer_cycles": 2000000},
  "environment": {"basefee_cycle": {"type": "constant", "value": 1000}, "basefee_cell": 10},
  "agents": [
    {"kind": "heartbeat", "count": 6, "balance": "1000000000000",
     "params": {"period": 4, "gas_limit": 100000, "payload_len": 37, "bid_frac": 0.01, "start_spread": 3}}
  ],
  "output": {"fires": "all"}
}
EOF
"$BIN" run "$T/shared.json" -o "$T/r" --quiet > /dev/null 2> "$T/err"
check "[ $? -eq 0 ]" "run shared-demand: exit 0 ($(head -c 300 "$T/err"))"
"$BIN" run "$T/shared.json" -o "$T/n" --mechanism fifo --set params.execution_fees=none --quiet > /dev/null 2>&1
check "[ $? -eq 0 ]" "run shared-demand, execution_fees = none: exit 0"

$PY - "$T" > "$T/out.txt" 2>&1 <<'PYEOF'
import sys, h5py
T = sys.argv[1]
mechs = ["fifo", "fifo-capped", "score", "bias-vcg", "bias-fp", "eip1559", "gba-tip", "greedy"]
fails = []
def ex(row, c):
    return (int(row[c + "_hi"]) << 64) | int(row[c + "_lo"])
ref_fee, ref_set = None, None
for m in mechs:
    f = h5py.File(f"{T}/r/{m}.h5", "r")
    fi, bl, ac, tm = f["fires"][:], f["blocks"][:], f["actors"][:], f["timers"][:]
    blk = {int(b["height"]): b for b in bl}
    fees, bad_sum, bad_fee, bad_lane, parts = {}, 0, 0, 0, [0, 0, 0, 0]
    bsum = {}
    for r in fi:
        h, tid, cyc = int(r["height"]), int(r["timer_id"]), int(r["cycles"])
        b = blk[h]
        want = cyc * ex(b, "basefee_cycle") + 37 * ex(b, "basefee_cell")
        e, lane, pay, tip = ex(r, "exec_fee"), ex(r, "lane_burn"), ex(r, "alloc_payment"), ex(r, "prio_tip")
        if e != want: bad_fee += 1
        if ex(r, "paid") != e + lane + pay + tip: bad_sum += 1
        lane_want = cyc * ex(b, "basefee_lane") if m in ("eip1559", "gba-tip") else 0
        if lane != lane_want: bad_lane += 1
        if m in ("bias-fp", "score") and pay != ex(r, "bid"):
            fails.append(f"{m}: fire {tid:x}@{h} alloc_payment {pay} != bid {ex(r, 'bid')}")
        fees[(tid, h)] = e
        parts = [parts[0] + e, parts[1] + lane, parts[2] + pay, parts[3] + tip]
        s = bsum.setdefault(h, [0, 0])
        s[0] += e
        s[1] += lane
    print(f"{m}: {len(fi)} fires, exec fee != by hand {bad_fee}, paid != sum of parts {bad_sum}, lane burn wrong {bad_lane}")
    if len(fi) < 100 or bad_fee or bad_sum or bad_lane:
        fails.append(f"{m}: fires {len(fi)}, exec fee {bad_fee}, parts {bad_sum}, lane {bad_lane}")
    print(f"{m}: totals exec_fee, lane_burn, alloc_payment, prio_tip = {parts}")
    # Each part is exercised where its rule has it.
    if m in ("bias-fp", "score") and parts[2] == 0: fails.append(f"{m}: no allocation payment")
    if m == "eip1559" and parts[1] == 0: fails.append(f"{m}: no lane burn")
    # First-draft gba-tip has no lane basefee (gba_tip_lane = none, N65).
    if m == "gba-tip" and parts[1] != 0: fails.append(f"{m}: lane burn {parts[1]} without a lane basefee")
    if ref_fee is None:
        ref_fee, ref_set = fees, set(fees)
    else:
        if set(fees) != ref_set:
            fails.append(f"{m}: fires other timers than fifo ({len(set(fees) ^ ref_set)} differ)")
        diff = sum(1 for k in fees if k in ref_fee and fees[k] != ref_fee[k])
        if diff:
            fails.append(f"{m}: {diff} fires with another exec fee than under fifo")
    for b in bl:
        h = int(b["height"])
        s = bsum.get(h, [0, 0])
        if ex(b, "exec_fee") != s[0] or ex(b, "lane_burn") != s[1]:
            fails.append(f"{m}: block {h} exec_fee/lane_burn {ex(b, 'exec_fee')}/{ex(b, 'lane_burn')} != fires {s}")
            break
    escrow = {}
    for t in (tm if m in ("score", "bias-vcg", "bias-fp") else []):  # the rules that escrow bids
        if t["outcome"] == h5py.check_enum_dtype(tm.dtype["outcome"]).get("pending", -1):
            escrow[int(t["actor"])] = escrow.get(int(t["actor"]), 0) + ex(t, "bid")
    for a in ac:
        i = int(a["actor"])
        lhs = ex(a, "end_balance") + ex(a, "paid") + ex(a, "sched_cost") + ex(a, "cancel_cost") + escrow.get(i, 0)
        if lhs != 1000000000000:
            fails.append(f"{m}: actor {i}: end {ex(a, 'end_balance')} + paid + costs + escrow = {lhs} != 1e12")
        if ex(a, "sched_cost") != int(a["scheduled"]) * (1000 * 1000 + 37 * 10):
            fails.append(f"{m}: actor {i}: sched_cost {ex(a, 'sched_cost')} != {int(a['scheduled'])} x 1,000,370")
    tot_sched = sum(ex(b, "sched_cost") for b in bl)
    if tot_sched != sum(ex(a, "sched_cost") for a in ac):
        fails.append(f"{m}: /blocks.sched_cost sums to {tot_sched}, /actors to another total")
f = h5py.File(f"{T}/n/fifo.h5", "r")
paid = sum(ex(r, "paid") + ex(r, "exec_fee") for r in f["fires"][:])
print(f"fifo with execution_fees = none: paid + exec_fee over every fire {paid}")
if paid != 0:
    fails.append(f"execution_fees = none: fifo's fires paid {paid}")
for x in fails:
    print("FAIL:", x)
sys.exit(1 if fails else 0)
PYEOF
rc=$?
cat "$T/out.txt"
check "[ $rc -eq 0 ]" "one fee schedule: identical execution fees, paid = the sum of its parts"
finish fees
