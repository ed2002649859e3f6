#!/usr/bin/env bash
# Builds splitprove with the CUDA backend and the daemon on this (dev) machine and packs it with
# the shared libraries it needs beyond glibc and libstdc++ into .devbundle/ (ignored by git), for
# a GPU machine that has no gRPC, SQLite, ... to build the daemon with:
#   scripts/device-bundle.sh          then carry .devbundle to the GPU machine, where
#   SPLITPROVE_DEVICE_DAEMON=1 bash scripts/device-run.sh   finds it.
# Tuned for any x86-64 with BMI2 and ADX (SPLITPROVE_NATIVE=OFF), sm_90a for the GPU code.
# SPLITPROVE_BUNDLE_CUDA=OFF builds without the CUDA backend (build-devcpu: minutes, not the CUDA
# build's half hour; enough for CPU-backend runs). SPLITPROVE_BUNDLE_PG=1 also packs this machine's
# PostgreSQL server (postgres, initdb, pg_ctl, psql, its share/ and the libraries they need) into
# .devbundle/pg.tar.xz, for bench/cluster_scaling.sh on a machine without PostgreSQL
# (SPLITPROVE_DEVICE_CLUSTER=1 bash scripts/device-run.sh).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
cuda="${SPLITPROVE_BUNDLE_CUDA:-ON}"
build=build-devcuda
[[ "$cuda" == ON ]] || build=build-devcpu
cmake -S . -B "$build" -G Ninja -DCMAKE_CXX_COMPILER="${CXX:-clang++}" -DCMAKE_BUILD_TYPE=Release \
  -DSPLITPROVE_CUDA="$cuda" -DSPLITPROVE_NATIVE=OFF -DSPLITPROVE_BENCH=OFF -DSPLITPROVE_DAEMON=ON >/dev/null
cmake --build "$build" --target splitprove_cli -j "${SPLITPROVE_BUILD_JOBS:-2}"
rm -rf .devbundle && mkdir -p .devbundle/lib
cp "$build/splitprove" .devbundle/
ldd "$build/splitprove" | awk '$3 ~ /^\// {print $3}' |
  grep -v -E '/(libc|libm|libpthread|libdl|librt|libstdc\+\+|libgcc_s)\.so' |
  xargs cp -L -t .devbundle/lib/
if [[ "${SPLITPROVE_BUNDLE_PG:-0}" == 1 ]]; then
  # Debian's layout (bin in /usr/lib/postgresql/V/bin, share in /usr/share/postgresql/V) kept under
  # pg/, so the server finds its share and lib directories relative to its binaries.
  bindir="$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)"
  v="$(basename "$(dirname "$bindir")")"
  pg=$(mktemp -d)
  mkdir -p "$pg/usr/lib/postgresql/$v/bin" "$pg/usr/lib/postgresql/$v/lib" "$pg/usr/share/postgresql" "$pg/lib"
  cp -L "$bindir"/{postgres,initdb,pg_ctl,psql} "$pg/usr/lib/postgresql/$v/bin/"
  cp -L "/usr/lib/postgresql/$v/lib/plpgsql.so" "/usr/lib/postgresql/$v/lib/dict_snowball.so" "$pg/usr/lib/postgresql/$v/lib/"
  cp -rL "/usr/share/postgresql/$v" "$pg/usr/share/postgresql/"
  for b in "$bindir"/{postgres,initdb,pg_ctl,psql}; do ldd "$b"; done | awk '$3 ~ /^\// {print $3}' | sort -u |
    grep -v -E '/(libc|libm|libpthread|libdl|librt|libstdc\+\+|libgcc_s)\.so' | xargs cp -L -t "$pg/lib/"
  echo "usr/lib/postgresql/$v/bin" >"$pg/BINDIR"
  tar -cJf .devbundle/pg.tar.xz -C "$pg" .
  rm -rf "$pg"
fi
echo "$(git rev-parse --short HEAD)$(git diff --quiet HEAD -- src CMakeLists.txt || echo +changes), $(date -u '+%Y-%m-%d %H:%M UTC'), portable (bmi2+adx)$([[ "$cuda" == ON ]] && echo ", sm_90a" || echo ", CPU only")" >.devbundle/BUILD
echo "device-bundle: .devbundle/ $(du -sh .devbundle | cut -f1): $(cat .devbundle/BUILD)"
