#!/usr/bin/env bash
# Sets up a fresh machine, builds splitprove with AddressSanitizer + UndefinedBehaviorSanitizer and
# runs every test with ctest. GPU tests skip (and say so) where no GPU exists.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/setup.sh
build="${SPLITPROVE_TEST_BUILD:-build-test}"
cmake -S . -B "$build" -G Ninja -DCMAKE_CXX_COMPILER="${CXX:-clang++}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSPLITPROVE_SANITIZE=ON -DSPLITPROVE_BENCH=OFF
cmake --build "$build"
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
