#!/usr/bin/env bash
# base = /tmp/cpu7-base/splitprove (main 53a844a, Release); glv = build-rel/splitprove of commit e144e56 (Release).
# A/B: base vs branch binary, interleaved, BN254 2^16 chain prove; wall, user, sys per run.
set -euo pipefail
cd /tmp/cpu7f
N=${N:-5}
for i in $(seq $N); do
  for v in base glv; do
    bin=/tmp/cpu7-base/splitprove; [[ $v == glv ]] && bin=/tmp/cpu7f/ab/splitprove-glv
    [[ -n "${ALT:-}" && $v == glv ]] && bin=$ALT
    /usr/bin/time -f "%e %U %S %M" -o /tmp/cpu7f/ab/one $bin prove -q bn128/k16.zkey bn128/w16.wtns /tmp/cpu7f/ab/p-$v.json /tmp/cpu7f/ab/pub-$v.json
    echo "$v $i $(cat /tmp/cpu7f/ab/one) load $(cut -d' ' -f1 /proc/loadavg)"
  done
done
