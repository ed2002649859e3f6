#!/usr/bin/env bash
# Builds, tests and benchmarks the CUDA backend on a GPU machine, in one go.
#
#   scripts/device-run.sh [OUTDIR]      (OUTDIR defaults to $OUT, else ./device-out)
#
# Made for the lent H200 machine (no network; a copy of the tree, this script's repository root as
# the working directory). What that machine has, as probed on 2026-12-02: Ubuntu 24.04, CUDA 13.0
# (nvcc, driver 580), CMake 4.4 and Ninja from the Python venv, g++ 13 (no clang++), and the
# Debian/Ubuntu dev packages of GoogleTest, Google Benchmark, fmt, nlohmann_json and CLI11 - so the
# root CMakeLists configures there as it is and the script builds from source (prebuilt binaries
# from another image are not needed, and -march=native tunes for the machine that runs them).
#
# Steps: inventory -> CMake configure (Release, SPLITPROVE_CUDA=ON, Google Benchmark suites off,
# SPLITPROVE_CUDA_BENCH on) -> build the CUDA targets only (the backend, every
# tests/cuda/test_cuda_*.cpp, the prover benchmark; the CPU targets are CI's business) -> run every
# GPU test binary -> run splitprove_cuda_bench_prover (and splitprove_cuda_bench when asked).
# Knobs (environment): SPLITPROVE_PROVER_MAX_LOG2 (26), SPLITPROVE_PROVER_REPS (5),
# SPLITPROVE_PROVER_PARTS (ntt,h,g1,g2,part), SPLITPROVE_TEST_TIMEOUT (300 s per test binary),
# SPLITPROVE_DEVICE_MICRO=1 (also the field/curve microbenchmark), SPLITPROVE_DEVICE_PIPELINE=1
# (also build the CLI and run `splitprove bench pipeline` on the GPU for each entry of
# SPLITPROVE_PIPELINE_RUNS, "k:jobs:g2on[:curve]" separated by spaces (curve bls12-381, the
# default, or bn254), then `splitprove demo --check` for each curve of SPLITPROVE_DEMO_CURVES),
# SPLITPROVE_PIPELINE_ARGS (extra arguments of every pipeline run). Without the pipeline part a run
# takes ~80 s on the H200 (60 s of it the build).
# Writes six files into OUTDIR:
#   env.txt      date, GPU, driver, toolchain, a hash of the CUDA sources
#   build.log    configure and build output
#   tests.log    the output of every GPU test binary
#   bench_prover.txt  the prover benchmark's output (NTT, H, MSMs, one partition)
#   bench.txt    the field/curve microbenchmark's output (SPLITPROVE_DEVICE_MICRO=1)
#   pipeline.tar.gz  per run pipeline/<curve>-<k>-j<jobs>-g2<on>/: report.txt and the run's files
#                (memory.svg, waterfall.svg, timeline, summary.json); pipeline/demo-<curve>/ the
#                same for `splitprove demo` (one archive: what comes back from the machine is a
#                few files)
#   summary.txt  one screen: what ran, passed, failed, skipped, and the figures (also printed last)
# SPLITPROVE_DEVICE_H2D=1 also compiles and runs bench/cuda/cuda_h2d.cu (the host-to-device copy paths
# of one partition's inputs, quiet and under load) into h2d.txt.
# Sweep mode: SPLITPROVE_DEVICE_SWEEP=1 builds only the CLI (no GPU tests, no prover benchmark) and
# runs one `splitprove bench pipeline ... --sweep-pw LIST --sweep-jobs LIST` with the arguments in
# SPLITPROVE_SWEEP_ARGS (one circuit and key for the whole sweep; one table row per run), within
# SPLITPROVE_SWEEP_TIMEOUT seconds (400; less where SPLITPROVE_DEVICE_DEADLINE, seconds from the
# script's start, comes first); it writes sweep.txt (the table and the checks), reports.txt (every
# finished run's report) and sweep.tar.gz (every run's files) into OUTDIR beside env.txt,
# build.log and summary.txt.
# Multi-GPU mode: SPLITPROVE_DEVICE_MULTI=1 builds only the CLI and, at each size of
# SPLITPROVE_MULTI_SIZES ("22 24"), runs `splitprove bench pipeline --size 2^K
# $SPLITPROVE_MULTI_ARGS` on GPU 0 alone, on every GPU, and on GPU 0 split into two logical devices
# (each within SPLITPROVE_MULTI_TIMEOUT, 200 s); multi.txt has one row per run (partitions/s, the
# ratio to one GPU, peak RSS against the budget, the verdict) and multi.tar.gz every run's files
# (issue 25's acceptance: >= 1.9x on 2 GPUs, >= 3.7x on 4, peak RSS <= the budget).
# Daemon mode: SPLITPROVE_DEVICE_DAEMON=1 runs only bench/daemon-load.sh (the daemon with the CUDA
# backend under load, then the same circuit in process) with the arguments in
# SPLITPROVE_DAEMON_LOAD_ARGS ("K clients seconds budget partitions-per-job", default
# "20 64 60 16GiB 4") and PW synthesis workers (4). A machine without the daemon's libraries
# (gRPC, SQLite, ...) cannot build it: the binary then comes from .devbundle/ (splitprove and
# lib/, made on the dev machine by scripts/device-bundle.sh and carried), else it is built here.
# Writes daemon.txt (the summary) and daemon-load.tar.gz (load.json, rss.tsv, the reports, logs).
# Exit status: 0 only when the build succeeded, every test passed, no GPU test skipped, and the
# benchmark ran; 3 when there is no GPU (the tests then skip and say why).
set -uo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
out="${1:-${OUT:-$root/device-out}}"
mkdir -p "$out"
build="${SPLITPROVE_DEVICE_BUILD:-build-device}"
jobs="$(nproc)"
bench_log2_n="${SPLITPROVE_BENCH_LOG2_N:-24}"
bench_reps="${SPLITPROVE_BENCH_REPS:-20}"
# The prover benchmark: sizes 2^20..2^max (NTT, H, G1 MSM), repetitions, and which parts.
prover_max="${SPLITPROVE_PROVER_MAX_LOG2:-26}"
prover_reps="${SPLITPROVE_PROVER_REPS:-5}"
prover_parts="${SPLITPROVE_PROVER_PARTS:-ntt,h,g1,g2,part}"
# The field/curve microbenchmark costs ~45 s of ptxas for its inlined kernel: only on request.
micro="${SPLITPROVE_DEVICE_MICRO:-0}"
pipeline="${SPLITPROVE_DEVICE_PIPELINE:-0}"
pipeline_runs="${SPLITPROVE_PIPELINE_RUNS:-20:1:gpu 20:1:cpu 20:2:gpu 20:2:cpu 22:1:gpu 22:2:gpu 22:2:cpu}"
pipeline_args="${SPLITPROVE_PIPELINE_ARGS:---synth-workers 4 --budget 48GiB}"
demo_curves="${SPLITPROVE_DEMO_CURVES:-bls12-381 bn254}"
sweep="${SPLITPROVE_DEVICE_SWEEP:-0}"
multi="${SPLITPROVE_DEVICE_MULTI:-0}"
multi_sizes="${SPLITPROVE_MULTI_SIZES:-22 24}"
multi_args="${SPLITPROVE_MULTI_ARGS:---partitions 10 --jobs 2 --synth-workers 4 --warmup 2 --budget 96GiB}"
sweep_args="${SPLITPROVE_SWEEP_ARGS:---size 2^21 --partitions 3 --sweep-pw 1,2,4,8,16 --sweep-jobs 1,4,8 --budget 3GiB}"
summary="$out/summary.txt"
status=0
t_start=$(date +%s)

