#!/usr/bin/env bash
# scripts/bench_compact_limits.sh end to end on tiny counts: a row per size
# and layout with the encoding each layout must have (listpack compact,
# hashtable per field) and three µs figures, the ratio line per size, and
# progress lines.
# Usage: tests/tools/bench_compact_limits_test.sh SERVER_BINARY SOURCE_DIR (it builds nothing)
set -euo pipefail
server=$1
src=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
TEKSDB_SERVER=$server bash "$src/scripts/bench_compact_limits.sh" --fields 3,9 --values 10 \
  --requests 2000 >"$out/stdout" 2>"$out/stderr" || { cat "$out/stderr"; exit 1; }
cat "$out/stdout"
failures=0
for n in 3 9; do
  grep -qE "^$n +10 +compact +listpack +[0-9.]+ +[0-9.]+ +[0-9.]+$" "$out/stdout" ||
    { echo "FAIL: no compact row for $n fields"; failures=$((failures + 1)); }
  grep -qE "^$n +10 +per-field +hashtable +[0-9.]+ +[0-9.]+ +[0-9.]+$" "$out/stdout" ||
    { echo "FAIL: no per-field row for $n fields"; failures=$((failures + 1)); }
  grep -qE "^$n +10 +compact / per-field: hset ([0-9.]+x|-), hgetall ([0-9.]+x|-)$" "$out/stdout" ||
    { echo "FAIL: no ratio line for $n fields"; failures=$((failures + 1)); }
done
grep -q '4/4: 9 fields of 10 bytes, per-field' "$out/stderr" || { echo "FAIL: no progress lines"; failures=$((failures + 1)); }
echo "bench_compact_limits_test: $failures failure(s)"
((failures == 0))
