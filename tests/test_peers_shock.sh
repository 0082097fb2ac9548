#!/usr/bin/env bash
# test_peers_shock.sh -- a demand shock under schedule-time booking (issue
# 28; scenarios/peers/slot-shock.json: 140 blocks, one seed, slot-booking
# and eip1559 on the same demand):
#   - /blocks.slot_base (the base price of slot h) equals, block for block,
#     an independent recomputation from the bookings in /timers: slots
#     1..1+W at slot_base_initial, then each slot X entering the window
#     from its predecessor's base and the mean cycles booked in X-W..X-1 by
#     timers scheduled before block X-W (when X enters), by Massa's step
#     base +- max(base |avg - C/2| / (C/2 D), 1), floored at 1;
#   - the base price falls while the window is booked below C/2, then rises
#     through the shock: its largest value after the shock starts is above
#     its smallest before, by more than the min step a block;
#   - the overbooking fee a booking paid (its quoted price less its slot's
#     base x its gas) is 0 before the shock and positive during it;
#   - refusals are counted by reason (bookings beyond the 16-slot window);
#   - `cowsim report` plots the slot base price beside eip1559's lane
#     basefee: the slot-booking line's data are /blocks.slot_base exactly;
#   - cancel (the default scenario, 60 blocks, priority-classes, the system
#     deployers cancelling a priority_tier timer deferred 3 times, N55):
#     the rule keeps half of each cancelled booking's price (Flow), so
#     /blocks.cancel_cost sums to sum(price - floor(price / 2)) over the
#     cancelled timers, exactly (system cancels cost no call, N55).
set -u
. tests/cs_test_lib.sh

SCEN=scenarios/peers/slot-shock.json
"$BIN" run "$SCEN" -o "$T/run" --quiet > /dev/null 2> "$T/err"
check "[ $? -eq 0 ]" "run $SCEN: exit 0 ($(head -c 300 "$T/err"))"
"$BIN" report "$T/run/slot-booking.h5" "$T/run/eip1559.h5" -o "$T/rep" > /dev/null 2> "$T/rerr"
check "[ $? -eq 0 ]" "report: exit 0 ($(head -c 300 "$T/rerr"))"
check "grep -q \"title 'slot-booking (slot base price)'\" '$T/rep/basefee.gp' && grep -q \"title 'eip1559'\" '$T/rep/basefee.gp'" \
    "the basefee plot has the slot base price beside eip1559's lane basefee"
check "grep -q \"slot-booking's base price per cycle\" '$T/rep/report.md'" "report.md's caption names slot-booking's base price"

"$BIN" run scenarios/default.json -o "$T/cancel" --seeds 1 --set blocks=60 --set 'agents[0].sys_cancel_after=3' \
    --mechanism priority-classes --quiet > /dev/null 2> "$T/cerr"
check "[ $? -eq 0 ]" "run default.json with system cancels: exit 0 ($(head -c 300 "$T/cerr"))"

$PY - "$T" "$SCEN" > "$T/out.txt" 2>&1 <<'PYEOF'
import sys, json, collections, h5py, numpy as np
T, scen = sys.argv[1], sys.argv[2]
d = json.load(open(scen))
W = d["params"]["book_window"]
C = d["params"]["lane_timer_cycles"]
shock = d["events"][0]["at"]
D, floor, init = 8, 1, 1000  # slot_base_denom, slot_base_min, slot_base_initial (defaults)
f = h5py.File(f"{T}/run/slot-booking.h5", "r")
b, t = f["blocks"][:], f["timers"][:]
fails = []
H = [int(h) for h in b["height"]]
got = {int(h): int(hi) << 64 | int(lo) for h, hi, lo in zip(b["height"], b["slot_base_hi"], b["slot_base_lo"])}
bk = t[t["book_class"] == 3]
if np.any(bk["outcome"] == 5):  # cancelled (the reference does not model a freed booking)
    fails.append("a booked timer was cancelled")
# Bookings by (slot, schedule height).
book = collections.defaultdict(list)
slot_of = bk["due_height"] + bk["book_moved"]  # due_height is the slot asked for (N75)
for due, sh, g in zip(slot_of, bk["sched_height"], bk["gas_limit"]):
    book[int(due)].append((int(sh), int(g)))