say() { echo "$*" | tee -a "$summary"; }
: >"$summary"

# ---- 1. inventory ---------------------------------------------------------------------------------
{
  echo "date:      $(date -u '+%Y-%m-%d %H:%M:%S UTC')"
  echo "host:      $(uname -srm), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
  if command -v nvidia-smi >/dev/null; then
    echo "gpu:       $(nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader 2>&1 | head -1)"
  else
    echo "gpu:       none (no nvidia-smi)"
  fi
  echo "nvcc:      $(nvcc --version 2>&1 | grep -o 'release [0-9.]*, V[0-9.]*')"
  echo "cmake:     $(cmake --version 2>&1 | head -1)"
  echo "ninja:     $(ninja --version 2>&1 || echo none)"
  echo "c++:       $( (command -v clang++ || command -v g++ || echo none) | head -1) $( (clang++ --version 2>/dev/null || g++ --version 2>/dev/null) | head -1)"
  # The copy on the GPU machine may carry a stale .git: identify the code by its content.
  echo "src hash:  $(find src/cuda tests/cuda bench/cuda src/ff src/ec -type f | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -c1-16) (sha256 of src/cuda tests/cuda bench/cuda src/ff src/ec)"
  echo "all hash:  $(find src tests/cuda bench/cuda scripts -type f | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -c1-16) (sha256 of src tests/cuda bench/cuda scripts)"
  echo
  command -v nvidia-smi >/dev/null && nvidia-smi 2>&1 | head -20
} >"$out/env.txt" 2>&1
gpu_line="$(sed -n 's/^gpu: *//p' "$out/env.txt")"
say "splitprove device run - $(sed -n 's/^date: *//p' "$out/env.txt")"
say "gpu:   $gpu_line"
say "code:  $(sed -n 's/^src hash: *//p' "$out/env.txt")"

