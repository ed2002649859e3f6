#!/usr/bin/env bash
# `splitprove prove --out-dir DIR key.zkey w1.wtns ...` (a batch through the pipeline engine) for
# every curve's circom fixtures (BLS12-381: tests/fixtures, BN254 "bn128": tests/fixtures/bn128),
# the curve read from the key: every proof written verifies with snarkjs's verification key
# through `splitprove verify` (and through snarkjs itself where it is installed); a witness that
# does not satisfy the circuit fails only itself (named by file, with the constraint; rc 1) while
# the good witnesses' proofs are written and verify; --fail-fast stops at the first failure; a
# rerun keeps proofs that exist and verify; a witness of the other curve is a clear error naming
# both files and both curves.
# Usage: prove_batch.sh <splitprove binary> <source dir>
set -uo pipefail
BIN="$1"
SRC="$2"
SNARKJS="$SRC/node_modules/.bin/snarkjs"
T="$(mktemp -d)"
trap 'rm -rf "$T"' EXIT
fails=0
CURVE=""
pass() { echo "ok   $CURVE$*"; }
fail() { echo "FAIL $CURVE$*"; fails=$((fails + 1)); }
expect_ok() { local what="$1"; shift; if "$@" >"$T/out" 2>&1; then pass "$what"; else fail "$what"; cat "$T/out"; fi; }
# A rejection must be a clean exit code 1 (an error line), never a crash (signal: >= 128).
expect_reject() {
  local what="$1"; shift
  "$@" >"$T/out" 2>&1; local rc=$?
  if [[ $rc -ne 0 && $rc -lt 128 ]]; then pass "$what (rc=$rc: $(tail -n1 "$T/out" | cut -c1-110))"; else fail "$what (rc=$rc)"; cat "$T/out"; fi
}
# Copies $1 to $2 with the byte at offset (size - 32) flipped: the low byte of the last witness
# value (an internal wire of the chain circuit).
flip_last_value() {
  cp "$1" "$2"
  local off=$(( $(stat -c %s "$1") - 32 ))
  local b; b=$(od -An -tu1 -j "$off" -N1 "$1" | tr -d ' ')
  printf "$(printf '\\%03o' $(( b ^ 1 )))" | dd of="$2" bs=1 seek="$off" conv=notrunc status=none
}

