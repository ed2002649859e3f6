#!/usr/bin/env bash
# Bounded fuzzing of every reader: builds fuzz/ (clang, libFuzzer + ASan/UBSan) stand-alone and runs
# each target for SECONDS (default 20) on a corpus seeded with tests/fixtures and kept in
# $build/corpus/ (so later runs start from what earlier ones found). Exits non-zero on the first
# crash, sanitizer report, leak, timeout or out-of-memory, and keeps the input that triggered it
# under $build/artifacts/. Each run's executions are added to $build/fuzz-totals.tsv (date,
# parser, runs, seconds) and the totals so far are printed: bench/RESULTS.md records them.
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
totals="$build/fuzz-totals.tsv"
fx=tests/fixtures
for t in r1cs wtns zkey json; do
  corpus="$build/corpus/$t"
  mkdir -p "$corpus"
  # Both curves' fixtures (tests/fixtures/bn128/x -> bn128_x in the corpus).
  seed() { for f in "$@"; do cp "$f" "$corpus/$(echo "${f#"$fx"/}" | tr / _)"; done; }
  case "$t" in
    json) seed "$fx"/*.json "$fx"/bn128/*.json ;;
    # chain's keys are slow to mutate
    zkey) seed "$fx"/multiplier*.zkey "$fx"/mixed*.zkey "$fx"/bn128/multiplier*.zkey "$fx"/bn128/mixed*.zkey ;;
    *) seed "$fx"/*."$t" "$fx"/bn128/*."$t" ;;
  esac
  # One thread: libFuzzer measures one input at a time, and the pool would only add noise.
  if ! SPLITPROVE_THREADS=1 "$build/fuzz_$t" -max_total_time="$secs" -rss_limit_mb=2048 -timeout=30 \
      -artifact_prefix="$root/$build/artifacts/" "$corpus" >"$work/$t.log" 2>&1; then
    tail -60 "$work/$t.log"
    echo "fuzz_$t FAILED; inputs kept in $build/artifacts/"
    exit 1
  fi
  runs=""; took=""; read -r runs took < <(sed -nE 's/.*Done ([0-9]+) runs in ([0-9]+) second.*/\1 \2/p' "$work/$t.log") || true
  printf '%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$t" "${runs:-0}" "${took:-0}" >>"$totals"
  echo "fuzz_$t: ${runs:-0} runs in ${took:-0} s; $(awk -F'\t' -v t="$t" '$2 == t { r += $3; s += $4; n++ }
    END { printf "%d runs in %d s over %d runs of this script (%s)", r, s, n, FILENAME }' "$totals"), corpus $(ls "$corpus" | wc -l) inputs"
done
