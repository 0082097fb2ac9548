#!/usr/bin/env bash
# test_bench_e2e.sh -- `cowsim bench e2e --quick --json` (2,000 blocks of
# scenarios/bench-large.json): the JSON carries every documented figure with
# sane values, and the scenario has the sizes the benchmark is defined by
# (>= 10,000 actors, >= 100,000 blocks, eip1559, per-fire rows on, >= 50
# fires per block on average, so >= 5 x 10^6 fires over the full run).
# Speed targets are not checked here: a shared test machine cannot time them.
set -u
SRC=${CS_SRC:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$SRC" || exit 2
. "$(dirname "$0")/cs_test_lib.sh"

# 1. The scenario file: valid, and sized as the benchmark requires.
"$BIN" validate scenarios/bench-large.json > /dev/null 2>&1
check "[ $? -eq 0 ]" "bench-large.json validates"
$PY - scenarios/bench-large.json > "$T/scn.txt" 2>&1 <<'PYEOF'
import json, sys
s = json.load(open(sys.argv[1]))
m = s["mechanism"]
m = m if isinstance(m, list) else [m]
actors = sum(a.get("count", 1) * (a.get("params", {}).get("k", 1) if a["kind"] == "fragmenter" else 1)
             for a in s["agents"])
fires = s.get("output", {}).get("fires", "all")
ok = s["blocks"] >= 100000 and "eip1559" in m and fires == "all" and actors >= 10000
print("blocks", s["blocks"], "mechanisms", m, "fires", fires, "actors", actors)
sys.exit(0 if ok else 1)
PYEOF
check "[ $? -eq 0 ]" "bench-large.json sizes: $(cat "$T/scn.txt")"

# 2. The quick benchmark: exit 0, one JSON object with every figure.
before=$(ls -d /tmp/cowsim-bench-e2e-* 2> /dev/null | sort)
"$BIN" bench e2e --quick --json > "$T/b.json" 2> "$T/b.err"
check "[ $? -eq 0 ]" "bench e2e --quick exit 0 ($(head -c 300 "$T/b.err"))"
$PY - "$T/b.json" > "$T/b.txt" 2>&1 <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))
need = ["fires_per_second", "blocks_per_second", "peak_rss_bytes", "h5_time_share",
        "fires_per_second_no_rows", "rows_fps_ratio", "keccak_share_est", "fires", "blocks", "actors",
        "fires_per_second_scalar_keccak", "keccak_batch_speedup", "keccak_path"]
bad = [k for k in need if k not in r]
if bad:
    print("missing", bad)
    sys.exit(1)
checks = {
    "mechanism eip1559": r["mechanism"] == "eip1559",
    "2000 blocks": r["blocks"] == 2000,
    ">= 10,000 actors": r["actors"] >= 10000,
    ">= 50 fires per block": r["fires"] >= 50 * r["blocks"],
    "fires/s > 0": r["fires_per_second"] > 0 and r["fires_per_second_no_rows"] > 0,
    "blocks/s = fires/s / fires per block": abs(r["blocks_per_second"] * r["fires"] / r["blocks"]
                                                - r["fires_per_second"]) <= 1e-3 * r["fires_per_second"],
    "0 < h5 share < 1": 0 < r["h5_time_share"] < 1,
    "0 < keccak share < 1": 0 < r["keccak_share_est"] < 1,
    "rss in (1 MiB, 2 GiB]": 2**20 < r["peak_rss_bytes"] <= 2**31,
    "ratio = fps / fps_no_rows": abs(r["rows_fps_ratio"] * r["fires_per_second_no_rows"]
                                     - r["fires_per_second"]) <= 1e-3 * r["fires_per_second"],
    "speedup = fps / fps_scalar_keccak": abs(r["keccak_batch_speedup"] * r["fires_per_second_scalar_keccak"]
                                             - r["fires_per_second"]) <= 1e-3 * r["fires_per_second"],
    "keccak path named": r["keccak_path"] in ("avx512x8", "avx2x4+bmi2x1", "avx2x4", "scalar"),
}
failed = [k for k, v in checks.items() if not v]
print("failed:", failed if failed else "none", {k: r[k] for k in need})
sys.exit(1 if failed else 0)
PYEOF
check "[ $? -eq 0 ]" "bench e2e figures: $(head -c 800 "$T/b.txt")"
after=$(ls -d /tmp/cowsim-bench-e2e-* 2> /dev/null | sort)
check "[ '$before' = '$after' ]" "temporary directory removed"