# ---- cluster mode: daemons on one PostgreSQL store (bench/cluster_scaling.sh) ---------------------
# SPLITPROVE_DEVICE_CLUSTER=1: the carried .devbundle/ (splitprove, lib/, pg.tar.xz from
# SPLITPROVE_BUNDLE_PG=1 scripts/device-bundle.sh) runs bench/cluster_scaling.sh with the arguments
# SPLITPROVE_CLUSTER_COUNTS (daemon counts, "1 2 4") and SPLITPROVE_CLUSTER_ARGS ("jobs partitions
# log2 pw", "48 4 14 4": each daemon a 4-core host); writes cluster.md, cluster.json and the
# statement counts.
if [ "${SPLITPROVE_DEVICE_CLUSTER:-0}" = 1 ]; then
  [ -x .devbundle/splitprove ] && [ -f .devbundle/pg.tar.xz ] || { say "cluster: no .devbundle with pg.tar.xz"; exit 1; }
  export LD_LIBRARY_PATH="$root/.devbundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  pgb=/tmp/splitprove-pg && rm -rf "$pgb" && mkdir -p "$pgb" && tar -xJf .devbundle/pg.tar.xz -C "$pgb" && chmod -R a+rX "$pgb"
  export SPLITPROVE_PG_BINDIR="$pgb/$(cat "$pgb/BINDIR")" PATH="$pgb/$(cat "$pgb/BINDIR"):$PATH"
  export LD_LIBRARY_PATH="$pgb/lib:$LD_LIBRARY_PATH"
  say "cluster: the carried build .devbundle/ ($(cat .devbundle/BUILD 2>/dev/null)), $("$SPLITPROVE_PG_BINDIR/postgres" --version)"
  t0=$(date +%s)
  # shellcheck disable=SC2086
  set -- ${SPLITPROVE_CLUSTER_ARGS:-48 4 14 4}
  timeout "${SPLITPROVE_CLUSTER_TIMEOUT:-500}" bash bench/cluster_scaling.sh "$root/.devbundle/splitprove" "$out/cluster" \
    "${SPLITPROVE_CLUSTER_COUNTS:-1 2 4}" "$@" \
    >"$out/cluster.txt" 2>&1
  rc=$?
  say "cluster: bench/cluster_scaling.sh (${SPLITPROVE_CLUSTER_COUNTS:-1 2 4} $*): rc $rc, $(($(date +%s) - t0)) s"
  tail -12 "$out/cluster.txt" | tee -a "$summary"
  cp "$out/cluster/cluster.md" "$out/cluster/cluster.json" "$out/" 2>/dev/null
  tar -czf "$out/cluster-statements.tar.gz" -C "$out/cluster" . 2>/dev/null && rm -rf "$out/cluster"
  say "total: $(($(date +%s) - t_start)) s, exit status $rc"
  exit $rc
