#!/usr/bin/env bash
# scripts/bench.sh with no scenario (the README's first command, --scenario
# quick) on a tiny data set: it ends in the quotable summary lines, TeksTable
# against skip_list and hash_linkedlist per thread count, every ratio a
# number, and the same lines in summary.txt; it draws the headline chart; it
# writes only under --out, so the source tree's git status and the build it
# ran from (configure files and library) are as before.
#
# Usage: tests/tools/bench_quick_test.sh BUILD_DIR SOURCE_DIR
# (BUILD_DIR must be a release build; bench.sh runs it as it is, --prebuilt.
# The matplotlib venv is BUILD_DIR-plot-venv, beside the build, made once.)
set -euo pipefail

build=$(realpath "${1:?usage: $0 BUILD_DIR SOURCE_DIR}")
src=$(realpath "${2:?usage: $0 BUILD_DIR SOURCE_DIR}")
source "$(dirname "$0")/../support/script_checks.sh" bench_quick
export TEKSDB_PLOT_VENV=$build-plot-venv

# fingerprint: what must not change: the source tree's git status (where it
# is a git work tree) and the build's configuration and library.
fingerprint() {
  git -C "$src" status --porcelain 2>/dev/null || echo "(not a git work tree)"
  (cd "$build" && sha256sum CMakeCache.txt build.ninja "$(readlink -f libteksdb.so)")
}
fingerprint >"$tmp/before"

if bash "$src/scripts/bench.sh" --prebuilt "$build" --out "$tmp/out" --num 3000 \
  >"$tmp/stdout" 2>"$tmp/log"; then
  pass "bench.sh (--scenario quick) exits 0"
  ratio='[0-9][0-9,]*(\.[0-9]+)?x'
  for other in skip_list hash_linkedlist; do
    for t in "1 thread" "2 threads"; do
      line="^TeksTable vs $other, $t: get $ratio, seek $ratio, scan $ratio, fill $ratio, memory $ratio\$"
      grep -qE "$line" "$tmp/stdout" && pass "summary: TeksTable vs $other, $t" ||
        fail "no summary line '$line' in: $(tail -n 8 "$tmp/stdout")"
    done
  done
  summary=$tmp/out/quick/summary.txt
  if [[ -s "$summary" ]]; then
    expect_eq "the output ends in summary.txt" "$(tail -n "$(wc -l <"$summary")" "$tmp/stdout")" \
      "$(cat "$summary")"
  else
    fail "no $summary"
  fi
  grep -q '^(hash_linkedlist ran 2 seeks per thread (bounded)' "$summary" &&
    pass "summary names the bounded seeks" || fail "summary does not name the bounded seeks"
  for png in headline quick; do
    [[ "$(head -c 8 "$tmp/out/quick/$png.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')" == 89504e470d0a1a0a ]] &&
      pass "$png.png is a PNG" || fail "no $png.png in $tmp/out/quick"
  done
  # 2 thread counts x 3 memtables x 4 benchmarks, one repeat, and a header.
  expect_eq "runs.tsv rows" "$(wc -l <"$tmp/out/quick/runs.tsv")" 25
  cmp -s "$tmp/stdout" "$tmp/out/quick/table.txt" &&
    pass "table.txt holds what it printed" || fail "table.txt differs from the output"
  grep -qE '^\[bench\] run 8/8 \(hash_linkedlist, 2 threads, seekrandom \(bounded: 2 ops/thread\)\) — [0-9ms]+ elapsed, ~[0-9ms]+ left$' \
    "$tmp/log" && pass "progress: run 8/8 with the time left" || fail "no progress line for run 8/8"
else
  fail "bench.sh failed: $(tail -n 20 "$tmp/log")"
fi

fingerprint >"$tmp/after"
cmp -s "$tmp/before" "$tmp/after" && pass "source tree and build unchanged" ||
  fail "changed: $(diff "$tmp/before" "$tmp/after")"

finish
