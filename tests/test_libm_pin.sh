#!/usr/bin/env bash
# test_libm_pin.sh -- the same datasets on every x86_64 CPU (sim/cs_libm.h,
# DESIGN-NOTES N115).  glibc chooses its libm builds by the CPU, and its
# fused multiply-add builds of exp, log, pow, ... differ in the last bit of
# some results from the others; cowsim starts itself again with those
# switched off.  glibc's tunables emulate the CPUs here: a run on this
# machine must give the same datasets, byte for byte, as runs that glibc
# believes to be on a CPU without FMA, or without AVX at all (its SSE2
# builds), and as a run whose user set tunables of their own.  On a CPU
# with FMA the run with COWSIM_LIBM=native (glibc's own choice) must
# differ: the check that the pin is what makes the others agree.
set -u
. "$(dirname "$0")/cs_test_lib.sh"

SCEN=scenarios/all-kinds.json
MECHS=eip1559
run() { # run NAME [ENV...]: the scenario into $T/NAME, env as given
    local name=$1
    shift
    if ! env "$@" "$BIN" run "$SCEN" --mechanism "$MECHS" -o "$T/$name" --quiet > "$T/$name.log" 2>&1; then
        bad "$name: cowsim run failed: $(tail -3 "$T/$name.log")"
    fi
}
# same A B: every dataset of every file of A equals B's (prints the first
# difference); exit 0 when all equal, 1 when one differs, 2 on an error.
same() {
    "$PY" - "$T/$1" "$T/$2" <<'PYEOF'
import sys, os, h5py, numpy as np
a, b = sys.argv[1], sys.argv[2]
files = sorted(f for f in os.listdir(a) if f.endswith(".h5"))
if not files or files != sorted(f for f in os.listdir(b) if f.endswith(".h5")):
    print("files differ:", files); sys.exit(2)
n = 0
for f in files:
    with h5py.File(os.path.join(a, f), "r") as fa, h5py.File(os.path.join(b, f), "r") as fb:
        names = []
        fa.visititems(lambda k, v: names.append(k) if isinstance(v, h5py.Dataset) else None)
        for k in sorted(names):
            if k not in fb:
                print(f, k, "missing"); sys.exit(1)
            x, y = fa[k][()], fb[k][()]
            n += 1
            if isinstance(x, np.ndarray) and x.dtype.hasobject is False and x.dtype == y.dtype:
                eq = x.shape == y.shape and x.tobytes() == y.tobytes()
            else:
                eq = repr(np.asarray(x).tolist()) == repr(np.asarray(y).tolist())
            if not eq:
                print(f, k, "differs"); sys.exit(1)
print(n, "datasets equal")
PYEOF
}
attr() { "$PY" -c 'import sys, h5py; print(h5py.File(sys.argv[1], "r").attrs["libm"])' "$T/$1/eip1559.h5"; }

fma=0
if grep -qwE 'fma|fma4' /proc/cpuinfo; then fma=1; fi

# 1. What cowsim --version reports.
v=$("$BIN" --version | sed -n 's/^libm: //p')
if [ "$fma" = 1 ]; then want="glibc x86_64, no FMA (pinned)"; else want="glibc x86_64, no FMA (CPU)"; fi
check "[ \"\$v\" = \"\$want\" ]" "--version: libm '$v', want '$want'"
v=$(GLIBC_TUNABLES=glibc.cpu.hwcaps=-FMA,-FMA4 "$BIN" --version | sed -n 's/^libm: //p')
check "[ \"\$v\" = 'glibc x86_64, no FMA (CPU)' ]" "--version on a CPU without FMA: '$v'"

# Started through the dynamic loader, cowsim cannot start itself again
# (/proc/self/exe is the loader): it says so and runs unpinned.
LDSO=/lib64/ld-linux-x86-64.so.2
if [ "$fma" = 1 ] && [ -x "$LDSO" ]; then
    v=$("$LDSO" "$BIN" --version 2> "$T/ldso.err" | sed -n 's/^libm: //p')
    check "[ \"\$v\" = 'glibc x86_64, FMA (not pinned)' ] && grep -q 'started through the dynamic loader' '$T/ldso.err'" \
        "through $LDSO: libm '$v', stderr: $(head -c 300 "$T/ldso.err")"
fi

# 2. The runs.
run pinned
run nofma GLIBC_TUNABLES=glibc.cpu.hwcaps=-FMA,-FMA4,-AVX2
run sse2 GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX,-AVX2,-FMA,-FMA4,-AVX512F
run user GLIBC_TUNABLES=glibc.malloc.check=0:glibc.cpu.hwcaps=-AVX512F
run native COWSIM_LIBM=native
for other in nofma sse2 user; do
    out=$(same pinned "$other")
    check "[ $? -eq 0 ]" "pinned against $other: $out"
done
check "[ \"\$(attr pinned)\" = \"\$want\" ]" "pinned run's libm attribute: $(attr pinned)"
check "[ \"\$(attr sse2)\" = 'glibc x86_64, no FMA (CPU)' ]" "sse2 run's libm attribute: $(attr sse2)"
check "[ \"\$(attr user)\" = \"\$want\" ]" "user-tunables run's libm attribute: $(attr user)"
if [ "$fma" = 1 ]; then
    out=$(same pinned native)
    rc=$?
    check "[ $rc -eq 1 ]" "COWSIM_LIBM=native gave the pinned run's datasets (exit $rc: $out): the pin would change nothing here"
    check "[ \"\$(attr native)\" = 'glibc x86_64, FMA (COWSIM_LIBM=native)' ]" "native run's libm attribute: $(attr native)"
else
    echo "test_libm_pin: this CPU has neither FMA nor FMA4: the native run cannot differ, not compared"
fi
finish test_libm_pin
