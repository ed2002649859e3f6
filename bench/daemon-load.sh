#!/usr/bin/env bash
# The daemon under load, side by side with the in-process engine on the same circuit and
# configuration (bench/RESULTS.md, "The daemon under load").
#
#   bench/daemon-load.sh [splitprove] [K] [clients] [seconds] [budget] [partitions per job]
#     defaults: build/splitprove, 14, 64, 60, 4GiB, 4
#
# 1. The daemon (--pw PW, 2 unless the environment sets PW; --budget B, backend auto) takes C concurrent clients (`splitprove load`:
#    one thread and one channel each), each proving
#    jobs of P partitions of the built-in PoRep-shaped circuit (BLS12-381, 2^K) back to back for
#    S seconds (Prove: submit + await); its RSS is sampled every 100 ms from /proc.
# 2. In process, `bench pipeline` proves the same circuit with the same workers, backend and
#    budget: ceil(N / P) jobs of P partitions, all submitted at once (N: what the daemon proved).
# Output under bench/out/daemon-load/ (ignored): load.json, rss.tsv, inproc/, summary.txt.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="$(realpath "${1:-$root/build/splitprove}")" K="${2:-14}" C="${3:-64}" S="${4:-60}" BUDGET="${5:-4GiB}" P="${6:-4}"
PW="${PW:-2}"
OUT="${DAEMON_LOAD_OUT:-$root/bench/out/daemon-load}"
rm -rf "$OUT" && mkdir -p "$OUT/keys"
SOCK="$OUT/state/splitprove.sock"
"$BIN" serve --state-dir "$OUT/state" --key-dir "$OUT/keys" --pw "$PW" --budget "$BUDGET" --http 127.0.0.1:0 \
  --max-pending-jobs 256 --input-retention-minutes 0 --gc-interval-s 5 2>"$OUT/daemon.log" &
PID=$!
trap 'kill -9 $PID 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do "$BIN" status --server "unix:$SOCK" >/dev/null 2>&1 && break; sleep 0.1; done
KEY=$("$BIN" register-key --server "unix:$SOCK" --native "bls12-381:2^$K" --preload)
# One warm-up job (the engine's first use sizes its workers' scratch), not counted.
"$BIN" submit --server "unix:$SOCK" --key "$KEY" --native-seed 1 --partitions "$P" --await -q >/dev/null
(while kill -0 $PID 2>/dev/null; do
   echo "$(date +%s.%N) $(awk '/VmRSS/ {print $2 * 1024}' /proc/$PID/status 2>/dev/null)"; sleep 0.1
 done) >"$OUT/rss.tsv" &
SAMPLER=$!
TIME=(/usr/bin/time -f "load client CPU: %U s user, %S s sys" -o "$OUT/client-cpu.txt")
[[ -x /usr/bin/time ]] || { TIME=(); echo "load client CPU: not measured (no /usr/bin/time)" >"$OUT/client-cpu.txt"; }
"${TIME[@]}" "$BIN" load --server "unix:$SOCK" --key "$KEY" --native-seed 7 --partitions "$P" --clients "$C" --seconds "$S" | tee "$OUT/load.json"
kill $SAMPLER 2>/dev/null || true
HTTP=$(grep -o 'http=127.0.0.1:[0-9]*' "$OUT/daemon.log" | cut -d: -f2)
python3 -c 'import sys, urllib.request; sys.stdout.write(urllib.request.urlopen(sys.argv[1]).read().decode())' \
  "http://127.0.0.1:$HTTP/metrics" >"$OUT/metrics.txt"
"$BIN" status --server "unix:$SOCK" >"$OUT/status.json"  # GetStatus after the load (its gpus: the device's books)
python3 -c '
import json, sys
s = json.load(open(sys.argv[1]))
for g in s.get("gpus", []):
    b = g.get("budget", {})
    print("gpu {}: {}, memory {} of {} bytes free, device budget {} used of {} (keys {}), healthy {}".format(
        g.get("index", 0), g.get("name"), g.get("memory_free_bytes"), g.get("memory_total_bytes"),
        b.get("used_bytes", 0), b.get("total_bytes", 0), b.get("by_stage", {}).get("srs", 0), g.get("healthy", False)))
if not s.get("gpus"): print("GetStatus: no gpus (CPU backend)")
' "$OUT/status.json" | tee "$OUT/gpus.txt"
grep "splitprove_device_memory_bytes" "$OUT/metrics.txt" | head -4 >>"$OUT/gpus.txt" || true
kill -TERM $PID && wait $PID
trap - EXIT
N=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["partitions"])' "$OUT/load.json")
J=$(( (N + P - 1) / P ))
"$BIN" bench pipeline --size "2^$K" --partitions "$P" --jobs "$J" --pw "$PW" --budget "$BUDGET" \
  --out "$OUT/inproc" >"$OUT/inproc.txt" 2>&1
python3 - "$OUT" "$BUDGET" <<'PY' | tee "$OUT/summary.txt"
import json, re, sys
out, budget = sys.argv[1], sys.argv[2]
load = json.load(open(f"{out}/load.json"))
rss = [int(l.split()[1]) for l in open(f"{out}/rss.tsv") if len(l.split()) == 2]
cap = None
for u, m in {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}.items():
    if budget.endswith(u):
        cap = int(float(budget[:-3]) * m)
cap = cap if cap is not None else int(budget)
text = open(f"{out}/inproc.txt").read()
m = re.search(r"([0-9.]+) partitions/s", text)
inproc = float(m.group(1)) if m else float("nan")
print(f"daemon: {load['clients']} clients, jobs of {load['partitions_per_job']} partitions, {load['partitions']} partitions "
      f"in {load['wall_s']} s: {load['partitions_per_s']} partitions/s; submit p50 {load['submit_ms']['p50']} ms "
      f"p99 {load['submit_ms']['p99']} ms; end-to-end p50 {load['end_to_end_ms']['p50']} ms p99 "
      f"{load['end_to_end_ms']['p99']} ms; RESOURCE_EXHAUSTED {load['resource_exhausted']}; other errors {load['errors'] or 'none'}")
print(f"daemon RSS: max {max(rss) / 2**20:.0f} MiB over {len(rss)} samples; budget {budget}: {'under' if max(rss) <= cap else 'OVER'}")
metrics = open(f"{out}/metrics.txt").read()
means = []
for st in ("synthesis", "gpu", "g2", "finalize"):
    s_ = re.search(r'splitprove_stage_seconds_sum\{stage="%s"\} ([0-9.e+-]+)' % st, metrics)
    c_ = re.search(r'splitprove_stage_seconds_count\{stage="%s"\} ([0-9.e+-]+)' % st, metrics)
    if s_ and c_ and float(c_.group(1)) > 0:
        means.append(f"{st} {float(s_.group(1)) / float(c_.group(1)):.3f} s")
stages = re.search(r"stages \(mean\): (.*)", text)
print(f"stage means: daemon {', '.join(means)}; in-process {stages.group(1) if stages else '?'}")
print(open(f"{out}/client-cpu.txt").read().strip() + f" over {load['wall_s']} s of wall time")
print(f"in-process bench pipeline: {inproc} partitions/s; daemon / in-process = {load['partitions_per_s'] / inproc:.3f}")
PY
