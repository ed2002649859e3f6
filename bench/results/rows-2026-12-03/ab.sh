#!/bin/bash
# usage: ab.sh reps name1=bin1 name2=bin2 ...
reps=$1; shift
out=/tmp/ab_$$.txt; : > $out
cd ${ABDIR:-/tmp/b16}
for i in $(seq $reps); do for nb in "$@"; do n=${nb%%=*}; b=${nb#*=}; /usr/bin/time -f "$n %e %U %S" $b prove -q ${ABKEY:-k.zkey} ${ABWTNS:-w.wtns} /tmp/p_$n.json /tmp/pub.json 2>&1 | tail -1 >> $out; done; done
for nb in "$@"; do n=${nb%%=*}; echo "$n wall $(grep "^$n " $out | awk '{print $2}' | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}') cpu $(grep "^$n " $out | awk '{print $3+$4}' | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"; done
cp $out /tmp/ab_last.txt
