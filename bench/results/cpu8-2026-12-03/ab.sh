#!/usr/bin/env bash
# A/B: base (main, Release, /tmp/cpu8-base/build/splitprove) vs branch (build-rel/splitprove or $ALT),
# interleaved; `splitprove prove -q` of the chain circuit at 2^K for CURVE; wall, user, sys, max RSS per run.
set -euo pipefail
CURVE=${CURVE:-bn128}; K=${K:-16}; N=${N:-5}
base=/tmp/cpu8-base/build/splitprove; branch=${ALT:-/work/wt-cpu8/build-rel/splitprove}
cd /tmp/cpu8f/$CURVE
for i in $(seq $N); do
  for v in base branch; do
    bin=$base; [[ $v == branch ]] && bin=$branch
    /usr/bin/time -f "%e %U %S %M" -o /tmp/cpu8f/one-$CURVE $bin prove -q k$K.zkey w$K.wtns p-$v.json pub-$v.json
    echo "$v $i $(cat /tmp/cpu8f/one-$CURVE) load $(cut -d' ' -f1 /proc/loadavg)"
  done
done