target = C // 2
base = {h: init for h in range(1, 2 + W)}
for x in range(2 + W, max(H) + 1):
    enter = x - W
    s = sum(g for h in range(x - W, x) for sh, g in book.get(h, []) if sh < enter)
    avg, prev = s // W, base[x - 1]
    nxt = prev
    if avg != target:
        step = max(prev * abs(avg - target) // (target * D), 1)
        nxt = prev + step if avg > target else max(prev - step, 0)
    base[x] = max(nxt, floor)
diff = [h for h in H if got[h] != base[h]]
if diff:
    h = diff[0]
    fails.append(f"slot_base differs from the recomputation in {len(diff)} blocks, first {h}: {got[h]} != {base[h]}")
before = [got[h] for h in H if h < shock]
after = [got[h] for h in H if h >= shock]
print("slot base: start", before[0], "lowest before the shock", min(before), "highest after", max(after))
if not (min(before) < init):
    fails.append("the base price did not fall while the window was below target")
if not (max(after) > min(before) + 10):
    fails.append(f"the base price did not rise through the shock ({min(before)} -> {max(after)})")
# Overbooking fees: price - base(slot) x gas.
fee = np.array([(int(hi) << 64 | int(lo)) - got.get(int(due), 0) * int(g)
                for hi, lo, due, g in zip(bk["book_price_hi"], bk["book_price_lo"], slot_of, bk["gas_limit"])],
               dtype=object)
sh = bk["sched_height"]
calm, hot = fee[sh < shock], fee[(sh >= shock) & (sh < shock + d["events"][0]["duration"])]
print("overbooking fee: before the shock max", max(calm), "during it mean", sum(hot) / len(hot), "max", max(hot))
if any(x < 0 for x in fee):
    fails.append("a booking paid less than its slot's base price")
if max(calm) != 0:
    fails.append("an overbooking fee before the shock, below the target")
if not (sum(hot) > 0 and min(x for x in hot) >= 0):
    fails.append("no overbooking fee during the shock")
# Refusals by reason.
print("refused: full", int(b["book_full"].sum()), "window", int(b["book_window"].sum()),
      "too_large", int(b["book_too_large"].sum()), "declined", int(b["book_declined"].sum()))
if int(b["book_window"].sum()) == 0:
    fails.append("no booking refused beyond the window (delays of mean 20 > W = 16 should be)")
if any(int(r) < int(w) for r, w in zip(b["rejected"], b["book_window"])):
    fails.append("/blocks.rejected does not count the refused bookings")
# The report's slot-booking line is slot_base exactly (140 blocks: 1-block bins).
rows = [l.split() for l in open(f"{T}/rep/run1_basefee.dat") if not l.startswith("#")]
pts = {int(float(h)): float(v) for h, v in rows}
if any(pts.get(h) != float(got[h]) for h in H):
    fails.append("the report's slot-booking line is not /blocks.slot_base")
# Cancel keeps half the fee (priority-classes, class_cancel_refund 0.5).
g = h5py.File(f"{T}/cancel/priority-classes.h5", "r")
ct, cb = g["timers"][:], g["blocks"][:]
ex = lambda r, c: [int(h) << 64 | int(l) for h, l in zip(r[c + "_hi"], r[c + "_lo"])]
cancelled = ct[ct["outcome"] == 3]
kept = sum(p - p * 500000 // 1000000 for p in ex(cancelled, "book_price"))
cost = sum(ex(cb, "cancel_cost"))
print("cancelled bookings", len(cancelled), "kept", kept, "cancel_cost", cost)
if not (len(cancelled) > 0 and kept > 0 and cost == kept):
    fails.append(f"cancel: kept {kept} over {len(cancelled)} cancelled bookings, cancel_cost {cost}")
for x in fails:
    print("FAIL:", x)
sys.exit(1 if fails else 0)
PYEOF
rc=$?
cat "$T/out.txt"
check "[ $rc -eq 0 ]" "slot-booking's price path through a demand shock"
finish peers_shock
