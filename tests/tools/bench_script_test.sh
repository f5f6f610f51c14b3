#!/usr/bin/env bash
# scripts/bench.sh, the README's main job, end to end on a tiny data set:
# every memtable kind it knows (db_bench with LD_PRELOAD, and
# tools/teks_db_bench with and without the TeksDB layer) gives a result row
# per thread count and benchmark, the slow stock cases are bounded and
# labelled, memory rows are there, the raw TSV is written; bad input is
# refused by name. Also the large scenario's sections (reads after the fill
# beside the LSM shapes, the same-shape and mixed variants), the writes
# scenario (with entries per flush), the hotkeys scenario, the scale
# scenario (per size, across sizes, restarts after a kill), the reuse
# scenario (scripts/bench_reuse.sh), and tools/memtable_bench through
# scripts/micro_report.py.
#
# Usage: tests/tools/bench_script_test.sh BUILD_DIR SOURCE_DIR
# (BUILD_DIR must be a release build; bench.sh runs it as it is, --prebuilt,
# and writes its results under the test's scratch directory.)
set -euo pipefail

build=$(realpath "${1:?usage: $0 BUILD_DIR SOURCE_DIR}")
src=$(realpath "${2:?usage: $0 BUILD_DIR SOURCE_DIR}")
source "$(dirname "$0")/../support/script_checks.sh" bench_script
bench() { bash "$src/scripts/bench.sh" --prebuilt "$build" --out "$tmp/results" "$@"; }

