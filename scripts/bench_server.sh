#!/usr/bin/env bash
# The server scenario (scripts/bench.sh --scenario server runs this):
# redis-benchmark against teksdb-server on TeksTable, the same server on
# RocksDB's skip list (--memtable skip_list), and real redis-server, in the
# same run, each started fresh per repeat. One redis-benchmark process per
# test, -P 16 -c 50, keys drawn from --keyspace:
#   set      SET key:__rand_int__ (built-in test, --value-size bytes)
#   get      GET key:__rand_int__ (the keys set just before)
#   hset     HSET user:__rand_int__ with 5 fields (a field record each + meta)
#   hgetall  HGETALL user:__rand_int__ (a seek and a short scan)
#   zadd     ZADD (built-in test: one sorted set, a member per request)
# Prints a table of medians over --repeat runs (ops/s per server, the ratio
# of TeksTable to the skip list and to Redis), writes runs.tsv and
# table.txt, and a plot of the ratios (matplotlib in a venv, as bench.sh).
#
# Usage: scripts/bench_server.sh [options]
#   --requests N     requests per test (1000000)
#   --keyspace N     distinct keys (-r) (1000000)
#   --value-size N   SET's value bytes (100)
#   --repeat N       runs of everything, interleaved; medians (3)
#   --threads N      teksdb-server I/O threads (2)
#   --servers LIST   teks,skip_list,redis (all three)
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
keyspace=1000000
value_size=100
repeat=3
threads=2
servers=teks,skip_list,redis
out=$root/build/bench
plots=1
while (($#)); do
  case $1 in
    --requests|--keyspace|--value-size|--repeat|--threads)
      [[ $# -ge 2 && $2 =~ ^[1-9][0-9]*$ ]] || die "$1 needs a positive integer"
      name=${1#--}
      declare "${name//-/_}=$2"
      shift 2 ;;
    --servers|--out)
      [[ $# -ge 2 ]] || die "$1 needs a value"
      declare "${1#--}=$2"
      shift 2 ;;
    --no-plots) plots=; shift ;;
    -h|--help) sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
IFS=, read -r -a server_list <<<"$servers"
for s in "${server_list[@]}"; do
  [[ $s == teks || $s == skip_list || $s == redis ]] || die "unknown server '$s' (teks, skip_list, redis)"
done

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

port=$((30000 + RANDOM % 20000))
start_server() {  # NAME
  if [[ $1 == redis ]]; then
    redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --dir "$tmp" \
      >"$tmp/redis.log" 2>&1 &
  else
    "$server_bin" --dir "$tmp/db-$1" --port "$port" --threads "$threads" \
      --memtable "$1" 2>"$tmp/$1.log" &
  fi
  pid=$!
  for _ in $(seq 200); do
    [[ "$(redis-cli -p "$port" ping 2>/dev/null)" == PONG ]] && return 0
    sleep 0.05
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
tests=(set get hset hgetall zadd)
bench() {  # TEST: prints requests per second
  local common=(-p "$port" -P 16 -c 50 -r "$keyspace" -n "$requests" --csv)
  local csv
  case $1 in
    set) csv=$(redis-benchmark "${common[@]}" -d "$value_size" -t set) ;;
    get) csv=$(redis-benchmark "${common[@]}" -t get) ;;
    zadd) csv=$(redis-benchmark "${common[@]}" -t zadd) ;;
    hset) csv=$(redis-benchmark "${common[@]}" HSET 'user:__rand_int__' $fields) ;;
    hgetall) csv=$(redis-benchmark "${common[@]}" HGETALL 'user:__rand_int__') ;;
  esac
  awk -F'","' 'NR == 2 {print $2}' <<<"$csv"
}

runs=$results/runs.tsv
printf 'repeat\tserver\ttest\tops_per_s\n' >"$runs"
total=$((repeat * ${#server_list[@]}))
done_runs=0
started=$SECONDS
for ((r = 1; r <= repeat; r++)); do
  for s in "${server_list[@]}"; do
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

title="redis-benchmark -P 16 -c 50 -r $keyspace -n $requests (SET values $value_size bytes, HSET 5 fields), teksdb-server --threads $threads, medians of $repeat"
"$python" "$root/scripts/server_report.py" "$runs" --title "$title" \
  ${plots:+--plot "$results/server.png"} | tee "$results/table.txt"
log "results in $results (table.txt, runs.tsv${plots:+, server.png})"