fi

# ---- daemon mode: the daemon under load (bench/daemon-load.sh) -----------------------------------
if [ "${SPLITPROVE_DEVICE_DAEMON:-0}" = 1 ]; then
  bin=""
  if [ -x .devbundle/splitprove ]; then
    bin="$root/.devbundle/splitprove"
    export LD_LIBRARY_PATH="$root/.devbundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    say "daemon: the carried build .devbundle/ ($(cat .devbundle/BUILD 2>/dev/null || echo unknown build))"
  else
    t0=$(date +%s)
    g=(); command -v ninja >/dev/null && g=(-G Ninja)
    cmake -S . -B "$build" "${g[@]}" -DCMAKE_BUILD_TYPE=Release -DSPLITPROVE_CUDA=ON -DSPLITPROVE_DAEMON=ON \
      -DSPLITPROVE_BENCH=OFF >"$out/build.log" 2>&1 && cmake --build "$build" -j "$jobs" --target splitprove_cli >>"$out/build.log" 2>&1 \
      && bin="$root/$build/splitprove"
    say "daemon: built here in $(($(date +%s) - t0)) s: ${bin:-FAILED (build.log)}"
  fi
  [ -n "$bin" ] || exit 1
  # shellcheck disable=SC2086
  set -- ${SPLITPROVE_DAEMON_LOAD_ARGS:-20 64 60 16GiB 4}
  t0=$(date +%s)
  PW="${PW:-4}" DAEMON_LOAD_OUT="$out/daemon-load" timeout "${SPLITPROVE_DAEMON_TIMEOUT:-500}" \
    bash bench/daemon-load.sh "$bin" "$@" >"$out/daemon.txt" 2>&1
  rc=$?
  say "daemon: bench/daemon-load.sh $bin $* (PW=${PW:-4}): rc $rc, $(($(date +%s) - t0)) s"
  tail -8 "$out/daemon.txt" | tee -a "$summary"
  grep -E '^(backend|cold start|throughput|stages|gpu phases):' "$out/daemon-load/inproc.txt" 2>/dev/null | sed 's/^/  in process /' | tee -a "$summary"
  grep -E 'event=serving' "$out/daemon-load/daemon.log" 2>/dev/null | head -1 | tee -a "$summary"
  sed 's/^/  /' "$out/daemon-load/gpus.txt" 2>/dev/null | tee -a "$summary"
  rm -rf "$out/daemon-load/state" "$out/daemon-load/keys" "$out/daemon-load/inproc/timeline.jsonl"
  tar -czf "$out/daemon-load.tar.gz" -C "$out" daemon-load && rm -rf "$out/daemon-load"
  say "total: $(($(date +%s) - t_start)) s, exit status $rc"
  exit $rc
fi

