#!/usr/bin/env bash
# teksdb-server through Jedis (tests/server/jedis/JedisClientTest.java): builds the
# YCSB client (ycsb/lib.sh: its Maven build brings Jedis), compiles the test
# against it into OUT, starts teksdb-server and runs it.
# Usage: tests/server/jedis_client_test.sh PATH/TO/teksdb-server OUT
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export TEKSDB_SERVER=$1
out=$2
# shellcheck source=../../ycsb/lib.sh
source "$here/../../ycsb/lib.sh"
ycsb_build
mkdir -p "$out/classes"
javac -d "$out/classes" -cp "$ycsb_dir/target/lib/*" "$here/jedis/JedisClientTest.java"
dir=$(mktemp -d)
trap 'server_stop; rm -rf "$dir"' EXIT
server_start teks "$dir"
java -cp "$ycsb_dir/target/lib/*:$out/classes" JedisClientTest "$server_port"
