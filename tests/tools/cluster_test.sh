#!/usr/bin/env bash
# scripts/cluster.sh end to end: three teksdb-servers behind twemproxy.
# Keys written through the proxy spread over every server and read back
# through it; hashes and sorted sets work through it; the commands the
# script's header says are forwarded are, and those it says are not get
# the connection closed; the benchmark mode prints one row per server
# count.
# Usage: tests/tools/cluster_test.sh SERVER_BINARY SOURCE_DIR (it builds nothing)
set -euo pipefail
server=$1
src=$2
failures=0
check() {  # CONDITION-RESULT DESCRIPTION
  if [[ $1 == 0 ]]; then echo "ok: $2"; else echo "FAIL: $2"; failures=$((failures + 1)); fi
}

port=$((20000 + RANDOM % 20000))
tmp=$(mktemp -d)
TEKSDB_SERVER=$server bash "$src/scripts/cluster.sh" --servers 3 --port "$port" --dir "$tmp/data" \
  >"$tmp/cluster.log" 2>&1 &
cluster=$!
trap 'kill $cluster 2>/dev/null || true; wait $cluster 2>/dev/null || true; rm -rf "$tmp"' EXIT
for _ in $(seq 600); do
  grep -q "twemproxy on $port" "$tmp/cluster.log" && break
  kill -0 $cluster 2>/dev/null || { cat "$tmp/cluster.log"; exit 1; }
  sleep 0.1
done
cli() { timeout 10 redis-cli -p "$port" "$@" 2>&1 || true; }
set -f  # commands below are split into words, never globbed

for i in $(seq 300); do echo "SET key$i value$i"; done | redis-cli -p "$port" >/dev/null
total=0
spread=0
for s in 1 2 3; do
  n=$(redis-cli -p $((port + s)) dbsize)
  total=$((total + n))
  ((n > 0)) && spread=$((spread + 1))
done
check $((total != 300)) "300 keys written through the proxy: $total stored over the servers"
check $((spread != 3)) "every one of the 3 servers holds some ($spread do)"
check "$([[ "$(cli get key17)" == value17 ]]; echo $?)" "GET through the proxy reads a key back"
cli hset user:1 name ada born 1815 >/dev/null
check "$([[ "$(cli hgetall user:1 | sort | paste -sd,)" == "1815,ada,born,name" ]]; echo $?)" \
  "HSET and HGETALL through the proxy"
cli zadd board 3 c 1 a 2 b >/dev/null
check "$([[ "$(cli zrangebyscore board -inf +inf limit 0 2 | paste -sd,)" == "a,b" ]]; echo $?)" \
  "ZADD and ZRANGEBYSCORE LIMIT through the proxy"
check "$([[ "$(cli mget key1 key2 key3 | paste -sd,)" == "value1,value2,value3" ]]; echo $?)" \
  "MGET over several servers"

for cmd in "EXPIRE key1 100" "TTL key1" "PERSIST key1" "TYPE key1" "INCR counter" "APPEND key2 x" \
  "HSCAN user:1 0" "RPUSH list a" "LRANGE list 0 -1" "SADD set a" "SMEMBERS set" "ZSCORE board a" \
  "ZPOPMIN board" "DEL key3"; do
  out=$(cli $cmd)
  check "$([[ $out != *"closed the connection"* && $out != *ERR* ]]; echo $?)" "forwarded: $cmd ($out)"
done
for cmd in "KEYS *" "SCAN 0" "DBSIZE" "FLUSHALL" "INFO" "CONFIG GET save" "SELECT 0" "HELLO 2" "ECHO x"; do
  out=$(cli $cmd)
  check "$([[ $out == *"closed the connection"* ]]; echo $?)" "not forwarded: $cmd"
done

table=$(TEKSDB_SERVER=$server bash "$src/scripts/cluster.sh" --bench --servers 2 --requests 2000 \
  --port $((port + 10)) 2>"$tmp/bench.log")
echo "$table"
rows=$(grep -cE '^[12] +[0-9]+ +[0-9]+ +[0-9]+$' <<<"$table" || true)
check $((rows != 2)) "--bench prints a row of ops/s for 1 and 2 servers"

echo "cluster_test: $failures failure(s)"
((failures == 0))
