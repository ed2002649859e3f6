#!/usr/bin/env bash
# Builds splitprove with the CUDA backend and the daemon on this (dev) machine and packs it with
# the shared libraries it needs beyond glibc and libstdc++ into .devbundle/ (ignored by git), for
# a GPU machine that has no gRPC, SQLite, ... to build the daemon with:
#   scripts/device-bundle.sh          then carry .devbundle to the GPU machine, where
#   SPLITPROVE_DEVICE_DAEMON=1 bash scripts/device-run.sh   finds it.
# Tuned for any x86-64 with BMI2 and ADX (SPLITPROVE_NATIVE=OFF), sm_90a for the GPU code.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
build=build-devcuda
cmake -S . -B "$build" -G Ninja -DCMAKE_CXX_COMPILER="${CXX:-clang++}" -DCMAKE_BUILD_TYPE=Release \
  -DSPLITPROVE_CUDA=ON -DSPLITPROVE_NATIVE=OFF -DSPLITPROVE_BENCH=OFF -DSPLITPROVE_DAEMON=ON >/dev/null
cmake --build "$build" --target splitprove_cli -j "${SPLITPROVE_BUILD_JOBS:-2}"
rm -rf .devbundle && mkdir -p .devbundle/lib
cp "$build/splitprove" .devbundle/
ldd "$build/splitprove" | awk '$3 ~ /^\// {print $3}' |
  grep -v -E '/(libc|libm|libpthread|libdl|librt|libstdc\+\+|libgcc_s)\.so' |
  xargs cp -L -t .devbundle/lib/
echo "$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src CMakeLists.txt || echo +changes), $(date -u '+%Y-%m-%d %H:%M UTC'), portable (bmi2+adx), sm_90a" >.devbundle/BUILD
echo "device-bundle: .devbundle/ $(du -sh .devbundle | cut -f1): $(cat .devbundle/BUILD)"
