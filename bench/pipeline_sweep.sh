#!/usr/bin/env bash
# A pipeline sweep on this machine (bench/RESULTS.md, "Pipeline engine on the CPU backend"):
# `splitprove bench pipeline` over synthesis workers x jobs in flight at one size under one budget,
# then the split demonstration (a G2 stage slower than the GPU stage, split vs not split).
#
#   [SIZE=2^14] [BUDGET=48MiB] [PWS='1 2 4'] [JOBS='1 4'] [SPLIT_DEMO=1] bench/pipeline_sweep.sh [BUILD_DIR] [OUT_DIR]
#
# Each run writes memory.svg, waterfall.svg, timeline.csv, verdict.txt and summary.json into
# OUT_DIR/<run>/ (timeline.jsonl is deleted: it is large); bench/pipeline_table.py sums them up.
# OUT_DIR defaults to bench/out/pipeline-DATE (ignored by git: bench/RESULTS.md cites the command).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${1:-$root/build}/splitprove"
out="${2:-$root/bench/out/pipeline-$(date -u +%Y-%m-%d)}"
size="${SIZE:-2^14}"
budget="${BUDGET:-48MiB}"
pws="${PWS:-1 2 4}"      # synthesis workers swept
jobs="${JOBS:-1 4}"      # jobs in flight swept
split_demo="${SPLIT_DEMO:-1}"  # 0: skip the split demonstration
mkdir -p "$out"
{
  echo "date: $(date -u '+%Y-%m-%d %H:%M UTC')"
  echo "host: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
  echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "binary: $bin ($(git -C "$root" rev-parse --short HEAD 2>/dev/null))"
} >"$out/env.txt"

run() {
  local name="$1"; shift
  echo "== $name: $*"
  mkdir -p "$out/$name"
  "$bin" bench pipeline --out "$out/$name" "$@" | tee "$out/$name/report.txt"
  rm -f "$out/$name/timeline.jsonl"
  echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/$name/report.txt"
}

for pw in $pws; do
  for j in $jobs; do
    run "pw$pw-j$j" --size "$size" --partitions 10 --jobs "$j" --synth-workers "$pw" --budget "$budget"
  done
done

# The split: a fixed 600 ms G2 stage against a 300 ms GPU stage (both mostly waits standing for
# devices, so that the two do not compete for this machine's two cores), split and not split.
for mode in split nosplit; do
  [ "$split_demo" = 1 ] || break
  flag=""; [ "$mode" = nosplit ] && flag="--no-split"
  run "g2slow-$mode" --circuit chain --size 2^10 --partitions 10 --jobs 1 --gpu-delay 300ms \
    --g2-delay 600ms $flag
done
echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)" >>"$out/env.txt"
