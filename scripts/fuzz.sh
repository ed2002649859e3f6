#!/usr/bin/env bash
# Bounded fuzzing of every reader: builds fuzz/ (clang, libFuzzer + ASan/UBSan) stand-alone and runs
# each target for SECONDS (default 20) on a fresh corpus seeded with tests/fixtures. Exits non-zero
# on the first crash, sanitizer report, leak, timeout or out-of-memory, and keeps the input that
# triggered it under $build/artifacts/.
#
#   scripts/fuzz.sh [SECONDS]          # CI: scripts/fuzz.sh 20  (~4 min build + 4 × 20 s on 2 cores)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
secs="${1:-20}"
build="${SPLITPROVE_FUZZ_BUILD:-build-fuzz}"
cmake -S fuzz -B "$build" -G Ninja -DCMAKE_CXX_COMPILER="${CXX:-clang++}" >/dev/null
cmake --build "$build"
mkdir -p "$build/artifacts"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fx=tests/fixtures
for t in r1cs wtns zkey json; do
  mkdir -p "$work/$t"
  # Both curves' fixtures (tests/fixtures/bn128/x -> bn128_x in the corpus).
  seed() { for f in "$@"; do cp "$f" "$work/$t/$(echo "${f#"$fx"/}" | tr / _)"; done; }
  case "$t" in
    json) seed "$fx"/*.json "$fx"/bn128/*.json ;;
    # chain's keys are slow to mutate
    zkey) seed "$fx"/multiplier*.zkey "$fx"/mixed*.zkey "$fx"/bn128/multiplier*.zkey "$fx"/bn128/mixed*.zkey ;;
    *) seed "$fx"/*."$t" "$fx"/bn128/*."$t" ;;
  esac
  # One thread: libFuzzer measures one input at a time, and the pool would only add noise.
  if ! SPLITPROVE_THREADS=1 "$build/fuzz_$t" -max_total_time="$secs" -rss_limit_mb=2048 -timeout=30 \
      -artifact_prefix="$root/$build/artifacts/" "$work/$t" >"$work/$t.log" 2>&1; then
    tail -60 "$work/$t.log"
    echo "fuzz_$t FAILED; inputs kept in $build/artifacts/"
    exit 1
  fi
  echo "fuzz_$t: $(grep -o 'Done [0-9]* runs in [0-9]* second(s)' "$work/$t.log")"
done
