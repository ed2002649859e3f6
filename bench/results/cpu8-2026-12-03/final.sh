#!/usr/bin/env bash
# The final measurements of branch cpu8, one after the other (2026-12-03).
set -euo pipefail
R=/work/wt-cpu8/bench/results/cpu8-2026-12-03
cd /tmp/cpu8f
echo "start $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
CURVE=bn128 N=7 ./ab.sh > $R/ab-prove-bn254-2p16.txt 2>&1
python3 med.py $R/ab-prove-bn254-2p16.txt > $R/ab-prove-bn254-2p16-summary.txt
CURVE=bls12381 N=5 ./ab.sh > $R/ab-prove-bls12381-2p16.txt 2>&1
python3 med.py $R/ab-prove-bls12381-2p16.txt > $R/ab-prove-bls12381-2p16-summary.txt
cd /tmp/cpu8f/bn128
{ for i in 1 2; do
  echo "## base (main ae04e5b), round $i, load $(cut -d' ' -f1 /proc/loadavg)"; /tmp/cpu8-base/build/tool_msm_key k16.zkey w16.wtns 5
  echo "## branch, round $i, load $(cut -d' ' -f1 /proc/loadavg)"; /work/wt-cpu8/build-rel/tool_msm_key k16.zkey w16.wtns 5
done; } > $R/msm-key-bn254-2p16.txt 2>&1
# One pool thread on one core: the G2 product's change without the two threads' interplay.
{ for i in 1 2 3; do
  echo "## base (main ae04e5b), 1 thread, round $i, load $(cut -d' ' -f1 /proc/loadavg)"; SPLITPROVE_THREADS=1 taskset -c 1 /tmp/cpu8-base/build/tool_msm_key k16.zkey w16.wtns 3
  echo "## branch, 1 thread, round $i, load $(cut -d' ' -f1 /proc/loadavg)"; SPLITPROVE_THREADS=1 taskset -c 1 /work/wt-cpu8/build-rel/tool_msm_key k16.zkey w16.wtns 3
done; } > $R/msm-key-bn254-2p16-1thread.txt 2>&1
cd /work/wt-cpu8
echo "snarkjs bn128 $(date -u +%H:%M:%S)"
CURVE=bn128 REPS=3 BIN=build-rel/splitprove OUT=$R/snarkjs-bn128 bash bench/groth16_vs_snarkjs.sh 16 18 > /dev/null 2>&1
echo "snarkjs bls12381 $(date -u +%H:%M:%S)"
CURVE=bls12381 REPS=3 BIN=build-rel/splitprove OUT=$R/snarkjs-bls12381 bash bench/groth16_vs_snarkjs.sh 16 18 > /dev/null 2>&1
echo "end $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