# ---- 2. build -------------------------------------------------------------------------------------
cxx="${CXX:-$(command -v clang++ || command -v g++ || true)}"
gen=()
command -v ninja >/dev/null && gen=(-G Ninja)
test_srcs=(tests/cuda/test_cuda_*.cpp)
targets=(splitprove_cuda splitprove_cuda_bench_prover)
[ "$micro" = 1 ] && targets+=(splitprove_cuda_bench)
[ "$pipeline" = 1 ] && targets+=(splitprove_cli)
for s in "${test_srcs[@]}"; do targets+=("$(basename "$s" .cpp)"); done
[ "$sweep" = 1 ] || [ "$multi" = 1 ] && targets=(splitprove_cli)
t0=$(date +%s)
{
  echo "+ cmake -S . -B $build ${gen[*]} -DCMAKE_CXX_COMPILER=$cxx -DCMAKE_BUILD_TYPE=Release -DSPLITPROVE_CUDA=ON -DSPLITPROVE_BENCH=OFF -DSPLITPROVE_CUDA_BENCH=ON"
  cmake -S . -B "$build" "${gen[@]}" -DCMAKE_CXX_COMPILER="$cxx" -DCMAKE_BUILD_TYPE=Release \
    -DSPLITPROVE_CUDA=ON -DSPLITPROVE_BENCH=OFF -DSPLITPROVE_CUDA_BENCH=ON &&
    echo "+ cmake --build $build -j $jobs --target ${targets[*]}" &&
    cmake --build "$build" -j "$jobs" --target "${targets[@]}"
} >"$out/build.log" 2>&1
build_rc=$?
say "build: $([ $build_rc -eq 0 ] && echo ok || echo "FAILED (rc $build_rc, see build.log)") in $(($(date +%s) - t0)) s, ${#targets[@]} targets, $(basename "$cxx") + nvcc, Release"
if [ $build_rc -ne 0 ]; then
  tail -30 "$out/build.log"
  echo "== summary"; cat "$summary"
  exit 1
fi

# ---- host-to-device copy paths (SPLITPROVE_DEVICE_H2D=1): bench/cuda/cuda_h2d.cu -> h2d.txt ---------
if [ "${SPLITPROVE_DEVICE_H2D:-0}" = 1 ]; then
  if nvcc -O2 -std=c++17 -arch=sm_90a bench/cuda/cuda_h2d.cu -o "$build/cuda_h2d" >"$out/h2d.txt" 2>&1 &&
    timeout 300 "$build/cuda_h2d" "$((jobs > 2 ? jobs - 2 : 1))" >>"$out/h2d.txt" 2>&1; then
    say "h2d:   bench/cuda/cuda_h2d.cu ran (h2d.txt)"
    cat "$out/h2d.txt" >>"$summary"
  else
    say "h2d:   bench/cuda/cuda_h2d.cu FAILED (h2d.txt)"
    status=1
  fi
fi

