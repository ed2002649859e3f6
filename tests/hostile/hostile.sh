#!/usr/bin/env bash
# Hostile cases against the splitprove CLI: outputs that name inputs, kills at many moments, full
# disks, racing writers, huge counts, lying headers, pipes and FIFOs. Each case is one function
# `case_<name>`; CMake runs each as its own ctest test `hostile.<name>` (CMakeLists.txt reads them
# from this file). After every case, whatever its outcome:
#   - no input changed (sha256 of every fixture before and after);
#   - every proof file present in the case's directory verifies with its public signals;
#   - no command's peak RSS exceeded its bound (measured with /usr/bin/time).
#
#   hostile.sh <splitprove binary> <source dir> <fixture dir> fixture   (make the shared fixture)
#   hostile.sh <splitprove binary> <source dir> <fixture dir> <case>
#   hostile.sh <splitprove binary> <source dir> <fixture dir> --list
set -uo pipefail
BIN="$1"
SRC="$2"
FIX="$(realpath -m "$3")"
CASE="$4"
F="$SRC/tests/fixtures"      # BLS12-381 circom fixtures (chain, mixed, multiplier)
T="$(mktemp -d)"
fails=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fails=$((fails + 1)); }

# ---- running commands -------------------------------------------------------------------------
# run [--rss-mib N] [--timeout S] cmd...: sets RC, OUT (stdout+stderr) and RSS_MIB (peak).
RSS_BOUND_MIB=1500  # ASan's shadow memory included; the fixtures need far less
run() {
  local bound=$RSS_BOUND_MIB limit=120
  while [[ $# -gt 0 ]]; do
    case "$1" in
      --rss-mib) bound="$2"; shift 2 ;;
      --timeout) limit="$2"; shift 2 ;;
      *) break ;;
    esac
  done
  timeout -s KILL "$limit" /usr/bin/time -f '%M' -o "$T/.rss" "$@" >"$T/.out" 2>&1
  RC=$?
  OUT="$(cat "$T/.out")"
  RSS_MIB=$(( $(tail -n1 "$T/.rss" 2>/dev/null | grep -E '^[0-9]+$' || echo 0) / 1024 ))
  if (( RSS_MIB > bound )); then bad "peak RSS $RSS_MIB MiB > $bound MiB: $*"; fi
  if (( RC == 137 )); then bad "timed out after $limit s: $*"; fi
}
# threads_of cmd...: runs cmd (output to $T/.thr.out), sets THREADS to the most threads it had at
# any sample (every 20 ms) and RC to its exit status.
threads_of() {
  "$@" >"$T/.thr.out" 2>&1 & local pid=$! n
  THREADS=0
  while kill -0 "$pid" 2>/dev/null; do
    n=$(ls "/proc/$pid/task" 2>/dev/null | wc -l)
    (( n > THREADS )) && THREADS=$n
    sleep 0.02
  done
  wait "$pid"; RC=$?
}
# expect RC REGEX what: the last run's exit status and a line of its output.
expect() {
  local rc="$1" re="$2" what="$3"
  if [[ "$RC" == "$rc" ]] && grep -Eq -- "$re" <<<"$OUT"; then
    ok "$what (rc=$RC: $(grep -E -m1 -- "$re" <<<"$OUT" | cut -c1-140))"
  else
    bad "$what: expected rc=$rc and /$re/, got rc=$RC:"
    echo "$OUT" | tail -n 5
  fi
}
# A user error is one line "splitprove: error: ...", never "internal error", never a signal.
expect_user_error() {
  expect 1 "$1" "$2"
  if grep -q "internal error" <<<"$OUT"; then bad "$2: reported as an internal error"; fi
}
verify() {  # verify VKEY PUBLIC PROOF
  "$BIN" verify "$1" "$2" "$3" >/dev/null 2>&1
}
sha() { sha256sum "$@" | awk '{print $1}'; }

