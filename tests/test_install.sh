#!/usr/bin/env bash
# test_install.sh -- `cmake --install` into a scratch prefix: bin/cowsim runs
# a scenario from share/cowsim/scenarios, and Debian's python3 imports the
# installed loader (lib/python3/dist-packages/cowsim) and reads that run.
# Usage: bash tests/test_install.sh PATH-TO-COWSIM (the build directory is its directory)
set -u
source "$(dirname "$0")/cs_test_lib.sh"
BUILD=$(cd "$(dirname "$BIN")" && pwd)

cmake --install "$BUILD" --prefix "$T/p" > "$T/install.log" 2>&1
check "[ $? -eq 0 ]" "cmake --install exit 0 ($(tail -3 "$T/install.log"))"
check "[ -x '$T/p/bin/cowsim' ]" "bin/cowsim installed"
check "[ -f '$T/p/lib/python3/dist-packages/cowsim/__init__.py' ]" "python package installed"
check "[ -f '$T/p/share/cowsim/scenarios/schema.json' ] && [ -f '$T/p/share/cowsim/scenarios/sweep.schema.json' ]" \
    "scenarios and both schemas installed"
v=$("$T/p/bin/cowsim" --version 2>&1)
check "[[ '$v' == cowsim* ]]" "installed cowsim --version ($v)"
# Run from an unrelated directory with plain `cowsim` on PATH, as the README does.
(cd "$T" && PATH="$T/p/bin:$PATH" cowsim run "$T/p/share/cowsim/scenarios/minimal.json" -o "$T/run" --quiet > /dev/null 2>&1)
check "[ $? -eq 0 ] && [ -f '$T/run/fifo.h5' ]" "installed cowsim runs minimal.json"
out=$(cd "$T" && PYTHONPATH="$T/p/lib/python3/dist-packages" $PY -c "
import cowsim, os
assert os.path.dirname(cowsim.__file__).startswith('$T/p/'), cowsim.__file__
r = cowsim.load_run('$T/run/fifo.h5')
print(len(r.blocks), r.mechanism, r.params['blocks'])
" 2>&1)
check "[ '$out' = '100 fifo 100' ]" "installed loader reads the run: 100 blocks of fifo (got '$out')"
finish install
