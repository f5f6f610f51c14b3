#!/usr/bin/env bash
# scripts/bench_report.py on fixed logs (tests/support/fixtures/bench_report, in the
# format db_bench and tools/teks_db_bench print, with round numbers): a
# table per section; the LSM shape and memtable entries as the reads began,
# taken from the last levelstats and memstats before them, with the fill's
# shape beside where it differs; whether shapes matched across memtables;
# ratios of teks_db_bench rows to plaindb:skip_list; the raw TSV's section
# column; runs files without a section column; the summary line
# (bench_summary.py) and its ratio format; a missing result line.
#
# Usage: tests/tools/bench_report_test.sh SOURCE_DIR
set -euo pipefail

src=$(realpath "${1:?usage: $0 SOURCE_DIR}")
source "$(dirname "$0")/../support/script_checks.sh" bench_report
fixtures=$src/tests/support/fixtures/bench_report
report() { python3 "$src/scripts/bench_report.py" "$@"; }

# run MEMTABLE LOG RSS COUNTED SECTION: one line of a runs file.
run() { printf '%s\t1\t1\t%s\t%s\t%s\t\t%s\n' "$1" "$fixtures/$2" "$3" "$4" "$5"; }
# has TEXT: the report holds this line (a regular expression).
has() { grep -qE -- "$1" "$tmp/report" && pass "${2:-$1}" || fail "no line '$1' in: $(cat "$tmp/report")"; }

fill="after the fill"
same="same shape"
recent="mixed: readrecent"
{
  run teks fill_teks.log 65536 fillrandom,readrandom "$fill"
  run skip_list fill_skip_list.log 32768 fillrandom,readrandom "$fill"
  run teks same_teks.log - readrandom "$same"
  run skip_list same_skip_list.log - readrandom "$same"
  run plaindb:teks recent_teks.log - readrecent "$recent"
  run plaindb:skip_list recent_skip_list.log - readrecent "$recent"
} >"$tmp/runs.tsv"

if report "$tmp/runs.tsv" --out "$tmp/raw.tsv" >"$tmp/report" 2>"$tmp/err"; then
  pass "bench_report.py exits 0"
  # Sections in the order first seen, each its own table.
  expect_eq "section headings in order" "$(grep '^== ' "$tmp/report" | tr '\n' '|')" \
    "== $fill|== $same|== $recent|"
  has '^1 +fillrandom +teks +10\.000 +100,000 +1\.25x' "fill: 100,000 vs 80,000 ops/s is 1.25x"
  has '^1 +readrandom +teks +20\.000 +50,000 +1\.25x' "after the fill: readrandom 1.25x"
  has '^1 +memory +teks +2\.0 +0\.50x +64\.0 +2\.00x' "memory row: memtable MiB and peak RSS vs skip_list"
  expect_eq "memory rows only where fillrandom counts" "$(grep -cE '^1 +memory ' "$tmp/report")" 2
  # Shape and entries as the reads began: after the fill, the only levelstats.
  has '^  1 thread\(s\)  teks +run 1: L0 2 files 32 MB, L1 2 files 92 MB; memtables 1,500 entries$' \
    "after the fill: teks shape and entries (active + immutable)"
  has 'differ between memtables in: run 1 \(1 thread\(s\)\)$' "after the fill: shapes differ"
  # Same shape: the second levelstats and memstats, the fill's shape beside.
  has '^1 +readrandom +teks +33\.333 +30,000 +0\.75x' "same shape: readrandom 0.75x"
  has '^  1 thread\(s\)  skip_list +run 1: L1 3 files 150 MB \(after the fill: L0 4 files 72 MB, L1 1 files 60 MB\); memtables 0 entries$' \
    "same shape: the shape after compaction, the fill's beside it, memtables empty"
  has '^  shapes as the reads began: the same for every memtable in every run$' "same shape: shapes match"
  # teks_db_bench rows against teks_db_bench's skip_list, not db_bench's.
  has '^1 +readrecent +plaindb:teks +3\.333 +300,000 +1\.50x' "readrecent: plaindb:teks vs plaindb:skip_list"
  has '^1 +readrecent +plaindb:skip_list +5\.000 +200,000 +1\.00x' "readrecent: plaindb:skip_list is its baseline"
  has '^  1 thread\(s\)  plaindb:teks +run 1: L0 2 files 32 MB, L1 1 files 60 MB; memtables 90,000 entries$' \
    "teks_db_bench's levelstats (no blank lines around it) parsed"
  has 'plaindb:skip_list for plaindb:/teksdb: rows' "the footer names the teks_db_bench baseline"
  expect_eq "raw TSV: header and 8 rows" "$(wc -l <"$tmp/raw.tsv")" 9
  expect_eq "raw TSV: last column is the section" "$(head -n 1 "$tmp/raw.tsv" | awk -F'\t' '{print $NF}')" section
  expect_eq "raw TSV: readrecent rows in their section" \
    "$(awk -F'\t' '$4 == "readrecent" {print $NF}' "$tmp/raw.tsv" | sort -u)" "$recent"
else
  fail "bench_report.py failed: $(cat "$tmp/err")"
fi

# Runs files of seven columns (no section): one untitled table, as before.
run teks fill_teks.log 65536 fillrandom,readrandom "" | cut -f 1-7 >"$tmp/old.tsv"
run skip_list fill_skip_list.log 32768 fillrandom,readrandom "" | cut -f 1-7 >>"$tmp/old.tsv"
if report "$tmp/old.tsv" --summary "$tmp/summary" >"$tmp/report" 2>"$tmp/err"; then
  expect_eq "seven columns: no section heading" "$(grep -c '^== ' "$tmp/report")" 0
  has '^1 +readrandom +skip_list +25\.000 +40,000 +1\.00x' "seven columns: rows as before"
  # The quotable line: only what ran (get and fill), memory 2 MiB vs 4 MiB.
  expect_eq "summary line" "$(head -n 1 "$tmp/summary")" \
    "TeksTable vs skip_list, 1 thread: get 1.25x, fill 1.25x, memory 0.50x"
else
  fail "bench_report.py failed on a seven-column runs file: $(cat "$tmp/err")"
fi
expect_eq "summary ratios: no exponents, thousands separated" \
  "$(cd "$src/scripts" && python3 -c 'import bench_summary as b
print(*(b.fmt_ratio(r) for r in (6.1, 0.35, 80659.4, 0.0021)))')" "6.10x 0.35x 80,659x 0.0021x"

# A counted benchmark without a result line is named, and fails the report.
run teks fill_teks.log - seekrandom "" >"$tmp/missing.tsv"
run teks fill_teks.log - readrandom "" >>"$tmp/missing.tsv"
if report "$tmp/missing.tsv" >"$tmp/report" 2>"$tmp/err"; then
  fail "a missing seekrandom result passed"
else
  grep -q 'no result line for seekrandom' "$tmp/err" && pass "a missing result line is named" ||
    fail "missing result: $(cat "$tmp/err")"
fi

finish
