#!/usr/bin/env bash
# Interop in the other direction: what splitprove *writes* must be accepted by snarkjs (0.7.6,
# pinned in package.json). For each fixture circuit:
#   1. `splitprove inspect --rewrite` writes the contributed .zkey back with our writer (zero
#      contributions in section 10, delta kept): snarkjs proves with it, exports the same
#      verification key as from its own file, and its proof verifies;
#   2. our rewritten proof.json / public.json / verification_key.json are byte-identical to
#      snarkjs's and `snarkjs groth16 verify` accepts them;
#   3. our rewritten fresh (_0000) key is byte-identical to `snarkjs groth16 setup`'s.
# Needs node_modules (npm ci) and a built CLI: BUILD=build (default) or any build directory.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
build="${BUILD:-build}"
cli="$root/$build/splitprove"
[[ -x "$cli" ]] || { echo "interop-io: build the CLI first ($cli)"; exit 1; }
[[ -x node_modules/.bin/snarkjs ]] || npm ci --no-audit --no-fund --loglevel=error
snarkjs="$root/node_modules/.bin/snarkjs"
fx="$root/tests/fixtures"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail=0
check() {  # name, command...
  local name="$1"; shift
  if "$@" >"$work/log" 2>&1; then echo "  ok   $name"; else echo "  FAIL $name"; cat "$work/log"; fail=1; fi
}
for c in multiplier mixed chain; do
  echo "$c"
  check "inspect (all files, cross-checks)" "$cli" inspect "$fx/$c.r1cs" "$fx/$c.wtns" "$fx/$c.zkey" \
    "$fx/$c.proof.json" "$fx/$c.public.json" "$fx/$c.vkey.json"
  check "rewrite zkey" "$cli" inspect "$fx/$c.zkey" --rewrite "$work/$c.zkey"
  check "snarkjs exports the same vkey from our zkey" \
    bash -c "'$snarkjs' zkey export verificationkey '$work/$c.zkey' '$work/$c.vkey.json' && cmp '$work/$c.vkey.json' '$fx/$c.vkey.json'"
  check "snarkjs proves with our zkey" \
    "$snarkjs" groth16 prove "$work/$c.zkey" "$fx/$c.wtns" "$work/$c.proof.json" "$work/$c.public.json"
  check "snarkjs verifies that proof" \
    "$snarkjs" groth16 verify "$fx/$c.vkey.json" "$work/$c.public.json" "$work/$c.proof.json"
  for j in proof public vkey; do
    check "rewrite $j.json byte-identical" \
      bash -c "'$cli' inspect '$fx/$c.$j.json' --rewrite '$work/$c.our.$j.json' && cmp '$work/$c.our.$j.json' '$fx/$c.$j.json'"
  done
  check "snarkjs verifies our JSON files" \
    "$snarkjs" groth16 verify "$work/$c.our.vkey.json" "$work/$c.our.public.json" "$work/$c.our.proof.json"
  check "rewrite fresh zkey byte-identical" \
    bash -c "'$cli' inspect '$fx/${c}_0000.zkey' --rewrite '$work/${c}_0000.zkey' && cmp '$work/${c}_0000.zkey' '$fx/${c}_0000.zkey'"
done
exit $fail
