#!/usr/bin/env bash
# The server scenario (scripts/bench.sh --scenario server runs this):
# redis-benchmark against teksdb-server on TeksTable, the same server on
# RocksDB's skip list (--memtable skip_list), that skip list with RocksDB's
# whole-key memtable bloom filter (skip_list_bloom:
# memtable_whole_key_filtering, memtable_prefix_bloom_size_ratio=0.1, as
# Kvrocks sets them), and real redis-server, in the same run, each started
# fresh per repeat; teks_acl (not in the default list) is teks with every
# request from an ACL user that has key patterns (the cost of checking
# ACL: its CPU per request over teks's). One redis-benchmark process per test, -P 16 (--pipeline) -c 50 (--clients), keys
# drawn from --keyspace:
#   set      SET key:__rand_int__ (built-in test, --value-size bytes)
#   get      GET key:__rand_int__ (the keys set just before)
#   hset     HSET user:__rand_int__ with 5 fields of 20 bytes (a small hash:
#            one record, compact)
#   hgetall  HGETALL user:__rand_int__ (one point read of that record)
#   sadd     SADD set:__rand_int__ with 5 members (small sets, compact)
#   zadd5    ZADD zset:__rand_int__ with 5 members (small sorted sets, compact)
#   lpush5   LPUSH list:__rand_int__ with 5 elements (small lists: each in
#            its meta record)
#   lrange   LRANGE list:__rand_int__ 0 -1 (those lists read whole)
#   lpush    LPUSH mylist (built-in test: one list, an element per request,
#            so one long list in chunks)
#   lrange100  LRANGE mylist 0 99 (as the built-in lrange_100; mylist filled
#            with 1,000 elements first when shorter, not timed)
#   queue    a job queue: LPUSH queue and BRPOP queue 10 from two
#            redis-benchmark processes at once, --requests each (half the
#            clients each); ops/s: pushes per second, CPU per request: per
#            push or pop
#   zadd     ZADD (built-in test: one sorted set, a member per request, so
#            one large set: a record per member and its score index)
#   del100k  DEL of a hash of 100,000 fields (built first, not timed): the
#            server's own time for the DEL, from INFO commandstats
# Each test also reads the server's CPU time (/proc/PID/stat: every thread
# of it, background ones included) before and after: server CPU µs per
# request. Prints tables of medians over --repeat runs (ops/s and server
# CPU per request per server; TeksTable's ratios to the skip list and to
# Redis), writes runs.tsv and table.txt, and a plot of the ratios
# (matplotlib in a venv, as bench.sh). With --pin the server runs on CPU 0
# and redis-benchmark on the others (taskset), so the client's CPU time is
# not taken from the server's.
#
# Usage: scripts/bench_server.sh [options]
#   --requests N     requests per test (1000000)
#   --keyspace N     distinct keys (-r) (1000000)
#   --value-size N   SET's value bytes (100)
#   --repeat N       runs of everything, interleaved; medians (3)
#   --pipeline N     requests per pipeline (-P, 16); 1 measures what each
#                    request costs alone (a round trip each, as YCSB sends)
#   --clients N      redis-benchmark's connections (-c, 50); --clients 1
#                    --pipeline 1: one request in flight at a time
#   --threads N      teksdb-server I/O threads (2; 1 with --pin)
#   --write-buffer-mb N  teksdb-server's write_buffer_size in MiB (RocksDB's
#                    default, 64): 4096 keeps a run's data in memory
#   --pin            server on CPU 0, client on the other CPUs
#   --server-flag F  a flag (a CONFIG parameter too: --server-flag
#                    '--maxmemory-clients 1gb') for every teksdb-server, repeatable
#   --tests LIST     of the tests above (all)
#   --servers LIST   of teks,teks_acl,skip_list,skip_list_bloom,redis
#                    (default: all but teks_acl)
#   --out DIR        results go to DIR/server/ (build/bench)
#   --no-plots       no plot (no matplotlib venv)
# Environment: TEKSDB_BUILD_DIR (build), where teksdb-server is built
#   (packages installed, configured and built first), unless TEKSDB_SERVER
#   names a teksdb-server to use as it is.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
die() { echo "bench_server.sh: $*" >&2; exit 1; }
log() { echo "[bench] $*" >&2; }

