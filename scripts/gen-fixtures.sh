#!/usr/bin/env bash
# Regenerates the fixtures with the pinned circom (circom2, WebAssembly build) and snarkjs from
# package.json: compiles tests/circuits/*.circom for each curve (BLS12-381 into tests/fixtures/,
# BN254 -- circom's default prime, snarkjs's "bn128" -- into tests/fixtures/bn128/), runs a small
# powers-of-tau ceremony (2^8, enough for circuits of up to 2^8 - nPublic - 1 constraints), a
# Groth16 setup and one phase-2 contribution per circuit, computes the witnesses, proves and
# verifies with snarkjs.
#
# The outputs are committed, so CI never runs this (the ceremony takes ~15 s per 2^8 on one core).
# They are not reproducible byte for byte: snarkjs mixes OS randomness into every contribution and
# proof. Tests therefore check invariants (pairing equation, A·B = C, round trips), never hashes.
#
#   scripts/gen-fixtures.sh                 # both curves
#   CURVES=bn128 scripts/gen-fixtures.sh    # one curve (bls12381 or bn128)
#   KEEP=1 scripts/gen-fixtures.sh          # also keeps the work directory (ptau, wasm) and prints it
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
if [[ ! -x node_modules/.bin/snarkjs || ! -x node_modules/.bin/circom2 ]]; then
  npm ci --no-audit --no-fund --loglevel=error
fi
snarkjs="$root/node_modules/.bin/snarkjs"
circom="$root/node_modules/.bin/circom2"
work="$(mktemp -d)"
if [[ -z "${KEEP:-}" ]]; then trap 'rm -rf "$work"' EXIT; else echo "work directory: $work"; fi
quiet() { "$@" >"$work/log.txt" 2>&1 || { cat "$work/log.txt"; exit 1; }; }

# name  circom-optimisation  input
circuits=(
  "multiplier --O2 {\"a\":\"3\",\"b\":\"11\"}"
  # out2 = 7x + 2y - z = -10: a public signal near r; --O0 keeps the linear constraints.
  "mixed --O0 {\"x\":\"2\",\"y\":\"3\",\"z\":\"30\",\"s\":\"4\"}"
  # 100 squarings: the values wrap around r after a few steps (full-size field elements).
  "chain --O2 {\"x0\":\"1\",\"c\":\"2\"}"
)

gen_curve() {
  local curve="$1" out="$2"
  mkdir -p "$work/$curve"
  echo "powers of tau ($curve, 2^8)"
  quiet "$snarkjs" powersoftau new "$curve" 8 "$work/pot_${curve}_0000.ptau"
  quiet "$snarkjs" powersoftau contribute "$work/pot_${curve}_0000.ptau" "$work/pot_${curve}_0001.ptau" \
    --name="splitprove fixtures" -e="splitprove fixture ceremony"
  quiet "$snarkjs" powersoftau prepare phase2 "$work/pot_${curve}_0001.ptau" "$work/pot_$curve.ptau"

  mkdir -p "$out"
  # Files only: tests/fixtures/ holds the other curve's directory.
  find "$out" -maxdepth 1 -type f -delete
  for entry in "${circuits[@]}"; do
    read -r name opt input <<<"$entry"
    echo "circuit $name ($opt)"
    quiet "$circom" "tests/circuits/$name.circom" --r1cs --wasm --prime "$curve" "$opt" -o "$work/$curve"
    printf '%s\n' "$input" >"$out/$name.input.json"
    cp "$work/$curve/$name.r1cs" "$out/$name.r1cs"
    # _0000: straight from `groth16 setup` (no contribution: delta = generator, empty transcript);
    # the plain name: after one contribution, the key the proof is made with.
    quiet "$snarkjs" groth16 setup "$out/$name.r1cs" "$work/pot_$curve.ptau" "$out/${name}_0000.zkey"
    quiet "$snarkjs" zkey contribute "$out/${name}_0000.zkey" "$out/$name.zkey" \
      --name="splitprove fixture" -e="splitprove fixture $name"
    quiet "$snarkjs" zkey verify "$out/$name.r1cs" "$work/pot_$curve.ptau" "$out/$name.zkey"
    quiet "$snarkjs" wtns calculate "$work/$curve/${name}_js/$name.wasm" "$out/$name.input.json" "$out/$name.wtns"
    quiet "$snarkjs" wtns check "$out/$name.r1cs" "$out/$name.wtns"
    quiet "$snarkjs" groth16 prove "$out/$name.zkey" "$out/$name.wtns" "$out/$name.proof.json" \
      "$out/$name.public.json"
    quiet "$snarkjs" zkey export verificationkey "$out/$name.zkey" "$out/$name.vkey.json"
    quiet "$snarkjs" groth16 verify "$out/$name.vkey.json" "$out/$name.public.json" "$out/$name.proof.json"
  done

  # The multiplier's fresh key exports a vkey too (delta_2 = gamma_2 = generator), for the JSON tests.
  quiet "$snarkjs" zkey export verificationkey "$out/multiplier_0000.zkey" "$out/multiplier_0000.vkey.json"
  find "$out" -maxdepth 1 -type f -print0 | du -cb --files0-from=- | tail -1 | awk -v d="$out" '{printf "%s: %d bytes\n", d, $1}'
}

for curve in ${CURVES:-bls12381 bn128}; do
  case "$curve" in
    bls12381) gen_curve bls12381 "$root/tests/fixtures" ;;
    bn128) gen_curve bn128 "$root/tests/fixtures/bn128" ;;
    *) echo "gen-fixtures: unknown curve $curve (bls12381 or bn128)" >&2; exit 2 ;;
  esac
done
