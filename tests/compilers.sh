#!/usr/bin/env bash
# tests/compilers.sh [DIR] -- the same outputs from GCC's build and clang's.
#
# Same scenario and seed must give bit-identical datasets, and a researcher
# who builds cowsim with another compiler must get the same numbers.  This
# builds cowsim twice, with GCC as the README does (build-gcc-rel) and with
# clang (build-clang; both RelWithDebInfo, warnings as errors), runs every
# shipped scenario under every mechanism with each (bench/outputs_digest.sh,
# about 10 minutes a build on 2 cores) into DIR/gcc and DIR/clang (default
# DIR: a temporary directory, removed after), and fails on any dataset
# whose bytes differ, on any run that failed, or when the two ran different
# counts.  Part of tests/release.sh.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
command -v clang > /dev/null || { echo "compilers: clang not found (.ci/install-deps --ci installs it)"; exit 1; }
if [ $# -ge 1 ]; then
    DIR=$1
    mkdir -p "$DIR" || exit 1
else
    DIR=$(mktemp -d) || exit 1
    trap 'rm -rf "$DIR"' EXIT
fi
J=${JOBS:-$(nproc)}
build() { # build() DIR CC
    CC=$2 cmake -S . -B "$1" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCS_WERROR=ON > /dev/null &&
        cmake --build "$1" -j"$J" --target cowsim > "$1/build.log" 2>&1 ||
        { grep -E 'warning:|error:' "$1/build.log"; echo "compilers: the $2 build failed"; return 1; }
}
build build-gcc-rel gcc || exit 1
build build-clang clang || exit 1
for c in gcc:build-gcc-rel clang:build-clang; do
    rm -rf "${DIR:?}/${c%%:*}"
    bash bench/outputs_digest.sh "${c#*:}/cowsim" "$DIR/${c%%:*}" | tail -1 | sed "s/^/compilers: ${c%%:*}: /"
done
bash tests/cs_digest_cmp.sh compilers "$DIR/gcc/DIGEST" "$DIR/clang/DIGEST" "the same bytes from GCC's build and clang's"