# ---- sweep mode: the pipeline sweep only ----------------------------------------------------------
if [ "$sweep" = 1 ]; then
  d="$out/sweep"
  mkdir -p "$d"
  t0=$(date +%s)
  limit="${SPLITPROVE_SWEEP_TIMEOUT:-400}"
  # A deadline for the whole script (the machine's per-command limit): the sweep stops in time to
  # pack what it has, however long the build took.
  if [ -n "${SPLITPROVE_DEVICE_DEADLINE:-}" ]; then
    left=$((SPLITPROVE_DEVICE_DEADLINE - (t0 - t_start) - 20))
    [ "$left" -lt "$limit" ] && limit=$left
  fi
  # shellcheck disable=SC2086
  timeout "$limit" "$build/splitprove" bench pipeline $sweep_args \
    --out "$d" >"$out/sweep.txt" 2>"$d/stderr.txt"
  rc=$?
  say "sweep: splitprove bench pipeline $sweep_args: rc $rc, $(($(date +%s) - t0)) s (limit $limit s)"
  cat "$out/sweep.txt" | tee -a "$summary"
  [ $rc -eq 0 ] || { tail -5 "$d/stderr.txt" | tee -a "$summary"; status=1; }
  # Every finished run's report in one file (comes back even where the archive is too big).
  for r in "$d"/*/report.txt; do
    [ -f "$r" ] && { echo "==== $(basename "$(dirname "$r")")"; cat "$r"; }
  done >"$out/reports.txt"
  tar -czf "$out/sweep.tar.gz" -C "$out" sweep && rm -rf "$d"
  say "total: $(($(date +%s) - t_start)) s, exit status $status"
  exit $status
fi

# ---- multi-GPU mode: one GPU, every GPU, one GPU as two logical devices ----------------------------
if [ "$multi" = 1 ]; then
  d="$out/multi"
  mkdir -p "$d"
  ngpu=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU')
  say "multi: $ngpu GPUs; bench pipeline $multi_args at 2^{$multi_sizes}"
  printf '%-6s %-22s %12s %8s %12s %s\n' size devices "partitions/s" ratio "peak RSS" verdict | tee -a "$out/multi.txt"
  for k in $multi_sizes; do
    one=""
    for run in "one:--devices 0" "all:--devices all" "half:--devices 0 --logical-devices 2"; do
      name=${run%%:*} extra=${run#*:}
      r="$d/2^$k-$name"
      # shellcheck disable=SC2086
      timeout "${SPLITPROVE_MULTI_TIMEOUT:-200}" "$build/splitprove" bench pipeline --size "2^$k" $multi_args $extra \
        --out "$r" >"$r.txt" 2>&1
      rc=$?
      pps=$(sed -n 's/^throughput: .*, \([0-9.]*\) partitions\/s$/\1/p' "$r.txt")
      peak=$(sed -n 's/^memory: *peak RSS \([^(]*\) (.*/\1/p' "$r.txt" | xargs)
      verdict=$(sed -n 's/^verdict: *\([a-z-]*\).*/\1/p' "$r.txt")
      [ "$name" = one ] && one="$pps"
      ratio=$(awk -v a="$pps" -v b="$one" 'BEGIN { if (a > 0 && b > 0) printf "%.2f", a / b; else print "-" }')
      printf '%-6s %-22s %12s %8s %12s %s\n' "2^$k" "$extra" "${pps:-rc $rc}" "$ratio" "${peak:--}" "${verdict:--}" \
        | tee -a "$out/multi.txt"
      grep -E '^(backend|devices):' "$r.txt" | sed 's/^/         /' >>"$out/multi.txt"
      [ $rc -eq 0 ] || { tail -3 "$r.txt" | tee -a "$summary"; status=1; }
    done
  done
  cat "$out/multi.txt" >>"$summary"
  tar -czf "$out/multi.tar.gz" -C "$out" multi && rm -rf "$d"
  say "total: $(($(date +%s) - t_start)) s, exit status $status"
  exit $status
fi

# ---- 3. GPU tests ---------------------------------------------------------------------------------
: >"$out/tests.log"
no_gpu=0
for s in "${test_srcs[@]}"; do
  t="$(basename "$s" .cpp)"
  bin="$build/tests/cuda/$t"
  echo "===== $t" >>"$out/tests.log"
  t0=$(date +%s)
  timeout "${SPLITPROVE_TEST_TIMEOUT:-300}" "$bin" --gtest_color=no >"$out/tests.$t.tmp" 2>&1
  rc=$?
  cat "$out/tests.$t.tmp" >>"$out/tests.log"
  passed=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$out/tests.$t.tmp" | tail -1)
  failed=$(grep -cE '^\[  FAILED  \] .* \([0-9]+ ms\)$' "$out/tests.$t.tmp")
  # Tests that skip because a GPU *is* present (the no-device error tests) are expected here.
  skipped=$(grep -E '^\[  SKIPPED \] .* \([0-9]+ ms\)$' "$out/tests.$t.tmp" | grep -vc 'NoDevice')
  grep -q 'no CUDA device' "$out/tests.$t.tmp" && no_gpu=1
  say "test:  $t: rc $rc, ${passed:-0} passed, $failed failed, $skipped skipped (GPU tests), $(($(date +%s) - t0)) s"
  grep -E '^\[  FAILED  \] .* \([0-9]+ ms\)$' "$out/tests.$t.tmp" | sed 's/^/         /' | tee -a "$summary"
  rm -f "$out/tests.$t.tmp"
  if [ $rc -ne 0 ] || [ "$failed" -ne 0 ] || [ "$skipped" -ne 0 ]; then status=1; fi
