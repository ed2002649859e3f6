#!/usr/bin/env bash
# Ran ab/splitprove-exp: this branch plus a temporary CPU7_GLV_OFF=g1|g2|all switch in msm::detail::run (not committed).
cd /tmp/cpu7f
for i in 1 2 3 4 5; do
  for v in on g1 g2 all; do
    if [[ $v == on ]]; then unset CPU7_GLV_OFF; else export CPU7_GLV_OFF=$v; fi
    /usr/bin/time -f "%e %U %S %M" -o ab/one ab/splitprove-exp prove -q bn128/k16.zkey bn128/w16.wtns ab/p.json ab/pub.json
    echo "$v $i $(cat ab/one) load $(cut -d' ' -f1 /proc/loadavg)"
  done
done