run_curve() {
  local F="$1" D="$T/$2"
  CURVE="[$2] "
  expect_ok "batch of 3 chain witnesses through the engine" \
    "$BIN" prove -q --out-dir "$D" "$F/chain.zkey" "$F/chain.wtns" "$F/chain.wtns" "$F/chain.wtns"
  for i in 0 1 2; do
    expect_ok "proof $i verifies with snarkjs's vkey" "$BIN" verify "$F/chain.vkey.json" "$D/public_$i.json" "$D/proof_$i.json"
  done
  expect_ok "public_0.json equals snarkjs's" cmp "$D/public_0.json" "$F/chain.public.json"
  if cmp -s "$D/proof_0.json" "$D/proof_1.json"; then fail "two proofs of one witness are equal (no fresh randomness)"; else pass "fresh randomness per partition"; fi
  if [[ -x "$SNARKJS" ]]; then
    expect_ok "snarkjs verifies proof 0" bash -c "'$SNARKJS' groth16 verify '$F/chain.vkey.json' '$D/public_0.json' '$D/proof_0.json' | grep -q OK!"
  else
    echo "skip $CURVE snarkjs verification (snarkjs is not installed)"
  fi
  expect_ok "with --r1cs" "$BIN" prove -q --out-dir "$D.r" --r1cs "$F/chain.r1cs" "$F/chain.zkey" "$F/chain.wtns"
  flip_last_value "$F/chain.wtns" "$T/$2.bad.wtns"
  expect_reject "an unsatisfying witness fails the batch" \
    "$BIN" prove -q --out-dir "$D.bad" --r1cs "$F/chain.r1cs" "$F/chain.zkey" "$F/chain.wtns" "$T/$2.bad.wtns" "$F/chain.wtns"
  grep -q "$T/$2.bad.wtns" "$T/out" && grep -q "constraint" "$T/out" || fail "the message names the witness file and the constraint"
  [[ -e "$D.bad/proof_0.json" && -e "$D.bad/proof_2.json" && ! -e "$D.bad/proof_1.json" && ! -e "$D.bad/public_1.json" ]] \
    && pass "the good witnesses' proofs are written, the bad one's not" || { fail "outputs of a batch with one bad witness"; ls "$D.bad"; }
  expect_ok "the good proofs of a failed batch verify" "$BIN" verify "$F/chain.vkey.json" "$D.bad/public_2.json" "$D.bad/proof_2.json"
  [[ -z "$(find "$D.bad" -name '*.tmp')" ]] && pass "no temporary files left" || fail "temporary files left in $D.bad"
  local before; before=$(sha256sum "$D.bad/proof_0.json")
  expect_ok "a rerun proves only what is missing" "$BIN" prove -q --out-dir "$D.bad" "$F/chain.zkey" "$F/chain.wtns" "$F/chain.wtns" "$F/chain.wtns"
  [[ "$(sha256sum "$D.bad/proof_0.json")" == "$before" ]] && pass "a rerun keeps a proof that verifies" || fail "a rerun rewrote a good proof"
  expect_ok "the rerun's new proof verifies" "$BIN" verify "$F/chain.vkey.json" "$D.bad/public_1.json" "$D.bad/proof_1.json"
  expect_reject "--fail-fast stops at the first failure" \
    "$BIN" prove -q --fail-fast --out-dir "$D.ff" --r1cs "$F/chain.r1cs" "$F/chain.zkey" "$T/$2.bad.wtns" "$F/chain.wtns" "$F/chain.wtns" "$F/chain.wtns" "$F/chain.wtns" "$F/chain.wtns" "$F/chain.wtns" "$F/chain.wtns" "$F/chain.wtns" "$F/chain.wtns" "$F/chain.wtns" "$F/chain.wtns" "$F/chain.wtns" "$F/chain.wtns" "$F/chain.wtns" "$F/chain.wtns"
  [[ $(find "$D.ff" -name 'proof_*.json' | wc -l) -lt 15 ]] && pass "--fail-fast left later witnesses unproved" || fail "--fail-fast proved every witness"
  expect_reject "without --r1cs: caught by verification" \
    "$BIN" prove -q --out-dir "$D.bad2" "$F/chain.zkey" "$T/$2.bad.wtns"
  grep -q "does not verify" "$T/out" || fail "the message says the proof does not verify"
}

run_curve "$SRC/tests/fixtures" bls12381
run_curve "$SRC/tests/fixtures/bn128" bn128

CURVE="[mixed] "
B="$SRC/tests/fixtures"
N="$SRC/tests/fixtures/bn128"
expect_reject "a bn128 witness with a bls12381 key" "$BIN" prove --out-dir "$T/m" "$B/chain.zkey" "$B/chain.wtns" "$N/chain.wtns"
grep -q "BN254" "$T/out" && grep -q "BLS12-381" "$T/out" && grep -q "$N/chain.wtns" "$T/out" && grep -q "$B/chain.zkey" "$T/out" \
  || fail "the mismatch message names both files and both curves"
expect_reject "a bls12381 witness with a bn128 key" "$BIN" prove --out-dir "$T/m" "$N/chain.zkey" "$B/chain.wtns"
expect_reject "a bls12381 circuit with a bn128 key" "$BIN" prove --out-dir "$T/m" --r1cs "$B/chain.r1cs" "$N/chain.zkey" "$N/chain.wtns"

echo "$fails failure(s)"
[[ $fails -eq 0 ]]
