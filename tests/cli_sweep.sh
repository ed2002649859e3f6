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
# GPU workers swept beside synthesis workers: one run per pw x gw, each named and configured so.
"$bin" bench pipeline --size 2^10 --partitions 2 --sweep-pw 1,2 --sweep-gw 1,2 --sweep-jobs 1 \
  --budget 64MiB --out "$out/g" >"$out/gstdout" 2>"$out/gstderr" || { cat "$out/gstderr"; fail "the gw sweep failed"; }
grep -q "^runs: 4, every proof verified" "$out/gstdout" || fail "the gw sweep is not 4 runs"
for pw in 1 2; do
  for gw in 1 2; do
    grep -q "^config: *pw=$pw gw=$gw " "$out/g/pw$pw-gw$gw-j1/report.txt" || fail "no run pw=$pw gw=$gw"
  done
done
# One budget for the whole process and the held policy's run beside the sweep: the checks judge the
# peak RSS against the process budget, the held run has its row and its line, outside the checks.
"$bin" bench pipeline --size 2^10 --partitions 2 --sweep-pw 1,2 --sweep-jobs 2 --warmup 2 \
  --process-budget 1GiB --sweep-held 2:2 --rss-cap 4GiB --out "$out/p" >"$out/pstdout" 2>"$out/pstderr" ||
  { cat "$out/pstderr"; fail "the sweep with a process budget failed"; }
grep -q "^runs: 2, every proof verified" "$out/pstdout" || fail "the held run counted in the checks"
grep -q "^peak RSS <= the process budget 1.00 GiB in every run: yes" "$out/pstdout" ||
  fail "no process-budget check: $(grep 'in every run' "$out/pstdout")"
grep -q "^held until finalize (pw=2 j=2, no budget, RSS cap 4.00 GiB): peak RSS " "$out/pstdout" ||
  fail "no held line"
grep -q '^| \[held-pw2-j2\].* | none | ' "$out/p/sweep.md" || fail "sweep.md has no held row without a budget"
grep -q "^config: .*budget 1.00 GiB (the process; .* of it for the work)" "$out/p/pw1-j2/report.txt" ||
  fail "the report does not name the process budget"
grep -q "^buffers warm:  the buffers of 2 partition(s)" "$out/p/pw1-j2/report.txt" ||
  fail "no buffer warm-up of pw + gw = 2 partitions: $(grep 'buffers warm' "$out/p/pw1-j2/report.txt")"
grep -q "peak RSS within the budget 1.00 GiB of the whole process" "$out/p/pw2-j2/report.txt" ||
  fail "the report does not judge the peak against the process budget"
# Two budgets at once, a held run without a cap, and a process budget below what setup holds are
# refused by name.
if "$bin" bench pipeline --size 2^10 --budget 1GiB --process-budget 2GiB 2>"$out/e1"; then fail "two budgets accepted"; fi
grep -q -- "--budget and --process-budget" "$out/e1" || fail "two budgets: $(cat "$out/e1")"
if "$bin" bench pipeline --size 2^10 --sweep-pw 1 --sweep-held 1:1 --out "$out/e" 2>"$out/e2"; then
  fail "--sweep-held without --rss-cap accepted"
fi
grep -q -- "--rss-cap" "$out/e2" || fail "held without cap: $(cat "$out/e2")"
if "$bin" bench pipeline --size 2^10 --partitions 2 --process-budget 1MiB 2>"$out/e3"; then
  fail "a process budget below the resident set accepted"
fi
grep -q "nothing is left for the partitions" "$out/e3" || fail "tiny process budget: $(cat "$out/e3")"
# A count of 0 is refused with the option's name.
if "$bin" bench pipeline --sweep-reps 0 --out "$out/z" 2>"$out/err0"; then fail "--sweep-reps 0 accepted"; fi
grep -q -- "--sweep-reps" "$out/err0" || fail "the error does not name --sweep-reps: $(cat "$out/err0")"
echo "cli_sweep: ok"
