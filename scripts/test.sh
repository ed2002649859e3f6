#!/usr/bin/env bash
# Sets up a fresh machine, builds splitprove with AddressSanitizer + UndefinedBehaviorSanitizer and
# runs every test with ctest. GPU tests skip (and say so) where no GPU exists.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/setup.sh
build="${SPLITPROVE_TEST_BUILD:-build-test}"
# Without a GPU the CUDA device code is only checked to compile: PTX alone, no ptxas (most of the
# CUDA build's time); the GPU tests are built all the same and skip, saying why.
ptx_only=ON
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L >/dev/null 2>&1; then ptx_only=OFF; fi
# Line tables are all the sanitizers' reports need (full debug info doubles the compile and link
# time of ~100 test binaries); lld links them faster than ld.bfd.
linker=()
if [[ "${CXX:-clang++}" == *clang* ]] && command -v ld.lld >/dev/null 2>&1; then
  linker=(-DCMAKE_EXE_LINKER_FLAGS=-fuse-ld=lld -DCMAKE_SHARED_LINKER_FLAGS=-fuse-ld=lld)
fi
cmake -S . -B "$build" -G Ninja -DCMAKE_CXX_COMPILER="${CXX:-clang++}" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" "${linker[@]}" \
  -DSPLITPROVE_SANITIZE=ON -DSPLITPROVE_BENCH=OFF -DSPLITPROVE_DAEMON=ON -DSPLITPROVE_CUDA_PTX_ONLY="$ptx_only"
cmake --build "$build"
ctest --test-dir "$build" --output-on-failure -j "$(nproc)"
# A short bounded fuzz run of every reader (libFuzzer + ASan/UBSan; clang only).
if command -v clang++ >/dev/null 2>&1 && [[ "${SPLITPROVE_SKIP_FUZZ:-0}" != 1 ]]; then
  bash scripts/fuzz.sh "${SPLITPROVE_FUZZ_SECONDS:-15}"
fi
