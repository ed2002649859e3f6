#!/usr/bin/env bash
# Sets up a fresh machine, builds splitprove with AddressSanitizer + UndefinedBehaviorSanitizer and
# runs every test with ctest. GPU tests skip (and say so) where no GPU exists.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/setup.sh
build="${SPLITPROVE_TEST_BUILD:-build-test}"
cmake -S . -B "$build" -G Ninja -DCMAKE_CXX_COMPILER="${CXX:-clang++}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSPLITPROVE_SANITIZE=ON -DSPLITPROVE_BENCH=OFF -DSPLITPROVE_DAEMON=ON
cmake --build "$build"
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
# A short bounded fuzz run of every reader (libFuzzer + ASan/UBSan; clang only).
if command -v clang++ >/dev/null 2>&1 && [[ "${SPLITPROVE_SKIP_FUZZ:-0}" != 1 ]]; then
  bash scripts/fuzz.sh "${SPLITPROVE_FUZZ_SECONDS:-15}"
fi
