#!/usr/bin/env bash
# test_reserve.sh -- the reserve per CIP-5 §9.5 by default (issue 24 item 3,
# DESIGN D14, DESIGN-NOTES N59): on an idle lane (2,000,000 cycles, at most
# a timer or two a block of 100,000), reserve_price 1, two waiting_game
# bidders that bid 0 and rely on Bias (§9.7), timers with a TTL of 30
# blocks, 120 blocks, under bias-vcg and bias-fp:
#   - payment-floor (the default): every timer due by block 110 fires, at
#     its due height (nothing competes), none expires, and no fire pays an
#     allocation payment (never above the bid, 0);
#   - bid-gate (N16's reading, the knob): not one fires, and every timer
#     whose TTL ran out inside the run expired or was withdrawn by its
#     value-aware owner as priced out -- the lock-out the default removes.
set -u
. tests/cs_test_lib.sh

cat > "$T/idle.json" <<'EOF'
{
  "name": "reserve-idle",
  "seed": 7411,
  "blocks": 120,
  "mechanism": ["bias-vcg", "bias-fp"],
  "params": {"lane_timer_cycles": 2000000, "reserve_price": 1, "bias_scale": 1000000, "vcg_payment": "critical"},
  "agents": [{"kind": "waiting_game", "count": 2, "balance": "100000000000", "params": {"rate": 0.3, "ttl": 30}}],
  "output": {"fires": "all"}
}
EOF
"$BIN" run "$T/idle.json" -o "$T/floor" --quiet > /dev/null 2> "$T/e1"
check "[ $? -eq 0 ]" "run payment-floor: exit 0 ($(head -c 200 "$T/e1"))"
"$BIN" run "$T/idle.json" -o "$T/gate" --set params.reserve_mode=bid-gate --quiet > /dev/null 2> "$T/e2"
check "[ $? -eq 0 ]" "run bid-gate: exit 0 ($(head -c 200 "$T/e2"))"

$PY - "$T" > "$T/out.txt" 2>&1 <<'PYEOF'
import sys, h5py
T = sys.argv[1]
fails = []
for m in ("bias-vcg", "bias-fp"):
    for mode in ("floor", "gate"):
        f = h5py.File(f"{T}/{mode}/{m}.h5", "r")
        fi, tm = f["fires"][:], f["timers"][:]
        oc = h5py.check_enum_dtype(tm.dtype["outcome"])
        expired = int((tm["outcome"] == oc["expired"]).sum())
        # A value-aware bidder withdraws a timer priced out (here: by the
        # gate) for longer than its patience; that is a lock-out too.
        withdrawn = int((tm["outcome"] == oc["cancelled"]).sum())
        due = tm[tm["due_height"] <= 110]
        pay = sum((int(h) << 64) | int(l) for h, l in zip(fi["alloc_payment_hi"], fi["alloc_payment_lo"]))
        late = int((fi["delay"] > 0).sum())
        print(f"{m} {mode}: {len(tm)} timers, {len(due)} due by 110, {len(fi)} fires ({late} late), "
              f"{expired} expired, {withdrawn} withdrawn, allocation payments {pay}")
        if mode == "floor":
            fired = set(int(x) for x in fi["timer_id"])
            missing = [int(t["timer_id"]) for t in due if int(t["timer_id"]) not in fired]
            if len(due) < 20 or missing or expired or pay or late:
                fails.append(f"{m} floor: {len(missing)} of {len(due)} due timers never fired, {expired} expired, "
                             f"payments {pay}, {late} late")
        else:
            gone = tm[tm["due_height"] + 30 < 120]
            if len(fi) != 0 or expired + withdrawn < len(gone) or len(gone) < 10:
                fails.append(f"{m} gate: {len(fi)} fires, {expired} expired + {withdrawn} withdrawn of {len(gone)} "
                             "past their TTL")
for x in fails:
    print("FAIL:", x)
sys.exit(1 if fails else 0)
PYEOF
rc=$?
cat "$T/out.txt"
check "[ $rc -eq 0 ]" "payment-floor never locks out a bid-0 timer; bid-gate does"
finish reserve