# --- a tiny run of every kind -------------------------------------------------------
memtables=teks,skip_list,vector,prefix_hash,teksdb:teks,plaindb:teks
if bench --scenario memtable --num 2000 --threads 1,2 --memtables "$memtables" --no-plots \
  >"$tmp/table" 2>"$tmp/log"; then
  pass "bench.sh exits 0"
  cmp -s "$tmp/table" "$tmp/results/memtable/table.txt" && pass "table.txt holds what it printed" ||
    fail "table.txt differs from the output"
  for t in 1 2; do
    for b in fillrandom readrandom readseq seekrandom; do
      for m in ${memtables//,/ }; do
        if grep -qE "^$t +$b +$m +[0-9.]+ +[0-9,]+ +[0-9.]+x" "$tmp/table"; then :
        else fail "no row for $t thread(s), $b, $m"; fi
      done
    done
    for m in ${memtables//,/ }; do
      grep -qE "^$t +memory +$m +[0-9.,]+ +[0-9.]+x +[0-9.,]+ +[0-9.]+x" "$tmp/table" ||
        fail "no memory row for $t thread(s), $m"
    done
  done
  pass "rows checked for 2 thread counts x 4 benchmarks x 6 memtables, and memory"
  grep -qE '^1 +readrandom +skip_list .* 1\.00x' "$tmp/table" && pass "skip_list is the baseline" ||
    fail "skip_list is not 1.00x"
  for row in "readrandom +vector" "seekrandom +vector" "seekrandom +prefix_hash"; do
    grep -qE "^1 +$row .*bounded: [0-9]+ ops/thread" "$tmp/table" && pass "$row is bounded and labelled" ||
      fail "$row is not labelled as bounded"
  done
  grep -qE '^1 +readrandom +teks .*bounded' "$tmp/table" && fail "teks readrandom labelled bounded" ||
    pass "teks rows are not bounded"
  grep -q 'memtablerep=.teks. ' "$tmp/log" && pass "progress names each run" || fail "no progress lines"
  lines=$(($(wc -l <"$tmp/results/memtable/runs.tsv") - 1))
  # 2 threads x 6 memtables x 4 benchmarks, one repeat
  ((lines == 48)) && pass "raw TSV has 48 rows" || fail "raw TSV has $lines rows, not 48"
else
  fail "bench.sh failed: $(tail -n 20 "$tmp/log")"
fi

# --- bad input ------------------------------------------------------------------------
# refuse WORD ARGS...: bench.sh must fail before running anything and say WORD.
refuse() {
  local word=$1
  shift
  if bench "$@" --no-plots >"$tmp/out" 2>"$tmp/err"; then
    fail "accepted: $*"
  elif grep -q -- "$word" "$tmp/err"; then
    pass "refused '$*', naming '$word'"
  else
    fail "'$*': error does not name '$word': $(tail -n 3 "$tmp/err")"
  fi
}
refuse "'0,x'" --threads 0,x
refuse nosuch --scenario nosuch
refuse teksdb:vector --memtables teksdb:vector
refuse --write-buffer-size --write-buffer-size 1000
refuse --bogus --bogus
refuse "lists a count twice" --threads 1,1
refuse "lists a memtable twice" --memtables teks,skip_list,teks
refuse "--threads does not apply" --scenario micro --threads 2
refuse "would not reach" --memtables teksdb:teks -- --cache_size=1

# --- large: a section per variant, the LSM's shape beside the rows ---------------------
if bench --scenario large --num 5000 --write-buffer-size 65536 --memtables teks,skip_list \
  --no-plots >"$tmp/large" 2>"$tmp/largelog"; then
  # section NAME: the report's lines from the heading starting with NAME to the next.
  section() { awk -v name="== $1" 'index($0, name) == 1 { on = 1; next } /^== / { on = 0 } on' "$tmp/large"; }
  for name in "reads right after the fill" "same shape" "mixed: readwhilewriting" \
              "mixed: readrandom skewed" "mixed: readrecent"; do
    [[ -n "$(section "$name")" ]] || fail "large: no section '$name'"
  done
  for m in teks skip_list; do
    section "reads right after the fill" | grep -qE "^  1 thread\(s\)  $m +run 1: L[0-9]+ [0-9]+ files" &&
      pass "large: LSM shape listed for $m" || fail "large: no LSM shape for $m"
    for b in readrandom readseq seekrandom; do
      section "same shape" | grep -qE "^1 +$b +$m +[0-9.]+ +[0-9,]+ +[0-9.]+x" ||
        fail "large, same shape: no $b row for $m"
    done
    compacted="^  1 thread\\(s\\)  $m +run 1: L1 [0-9]+ files [0-9]+ MB( \\(after the fill: .*\\))?; memtables 0 entries$"
    section "same shape" | grep -qE "$compacted" ||
      fail "large, same shape: $m's LSM is not all in L1 with empty memtables"
    section "mixed: readwhilewriting" | grep -qE "^1 +readwhilewriting +$m +[0-9.]+ +[0-9,]+ +[0-9.]+x" ||
      fail "large: no readwhilewriting row for $m"
    section "mixed: readrandom skewed" | grep -qE "^1 +readrandom +$m +[0-9.]+ +[0-9,]+ +[0-9.]+x" ||
      fail "large: no hot-set readrandom row for $m"
    section "mixed: readrecent" | grep -qE "^1 +readrecent +plaindb:$m +[0-9.]+ +[0-9,]+ +[0-9.]+x" ||
      fail "large: no readrecent row for plaindb:$m"
  done
  pass "large: rows checked in 5 sections for teks and skip_list"
  section "same shape" | grep -q '^  shapes as the reads began: the same for every memtable in every run$' &&
    pass "large, same shape: the shapes match" ||
    fail "large, same shape: shapes differ: $(section "same shape")"
  section "mixed: readrecent" | grep -qE '^1 +readrecent +plaindb:skip_list .* 1\.00x' &&
    pass "large: readrecent is compared with plaindb:skip_list" || fail "large: readrecent baseline"
  grep -qE '^\[bench\] run 10/10 \(plaindb:skip_list, 1 thread, recent\) — [0-9ms]+ elapsed, ~[0-9ms]+ left$' \
    "$tmp/largelog" && pass "large: progress counts 10 processes and estimates the time left" ||
    fail "large: no progress line 'run 10/10 (...) — Ns elapsed, ~Ns left'"
else
  fail "bench.sh --scenario large failed: $(tail -n 20 "$tmp/largelog")"
fi

# --- writes: fills in order and at random, overwrites, a read-write mix -------------------
if bench --scenario writes --num 3000 --write-buffer-size 65536 --memtables teks,skip_list \
  --no-plots >"$tmp/writes" 2>"$tmp/writeslog"; then
  for t in 1 2; do
    for b in fillseq fillrandom overwrite readrandomwriterandom; do
      for m in teks skip_list; do
        grep -qE "^$t +$b +$m +[0-9.]+ +[0-9,]+ +[0-9.]+x" "$tmp/writes" ||
          fail "writes: no row for $t thread(s), $b, $m"
      done
    done
    for p in fillseq mixed; do
      for m in teks skip_list; do
        grep -qE "^$p +$t +$m +[0-9,]+ +[0-9,]+ +[0-9.]+x$" "$tmp/writes" ||
          fail "writes: no entries-per-flush row for $p, $t thread(s), $m"
      done
    done
  done
  pass "writes: rows checked for 2 thread counts x 4 benchmarks x 2 memtables, and flushes"
  grep -q -- '--readwritepercent=50' "$tmp/writes" && pass "writes: the mix is 50/50" ||
    fail "writes: --readwritepercent=50 not in the header"
else
  fail "bench.sh --scenario writes failed: $(tail -n 20 "$tmp/writeslog")"
fi
refuse "db_bench only" --scenario writes --memtables plaindb:teks
refuse "--versions does not apply" --scenario writes --versions 2

# --- mixed: reads beside a writer at full speed and rate-limited ---------------------
if bench --scenario mixed --num 2000 --write-buffer-size 1048576 --write-rate 1000000 \
  --no-plots >"$tmp/mixed" 2>"$tmp/mixedlog"; then
  for t in 1 2; do
    for m in teks teksdb:teks skip_list; do
      for b in readwhilewriting seekrandomwhilewriting readrandomwriterandom; do
        grep -qE "^$t +$b +$m +[0-9.]+ +[0-9,]+ +[0-9.]+x" "$tmp/mixed" ||
          fail "mixed: no row for $t thread(s), $b, $m"
      done
    done
  done
  limited=$(sed -n '/^== writes (the fill.s and the writer.s) limited to 1000000 bytes\/s/,$p' "$tmp/mixed")
  for b in readwhilewriting seekrandomwhilewriting; do
    grep -qE "^2 +$b +teksdb:teks +[0-9.]+ " <<<"$limited" || fail "mixed: no rate-limited row for $b"
  done
  ! grep -qE "readrandomwriterandom" <<<"$limited" ||
    fail "mixed: readrandomwriterandom in the rate-limited section (db_bench does not limit it)"
  pass "mixed: rows checked for 2 thread counts x 3 benchmarks x 3 memtables, and the limited section"
else
  fail "bench.sh --scenario mixed failed: $(tail -n 20 "$tmp/mixedlog")"
fi
refuse "--write-rate applies to --scenario mixed only" --scenario writes --write-rate 1000

# --- hotkeys: versions per key -------------------------------------------------------
if bench --scenario hotkeys --num 1000 --no-plots >"$tmp/hot" 2>"$tmp/hotlog"; then
  pass "bench.sh --scenario hotkeys exits 0"
  for v in 10 100 "1,000"; do
    for b in fillrounds seekrandom readseq readreverse readatsnapshot; do
      for m in plaindb:skip_list plaindb:teks; do
        grep -qE "^$v +$b +$m +[0-9.]+ +1 +[0-9.]+x" "$tmp/hot" || fail "hotkeys: no row $v $b $m"
      done
    done
  done
  pass "hotkeys rows checked for 3 versions-per-key counts x 5 benchmarks x 2 memtables"
  (($(wc -l <"$tmp/results/hotkeys/runs.tsv") == 30)) && pass "hotkeys raw TSV has 30 rows" ||
    fail "hotkeys raw TSV has $(wc -l <"$tmp/results/hotkeys/runs.tsv") rows, not 30"
else
  fail "bench.sh --scenario hotkeys failed: $(tail -n 20 "$tmp/hotlog")"
fi
refuse "plaindb:REP" --scenario hotkeys --memtables skip_list
refuse "--versions does not apply" --scenario hotkeys --versions 3

# --- scale: sizes, the view across them, restarts after a kill ------------------------
if bench --scenario scale --sizes 5000,2000 --restart-sizes 3000 --memtables teks,skip_list,skip_list+bloom,vector \
  --no-plots >"$tmp/scale" 2>"$tmp/scalelog"; then
  pass "bench.sh --scenario scale exits 0"
  for size in 2000 5000; do
    grep -q "^== $size entries in the memtable" "$tmp/scale" || fail "scale: no section for $size entries"
  done
  across=$(sed -n '/^TeksTable.s speedup as the memtable grows/,/^$/p' "$tmp/scale")
  for size in 2k 5k; do
    grep -qE "^$size( +[0-9.e-]+x){7}$" <<<"$across" || fail "scale: no row for $size across sizes: $across"
  done
  for m in teks skip_list skip_list+bloom vector; do
    grep -qE "^(2k|5k)? +${m//+/\\+} +[0-9]+ +[0-9.]+x +[0-9,]+ +[0-9.]+x$" "$tmp/scale" ||
      fail "scale: no bytes-per-entry row for $m"
  done
  for m in teks skip_list; do
    grep -qE "^(3k)? +$m( +[0-9.]+){3}" "$tmp/scale" || fail "scale: no restart row for $m"
  done
  grep -q "^restart after kill -9 at 3k entries: " "$tmp/results/scale/summary.txt" &&
    grep -q "^TeksTable vs skip_list as the memtable grows from 2k to 5k entries: fill " \
      "$tmp/results/scale/summary.txt" && pass "scale: summary.txt has the lines to quote" ||
    fail "scale: summary.txt: $(cat "$tmp/results/scale/summary.txt")"
  (($(wc -l <"$tmp/results/scale/restarts.tsv") == 2)) && pass "scale: a restart per memtable" ||
    fail "scale: restarts.tsv: $(cat "$tmp/results/scale/restarts.tsv")"
else
  fail "bench.sh --scenario scale failed: $(tail -n 20 "$tmp/scalelog")"
fi
refuse "--sizes must be a list" --scenario scale --sizes 0,1000
refuse "of memory for one memtable" --scenario scale --sizes 1000000000000
refuse "--sizes applies to --scenario scale only" --sizes 1000
refuse "--num does not apply to --scenario scale" --scenario scale --num 1000
refuse "not 'plaindb:teks'" --scenario scale --memtables plaindb:teks

# --- the reuse scenario (scripts/bench_reuse.sh) ------------------------------------------
if bench --scenario reuse --keys 3000 --updates 3 --write-buffer-mb 1,2 --memory-buffer-mb 64 \
  >"$tmp/reuse" 2>"$tmp/reuse.log"; then
  pass "bench.sh --scenario reuse exits 0"
  cmp -s "$tmp/reuse" "$tmp/results/reuse/table.txt" || fail "reuse: table.txt differs from the output"
  for m in teks teks-keep skip_list; do
    grep -qE "^$m +[0-9.]+ +[0-9.]+x( +[0-9.]+ +[0-9.]+x){4}\$" "$tmp/reuse" ||
      fail "reuse: no memory row for $m"
    [[ $(grep -cE "^$m +[0-9]+ +([0-9.]+x|-) +[0-9.]+ +[0-9.]+\$" "$tmp/reuse") == 2 ]] ||
      fail "reuse: not a flush row per write buffer for $m"
  done
  grep -q "^Flushes: 2 MiB write buffer" "$tmp/reuse" || fail "reuse: no 2 MiB section"
  pass "reuse rows checked"
else
  fail "bench.sh --scenario reuse: $(tail -n 10 "$tmp/reuse.log")"
fi
refuse "--keys takes a positive integer" --scenario reuse --keys 0
refuse "--write-buffer-mb takes MiB" --scenario reuse --write-buffer-mb 64,x
refuse "lower --keys or --updates" --scenario reuse --keys 1000000000 --updates 100

# --- memtable_bench and its report -------------------------------------------------------
if "$build/tools/memtable_bench" --keys=2000 --benchmark_min_time=0.01 \
  --benchmark_out="$tmp/micro.json" --benchmark_out_format=json >"$tmp/micro.log" 2>&1 &&
  python3 "$src/scripts/micro_report.py" "$tmp/micro.json" >"$tmp/micro" 2>&1; then
  pass "memtable_bench and micro_report.py exit 0"
  for row in "insert +skip_list" "insert +teks" "get +teks-s" "get +absl_flat_hash_map" \
             "seek +teks" "seek_next10 +skip_list" "scan +teks"; do
    grep -qE "^$row +[0-9,]+ +[0-9.]+ +[0-9.]+x" "$tmp/micro" || fail "micro: no row '$row'"
  done
  pass "micro rows checked"
else
  fail "memtable_bench: $(tail -n 5 "$tmp/micro.log" "$tmp/micro" 2>/dev/null)"
fi
"$build/tools/memtable_bench" --keys=abc >"$tmp/out" 2>&1 && fail "--keys=abc accepted" ||
  { grep -q 'keys=abc' "$tmp/out" && pass "--keys=abc refused by name" || fail "--keys=abc: $(cat "$tmp/out")"; }

finish
