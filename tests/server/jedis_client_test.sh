#!/usr/bin/env bash
# teksdb-server through Jedis (tests/server/jedis/JedisClientTest.java): builds the
# YCSB client (ycsb/lib.sh: its Maven build brings Jedis), compiles the tests
# against it into OUT, starts teksdb-server and runs them; then a replica of
# it and a Sentinel, for JedisSentinelPool (jedis/JedisSentinelTest.java).
# Usage: tests/server/jedis_client_test.sh PATH/TO/teksdb-server OUT
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export TEKSDB_SERVER=$1
out=$2
# shellcheck source=../../ycsb/lib.sh
source "$here/../../ycsb/lib.sh"
ycsb_build
mkdir -p "$out/classes"
javac -d "$out/classes" -cp "$ycsb_dir/target/lib/*" "$here/jedis/JedisClientTest.java" \
  "$here/jedis/JedisSentinelTest.java"
dir=$(mktemp -d)
pids=()
trap 'kill "${pids[@]}" 2>/dev/null || true; server_stop; rm -rf "$dir"' EXIT
server_start teks "$dir"
java -cp "$ycsb_dir/target/lib/*:$out/classes" JedisClientTest "$server_port"

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
replica_port=$(free_port)
"$TEKSDB_SERVER" --dir "$dir/replica" --port "$replica_port" --replicaof "127.0.0.1 $server_port" \
  2>"$dir/replica.log" &
pids+=($!)
sentinel_port=$(free_port)
printf 'port %s\nbind 127.0.0.1\ndir %s\nsentinel monitor jedis 127.0.0.1 %s 1\n' \
  "$sentinel_port" "$dir" "$server_port" >"$dir/sentinel.conf"
redis-server "$dir/sentinel.conf" --sentinel >/dev/null &
pids+=($!)
for _ in $(seq 1 300); do  # the replica in sync, the Sentinel answering
  [[ $(redis-cli -p "$replica_port" info replication 2>/dev/null | tr -d '\r' |
       sed -n 's/^master_link_status://p') == up ]] &&
    redis-cli -p "$sentinel_port" ping >/dev/null 2>&1 && break
  sleep 0.1
done
java -cp "$ycsb_dir/target/lib/*:$out/classes" JedisSentinelTest "$sentinel_port" "$server_port" jedis
