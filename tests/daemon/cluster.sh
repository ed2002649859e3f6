#!/usr/bin/env bash
# Several daemons sharing one PostgreSQL job store (docs/cluster.md), as separate processes
# through their real gRPC API, against a throwaway PostgreSQL server this script starts.
#
#   cluster.sh <splitprove> <source dir> <work dir>
#
# Three daemons (each in its own network namespace when run as root: "hosts" that share only the
# database; else separate processes), each with its own state directory and socket. 30 jobs on
# both curves, 1 to 3 partitions each, submitted through all three. Then: daemon A is SIGKILLed
# while it proves, daemon B is SIGSTOPped past its lease and resumed (a zombie), and the
# PostgreSQL server is restarted in immediate mode. Every job must finish exactly once, every
# proof verify (splitprove verify; snarkjs for a sample), no result may come from a stale claim,
# and A's partitions must be finished by the others.
# Exit 77 (skipped) where no PostgreSQL server is installed.
set -uo pipefail
BIN="$1" SRC="$2" W="$3"
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$SRC/tests/daemon/lsan.supp"
rm -rf "$W" && mkdir -p "$W/keys" || exit 1
PG="/tmp/sp-cluster-$$"
URL=$(bash "$SRC/tests/pg/throwaway.sh" start "$PG")
rc=$?
[[ $rc == 77 ]] && { echo "no PostgreSQL server here: skipped"; exit 77; }
[[ $rc == 0 ]] || { echo "FAIL: the throwaway PostgreSQL server did not start"; exit 1; }
declare -A PID
cleanup() {
  for d in "${!PID[@]}"; do kill -9 "${PID[$d]}" 2>/dev/null; done
  bash "$SRC/tests/pg/throwaway.sh" stop "$PG"
}
trap cleanup EXIT
fail() { echo "FAIL: $*"; sql "SELECT job_id, idx, state, attempts, done_by, error FROM partitions WHERE attempts <> 1 OR state <> 'done'" 2>/dev/null | head -20; for d in a b c; do [[ -f "$W/$d.log" ]] && { echo "--- $d.log"; tail -5 "$W/$d.log"; }; done; exit 1; }
sql() { psql -qtA "$URL" -c "$1"; }

NETNS=()
if [[ $(id -u) -eq 0 ]] && unshare -n true 2>/dev/null; then
  NETNS=(unshare -n)  # its own network namespace: the database's unix socket is all it shares
fi
start() {  # start NAME: a daemon on the shared store, waits until it answers
  local d=$1
  "${NETNS[@]}" "$BIN" serve --store "$URL" --state-dir "$W/$d" --key-dir "$W/keys" --listen "unix:$W/$d.sock" \
    --backend cpu --pw 1 --lease-s 3 --max-attempts 8 >>"$W/$d.log" 2>&1 &
  PID[$d]=$!
  for _ in $(seq 1 100); do
    "$BIN" status --server "unix:$W/$d.sock" >/dev/null 2>&1 && return 0
    kill -0 "${PID[$d]}" 2>/dev/null || fail "daemon $d exited at start: $(tail -3 "$W/$d.log")"
    sleep 0.1
  done
  fail "daemon $d did not answer within 10 s"
}
S() { echo "unix:$W/$1.sock"; }
# freeze_proving NAME: SIGSTOPs the daemon at a moment it holds a claim in the database (the
# partition not committed), trying again until it does (20 s).
freeze_proving() {
  local d=$1 owner
  owner=$(sql "SELECT owner FROM daemons WHERE listen = 'unix:$W/$d.sock'")
  [[ -n "$owner" ]] || fail "daemon $d has no heartbeat row"
  for _ in $(seq 1 400); do
    kill -STOP "${PID[$d]}"
    [[ "$(sql "SELECT count(*) FROM partitions WHERE state = 'running' AND lease_owner = '$owner'")" -gt 0 ]] && return 0
    kill -CONT "${PID[$d]}"
    sleep 0.05
  done
  fail "daemon $d never held a claim"
}

python3 "$SRC/bench/chain_circuit.py" bn128 13 "$W/bn" || exit 1
python3 "$SRC/bench/chain_circuit.py" bls12381 12 "$W/bls" || exit 1
"$BIN" setup --dev "$W/bn.r1cs" "$W/keys/bn.zkey" >/dev/null 2>&1 || exit 1
"$BIN" setup --dev "$W/bls.r1cs" "$W/keys/bls.zkey" >/dev/null 2>&1 || exit 1
"$BIN" zkey export-vkey "$W/keys/bn.zkey" "$W/bn.vkey.json" >/dev/null || exit 1
"$BIN" zkey export-vkey "$W/keys/bls.zkey" "$W/bls.vkey.json" >/dev/null || exit 1

