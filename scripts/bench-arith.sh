#!/usr/bin/env bash
# Arithmetic benchmarks: builds Release with clang++, runs bench/bench_arith (Google Benchmark,
# single-threaded latency chains) and the @noble/curves peer (bench/peer_noble.mjs) on the same
# pinned core, and prints the table of bench/RESULTS.md ("Field and curve arithmetic") on stdout (progress on stderr).
#
#   scripts/bench-arith.sh [--save FILE.json] [--quick]
#
#   --save FILE.json  also write the raw figures (medians, spread, machine) to FILE.json
#   --quick           2 repetitions of 0.05 s per operation: checks that everything runs, figures
#                     are not worth recording
# Environment: CXX (default clang++), SPLITPROVE_BENCH_BUILD (build folder, default build-bench),
# SPLITPROVE_BUILD_JOBS (default 2: the build machines are shared).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

save=""
reps=5
min_time=0.5
while (($#)); do
  case "$1" in
    --save) save="${2:?--save needs a file name}"; shift 2 ;;
    --quick) reps=2; min_time=0.05; shift ;;
    *) echo "bench-arith: unknown argument '$1' (see the header of $0)" >&2; exit 2 ;;
  esac
done

build="${SPLITPROVE_BENCH_BUILD:-build-bench}"
cxx="${CXX:-clang++}"
cmake -S . -B "$build" -G Ninja -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Release \
  -DSPLITPROVE_SANITIZE=OFF -DSPLITPROVE_BENCH=ON >&2
cmake --build "$build" --target bench_arith -j "${SPLITPROVE_BUILD_JOBS:-2}" >&2

if [[ ! -d node_modules/@noble/curves ]]; then
  echo "bench-arith: installing npm packages (npm ci)" >&2
  npm ci --no-audit --no-fund --loglevel=error >&2
fi

# Both programs run on the same single core (the last one: the first tends to take interrupts).
pin=()
pin_desc="no (taskset not found)"
if command -v taskset >/dev/null 2>&1; then
  core=$(($(nproc) - 1))
  pin=(taskset -c "$core")
  pin_desc="taskset -c $core"
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

echo "bench-arith: bench_arith, $reps repetitions (${pin_desc})" >&2
"${pin[@]}" "$build/bench_arith" --benchmark_repetitions="$reps" \
  --benchmark_report_aggregates_only=true --benchmark_min_time="$min_time" \
  --benchmark_out="$tmp/splitprove.json" --benchmark_out_format=json >&2

echo "bench-arith: @noble/curves peer, $reps repetitions" >&2
"${pin[@]}" node bench/peer_noble.mjs --repetitions "$reps" --min-time "$min_time" >"$tmp/noble.json"

cpu="$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //' || true)"
save_args=()
if [[ -n "$save" ]]; then
  mkdir -p "$(dirname "$save")"
  save_args=(--save "$save")
fi
node bench/arith_table.mjs "$tmp/splitprove.json" "$tmp/noble.json" "${save_args[@]}" \
  --meta "cpu=${cpu:-unknown}" --meta "nproc=$(nproc)" \
  --meta "compiler=$("$cxx" --version | head -n1)" --meta "pin=$pin_desc" \
  --meta "command=scripts/bench-arith.sh${save:+ --save $save}" \
  --meta "bench_args=--benchmark_repetitions=$reps --benchmark_report_aggregates_only=true --benchmark_min_time=$min_time" \
  --meta "git=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)$(git diff --quiet 2>/dev/null || echo '-dirty')"
