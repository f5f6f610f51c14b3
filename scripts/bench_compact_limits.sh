#!/usr/bin/env bash
# What the limits of compact hashes trade (server/state/compact_limits.h):
# the same hashes kept compact (inside their meta record) and one record
# per field (hash-max-listpack-entries 0), in the same run, for each size
# asked. Per size and layout, a fresh teksdb-server (pinned to CPU 0, one
# I/O thread, data in the memtable) gets 1,000 hashes of N fields of V
# bytes, then redis-benchmark (-P 16 -c 50, on the other CPUs) runs HSET of
# one field, HGET of one field and HGETALL over them; the server's own CPU
# time per request (/proc, every thread of it) is the measure, median of
# --repeat runs. Prints a table with compact / per-field ratios (above 1:
# compact costs more; "-" where a tiny run read no CPU tick).
#
# Usage: scripts/bench_compact_limits.sh [options]
#   --fields LIST   field counts (16,64,128)
#   --values LIST   value sizes in bytes (100,256)
#   --repeat N      runs of each, medians (1)
#   --requests N    HSET and HGET requests per run (100000; HGETALL a fifth)
# Environment: TEKSDB_BUILD_DIR / TEKSDB_SERVER as scripts/server_binary.sh.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }
die() { echo "bench_compact_limits.sh: $*" >&2; exit 1; }

fields_list=16,64,128 values_list=100,256 repeat=1 requests=100000
while (($#)); do
  case $1 in
    --fields) fields_list=${2:?}; shift 2 ;;
    --values) values_list=${2:?}; shift 2 ;;
    --repeat) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || die "--repeat needs a positive integer"; repeat=$2; shift 2 ;;
    --requests) [[ ${2:-} =~ ^[1-9][0-9]*$ ]] || die "--requests needs a positive integer"; requests=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown option $1 (see --help)" ;;
  esac
done
[[ $fields_list =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || die "--fields needs numbers, comma-separated"
[[ $values_list =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || die "--values needs numbers, comma-separated"
(($(nproc) >= 2)) || die "needs 2 CPUs (server and client pinned apart)"
command -v redis-benchmark >/dev/null || die "redis-benchmark not found (scripts/setup.sh installs it)"
server=$(bash "$root/scripts/server_binary.sh")
work=$(mktemp -d "${TMPDIR:-/tmp}/teksdb-bench-limits.XXXXXX")
pid=
trap '[[ -n $pid ]] && kill "$pid" 2>/dev/null; rm -rf "$work"' EXIT
hz=$(getconf CLK_TCK)
# Below the kernel's ephemeral range (32768 on), where clients' own ports
# come from, as bench_server.sh picks its ports.
port=$((20000 + RANDOM % 12000))

ticks() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
# µs of server CPU per request of redis-benchmark's COMMAND... over n requests
measure() {  # n command...
  local n=$1 before
  shift
  before=$(ticks)
  taskset -c 1-$(($(nproc) - 1)) redis-benchmark -p "$port" -P 16 -c 50 -r 1000 -n "$n" -q "$@" >/dev/null 2>&1
  awk -v t="$(($(ticks) - before))" -v hz="$hz" -v n="$n" 'BEGIN {printf "%.2f", t * 1e6 / hz / n}'
}
run() {  # fields value_bytes layout: prints "hset hget hgetall encoding"
  rm -rf "$work/db"
  taskset -c 0 "$server" --dir "$work/db" --port "$port" --threads 1 >"$work/server.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 100); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.1; done
  redis-cli -p "$port" config set hash-max-listpack-value $(($2 + 16)) >/dev/null
  redis-cli -p "$port" config set hash-max-listpack-entries "$([[ $3 == compact ]] && echo $(($1 + 1)) || echo 0)" >/dev/null
  local value
  value=$(head -c "$2" /dev/zero | tr '\0' v)
  for ((k = 0; k < 1000; k++)); do
    printf 'HSET h:%012d' "$k"
    for ((f = 1; f <= $1; f++)); do printf ' f%d %s' "$f" "$value"; done
    printf '\r\n'
  done | redis-cli -p "$port" --pipe >/dev/null
  printf '%s %s %s %s\n' "$(measure "$requests" HSET h:__rand_int__ f3 "$value")" \
    "$(measure "$requests" HGET h:__rand_int__ f3)" "$(measure $((requests / 5 + 1)) HGETALL h:__rand_int__)" \
    "$(redis-cli -p "$port" object encoding h:000000000001)"
  kill "$pid"; wait "$pid" 2>/dev/null || true; pid=
}
median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }

printf '%-6s %-6s %-9s %-9s %9s %9s %11s\n' fields value layout encoding "hset µs" "hget µs" "hgetall µs"
IFS=, read -r -a fields_all <<<"$fields_list"
IFS=, read -r -a values_all <<<"$values_list"
total=$((${#fields_all[@]} * ${#values_all[@]} * 2 * repeat)) done_runs=0
for n in "${fields_all[@]}"; do
  for v in "${values_all[@]}"; do
    declare -A result=()
    for layout in compact per-field; do
      : >"$work/runs"
      for ((i = 0; i < repeat; i++)); do
        run "$n" "$v" "$layout" >>"$work/runs"
        done_runs=$((done_runs + 1))
        echo "[limits] $done_runs/$total: $n fields of $v bytes, $layout" >&2
      done
      encoding=$(awk 'END {print $4}' "$work/runs")
      for col in 1 2 3; do result[$layout,$col]=$(awk -v c=$col '{print $c}' "$work/runs" | median); done
      printf '%-6s %-6s %-9s %-9s %9s %9s %11s\n' "$n" "$v" "$layout" "$encoding" \
        "${result[$layout,1]}" "${result[$layout,2]}" "${result[$layout,3]}"
    done
    awk -v a="${result[compact,1]}" -v b="${result[per-field,1]}" -v c="${result[compact,3]}" \
      -v d="${result[per-field,3]}" -v n="$n" -v v="$v" \
      'function ratio(x, y) { return y > 0 ? sprintf("%.2fx", x / y) : "-" }
       BEGIN {printf "%-6s %-6s compact / per-field: hset %s, hgetall %s\n\n", n, v, ratio(a, b), ratio(c, d)}'
  done
done