for d in a b c; do start $d; done
[[ ${#NETNS[@]} -gt 0 ]] && echo "three daemons, each in its own network namespace" || echo "three daemons as separate processes"
KBN=$("$BIN" register-key --server "$(S a)" bn.zkey) || fail "register-key bn"
KBLS=$("$BIN" register-key --server "$(S b)" bls.zkey) || fail "register-key bls"
# One database: a key registered through one daemon is known to all.
"$BIN" status --server "$(S c)" | python3 -c 'import json, sys; s = json.load(sys.stdin)["cluster"]; assert s["shared"] and len(s["daemons"]) == 3, s' \
  || fail "the cluster view does not show three daemons"

declare -a IDS NPART CURVE
mkdir -p "$W/ids"
submit() {  # submit DAEMON I...: the jobs' Submits all at once (so that work queues up); waits
  local d=$1 i n c k pids=()
  shift
  for i in "$@"; do
    n=$((1 + i % 3))
    if ((i % 2)); then c=bls k=$KBLS; else c=bn k=$KBN; fi
    NPART[$i]=$n CURVE[$i]=$c
    local ws=(); for _ in $(seq 1 $n); do ws+=("$W/$c.wtns"); done
    "$BIN" submit --server "$(S "$d")" --key "$k" --idempotency-key "cluster-$i" "${ws[@]}" >"$W/ids/$i" 2>"$W/ids/$i.err" &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait "$p" || fail "a submit through $d: $(cat "$W"/ids/*.err)"; done
  for i in "$@"; do IDS[$i]=$(cat "$W/ids/$i"); done
}
submit a 0 3 6 9 & SA=$!
submit b 1 4 7 & SB=$!
submit c 2 5 8
wait $SA && wait $SB || fail "submits 0..9"
for i in $(seq 0 9); do IDS[$i]=$(cat "$W/ids/$i"); NPART[$i]=$((1 + i % 3)); ((i % 2)) && CURVE[$i]=bls || CURVE[$i]=bn; done
# A dies while it proves.
freeze_proving a
kill -9 "${PID[a]}"; wait "${PID[a]}" 2>/dev/null; unset 'PID[a]'
echo "10 jobs submitted through a, b and c; SIGKILL a mid-partition"
# B stops past its lease (3 s) while it proves, then comes back: its stale results must not land.
submit b 10 11 12 13 14 15 16 17 18 19
freeze_proving b
t0=$(date +%s.%N)
submit c 20 21 22 23 24 25 26 27 28 29
echo "10 more through b; SIGSTOP b while it proves; 10 more through c"
# The database restarts under everyone while c proves (immediate: a crash and recovery from its WAL).
left=$(sql "SELECT count(*) FROM partitions WHERE state <> 'done'")
bash "$SRC/tests/pg/throwaway.sh" restart "$PG" || fail "pg_ctl restart"
echo "PostgreSQL restarted (-m immediate) with $left partitions still to prove"
sleep "$(python3 -c "print(max(0.0, 7 - ($(date +%s.%N) - $t0)))")"
kill -CONT "${PID[b]}"
echo "SIGCONT b after 7 s (lease 3 s)"
total=$(( $(IFS=+; echo "${NPART[*]}") ))

# Every job finishes exactly once; every proof verifies. Awaited through b and c in turn.
for i in $(seq 0 29); do
  d=$( ((i % 2)) && echo b || echo c )
  "$BIN" await --server "$(S $d)" "${IDS[$i]}" --out-dir "$W/out/$i" -q || fail "job $i (${IDS[$i]}) through $d"
  for p in $(seq 0 $((NPART[i] - 1))); do
    "$BIN" verify "$W/${CURVE[$i]}.vkey.json" "$W/out/$i/public_$p.json" "$W/out/$i/proof_$p.json" >/dev/null \
      || fail "job $i proof $p"
  done
done
echo "ok: 30 jobs succeeded, $total proofs verify"
if [[ -d "$SRC/node_modules/snarkjs" ]]; then
  for i in 0 1; do
    npx --prefix "$SRC" snarkjs groth16 verify "$W/${CURVE[$i]}.vkey.json" "$W/out/$i/public_0.json" "$W/out/$i/proof_0.json" 2>&1 \
      | grep -q OK || fail "snarkjs rejects job $i's proof"
  done
  echo "ok: snarkjs verifies a proof of each curve"
fi
# Exactly once, and never from a stale claim: every partition is done, by the claim of its last
# attempt (done_by = owner#attempt).
[[ "$(sql "SELECT count(*) FROM jobs WHERE state <> 'succeeded'")" == 0 ]] || fail "jobs not succeeded: $(sql "SELECT job_id, state, error FROM jobs WHERE state <> 'succeeded'")"
[[ "$(sql "SELECT count(*) FROM partitions")" == "$total" ]] || fail "partition rows: $(sql "SELECT count(*) FROM partitions") for $total"
stale=$(sql "SELECT job_id || ' ' || idx || ' ' || done_by || ' attempts ' || attempts FROM partitions WHERE state <> 'done' OR split_part(done_by, '#', 2)::int <> attempts")
[[ -z "$stale" ]] || fail "partitions not done by their last claim: $stale"
# The others took A's (and the zombie B's) claims back when their leases expired.
requeued=$(cat "$W/b.log" "$W/c.log" | grep -o 'event=leases_expired requeued=[0-9]*' | cut -d= -f3 | awk '{s += $1} END {print s + 0}')
[[ "$requeued" -ge 1 ]] || fail "no expired lease was taken back"
retried=$(sql "SELECT count(*) FROM partitions WHERE attempts > 1")
discarded=$(grep -c 'event=partition_discarded' "$W/b.log")
by=$(sql "SELECT split_part(split_part(done_by, '#', 1), ':', 2) AS pid, count(*) FROM partitions GROUP BY 1 ORDER BY 1" | tr '\n' ' ')
"$BIN" status --server "$(S c)" | python3 -c '
import json, sys
c = json.load(sys.stdin)["cluster"]
alive = sorted(d.get("alive", False) for d in c["daemons"])
assert alive.count(True) == 2, c  # b and c; a is dead
' || fail "the cluster view after the run"
for d in b c; do kill -TERM "${PID[$d]}"; wait "${PID[$d]}" || fail "daemon $d: SIGTERM exit"; unset "PID[$d]"; done
echo "PASS cluster: 30 jobs ($total partitions) on 3 daemons finished exactly once through a SIGKILL, a SIGSTOP past the lease and a PostgreSQL restart; $requeued expired leases taken back, $retried partitions proved again, $discarded stale results discarded; partitions by daemon pid: $by"