# 3. Text output and usage.
"$BIN" bench e2e --quick > "$T/t.txt" 2>&1
check "[ $? -eq 0 ] && grep -q 'fires_per_second' '$T/t.txt'" "bench e2e text output"
"$BIN" bench e2e --nope > /dev/null 2>&1
check "[ $? -eq 2 ]" "unknown option: exit 2"

# 4. bench memory --quick: scenarios/pending-1m.json as shipped (1,100
# subscription actors x about 10 timers per block x 92 blocks, all due
# beyond the run): about 10^6 pending, and the per-timer figure is the
# peak RSS over the pending count.
"$BIN" bench memory --quick --json > "$T/m.json" 2> "$T/m.err"
check "[ $? -eq 0 ]" "bench memory --quick exit 0 ($(head -c 300 "$T/m.err"))"
$PY - "$T/m.json" > "$T/m.txt" 2>&1 <<'PYEOF'
import json, sys
r = json.load(open(sys.argv[1]))
ok = (r["actors"] == 1100 and r["blocks"] == 92 and 900000 <= r["pending"] <= 1100000
      and abs(r["peak_rss_bytes_per_pending_timer"] * r["pending"] - r["peak_rss_bytes"]) <= 1e-3 * r["peak_rss_bytes"]
      and r["meets_rss_target"] == (r["peak_rss_bytes"] <= 2**31))
# The byte accounting: every part's bytes in use are its slots, entries or
# cells times their size; the parts and other_bytes add up to the peak.
parts = ["pool_hot", "pool_cold", "money_table", "id_map", "queue", "free_lists", "engine_side_table", "engine_extras"]
n = r["record_slots"]
ok = ok and r["pending"] <= n <= r["record_slots_allocated"]
ok = ok and r["pool_hot_bytes"] == n * r["record_hot_bytes"] and r["pool_cold_bytes"] == n * r["record_cold_bytes"]
ok = ok and r["pool_hot_allocated_bytes"] == r["record_slots_allocated"] * r["record_hot_bytes"]
ok = ok and r["pool_cold_allocated_bytes"] == r["record_slots_allocated"] * r["record_cold_bytes"]
ok = ok and all(0 <= r[p + "_bytes"] <= r[p + "_allocated_bytes"] for p in parts)
ok = ok and all(abs(r[p + "_bytes_per_pending_timer"] * r["pending"] - r[p + "_bytes"]) <= 1e-3 * r[p + "_bytes"] + 1
                for p in parts)
# The id index is a power of two of cells, at most 3/4 full, so at least
# 4/3 x pending cells (of 8 or 12 bytes): at least 10.6 bytes a timer.
ok = ok and r["id_map_bytes"] >= r["pending"] * 8 * 4 / 3
acc = sum(r[p + "_bytes"] for p in parts)
ok = ok and abs(r["accounted_bytes"] - acc) <= 1e-3 * acc
ok = ok and abs(r["accounted_bytes"] + r["other_bytes"] - r["peak_rss_bytes"]) <= 1e-3 * r["peak_rss_bytes"]
ok = ok and 0 < r["rss_end_bytes"] <= r["peak_rss_bytes"] and 0 < r["other_bytes"]
print(r)
sys.exit(0 if ok else 1)
PYEOF
check "[ $? -eq 0 ]" "bench memory figures: $(head -c 600 "$T/m.txt")"

echo "bench_e2e: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