# ---- the shared fixture: a BN254 chain circuit (2^16) big enough that proving and setup take a while ----
make_fixture() {
  rm -rf "$FIX" && mkdir -p "$FIX" || exit 1
  python3 "$SRC/bench/chain_circuit.py" bn128 16 "$FIX/big" || exit 1
  "$BIN" setup --dev "$FIX/big.r1cs" "$FIX/big.zkey" 2>/dev/null || exit 1
  "$BIN" zkey export-vkey "$FIX/big.zkey" "$FIX/big.vkey.json" || exit 1
  "$BIN" zkey export-vkey "$F/chain.zkey" "$FIX/chain.vkey.json" || exit 1
  "$BIN" demo --size 2^10 --partitions 2 --jobs 1 --out "$FIX/demo" >/dev/null 2>&1 || exit 1
  echo "fixture: $(ls "$FIX" | tr '\n' ' ')"
  exit 0
}

# ---- invariants checked after every case ------------------------------------------------------
inputs_snapshot() {
  (cd "$F" && find . -type f -print0 | sort -z | xargs -0 sha256sum)
  (cd "$FIX" && find . -maxdepth 1 -type f -print0 | sort -z | xargs -0 sha256sum)
}
# Every proof*.json under $T verifies with the public*.json beside it (same suffix).
check_outputs() {
  local p s vk
  while IFS= read -r -d '' p; do
    s="$(dirname "$p")/$(basename "$p" | sed 's/^proof/public/')"
    vk="$(cat "$(dirname "$p")/.vkey" 2>/dev/null || echo "$FIX/chain.vkey.json")"
    if [[ ! -f "$s" ]]; then bad "$p has no public signals beside it"; continue; fi
    verify "$vk" "$s" "$p" || bad "$p does not verify with $s ($vk)"
  done < <(find "$T" -name 'proof*.json' -not -name '.*' -print0)
}

# ---- the cases ---------------------------------------------------------------------------------
K="$F/chain.zkey"
W="$F/chain.wtns"
R="$F/chain.r1cs"