requests=1000000
pipeline=16
clients=50
keyspace=1000000
value_size=100
repeat=3
threads=
write_buffer_mb=
pin=
servers=teks,skip_list,skip_list_bloom,redis
all_tests=set,get,hset,hgetall,sadd,zadd5,lpush5,lrange,lpush,lrange100,queue,zadd,del100k
tests=$all_tests
out=$root/build/bench
plots=1
server_flags=()
while (($#)); do
  case $1 in
    --requests|--keyspace|--value-size|--repeat|--threads|--write-buffer-mb|--pipeline|--clients)
      [[ $# -ge 2 && $2 =~ ^[1-9][0-9]*$ ]] || die "$1 needs a positive integer"
      name=${1#--}
      declare "${name//-/_}=$2"
      shift 2 ;;
    --servers|--out|--tests)
      [[ $# -ge 2 ]] || die "$1 needs a value"
      declare "${1#--}=$2"
      shift 2 ;;
    --server-flag)
      [[ $# -ge 2 ]] || die "$1 needs a value"
      read -r -a flag_words <<<"$2"
      server_flags+=("${flag_words[@]}")
      shift 2 ;;
    --no-plots) plots=; shift ;;
    --pin) pin=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
IFS=, read -r -a server_list <<<"$servers"
for s in "${server_list[@]}"; do
  [[ $s == teks || $s == teks_acl || $s == skip_list || $s == skip_list_bloom || $s == redis ]] ||
    die "unknown server '$s' (teks, teks_acl, skip_list, skip_list_bloom, redis)"
done
threads=${threads:-$([[ -n $pin ]] && echo 1 || echo 2)}
cpus=$(nproc)
server_cpu=() client_cpu=()
if [[ -n $pin ]]; then
  ((cpus >= 2)) || die "--pin needs 2 CPUs or more"
  server_cpu=(taskset -c 0)
  client_cpu=(taskset -c "1-$((cpus - 1))")
fi
clock_ticks=$(getconf CLK_TCK)

build=${TEKSDB_BUILD_DIR:-$root/build}
server_bin=$(bash "$root/scripts/server_binary.sh")
python=python3
if [[ -n $plots ]]; then
  python=$(bash "$root/scripts/python_venv.sh" "$build/plot-venv" matplotlib 'matplotlib>=3.6') ||
    die "no matplotlib; rerun with --no-plots"
fi
results=$out/server
mkdir -p "$results"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/teksdb-bench-server.XXXXXX")
pid=
cleanup() {
  [[ -z $pid ]] || { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; }
  rm -rf "$tmp"
}
trap cleanup EXIT

port=
# teks_acl's user, and how the clients log in as it (none for the others).
acl_user=(--user "bench on >bench-pw +@all ~key:* ~user:* ~set:* ~zset:* ~list:* ~myzset* ~big ~mylist ~queue")
login=()
# A RocksDB OPTIONS file for teksdb-server NAME: the server's own defaults
# (its table options: a bloom filter of 10 bits per key and a 1 GiB block
# cache, server/main.cc), the write buffer asked for, and the memtable bloom
# filter for skip_list_bloom.
write_options() {  # NAME FILE
  {
    printf '[Version]\n  rocksdb_version=7.8.3\n  options_file_version=1.1\n'
    printf '[DBOptions]\n  create_if_missing=true\n[CFOptions "default"]\n'
    [[ -z $write_buffer_mb ]] || printf '  write_buffer_size=%d\n' $((write_buffer_mb << 20))
    if [[ $1 == skip_list_bloom ]]; then
      printf '  memtable_whole_key_filtering=true\n  memtable_prefix_bloom_size_ratio=0.1\n'
    fi
    printf '[TableOptions/BlockBasedTable "default"]\n'
    printf '  filter_policy=bloomfilter:10:false\n  block_cache=%d\n' $((1024 << 20))
  } >"$2"
}
# start_server NAME: starts it on a port of its own, below the kernel's
# ephemeral range (where the clients' own ports come from, and an earlier
# run's connections may still hold one); a port found taken is replaced.
# Ready once the server itself says it listens and answers PING.
start_server() {  # NAME
  local attempt ready
  [[ $1 == redis ]] && ready='Ready to accept connections' || ready='teksdb-server: listening on'
  for attempt in $(seq 20); do
    port=$((20000 + RANDOM % 12000))
    if [[ $1 == redis ]]; then
      "${server_cpu[@]}" redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no \
        --dir "$tmp" >"$tmp/redis.log" 2>&1 &
    else
      local memtable=${1%_bloom} user=()
      memtable=${memtable%_acl}
      [[ $1 == teks_acl ]] && user=("${acl_user[@]}")
      write_options "$1" "$tmp/$1.options"
      "${server_cpu[@]}" "$server_bin" --dir "$tmp/db-$1" --port "$port" --threads "$threads" \
        --memtable "$memtable" --rocksdb-options "$tmp/$1.options" "${user[@]}" "${server_flags[@]}" \
        2>"$tmp/$1.log" &
    fi
    login=()
    [[ $1 == teks_acl ]] && login=(--user bench -a bench-pw)
    pid=$!
    for _ in $(seq 200); do
      kill -0 "$pid" 2>/dev/null || break
      if grep -q "$ready" "$tmp/$1.log" 2>/dev/null &&
        [[ "$(redis-cli -p "$port" "${login[@]}" --no-auth-warning ping 2>/dev/null)" == PONG ]]; then
        return 0
      fi
      sleep 0.05
    done
    grep -q 'Address already in use' "$tmp/$1.log" 2>/dev/null || break
    wait "$pid" 2>/dev/null || true
    pid=
    ((attempt == 20)) || log "port $port is taken; $1 tries another (attempt $((attempt + 1)))"
  done
  die "$1 did not start on port $port: $(tail -3 "$tmp/$1.log" 2>/dev/null)"
}
stop_server() {
  kill "$pid"
  wait "$pid" 2>/dev/null || true
  pid=
  rm -rf "$tmp"/db-*
}

fields=$(for i in 1 2 3 4 5; do printf ' f%d %s' "$i" "$(head -c 20 /dev/zero | tr '\0' v)"; done)
members=$(for i in 1 2 3 4 5; do printf ' member:%d' "$i"; done)
scored=$(for i in 1 2 3 4 5; do printf ' %d member:%d' "$i" "$i"; done)
IFS=, read -r -a tests <<<"$tests"
for t in "${tests[@]}"; do
  [[ ,$all_tests, == *,$t,* ]] || die "unknown test '$t' ($all_tests)"
done
cpu_ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
# The server's own microseconds for one command so far (INFO commandstats).
command_usec() {  # COMMAND
  redis-cli -p "$port" "${login[@]}" --no-auth-warning info commandstats | tr -d '\r' |
    awk -F'[=,]' -v c="cmdstat_$1:calls" '$1 == c {print $4; found = 1} END {if (!found) print 0}'
}
# Prints redis-benchmark's ops/s (from its CSV) and the server's CPU µs per
# request over `served` requests.
report() {  # CSV TICKS SERVED
  printf '%s\t%s\n' "$(awk -F'","' 'NR == 2 {print $2}' <<<"$1")" \
    "$(awk -v t="$2" -v hz="$clock_ticks" -v n="$3" 'BEGIN {printf "%.3f", t * 1e6 / hz / n}')"
}
bench() {  # TEST: prints ops/s and the server's CPU µs per request
  local common=(-p "$port" "${login[@]}" -P "$pipeline" -c "$clients" -r "$keyspace" -n "$requests" --csv)
  local test_args csv before i
  if [[ $1 == del100k ]]; then
    for ((i = 0; i < 100000; i++)); do printf 'HSET big f%d v\r\n' "$i"; done |
      redis-cli -p "$port" "${login[@]}" --no-auth-warning --pipe >/dev/null
    before=$(command_usec del)
    redis-cli -p "$port" "${login[@]}" --no-auth-warning del big >/dev/null
    printf '%s\t%s\n' 1 "$(($(command_usec del) - before))"
    return
  fi
  if [[ $1 == queue ]]; then
    local half=$(((clients + 1) / 2)) pusher
    common=(-p "$port" "${login[@]}" -P "$pipeline" -c "$half" -r "$keyspace" -n "$requests" --csv)
    before=$(cpu_ticks)
    "${client_cpu[@]}" redis-benchmark "${common[@]}" BRPOP queue 10 >/dev/null &
    pusher=$!
    csv=$("${client_cpu[@]}" redis-benchmark "${common[@]}" LPUSH queue __rand_int__)
    wait "$pusher"
    report "$csv" "$(($(cpu_ticks) - before))" "$((2 * requests))"
    return
  fi
  if [[ $1 == lrange100 ]] &&
    (($(redis-cli -p "$port" "${login[@]}" --no-auth-warning llen mylist) < 100)); then
    for ((i = 0; i < 1000; i++)); do printf 'RPUSH mylist element:%d\r\n' "$i"; done |
      redis-cli -p "$port" "${login[@]}" --no-auth-warning --pipe >/dev/null
  fi
  case $1 in
    set) test_args=(-d "$value_size" -t set) ;;
    get) test_args=(-t get) ;;
    zadd) test_args=(-t zadd) ;;
    hset) read -r -a test_args <<<"HSET user:__rand_int__ $fields" ;;
    hgetall) test_args=(HGETALL 'user:__rand_int__') ;;
    sadd) read -r -a test_args <<<"SADD set:__rand_int__ $members" ;;
    zadd5) read -r -a test_args <<<"ZADD zset:__rand_int__ $scored" ;;
    lpush5) read -r -a test_args <<<"LPUSH list:__rand_int__ $members" ;;
    lrange) test_args=(LRANGE 'list:__rand_int__' 0 -1) ;;
    lpush) test_args=(-t lpush) ;;
    lrange100) test_args=(LRANGE mylist 0 99) ;;
  esac
  before=$(cpu_ticks)
  csv=$("${client_cpu[@]}" redis-benchmark "${common[@]}" "${test_args[@]}")
  report "$csv" "$(($(cpu_ticks) - before))" "$requests"
}

