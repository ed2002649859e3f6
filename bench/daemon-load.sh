#!/usr/bin/env bash
# The daemon under load, side by side with the in-process engine on the same circuit and
# configuration (bench/RESULTS.md, "Daemon under load").
#
#   bench/daemon-load.sh [splitprove] [K] [clients] [seconds] [budget]
#     defaults: build/splitprove, 16 (a BN254 chain circuit of 2^16 constraints), 64, 60, 2GiB
#
# 1. The daemon (--backend auto, --pw 2, --budget B) takes C concurrent node clients proving one-
#    partition jobs for S seconds; its RSS is sampled every 100 ms from /proc.
# 2. The in-process engine proves as many witnesses with `prove --out-dir` (each witness a job
#    of one partition, the same workers, backend and budget).
# Output under bench/out/daemon-load/ (ignored): load.json, rss.tsv, summary.txt.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="$(realpath "${1:-$root/build/splitprove}")" K="${2:-16}" C="${3:-64}" S="${4:-60}" BUDGET="${5:-2GiB}"
OUT="$root/bench/out/daemon-load"
rm -rf "$OUT" && mkdir -p "$OUT/keys"
python3 "$root/bench/chain_circuit.py" bn128 "$K" "$OUT/c" >/dev/null
"$BIN" setup --dev "$OUT/c.r1cs" "$OUT/keys/c.zkey" 2>/dev/null
SOCK="$OUT/state/splitprove.sock"
"$BIN" serve --state-dir "$OUT/state" --key-dir "$OUT/keys" --pw 2 --budget "$BUDGET" \
  --max-pending-jobs 256 --input-retention-minutes 0 --gc-interval-s 5 2>"$OUT/daemon.log" &
PID=$!
trap 'kill -9 $PID 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do "$BIN" status --server "unix:$SOCK" >/dev/null 2>&1 && break; sleep 0.1; done
KEY=$("$BIN" register-key --server "unix:$SOCK" c.zkey --preload)
# One warm-up job (the key's first use prepares the engines), not counted.
"$BIN" submit --server "unix:$SOCK" --key "$KEY" --await -q "$OUT/c.wtns" >/dev/null
(while kill -0 $PID 2>/dev/null; do
   echo "$(date +%s.%N) $(awk '/VmRSS/ {print $2 * 1024}' /proc/$PID/status 2>/dev/null)"; sleep 0.1
 done) >"$OUT/rss.tsv" &
SAMPLER=$!
node "$root/bench/daemon_load.mjs" "unix:$SOCK" "$root" "$KEY" "$OUT/c.wtns" "$C" "$S" | tee "$OUT/load.json"
kill $SAMPLER 2>/dev/null || true
kill -TERM $PID && wait $PID
trap - EXIT
N=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["partitions"])' "$OUT/load.json")
ws=(); for _ in $(seq 1 "$N"); do ws+=("$OUT/c.wtns"); done
t0=$(date +%s.%N)
"$BIN" prove --out-dir "$OUT/inproc" --synth-workers 2 --budget "$BUDGET" -q "$OUT/keys/c.zkey" "${ws[@]}"
t1=$(date +%s.%N)
python3 - "$OUT" "$t0" "$t1" "$N" "$BUDGET" <<'EOF' | tee "$OUT/summary.txt"
import json, sys
out, t0, t1, n, budget = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
load = json.load(open(f"{out}/load.json"))
rss = [int(l.split()[1]) for l in open(f"{out}/rss.tsv") if len(l.split()) == 2]
units = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
cap = None
for u, m in units.items():
    if budget.endswith(u):
        cap = int(float(budget[:-3]) * m)
cap = cap if cap is not None else int(budget)
inproc = n / (t1 - t0)
print(f"daemon: {load['clients']} clients, {load['partitions']} partitions in {load['wall_s']} s: "
      f"{load['partitions_per_s']} partitions/s; submit p50 {load['submit_ms']['p50']} ms p99 {load['submit_ms']['p99']} ms; "
      f"end-to-end p50 {load['end_to_end_ms']['p50']} ms p99 {load['end_to_end_ms']['p99']} ms; "
      f"RESOURCE_EXHAUSTED {load['resource_exhausted']}; other errors {load['errors'] or 'none'}")
print(f"daemon RSS: max {max(rss) / 2**20:.0f} MiB over {len(rss)} samples; budget {budget}: "
      f"{'under' if max(rss) <= cap else 'OVER'}")
print(f"in-process prove --out-dir: {n} partitions in {t1 - t0:.2f} s: {inproc:.3f} partitions/s; "
      f"daemon / in-process = {load['partitions_per_s'] / inproc:.3f}")
EOF
