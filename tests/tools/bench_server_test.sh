#!/usr/bin/env bash
# scripts/bench_server.sh --pin end to end on tiny counts: every server
# answers every test, the throughput table has a row per test with ops/s
# for each server and both ratios, the CPU table a row per test (del100k
# too) with µs per request for each server and both ratios, the quotable
# line follows, and runs.tsv holds every run.
# Usage: tests/tools/bench_server_test.sh SERVER_BINARY SOURCE_DIR (it builds nothing)
set -euo pipefail
server=$1
src=$2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
TEKSDB_SERVER=$server bash "$src/scripts/bench_server.sh" --pin --requests 3000 --keyspace 500 \
  --repeat 2 --no-plots --out "$out" >"$out/stdout" 2>"$out/stderr" || { cat "$out/stderr"; exit 1; }
cat "$out/stdout"
failures=0
for t in set get hset hgetall sadd zadd5 lpush5 lrange lpush lrange100 queue zadd; do
  grep -qE "^$t +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9.]+x +[0-9.]+x$" "$out/stdout" ||
    { echo "FAIL: no full throughput row for $t"; failures=$((failures + 1)); }
done
for t in set get hset hgetall sadd zadd5 lpush5 lrange lpush lrange100 queue zadd del100k; do
  grep -qE "^$t +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +([0-9.]+x|-) +([0-9.]+x|-)$" "$out/stdout" ||
    { echo "FAIL: no full CPU row for $t"; failures=$((failures + 1)); }
done
# (Tiny counts read few CPU ticks: a ratio may be "-" where a server's
# ticks read 0.)
grep -qE '^server CPU per request, skip_list / TeksTable: set ([0-9.]+x|-), get ([0-9.]+x|-), hset' \
  "$out/stdout" ||
  { echo "FAIL: no quotable line"; failures=$((failures + 1)); }
grep -q 'pinned to CPU 0' "$out/stdout" || { echo "FAIL: the title does not say --pin"; failures=$((failures + 1)); }
runs=$(($(wc -l <"$out/server/runs.tsv") - 1))
((runs == 2 * 4 * 13)) || { echo "FAIL: runs.tsv has $runs runs, not 104 (2 repeats, 4 servers, 13 tests)"; failures=$((failures + 1)); }
grep -q 'run 8/8' "$out/stderr" || { echo "FAIL: no progress lines"; failures=$((failures + 1)); }
echo "bench_server_test: $failures failure(s)"
((failures == 0))