runs=$results/runs.tsv
printf 'repeat\tserver\ttest\tops_per_s\tserver_us_per_request\n' >"$runs"
total=$((repeat * ${#server_list[@]}))
done_runs=0
started=$SECONDS
for ((r = 1; r <= repeat; r++)); do
  # Each repeat starts with the next server, so that none always runs
  # first (or right after the same one).
  order=()
  for ((i = 0; i < ${#server_list[@]}; i++)); do
    order+=("${server_list[(i + r - 1) % ${#server_list[@]}]}")
  done
  for s in "${order[@]}"; do
    elapsed=$((SECONDS - started))
    left=
    ((done_runs == 0)) || left=", ~$((elapsed * (total - done_runs) / done_runs))s left"
    log "run $((done_runs + 1))/$total: $s, repeat $r (${elapsed}s elapsed$left)"
    start_server "$s"
    for t in "${tests[@]}"; do
      printf '%s\t%s\t%s\t%s\n' "$r" "$s" "$t" "$(bench "$t")" >>"$runs"
    done
    stop_server
    done_runs=$((done_runs + 1))
  done
done

title="redis-benchmark -P $pipeline -c $clients -r $keyspace -n $requests (SET values $value_size bytes, HSET 5 fields), teksdb-server --threads $threads, write buffer ${write_buffer_mb:-64} MiB${pin:+, server pinned to CPU 0, client to 1-$((cpus - 1))}, medians of $repeat"
"$python" "$root/scripts/server_report.py" "$runs" --title "$title" \
  ${plots:+--plot "$results/server.png"} | tee "$results/table.txt"
log "results in $results (table.txt, runs.tsv${plots:+, server.png})"
