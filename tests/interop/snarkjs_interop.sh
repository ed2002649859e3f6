#!/usr/bin/env bash
# Interop with snarkjs in both directions, through the command line (run by ctest), for every
# curve's fixtures (BLS12-381: tests/fixtures, BN254 "bn128": tests/fixtures/bn128):
#   our proofs -> snarkjs verifies; snarkjs's proofs -> we verify; our development keys -> snarkjs
#   proves with them and exports the same vkey; tampered proofs, wrong public inputs and
#   unsatisfying witnesses are rejected by both; bad files give one clear line and exit code 1;
#   files of two curves mixed in one command are an error naming both files.
# Usage: snarkjs_interop.sh <splitprove binary> <source dir>
set -uo pipefail
BIN="$1"
SRC="$2"
SNARKJS="$SRC/node_modules/.bin/snarkjs"
if [[ ! -x "$SNARKJS" ]]; then
  echo "SKIP: snarkjs is not installed (run scripts/setup.sh, which runs npm ci)"
  exit 77
fi
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
sj_verify() { "$SNARKJS" groth16 verify "$@" 2>&1 | tee "$T/sj" | grep -q "OK!"; }
# node one-liners to corrupt files (node is what snarkjs needs anyway)
edit_json() { node -e "const fs=require('fs');const j=JSON.parse(fs.readFileSync('$1'));$2;fs.writeFileSync('$3',JSON.stringify(j,null,1))"; }

run_curve() {
F="$1"
CURVE="[$2] "
for c in multiplier mixed chain; do
  expect_ok "$c: splitprove prove" "$BIN" prove -q "$F/$c.zkey" "$F/$c.wtns" "$T/$c.proof.json" "$T/$c.public.json"
  expect_ok "$c: snarkjs verifies our proof" sj_verify "$F/$c.vkey.json" "$T/$c.public.json" "$T/$c.proof.json"
  expect_ok "$c: our public.json equals snarkjs's" cmp "$T/$c.public.json" "$F/$c.public.json"
  expect_ok "$c: we verify snarkjs's proof" "$BIN" verify "$F/$c.vkey.json" "$F/$c.public.json" "$F/$c.proof.json"
  expect_ok "$c: vkey export equals snarkjs's" bash -c "'$BIN' zkey export-vkey '$F/$c.zkey' '$T/$c.vk.json' && cmp '$T/$c.vk.json' '$F/$c.vkey.json'"
  # Tampered proof: pi_a replaced by pi_c (a valid curve point, wrong proof).
  edit_json "$T/$c.proof.json" "j.pi_a=j.pi_c" "$T/$c.bad.json"
  expect_reject "$c: we reject a tampered proof" "$BIN" verify "$F/$c.vkey.json" "$T/$c.public.json" "$T/$c.bad.json"
  expect_reject "$c: snarkjs rejects it too" sj_verify "$F/$c.vkey.json" "$T/$c.public.json" "$T/$c.bad.json"
  # Wrong public input.
  edit_json "$T/$c.public.json" "j[0]=(BigInt(j[0])+1n).toString()" "$T/$c.badpub.json"
  expect_reject "$c: we reject a wrong public input" "$BIN" verify "$F/$c.vkey.json" "$T/$c.badpub.json" "$T/$c.proof.json"
  expect_reject "$c: snarkjs rejects it too" sj_verify "$F/$c.vkey.json" "$T/$c.badpub.json" "$T/$c.proof.json"
done

# Unsatisfying witness: flip the low byte of the last witness value (an internal wire).
node -e "const fs=require('fs');const b=fs.readFileSync('$F/chain.wtns');b[b.length-32]^=1;fs.writeFileSync('$T/bad.wtns',b)"
expect_reject "unsatisfying witness: check names the constraint" "$BIN" check "$F/chain.r1cs" "$T/bad.wtns"
grep -q "constraint" "$T/out" || fail "check message names no constraint"
expect_reject "unsatisfying witness: prove refuses to release a proof" "$BIN" prove "$F/chain.zkey" "$T/bad.wtns" "$T/x.json" "$T/y.json"
expect_ok "satisfying witness: check passes" "$BIN" check "$F/chain.r1cs" "$F/chain.wtns"

# Development setup: snarkjs proves with our key; we prove and snarkjs verifies; same vkey.
expect_ok "setup --dev chain.r1cs" "$BIN" setup --dev "$F/chain.r1cs" "$T/dev.zkey"
expect_ok "export-vkey of the dev key" "$BIN" zkey export-vkey "$T/dev.zkey" "$T/dev.vk.json"
expect_ok "snarkjs exports the same vkey from our key" bash -c "'$SNARKJS' zkey export verificationkey '$T/dev.zkey' '$T/dev.sjvk.json' >/dev/null && cmp '$T/dev.sjvk.json' '$T/dev.vk.json'"
expect_ok "snarkjs proves with our key" "$SNARKJS" groth16 prove "$T/dev.zkey" "$F/chain.wtns" "$T/sj.proof.json" "$T/sj.public.json"
expect_ok "we verify snarkjs's proof on our key" "$BIN" verify "$T/dev.vk.json" "$T/sj.public.json" "$T/sj.proof.json"
expect_ok "we prove with our key" "$BIN" prove -q "$T/dev.zkey" "$F/chain.wtns" "$T/d.proof.json" "$T/d.public.json"
expect_ok "snarkjs verifies it" sj_verify "$T/dev.vk.json" "$T/d.public.json" "$T/d.proof.json"
expect_reject "a proof for the snarkjs key fails on the dev key" "$BIN" verify "$T/dev.vk.json" "$F/chain.public.json" "$F/chain.proof.json"

# Bad files: each gets a clean error, never a crash.
head -c 1000 "$F/chain.zkey" >"$T/trunc.zkey"
expect_reject "truncated .zkey" "$BIN" prove "$T/trunc.zkey" "$F/chain.wtns" "$T/x.json" "$T/y.json"
node -e "const fs=require('fs');const b=fs.readFileSync('$F/chain.zkey');b.write('zkez',0);fs.writeFileSync('$T/magic.zkey',b)"
expect_reject "wrong magic" "$BIN" prove "$T/magic.zkey" "$F/chain.wtns" "$T/x.json" "$T/y.json"
expect_reject "witness of another circuit" "$BIN" prove "$F/chain.zkey" "$F/mixed.wtns" "$T/x.json" "$T/y.json"
expect_reject "missing file" "$BIN" prove "$T/none.zkey" "$F/chain.wtns" "$T/x.json" "$T/y.json"
edit_json "$F/chain.proof.json" "j.pi_a[1]='12x'" "$T/nan.json"
expect_reject "proof.json with a non-number" "$BIN" verify "$F/chain.vkey.json" "$F/chain.public.json" "$T/nan.json"
edit_json "$F/chain.proof.json" "j.pi_a[1]=(BigInt(j.pi_a[1])+1n).toString()" "$T/offcurve.json"
expect_reject "proof point off the curve" "$BIN" verify "$F/chain.vkey.json" "$F/chain.public.json" "$T/offcurve.json"
}