done
if [ $no_gpu -eq 1 ]; then
  say "note:  no CUDA device here: $(grep -m1 -o 'no CUDA device: .*' "$out/tests.log")"
  status=3
fi

# ---- 4. benchmarks --------------------------------------------------------------------------------
if [ $no_gpu -eq 0 ]; then
  timeout 400 "$build/bench/cuda/splitprove_cuda_bench_prover" "$prover_max" "$prover_reps" \
    "$prover_parts" >"$out/bench_prover.txt" 2>&1
  rc=$?
  say "bench: splitprove_cuda_bench_prover $prover_max $prover_reps $prover_parts: rc $rc"
  grep -v '^RESULT' "$out/bench_prover.txt" | sed 's/^/  /' | tee -a "$summary"
  [ $rc -eq 0 ] || status=1
else
  echo "skipped: no CUDA device" >"$out/bench_prover.txt"
fi
if [ $no_gpu -eq 0 ] && [ "$micro" = 1 ]; then
  timeout 300 "$build/bench/cuda/splitprove_cuda_bench" "$bench_log2_n" "$bench_reps" >"$out/bench.txt" 2>&1
  rc=$?
  say "bench: splitprove_cuda_bench $bench_log2_n $bench_reps: rc $rc"
  grep -v '^RESULT' "$out/bench.txt" | sed 's/^/  /' | tee -a "$summary"
  [ $rc -eq 0 ] || status=1
else
  echo "skipped: no CUDA device or not asked for (SPLITPROVE_DEVICE_MICRO=1)" >"$out/bench.txt"
fi

# ---- 5. the pipeline on the GPU ------------------------------------------------------------------
if [ $no_gpu -eq 0 ] && [ "$pipeline" = 1 ]; then
  mkdir -p "$out/pipeline"
  for r in $pipeline_runs; do
    IFS=: read -r k j g2 curve <<<"$r"
    curve="${curve:-bls12-381}"
    d="$out/pipeline/$curve-$k-j$j-g2$g2"
    mkdir -p "$d"
    t0=$(date +%s)
    # shellcheck disable=SC2086
    timeout "${SPLITPROVE_PIPELINE_TIMEOUT:-150}" "$build/splitprove" bench pipeline --size "2^$k" \
      --curve "$curve" --partitions 10 --jobs "$j" --g2-on "$g2" $pipeline_args --out "$d" \
      >"$d/report.txt" 2>&1
    rc=$?
    say "pipe:  $curve 2^$k jobs $j G2 on $g2: rc $rc, $(($(date +%s) - t0)) s"
    grep -E '^(backend|throughput|stages|memory):' "$d/report.txt" | sed 's/^/         /' | tee -a "$summary"
    [ $rc -eq 0 ] || { tail -5 "$d/report.txt" | sed 's/^/         /' | tee -a "$summary"; status=1; }
  done
  for curve in $demo_curves; do
    d="$out/pipeline/demo-$curve"
    mkdir -p "$d"
    t0=$(date +%s)
    timeout 120 "$build/splitprove" demo --check --curve "$curve" --out "$d" >"$d/report.txt" 2>&1
    rc=$?
    say "demo:  splitprove demo --curve $curve: rc $rc, $(($(date +%s) - t0)) s"
    grep -E '^(backend|throughput|stages|memory|verdict):' "$d/report.txt" | sed 's/^/         /' | tee -a "$summary"
    [ $rc -eq 0 ] || status=1
  done
  tar -czf "$out/pipeline.tar.gz" -C "$out" pipeline && rm -rf "$out/pipeline"
fi

say "total: $(($(date +%s) - t_start)) s, exit status $status"
exit $status
