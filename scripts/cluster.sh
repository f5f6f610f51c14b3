#!/usr/bin/env bash
# Several teksdb-servers behind twemproxy (Debian's nutcracker): keys are
# spread over the servers by consistent hashing (ketama over fnv1a_64), and
# clients talk to the proxy as to one Redis. Not a cluster: no replication,
# no resharding; a key lives on one server, chosen by its name.
#
# Usage:
#   scripts/cluster.sh [--servers N] [options]          start N servers and the proxy,
#                                                       print how to reach them, wait for Ctrl-C
#   scripts/cluster.sh --bench [--servers N] [options]  redis-benchmark through the proxy with
#                                                       1..N servers: a table of ops/s per server count
# Options:
#   --servers N       servers (3; --bench: up to N, 4)
#   --port P          the proxy's port (22121); servers listen on P+1 ... P+N
#   --memtable M      teks (default) or skip_list
#   --threads T       I/O threads per server (1)
#   --sync            every write waits for its server's WAL on disk
#   --dir DIR         data directories go under DIR (a fresh temporary one)
#   --requests N      --bench: requests per benchmark (200000)
#   --tests LIST      --bench: redis-benchmark tests (set,get,hset)
# Environment: TEKSDB_BUILD_DIR (build), where teksdb-server is built
#   (packages installed, configured and built first), unless TEKSDB_SERVER
#   names a teksdb-server to use as it is.
#
# What the proxy forwards (twemproxy's Redis support, checked by
# tests/tools/cluster_test.sh): every command on keys — strings (GET SET SETNX
# SETEX PSETEX INCR INCRBY DECR DECRBY APPEND STRLEN, and MGET MSET DEL
# EXISTS split per server, so not atomic across servers), keys (EXPIRE
# PEXPIRE EXPIREAT PEXPIREAT TTL PTTL PERSIST TYPE), hashes (all, HSCAN
# included), lists, sets and sorted sets (all of teksdb-server's). PING and
# QUIT the proxy answers itself. Not forwarded (the proxy closes the
# connection): commands without a key or over all keys — KEYS SCAN DBSIZE
# FLUSHDB FLUSHALL INFO CONFIG SELECT CLIENT HELLO ECHO SHUTDOWN; run those
# against each server's own port.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
die() { echo "cluster.sh: $*" >&2; exit 1; }
log() { echo "[cluster] $*" >&2; }

servers=
port=22121
memtable=teks
threads=1
dir=
bench=
sync=
requests=200000
tests=set,get,hset
while (($#)); do
  case $1 in
    --servers|--port|--memtable|--threads|--dir|--requests|--tests)
      [[ $# -ge 2 ]] || die "$1 needs a value"
      declare "${1#--}=$2"
      shift 2 ;;
    --bench) bench=1; shift ;;
    --sync) sync=--sync; shift ;;
    -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
servers=${servers:-$([[ -n $bench ]] && echo 4 || echo 3)}
[[ $servers =~ ^[1-9][0-9]?$ ]] || die "--servers must be 1..99, not '$servers'"
[[ $port =~ ^[0-9]+$ ]] && ((port > 0 && port + servers < 65536)) || die "bad --port '$port'"
[[ $memtable == teks || $memtable == skip_list ]] || die "--memtable must be teks or skip_list"

server_bin=$(bash "$root/scripts/server_binary.sh")
own_dir=
if [[ -z $dir ]]; then
  dir=$(mktemp -d "${TMPDIR:-/tmp}/teksdb-cluster.XXXXXX")
  own_dir=1
fi
mkdir -p "$dir"

pids=()
stop_all() {
  ((${#pids[@]} == 0)) || kill "${pids[@]}" 2>/dev/null || true
  ((${#pids[@]} == 0)) || wait "${pids[@]}" 2>/dev/null || true
  pids=()
}
cleanup() {
  stop_all
  [[ -z $own_dir ]] || rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

wait_for() {  # PORT: until it answers PING
  for _ in $(seq 200); do
    [[ "$(redis-cli -p "$1" ping 2>/dev/null)" == PONG ]] && return 0
    sleep 0.05
  done
  die "nothing answers on port $1 (logs under $dir)"
}

# start N: N servers and the proxy in front of them.
start() {
  local n=$1 config=$dir/nutcracker-$1.yml
  {
    echo "teksdb:"
    echo "  listen: 127.0.0.1:$port"
    echo "  hash: fnv1a_64"
    echo "  distribution: ketama"
    echo "  redis: true"
    echo "  auto_eject_hosts: false"
    echo "  servers:"
  } >"$config"
  for ((i = 1; i <= n; i++)); do
    local p=$((port + i))
    "$server_bin" --dir "$dir/server$i-of-$n" --port "$p" --threads "$threads" \
      --memtable "$memtable" $sync 2>>"$dir/server$i.log" &
    pids+=($!)
    echo "   - 127.0.0.1:$p:1 server$i" >>"$config"
  done
  for ((i = 1; i <= n; i++)); do wait_for $((port + i)); done
  nutcracker -c "$config" -o "$dir/nutcracker.log" -s $((port + n + 1)) &
  pids+=($!)
  wait_for "$port"
}

if [[ -z $bench ]]; then
  start "$servers"
  log "$servers teksdb-servers ($memtable) on ports $((port + 1))-$((port + servers)), twemproxy on $port; data in $dir"
  log "try: redis-cli -p $port set greeting hello; redis-cli -p $port get greeting   (Ctrl-C stops everything)"
  wait "${pids[@]}"
  exit 0
fi

IFS=, read -r -a test_list <<<"$tests"
header=$(printf '%-8s' servers; for t in "${test_list[@]}"; do printf '%14s' "$t ops/s"; done)
rows=()
for ((n = 1; n <= servers; n++)); do
  log "run $n/$servers: $n server(s) behind the proxy, redis-benchmark -P 16 -c 50 -n $requests -t $tests"
  start "$n"
  # (It warns that the proxy does not forward CONFIG: the log keeps that.)
  csv=$(redis-benchmark -p "$port" -P 16 -c 50 -r 100000 -n "$requests" -t "$tests" --csv \
    2>>"$dir/redis-benchmark.log")
  stop_all
  row=$(printf '%-8s' "$n")
  for t in "${test_list[@]}"; do
    rps=$(awk -F'","' -v t="${t^^}" 'toupper($1) ~ "^\"" t {print $2; exit}' <<<"$csv")
    [[ -n $rps ]] || die "no result for $t in: $csv"
    row+=$(printf '%14.0f' "$rps")
  done
  rows+=("$row")
done
echo "twemproxy + teksdb-server ($memtable, $threads I/O thread(s) each${sync:+, --sync}), redis-benchmark -P 16 -c 50 -r 100000 -n $requests"
echo "$header"
printf '%s\n' "${rows[@]}"