run_curve "$SRC/tests/fixtures" bls12381
run_curve "$SRC/tests/fixtures/bn128" bn128

# The curve comes from the files; two curves in one command are a clear error naming both files.
CURVE="[mixed] "
B="$SRC/tests/fixtures"
N="$SRC/tests/fixtures/bn128"
expect_reject "bn128 key with a bls12381 witness" "$BIN" prove "$N/chain.zkey" "$B/chain.wtns" "$T/x.json" "$T/y.json"
grep -q "BN254" "$T/out" && grep -q "BLS12-381" "$T/out" && grep -q "$N/chain.zkey" "$T/out" && grep -q "$B/chain.wtns" "$T/out" \
  || fail "the mismatch message names both files and both curves"
expect_reject "bls12381 key with a bn128 witness" "$BIN" prove "$B/chain.zkey" "$N/chain.wtns" "$T/x.json" "$T/y.json"
expect_reject "bn128 vkey with a bls12381 proof" "$BIN" verify "$N/chain.vkey.json" "$N/chain.public.json" "$B/chain.proof.json"
expect_reject "bn128 circuit with a bls12381 witness" "$BIN" check "$N/chain.r1cs" "$B/chain.wtns"
expect_reject "bls12381 proof for a bn128 vkey, public.json of the bls circuit" "$BIN" verify "$N/chain.vkey.json" "$B/chain.public.json" "$B/chain.proof.json"

echo "$fails failure(s)"
[[ $fails -eq 0 ]]
