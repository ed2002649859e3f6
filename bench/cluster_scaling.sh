#!/usr/bin/env bash
# Throughput of several daemons on one PostgreSQL job store (docs/cluster.md), CPU backend, and
# the database's share of the time per partition.
#
#   bench/cluster_scaling.sh <splitprove> <out dir> [daemon counts "1 2 4"] [jobs 24] [partitions 4] [log2 13] [pw 1]
#
# A count of "sqlite" is the reference: one daemon on its own SQLite store, the same work.
# Each daemon stands for a host of PW cores: where N * PW cores exist, daemon d is pinned
# (taskset) to cores (d-1)*PW .. d*PW-1, so that adding daemons adds cores as hosts would (its
# thread pools still size themselves by the machine, and share their PW cores); the database
# server and the clients run on the rest. Beyond that, daemons share the machine unpinned. For each count N: a fresh database on one
# throwaway PostgreSQL server (every statement logged with its duration), N daemons
# (--backend cpu --pw PW), the chain
# circuit (BN254, 2^log2 constraints), `jobs` jobs of `partitions` partitions submitted at once
# through the daemons in turn; the clock runs from the first Submit to the last job's success.
# Reported per N: partitions/s (and against N = first count), the server-side statement time per
# partition and the statements per partition (from the server's log), and the daemons' partition
# time (claim to commit) per partition. Writes OUT/cluster.md and OUT/cluster.json.
set -euo pipefail
BIN="$(realpath "$1")" OUT="$2"
COUNTS="${3:-1 2 4}" JOBS="${4:-24}" PARTS="${5:-4}" LOG2="${6:-13}" pw="${7:-1}"
SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mkdir -p "$OUT"
W=$(mktemp -d /tmp/sp-scale-XXXX)
chmod 755 "$W"  # the server (another user when run as root) reaches its directory through it
PG="$W/pg"
export SPLITPROVE_PG_OPTS="-c log_min_duration_statement=0 -c log_line_prefix='db=%d app=%a ' -c fsync=on"
URL=$(bash "$SRC/tests/pg/throwaway.sh" start "$PG")
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  bash "$SRC/tests/pg/throwaway.sh" stop "$PG"
  rm -rf "$W"
}
trap cleanup EXIT
mkdir -p "$W/keys"
python3 "$SRC/bench/chain_circuit.py" bn128 "$LOG2" "$W/c" >/dev/null
"$BIN" setup --dev "$W/c.r1cs" "$W/keys/c.zkey" >/dev/null 2>&1
cores=$(nproc)
echo "[]" >"$OUT/cluster.json"
for count in $COUNTS; do
  n=$count store=()
  db="scale$n"
  if [[ "$count" == sqlite ]]; then
    n=1
  else
    psql -qtA "$URL" -c "CREATE DATABASE $db" >/dev/null
    url="${URL/\/postgres\?/\/$db?}"
    store=(--store "$url")
  fi
  PIDS=()
  for d in $(seq 1 "$n"); do
    pin=()
    if (( n * pw <= cores )) && command -v taskset >/dev/null; then pin=(taskset -c "$(( (d - 1) * pw ))-$(( d * pw - 1 ))"); fi
    "${pin[@]}" "$BIN" serve "${store[@]}" --state-dir "$W/$count-$d" --key-dir "$W/keys" --listen "unix:$W/$count-$d.sock" \
      --backend cpu --pw "$pw" >"$W/$count-$d.log" 2>&1 &
    PIDS+=($!)
  done
  for d in $(seq 1 "$n"); do
    for _ in $(seq 1 100); do "$BIN" status --server "unix:$W/$count-$d.sock" >/dev/null 2>&1 && break; sleep 0.1; done
  done
  K=$("$BIN" register-key --server "unix:$W/$count-1.sock" c.zkey)
  sleep 1.2  # every daemon's heartbeat has seen the key
  ws=(); for _ in $(seq 1 "$PARTS"); do ws+=("$W/c.wtns"); done
  t0=$(date +%s.%N)
  sub=()
  for j in $(seq 1 "$JOBS"); do
    d=$(( (j - 1) % n + 1 ))
    "$BIN" submit --server "unix:$W/$count-$d.sock" --key "$K" "${ws[@]}" >/dev/null &
    sub+=($!)
  done
  for p in "${sub[@]}"; do wait "$p"; done
  done_jobs() {
    if [[ "$count" == sqlite ]]; then
      "$BIN" jobs --server "unix:$W/$count-1.sock" --state "$1" | grep -c . || true
    else
      psql -qtA "$url" -c "SELECT count(*) FROM jobs WHERE state = '$1'"
    fi
  }
  until [[ "$(done_jobs succeeded)" == "$JOBS" ]]; do
    [[ "$(done_jobs failed)" == 0 ]] || { echo "cluster_scaling: a job failed"; exit 1; }
    sleep 0.05
  done
  t1=$(date +%s.%N)
  for p in "${PIDS[@]}"; do kill -TERM "$p"; wait "$p" || true; done
  PIDS=()
  cat "$W/$count"-*.log >"$OUT/daemons-$count.log"
  python3 - "$PG/server.log" "$db" "$OUT" "$count" "$pw" "$JOBS" "$PARTS" "$t0" "$t1" <<'EOF'
