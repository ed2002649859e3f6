#!/usr/bin/env bash
# `splitprove bench pipeline` in sweep mode with repetitions: every cell runs the asked number of
# times (each run's files in its own directory), the table gives each cell's median run, and the
# memory checks are made on every run.
#   tests/cli_sweep.sh <splitprove binary>
set -euo pipefail
bin="$1"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
fail() { echo "cli_sweep: $*" >&2; exit 1; }

"$bin" bench pipeline --size 2^10 --partitions 2 --sweep-pw 1,2 --sweep-jobs 1,2 --sweep-reps 3 \
  --budget 64MiB --out "$out/s" >"$out/stdout" 2>"$out/stderr" || { cat "$out/stderr"; fail "the sweep failed"; }
for pw in 1 2; do
  for j in 1 2; do
    for r in 1 2 3; do
      [ -s "$out/s/pw$pw-j$j-r$r/report.txt" ] || fail "no report for pw=$pw j=$j run $r"
    done
    grep -q "^- pw=$pw j=$j: [0-9.]* [0-9.]* [0-9.]* partitions/s (median " "$out/s/sweep.md" ||
      fail "sweep.md has no three runs for pw=$pw j=$j"
  done
done
grep -q "^Median of 3 runs per cell" "$out/s/sweep.md" || fail "sweep.md has no median table"
grep -q "^runs: 12, every proof verified" "$out/stdout" || fail "not 12 runs: $(grep '^runs' "$out/stdout")"
grep -q "^peak RSS - baseline <= budget in every run: yes" "$out/stdout" || fail "over budget"
grep -q "^verdict bounded (RSS back to baseline) in every run: yes" "$out/stdout" || fail "not bounded"
# The median table holds one row per cell: 4 rows (plus the every-run table's 12 further down).
rows=$(sed -n '/^Median of 3/,/^- pw=/p' "$out/s/sweep.md" | grep -c '^| \[pw')
[ "$rows" = 4 ] || fail "the median table has $rows rows, not 4"
[ "$(grep -c '^| \[pw.*-r[123]\]' "$out/s/sweep.md")" = 16 ] || fail "sweep.md does not list every run"
# A count of 0 is refused with the option's name.
if "$bin" bench pipeline --sweep-reps 0 --out "$out/z" 2>"$out/err0"; then fail "--sweep-reps 0 accepted"; fi
grep -q -- "--sweep-reps" "$out/err0" || fail "the error does not name --sweep-reps: $(cat "$out/err0")"
echo "cli_sweep: ok"