case_prove_output_is_the_key() {
  run "$BIN" prove "$K" "$W" "$K" "$T/public.json"
  expect_user_error "same file as the input .*chain.zkey" "prove: proof.json = the key"
}
case_prove_public_is_the_witness() {
  run "$BIN" prove "$K" "$W" "$T/proof.json" "$W"
  expect_user_error "same file as the input .*chain.wtns" "prove: public.json = the witness"
  [[ ! -e "$T/proof.json" ]] && ok "no proof written" || bad "a proof was written"
}
case_prove_output_symlink_to_key() {
  ln -s "$K" "$T/link.json"
  run "$BIN" prove "$K" "$W" "$T/link.json" "$T/public.json"
  expect_user_error "same file as the input" "prove: proof.json is a symbolic link to the key"
  [[ -L "$T/link.json" ]] && ok "the link is kept" || bad "the link was replaced"
}
case_prove_output_hardlink_to_witness() {
  cp "$W" "$T/w.wtns" && ln "$T/w.wtns" "$T/hard.json"
  local h; h=$(sha "$T/w.wtns")
  run "$BIN" prove "$K" "$T/w.wtns" "$T/proof.json" "$T/hard.json"
  expect_user_error "same file as the input" "prove: public.json is a hard link to the witness"
  [[ "$(sha "$T/w.wtns")" == "$h" ]] && ok "the witness is unchanged" || bad "the witness changed"
}
case_prove_two_outputs_one_file() {
  run "$BIN" prove "$K" "$W" "$T/p.json" "$T/p.json"
  expect_user_error "are the same file" "prove: proof.json = public.json"
}
case_prove_output_is_a_directory() {
  mkdir "$T/dir"
  run "$BIN" prove "$K" "$W" "$T/dir" "$T/public.json"
  expect_user_error "is a directory" "prove: the proof path is a directory"
}
case_prove_output_is_a_fifo() {
  mkfifo "$T/out.fifo"
  run "$BIN" prove "$K" "$W" "$T/out.fifo" "$T/public.json"
  expect_user_error "not a regular file" "prove: the proof path is a FIFO"
  [[ -p "$T/out.fifo" ]] && ok "the FIFO is still a FIFO" || bad "the FIFO was replaced"
}
case_prove_output_directory_missing() {
  run --timeout 10 "$BIN" prove "$K" "$W" "$T/nowhere/proof.json" "$T/public.json"
  expect_user_error "nowhere does not exist" "prove: the output's directory does not exist (before proving)"
}
case_prove_output_not_writable() {
  # /proc refuses new files even to root.
  run --timeout 10 "$BIN" prove "$K" "$W" "/proc/splitprove-proof.json" "$T/public.json"
  expect_user_error "cannot create a file" "prove: an unwritable output directory (before proving)"
  [[ ! -e "$T/public.json" ]] && ok "no public signals written" || bad "public.json written"
}
case_prove_witness_is_a_fifo() {
  mkfifo "$T/w.fifo"
  ( exec 3<>"$T/w.fifo"; cat "$W" >&3; sleep 5 ) & local feeder=$!
  run --timeout 20 "$BIN" prove "$K" "$T/w.fifo" "$T/proof.json" "$T/public.json"
  expect_user_error "w.fifo: not a regular file" "prove: a FIFO as the witness"
  kill "$feeder" 2>/dev/null; wait "$feeder" 2>/dev/null
}
case_setup_output_is_the_circuit() {
  cp "$R" "$T/c.r1cs"
  local h; h=$(sha "$T/c.r1cs")
  run "$BIN" setup --dev "$T/c.r1cs" "$T/c.r1cs"
  expect_user_error "same file as the input" "setup: out.zkey = the circuit"
  [[ "$(sha "$T/c.r1cs")" == "$h" ]] && ok "the circuit is unchanged" || bad "the circuit changed"
}
case_export_vkey_output_is_the_key() {
  cp "$K" "$T/k.zkey"
  local h; h=$(sha "$T/k.zkey")
  run "$BIN" zkey export-vkey "$T/k.zkey" "$T/k.zkey"
  expect_user_error "same file as the input" "zkey export-vkey: vkey = the key"
  [[ "$(sha "$T/k.zkey")" == "$h" ]] && ok "the key is unchanged" || bad "the key changed"
}
case_inspect_rewrite_over_itself() {
  cp "$K" "$T/k.zkey"
  local h; h=$(sha "$T/k.zkey")
  run "$BIN" inspect "$T/k.zkey" --rewrite "$T/k.zkey"
  expect_user_error "same file as the input" "inspect --rewrite over its input (was SIGBUS and a 0-byte key)"
  [[ "$(sha "$T/k.zkey")" == "$h" ]] && ok "the key is unchanged" || bad "the key changed"
}
case_mem_plot_over_its_timeline() {
  cp "$FIX/demo/timeline.csv" "$T/t.csv"
  run "$BIN" mem plot "$T/t.csv" -o "$T/t.csv"
  expect_user_error "same file as the input" "mem plot -o = its timeline"
  cmp -s "$T/t.csv" "$FIX/demo/timeline.csv" && ok "the timeline is unchanged" || bad "the timeline changed"
}
case_batch_out_dir_holds_a_witness() {
  mkdir "$T/out" && cp "$W" "$T/out/proof_0.json"
  local h; h=$(sha "$T/out/proof_0.json")
  run "$BIN" prove -q --out-dir "$T/out" "$K" "$T/out/proof_0.json"
  expect_user_error "same file as the input" "batch: a witness where proof_0.json goes"
  [[ "$(sha "$T/out/proof_0.json")" == "$h" ]] && ok "the witness is unchanged" || bad "the witness changed"
  rm "$T/out/proof_0.json"  # not a proof: keep check_outputs to real ones
}
case_batch_out_dir_is_a_file() {
  run "$BIN" prove -q --out-dir "$K" "$K" "$W"
  expect_user_error "same file as the input|not a directory" "batch: --out-dir is the key"
}
case_batch_keeps_proving_after_a_bad_witness() {
  python3 - "$W" "$T/bad.wtns" <<'EOF'
import sys
b = bytearray(open(sys.argv[1], "rb").read()); b[-32] ^= 1; open(sys.argv[2], "wb").write(b)
EOF
  printf 'wtns garbage' >"$T/trunc.wtns"
  run "$BIN" prove -q --out-dir "$T/out" "$K" "$W" "$T/bad.wtns" "$W" "$T/trunc.wtns" "$W"
  expect_user_error "2 of 5 witnesses failed; first: .*bad.wtns \(witness 1\)" "batch: two bad witnesses fail, the rest are proved"
  grep -q "trunc.wtns (witness 3)" <<<"$OUT" && ok "the truncated witness is named" || bad "trunc.wtns not named"
  for i in 0 2 4; do [[ -f "$T/out/proof_$i.json" ]] || bad "no proof_$i.json"; done
  for i in 1 3; do [[ ! -e "$T/out/proof_$i.json" ]] || bad "proof_$i.json written for a bad witness"; done
  [[ -f "$T/out/proof_4.json" ]] && ok "the good witnesses after the bad ones were proved"
}
case_batch_fail_fast() {
  cp "$F/multiplier.wtns" "$T/other.wtns"  # of another circuit: fails at once
  run "$BIN" prove -q --fail-fast --synth-workers 1 --out-dir "$T/out" "$K" "$W" "$T/other.wtns" "$W" "$W" "$W" "$W" "$W" "$W"
  expect_user_error "witnesses failed; first: .*other.wtns" "batch --fail-fast stops at the first failure"
  local n; n=$(ls "$T/out" | grep -c '^proof_')
  (( n < 8 )) && ok "--fail-fast left $n of 8 good witnesses proved" || bad "--fail-fast proved all 8"
}
case_batch_rerun_keeps_good_proofs() {
  run "$BIN" prove -q --out-dir "$T/out" "$K" "$W" "$W" "$W"
  expect 0 "" "batch of 3"
  rm "$T/out/proof_1.json"
  cp "$F/chain.proof.json" "$T/out/proof_2.json"  # a valid proof, but of other randomness: kept
  echo '{"pi_a": 1}' >"$T/out/proof_0.json"         # damaged: proved again
  local h2; h2=$(sha "$T/out/proof_2.json")
  run "$BIN" prove --out-dir "$T/out" "$K" "$W" "$W" "$W"
  expect 0 "proved 2 of 3 witnesses.* 1 kept from an earlier run" "rerun proves only what is missing or bad"
  [[ "$(sha "$T/out/proof_2.json")" == "$h2" ]] && ok "the verified proof was kept" || bad "proof_2 rewritten"
  run "$BIN" prove --force --out-dir "$T/out" "$K" "$W" "$W" "$W"
  expect 0 "proved 3 of 3 witnesses.* 0 kept" "--force proves everything again"
}
case_kill9_during_prove() {
  local k="$FIX/big.zkey" w="$FIX/big.wtns" d
  echo "$FIX/big.vkey.json" >"$T/.vkey"
  for d in 0.05 0.2 0.5 1 2 3; do
    "$BIN" prove -q "$k" "$w" "$T/proof.json" "$T/public.json" & local pid=$!
    sleep "$d"; kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
    if [[ -e "$T/proof.json" ]]; then
      verify "$FIX/big.vkey.json" "$T/public.json" "$T/proof.json" && ok "killed at ${d}s: the proof present verifies with its signals" || bad "killed at ${d}s: proof.json does not verify"
    else
      ok "killed at ${d}s: no proof (public.json $( [[ -e "$T/public.json" ]] && echo present || echo absent))"
    fi
    ls "$T" | grep -v -E '^(proof|public)\.json$' | grep . && bad "visible litter after a kill"
  done
  run "$BIN" prove -q "$k" "$w" "$T/proof.json" "$T/public.json"
  expect 0 "" "prove after the kills"
  [[ -z "$(ls -A "$T" | grep splitprove-)" ]] && ok "the next writer removed the killed runs' temporaries" || bad "temporaries left: $(ls -A "$T")"
}
case_kill9_during_batch() {
  local k="$FIX/big.zkey" d i
  mkdir -p "$T/out" && echo "$FIX/big.vkey.json" >"$T/out/.vkey"
  local ws=(); for i in 0 1 2 3 4 5; do cp "$FIX/big.wtns" "$T/w$i.wtns"; ws+=("$T/w$i.wtns"); done
  for d in 0.3 1.5 3; do
    "$BIN" prove -q --synth-workers 1 --out-dir "$T/out" "$k" "${ws[@]}" & local pid=$!
    sleep "$d"; kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
    local n; n=$(ls "$T/out" | grep -c '^proof_')
    ok "killed at ${d}s: $n proofs on disk"
    for i in 0 1 2 3 4 5; do
      [[ -e "$T/out/proof_$i.json" ]] || continue
      verify "$FIX/big.vkey.json" "$T/out/public_$i.json" "$T/out/proof_$i.json" || bad "killed at ${d}s: proof_$i does not verify"
    done
  done
  run --timeout 300 "$BIN" prove --synth-workers 1 --out-dir "$T/out" "$k" "${ws[@]}"
  expect 0 "proved [0-9] of 6 witnesses" "the rerun finishes the batch"
  [[ $(ls "$T/out" | grep -c '^proof_') == 6 ]] && ok "6 proofs" || bad "not 6 proofs"
}
case_kill9_during_setup() {
  cp "$FIX/big.zkey" "$T/k.zkey"
  local h d; h=$(sha "$T/k.zkey")
  for d in 0.1 0.5 1 2; do
    "$BIN" setup --dev "$FIX/big.r1cs" "$T/k.zkey" 2>/dev/null & local pid=$!
    sleep "$d"; kill -9 "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
    if [[ "$(sha "$T/k.zkey")" == "$h" ]]; then
      ok "killed at ${d}s: the old key is whole"
    else
      run "$BIN" inspect --no-subgroup "$T/k.zkey"
      expect 0 "Groth16 proving key" "killed at ${d}s: the key is the whole new one"
      h=$(sha "$T/k.zkey")
    fi
  done
}
case_setup_while_a_prover_maps_the_key() {
  # The prover maps the old key; setup renames a new one over it: the prover finishes with the
  # old key (its proof verifies with the old verification key), nobody dies of SIGBUS.
  cp "$FIX/big.zkey" "$T/k.zkey"
  echo "$FIX/big.vkey.json" >"$T/.vkey"
  "$BIN" prove -q "$T/k.zkey" "$FIX/big.wtns" "$T/proof.json" "$T/public.json" >"$T/.prove.out" 2>&1 & local pid=$!
  sleep 0.3
  run "$BIN" setup --dev "$FIX/big.r1cs" "$T/k.zkey"
  expect 0 "" "setup replaces the key while a prover reads it"
  wait "$pid"; local rc=$?
  (( rc == 0 )) && ok "the prover finished with the old key" || { bad "the prover failed (rc=$rc)"; cat "$T/.prove.out"; }
  run "$BIN" inspect --no-subgroup "$T/k.zkey"
  expect 0 "Groth16 proving key" "the new key is whole"
}
# A full disk: a small tmpfs where this user may mount one, else a file-size limit (EFBIG).
# with_small_disk TMPFS_KIB LIMIT_KIB: sets DISK and LIMIT (a prefix for the command).
with_small_disk() {
  DISK="$T/small"; mkdir -p "$DISK"; LIMIT=()
  if mount -t tmpfs -o "size=${1}k" tmpfs "$DISK" 2>/dev/null; then
    trap 'umount "$DISK" 2>/dev/null; rm -rf "$T"' EXIT
    echo "(a $1 KiB tmpfs)"
  else
    LIMIT=(bash -c 'trap "" XFSZ; ulimit -f "$0"; exec "$@"' "$2")
    echo "(no mount here: a $2 KiB file-size limit instead)"
  fi
}
case_disk_full_setup() {
  with_small_disk 24 8
  cp "$K" "$DISK/k.zkey" 2>/dev/null || true
  local before; before=$(ls -A "$DISK")
  run "${LIMIT[@]}" "$BIN" setup --dev "$R" "$DISK/new.zkey"
  expect_user_error "new.zkey: write failed .*(No space left|too large)" "setup onto a full disk"
  [[ ! -e "$DISK/new.zkey" ]] && ok "no partial key" || bad "a partial key was left"
  [[ "$(ls -A "$DISK")" == "$before" ]] && ok "no temporary left" || bad "left: $(ls -A "$DISK")"
}
case_disk_full_batch() {
  with_small_disk 12 0
  run "${LIMIT[@]}" "$BIN" prove -q --out-dir "$DISK/out" "$K" "$W" "$W" "$W" "$W" "$W" "$W" "$W" "$W" "$W" "$W" "$W" "$W" "$W" "$W" "$W" "$W" "$W" "$W" "$W" "$W" "$W" "$W" "$W" "$W"
  if [[ $RC == 0 ]]; then
    ok "every proof fit (the limit was not reached)"
  else
    expect_user_error "(No space left|too large|cannot create)" "a batch onto a full disk"
  fi
  local p; for p in "$DISK"/out/proof_*.json; do
    [[ -e "$p" ]] || continue
    verify "$FIX/chain.vkey.json" "${p/proof_/public_}" "$p" || bad "$p incomplete on the full disk"
  done
  [[ -z "$(ls -A "$DISK/out" 2>/dev/null | grep splitprove-)" ]] && ok "no temporary left" || bad "temporaries left"
}
case_racing_writers() {
  local i
  for i in 1 2 3; do
    "$BIN" prove -q "$K" "$W" "$T/proof.json" "$T/public.json" & local a=$!
    "$BIN" prove -q "$K" "$F/mixed.wtns" "$T/proof.json" "$T/public.json" 2>/dev/null & local b=$!
    "$BIN" prove -q "$K" "$W" "$T/proof.json" "$T/public.json" & local c=$!
    wait $a $b $c
    verify "$FIX/chain.vkey.json" "$T/public.json" "$T/proof.json" && ok "round $i: the proof and signals on disk belong together" || bad "round $i: a mixed pair"
  done
}
case_huge_synth_workers() {
  run --timeout 20 "$BIN" prove -q --synth-workers 100000 --out-dir "$T/out" "$K" "$W"
  expect_user_error "synthesis workers = 100000: at most [0-9]+ worker threads" "batch --synth-workers 100000"
  run --timeout 20 "$BIN" bench pipeline --synth-workers 100000 --size 2^6
  expect_user_error "synthesis workers = 100000: at most" "bench --synth-workers 100000"
  run --timeout 20 "$BIN" bench pipeline --sweep-pw 1,1000 --size 2^6 --out "$T/sweep"
  expect_user_error "synthesis workers = 1000: at most" "bench --sweep-pw 1,1000"
  # Half the most: it runs with the threads it asked for (and the other stages'), no more.
  local most; most=$(( $(grep -oE "at most [0-9]+" <<<"$OUT" | grep -oE "[0-9]+") / 2 ))
  threads_of "$BIN" prove -q --synth-workers "$most" --out-dir "$T/out" "$K" "$W" "$W"
  (( RC == 0 && THREADS <= 2 * most + 64 )) && ok "--synth-workers $most: rc=$RC, at most $THREADS threads" \
    || { bad "--synth-workers $most: rc=$RC, $THREADS threads"; tail -3 "$T/.thr.out"; }
  threads_of "$BIN" prove -q --out-dir "$T/out2" "$K" "$W" "$W" "$W" "$W" "$W" "$W" "$W" "$W" "$W" "$W" "$W" "$W"
  local cores; cores=$(nproc)
  (( RC == 0 && THREADS <= 4 * cores + 32 )) && ok "a batch of 12 with the defaults: at most $THREADS threads on $cores cores" \
    || bad "a batch of 12: rc=$RC, $THREADS threads on $cores cores"
}
case_huge_partitions_and_jobs() {
  run --timeout 20 "$BIN" bench pipeline --partitions 4294967295 --size 2^6
  expect_user_error "--partitions 4294967295: expected 1\.\." "bench --partitions 2^32-1"
  run --timeout 20 "$BIN" bench pipeline --jobs 100000 --size 2^6
  expect_user_error "--jobs 100000: expected 1\.\." "bench --jobs 100000"
  run --timeout 20 "$BIN" bench pipeline --gpu-queue 1000000 --size 2^6
  expect_user_error "bound 1000000 is more than" "bench --gpu-queue 10^6"
}
case_lying_r1cs_wires() {
  # nWires = 2^32 - 16 and no wire-to-label map: setup refuses with the numbers before allocating.
  python3 - "$R" "$T/lie.r1cs" <<'EOF'
import struct, sys
d = open(sys.argv[1], "rb").read()
n = struct.unpack_from("<I", d, 8)[0]; o = 12; secs = []
for _ in range(n):
    sid, size = struct.unpack_from("<IQ", d, o); secs.append([sid, bytearray(d[o + 12:o + 12 + size])]); o += 12 + size
out = bytearray(b"r1cs" + struct.pack("<II", 1, 0))
kept = [s for s in secs if s[0] != 3]
for sid, body in kept:
    if sid == 1:
        n8 = struct.unpack_from("<I", body, 0)[0]
        struct.pack_into("<I", body, 4 + n8, 0xFFFFFFF0)
    out += struct.pack("<IQ", sid, len(body)) + body
struct.pack_into("<I", out, 8, len(kept))
open(sys.argv[2], "wb").write(out)
EOF
  run --rss-mib 600 --timeout 30 "$BIN" setup --dev "$T/lie.r1cs" "$T/lie.zkey"
  expect_user_error "4294967280 wires .* need at least .* available" "setup: an r1cs header claiming 2^32 wires"
  [[ ! -e "$T/lie.zkey" ]] && ok "no key written" || bad "a key was written"
}
case_lying_wtns_count() {
  python3 - "$W" "$T/lie.wtns" <<'EOF'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
# section 1 payload: n8 (4), prime (n8), nWitness (4)
n8 = struct.unpack_from("<I", d, 12 + 12)[0]
struct.pack_into("<I", d, 12 + 12 + 4 + n8, 0x7FFFFFFF)
open(sys.argv[2], "wb").write(d)
EOF
  run --rss-mib 600 "$BIN" prove "$K" "$T/lie.wtns" "$T/proof.json" "$T/public.json"
  expect_user_error "lie.wtns" "prove: a witness header claiming 2^31 values"
}
case_lying_zkey_domain() {
  python3 - "$K" "$T/lie.zkey" <<'EOF'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
n = struct.unpack_from("<I", d, 8)[0]; o = 12
for _ in range(n):
    sid, size = struct.unpack_from("<IQ", d, o)
    if sid == 2:  # groth16 header: n8q, q, n8r, r, nVars, nPublic, domainSize
        p = o + 12; n8q = struct.unpack_from("<I", d, p)[0]; p += 4 + n8q
        n8r = struct.unpack_from("<I", d, p)[0]; p += 4 + n8r
        struct.pack_into("<I", d, p + 8, 1 << 30)
    o += 12 + size
open(sys.argv[2], "wb").write(d)
EOF
  run --rss-mib 600 "$BIN" prove "$K" "$W" "$T/proof.json" "$T/public.json"
  expect 0 "" "(the honest key proves)"
  rm -f "$T"/proof.json "$T"/public.json
  run --rss-mib 600 "$BIN" prove "$T/lie.zkey" "$W" "$T/proof.json" "$T/public.json"
  expect_user_error "lie.zkey" "prove: a key header claiming a 2^30 domain"
}
case_mem_report_dev_zero() {
  run --rss-mib 600 --timeout 20 "$BIN" mem report /dev/zero
  expect_user_error "/dev/zero: not a regular file" "mem report /dev/zero"
}
case_mem_report_endless_pipe() {
  run --rss-mib 1500 --timeout 60 bash -c "yes 'sample,1,,1,1,1' | '$BIN' mem report /dev/stdin"
  expect_user_error "more than the [0-9]+ bytes" "mem report of an endless pipe"
}
case_huge_json_input() {
  truncate -s 300M "$T/public.json"
  run --rss-mib 600 --timeout 20 "$BIN" verify "$FIX/chain.vkey.json" "$T/public.json" "$F/chain.proof.json"
  expect_user_error "public.json: [0-9]+ bytes, more than the" "verify: a 300 MB public.json"
  rm "$T/public.json"
}
case_mem_report_verdict_is_the_exit_status() {
  run "$BIN" mem report "$FIX/demo/timeline.csv"
  expect 0 "bounded" "mem report of a bounded run: rc 0"
  # The same run with RSS that never comes back: 200 MiB more in the last third of the samples.
  python3 - "$FIX/demo/timeline.csv" "$T/leak.csv" <<'EOF'
import sys
rows = open(sys.argv[1]).read().splitlines()
samples = [i for i, r in enumerate(rows) if r.startswith("sample,")]
for i in samples[len(samples) * 2 // 3:]:
    f = rows[i].split(","); f[3] = str(int(f[3]) + (200 << 20)); rows[i] = ",".join(f)
open(sys.argv[2], "w").write("\n".join(rows) + "\n")
EOF
  run "$BIN" mem report "$T/leak.csv"
  expect 3 "check failed: .*leak.csv: verdict (leak|accumulation)" "mem report of a leak: rc 3"
}
case_unknown_subcommand() {
  run "$BIN" frobnicate
  if [[ $RC -ne 0 ]] && grep -q "frobnicate" <<<"$OUT"; then ok "an unknown subcommand is named (rc=$RC)"; else bad "unknown subcommand: rc=$RC $OUT"; fi
}

# ---- driver -------------------------------------------------------------------------------------
if [[ "$CASE" == --list ]]; then
  declare -F | awk '{print $3}' | sed -n 's/^case_//p'
  exit 0
fi
if [[ "$CASE" == fixture ]]; then make_fixture; fi
trap 'rm -rf "$T"' EXIT
if ! declare -F "case_$CASE" >/dev/null; then echo "unknown case $CASE"; exit 2; fi
if [[ ! -f "$FIX/big.zkey" ]]; then echo "no fixture in $FIX (run the fixture step first)"; exit 2; fi
before="$(inputs_snapshot)"
"case_$CASE"
check_outputs
if [[ "$(inputs_snapshot)" != "$before" ]]; then bad "an input changed"; diff <(echo "$before") <(inputs_snapshot); fi
if (( fails )); then echo "hostile/$CASE: $fails failure(s)"; exit 1; fi
echo "hostile/$CASE: ok"