import json, re, sys
log, db, out, n, pw, jobs, parts, t0, t1 = sys.argv[1:]
count = n
n = 1 if n == "sqlite" else int(n)
pw, jobs, parts = int(pw), int(jobs), int(parts)
wall = float(t1) - float(t0)
total = jobs * parts
ms, stmts = 0.0, 0
for line in open(log, errors="replace"):
    if line.startswith(f"db={db} ") and "app=psql" not in line and "duration:" in line:  # not this script's polls
        m = re.search(r"duration: ([0-9.]+) ms\s+(statement|execute|parse|bind)", line)
        if m:  # server time of every step (parse, bind, execute); statements counted once
            ms += float(m.group(1)); stmts += m.group(2) in ("statement", "execute")
kinds = {}
for line in open(log, errors="replace"):
    if line.startswith(f"db={db} ") and "app=psql" not in line and "duration:" in line:
        m = re.search(r"duration: ([0-9.]+) ms\s+(?:statement|execute [^:]*): (.{0,60})", line)
        if m:
            k = kinds.setdefault(m.group(2), [0, 0.0]); k[0] += 1; k[1] += float(m.group(1))
with open(f"{out}/statements-{count}.txt", "w") as f:
    for k, (c, t) in sorted(kinds.items(), key=lambda kv: -kv[1][0]):
        f.write(f"{c:8d} {t:10.1f} ms  {k}\n")
secs = [float(x) for x in re.findall(r"event=partition_done .*?seconds=([0-9.]+)", open(f"{out}/daemons-{count}.log").read())]
row = {"daemons": count if count == "sqlite" else n, "pw": pw, "partitions": total, "wall_s": round(wall, 3),
       "partitions_per_s": round(total / wall, 3),
       "db_ms_per_partition": None if count == "sqlite" else round(ms / total, 3),
       "statements_per_partition": None if count == "sqlite" else round(stmts / total, 1),
       "partition_s_mean": round(sum(secs) / len(secs), 3) if secs else None}
rows = json.load(open(f"{out}/cluster.json"))
rows.append(row)
json.dump(rows, open(f"{out}/cluster.json", "w"), indent=1)
print(json.dumps(row))
EOF
done
python3 - "$OUT" "$cores" <<'EOF'
import json, sys
out, cores = sys.argv[1], sys.argv[2]
rows = json.load(open(f"{out}/cluster.json"))
base = rows[0]["partitions_per_s"]
with open(f"{out}/cluster.md", "w") as f:
    f.write(f"| daemons | pw each | partitions | wall s | partitions/s | vs {rows[0]['daemons']} | DB ms / partition (server) | statements / partition | partition s (claim to commit) |\n")
    f.write("|---|---|---|---|---|---|---|---|---|\n")
    for r in rows:
        f.write(f"| {r['daemons']} | {r['pw']} | {r['partitions']} | {r['wall_s']} | {r['partitions_per_s']} | "
                f"{r['partitions_per_s'] / base:.2f} | {r['db_ms_per_partition']} | {r['statements_per_partition']} | "
                f"{r['partition_s_mean']} |\n")
    f.write(f"\n({cores} cores)\n")
print(open(f"{out}/cluster.md").read())
EOF
