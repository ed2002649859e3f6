#!/usr/bin/env bash
# Sets up a fresh machine, builds splitprove (release) and runs the main job.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
bash scripts/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_CXX_COMPILER="${CXX:-clang++}" -DCMAKE_BUILD_TYPE=Release -DSPLITPROVE_DAEMON=ON
cmake --build build --target splitprove_cli  # the tests and benchmarks are built by scripts/test.sh
./build/splitprove selftest
# The main job: jobs of 10 partitions of a PoRep-shaped circuit through the pipeline engine.
./build/splitprove demo --out splitprove-demo
