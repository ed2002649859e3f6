#!/usr/bin/env bash
# Groth16 proving time and peak RSS: splitprove vs snarkjs, same machine, same run, same files.
# For each size 2^k a chain circuit (x_{i+1} = x_i^2 + x_i + c, N = 2^k - 3 constraints so the
# QAP domain is exactly 2^k) is compiled with circom2 for the curve CURVE (bls12381, the default,
# or bn128: BN254, circom's default prime), its witness computed by
# snarkjs, a key made by `splitprove setup --dev` (snarkjs's own ceremony is far too slow at
# these sizes; the key is a standard .zkey that both provers read), then each prover runs
# REPS times on it; medians are reported (every run's figures in OUT/runs.txt). Both provers use every core. GEN=python writes the same
# circuit and witness with bench/chain_circuit.py instead of circom and snarkjs (seconds instead
# of ~30 min of circom at 2^20; the same key matrices and the same witness bytes).
#
#   bench/groth16_vs_snarkjs.sh [k ...]   (default: 10 12 14 16)   REPS=3 OUT=dir CURVE=bn128 GEN=python
#   (OUT defaults to bench/out/groth16-CURVE-DATE, ignored by git: bench/RESULTS.md cites the command)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BIN="${BIN:-$root/build/splitprove}"
SNARKJS="$root/node_modules/.bin/snarkjs"
CIRCOM="$root/node_modules/.bin/circom2"
REPS="${REPS:-3}"
GEN="${GEN:-circom}"
CURVE="${CURVE:-bls12381}"
case "$CURVE" in
  bls12381) CURVE_NAME="BLS12-381" ;;
  bn128) CURVE_NAME="BN254 (bn128)" ;;
  *) echo "groth16_vs_snarkjs: CURVE must be bls12381 or bn128" >&2; exit 2 ;;
esac
OUT="${OUT:-$root/bench/out/groth16-$CURVE-$(date +%Y%m%d)}"
SIZES=("${@:-10 12 14 16}")
read -r -a SIZES <<<"${SIZES[*]}"
mkdir -p "$OUT"
: >"$OUT/runs.txt"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2) ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2}'; }
# Runs a command REPS times; prints "median_seconds median_peak_rss_kib median_cpu_seconds"
# (CPU = user + system time of all threads: on a shared machine, wall time also counts the time the
# threads waited for a core).
measure() {
  local t="$work/times"
  : >"$t"
  for _ in $(seq "$REPS"); do
    /usr/bin/time -f "%e %M %U %S" -o "$work/one" "$@" >/dev/null 2>"$work/err" || { cat "$work/err"; exit 1; }
    awk '{print $1, $2, $3 + $4}' "$work/one" >>"$t"
    # Every run, for the record: label, wall s, peak RSS KiB, CPU s.
    echo "$RUN_LABEL $(awk '{print $1, $2, $3 + $4}' "$work/one")" >>"$OUT/runs.txt"
  done
  echo "$(cut -d' ' -f1 "$t" | median) $(cut -d' ' -f2 "$t" | median) $(cut -d' ' -f3 "$t" | median)"
}

{
  echo "# Groth16 prove, $CURVE_NAME: splitprove vs snarkjs"
  echo
  echo "date: $(date -u +%Y-%m-%dT%H:%MZ); machine: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(nproc) cores, $(free -g | awk '/Mem/{print $2}') GiB"
  echo "circuits: $GEN"
  echo "snarkjs $(node -e "console.log(require('$root/node_modules/snarkjs/package.json').version)"), node $(node --version); splitprove $(git -C "$root" rev-parse --short HEAD); reps: $REPS (median)"
  echo
  echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  echo "| constraints | splitprove s | snarkjs s | ratio | splitprove CPU s | snarkjs CPU s | CPU ratio | splitprove peak RSS MiB | snarkjs peak RSS MiB |"
  echo "|---|---|---|---|---|---|---|---|---|"
} | tee "$OUT/table.md"

for k in "${SIZES[@]}"; do
  n=$(( (1 << k) - 3 ))
  if [ "$GEN" = python ]; then
    python3 "$root/bench/chain_circuit.py" "$CURVE" "$k" "$work/chain$k"
    mv "$work/chain$k.wtns" "$work/w$k.wtns"
  else
    sed "s/Chain(100)/Chain($n)/" "$root/tests/circuits/chain.circom" >"$work/chain$k.circom"
    "$CIRCOM" "$work/chain$k.circom" --r1cs --wasm --prime "$CURVE" --O2 -o "$work" >/dev/null
    echo '{"x0":"3","c":"5"}' >"$work/in.json"
    "$SNARKJS" wtns calculate "$work/chain${k}_js/chain$k.wasm" "$work/in.json" "$work/w$k.wtns" >/dev/null
  fi
  "$BIN" setup --dev "$work/chain$k.r1cs" "$work/k$k.zkey" 2>/dev/null
  RUN_LABEL="2^$k splitprove"
  read -r ts ms cs < <(measure "$BIN" prove -q "$work/k$k.zkey" "$work/w$k.wtns" "$work/p.json" "$work/pub.json")
  RUN_LABEL="2^$k snarkjs"
  read -r tj mj cj < <(measure "$SNARKJS" groth16 prove "$work/k$k.zkey" "$work/w$k.wtns" "$work/pj.json" "$work/pubj.json")
  # Both proofs must verify (with the other implementation's verifier too).
  "$BIN" zkey export-vkey "$work/k$k.zkey" "$work/vk.json"
  "$SNARKJS" groth16 verify "$work/vk.json" "$work/pub.json" "$work/p.json" | grep -q OK
  "$BIN" verify "$work/vk.json" "$work/pubj.json" "$work/pj.json" >/dev/null
  printf "| 2^%d | %.3f | %.3f | %.3f | %.2f | %.2f | %.3f | %.0f | %.0f |\n" "$k" "$ts" "$tj" \
    "$(echo "$ts / $tj" | bc -l)" "$cs" "$cj" "$(echo "$cs / $cj" | bc -l)" \
    "$(echo "$ms / 1024" | bc -l)" "$(echo "$mj / 1024" | bc -l)" | tee -a "$OUT/table.md"
  rm -f "$work"/k$k.zkey "$work"/w$k.wtns "$work"/chain$k.r1cs
  rm -rf "$work/chain${k}_js"
done
