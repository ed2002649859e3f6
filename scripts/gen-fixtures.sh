#!/usr/bin/env bash
# Regenerates tests/fixtures/ with the pinned circom (circom2, WebAssembly build) and snarkjs from
# package.json: compiles tests/circuits/*.circom for BLS12-381, runs a small powers-of-tau
# ceremony (2^8, enough for circuits of up to 2^8 - nPublic - 1 constraints), a Groth16 setup and
# one phase-2 contribution per circuit, computes the witnesses, proves and verifies with snarkjs.
#
# The outputs are committed, so CI never runs this (the ceremony takes ~15 s per 2^8 on one core).
# They are not reproducible byte for byte: snarkjs mixes OS randomness into every contribution and
# proof. Tests therefore check invariants (pairing equation, A·B = C, round trips), never hashes.
#
#   scripts/gen-fixtures.sh            # writes tests/fixtures/
#   KEEP=1 scripts/gen-fixtures.sh     # also keeps the work directory (ptau, wasm) and prints it
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
if [[ ! -x node_modules/.bin/snarkjs || ! -x node_modules/.bin/circom2 ]]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
snarkjs="$root/node_modules/.bin/snarkjs"
circom="$root/node_modules/.bin/circom2"
out="$root/tests/fixtures"
work="$(mktemp -d)"
if [[ -z "${KEEP:-}" ]]; then trap 'rm -rf "$work"' EXIT; else echo "work directory: $work"; fi
quiet() { "$@" >"$work/log.txt" 2>&1 || { cat "$work/log.txt"; exit 1; }; }

echo "powers of tau (bls12381, 2^8)"
quiet "$snarkjs" powersoftau new bls12381 8 "$work/pot_0000.ptau"
quiet "$snarkjs" powersoftau contribute "$work/pot_0000.ptau" "$work/pot_0001.ptau" \
  --name="splitprove fixtures" -e="splitprove fixture ceremony"
quiet "$snarkjs" powersoftau prepare phase2 "$work/pot_0001.ptau" "$work/pot.ptau"

# name  circom-optimisation  input
circuits=(
  "multiplier --O2 {\"a\":\"3\",\"b\":\"11\"}"
  # out2 = 7x + 2y - z = -10: a public signal near r; --O0 keeps the linear constraints.
  "mixed --O0 {\"x\":\"2\",\"y\":\"3\",\"z\":\"30\",\"s\":\"4\"}"
  # 100 squarings: the values wrap around r after a few steps (full-size field elements).
  "chain --O2 {\"x0\":\"1\",\"c\":\"2\"}"
)

rm -rf "$out"
mkdir -p "$out"
for entry in "${circuits[@]}"; do
  read -r name opt input <<<"$entry"
  echo "circuit $name ($opt)"
  quiet "$circom" "tests/circuits/$name.circom" --r1cs --wasm --prime bls12381 "$opt" -o "$work"
  printf '%s\n' "$input" >"$out/$name.input.json"
  cp "$work/$name.r1cs" "$out/$name.r1cs"
  # _0000: straight from `groth16 setup` (no contribution: delta = generator, empty transcript);
  # the plain name: after one contribution, the key the proof is made with.
  quiet "$snarkjs" groth16 setup "$out/$name.r1cs" "$work/pot.ptau" "$out/${name}_0000.zkey"
  quiet "$snarkjs" zkey contribute "$out/${name}_0000.zkey" "$out/$name.zkey" \
    --name="splitprove fixture" -e="splitprove fixture $name"
  quiet "$snarkjs" zkey verify "$out/$name.r1cs" "$work/pot.ptau" "$out/$name.zkey"
  quiet "$snarkjs" wtns calculate "$work/${name}_js/$name.wasm" "$out/$name.input.json" "$out/$name.wtns"
  quiet "$snarkjs" wtns check "$out/$name.r1cs" "$out/$name.wtns"
  quiet "$snarkjs" groth16 prove "$out/$name.zkey" "$out/$name.wtns" "$out/$name.proof.json" \
    "$out/$name.public.json"
  quiet "$snarkjs" zkey export verificationkey "$out/$name.zkey" "$out/$name.vkey.json"
  quiet "$snarkjs" groth16 verify "$out/$name.vkey.json" "$out/$name.public.json" "$out/$name.proof.json"
done

# The multiplier's fresh key exports a vkey too (delta_2 = gamma_2 = generator), for the JSON tests.
quiet "$snarkjs" zkey export verificationkey "$out/multiplier_0000.zkey" "$out/multiplier_0000.vkey.json"
du -cb "$out"/* | tail -1 | awk '{printf "fixtures: %d bytes\n", $1}'
