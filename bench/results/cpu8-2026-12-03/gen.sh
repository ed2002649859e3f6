#!/usr/bin/env bash
# Makes the chain circuit's key and witness at 2^k for CURVE, as bench/groth16_vs_snarkjs.sh does.
set -euo pipefail
root=/work/wt-cpu8; k=$1; CURVE=$2; BIN=/tmp/cpu8-base/build/splitprove
mkdir -p /tmp/cpu8f/$CURVE && cd /tmp/cpu8f/$CURVE
n=$(( (1 << k) - 3 ))
sed "s/Chain(100)/Chain($n)/" "$root/tests/circuits/chain.circom" >chain$k.circom
$root/node_modules/.bin/circom2 chain$k.circom --r1cs --wasm --prime "$CURVE" --O2 -o . >/dev/null
echo '{"x0":"3","c":"5"}' >in.json
$root/node_modules/.bin/snarkjs wtns calculate chain${k}_js/chain$k.wasm in.json w$k.wtns >/dev/null
$BIN setup --dev chain$k.r1cs k$k.zkey 2>/dev/null
ls -la k$k.zkey w$k.wtns
