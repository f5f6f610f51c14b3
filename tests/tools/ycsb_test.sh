#!/usr/bin/env bash
# The real YCSB client (ycsb/: YCSB 0.17.0's core and our Redis-protocol
# binding) against a real teksdb-server, with tiny counts:
#   - every workload in the study's order (load A, A, B, C, D, F, load E, E),
#     with 2 client threads and a password: YCSB reports every operation, all
#     Return=OK;
#   - the records are what the binding promises: hashes of 11 fields of 100
#     bytes under 16-byte keys, each key in the _indices sorted set;
#   - ycsb/run.sh prints YCSB's summary, and scripts/bench_ycsb.sh runs the
#     study (tiny, one thread, teks and skip_list, pinned) and writes its
#     table, the server's CPU per operation among it; with --target its runs
#     keep to that rate, and a bad --target is refused by name;
#   - bad configuration gives a clear message, within seconds, never a hang: no
#     server at the port, a wrong password, no password, a server that accepts
#     connections but never answers.
# The first run builds ycsb/ with Maven, which fetches YCSB's dependencies
# from Maven Central once (32 MB into ~/.m2, 11 s here); later runs build
# offline. 30-50 s in all on a shared 2-core machine once Maven has its cache.
#
# Usage: tests/tools/ycsb_test.sh PATH/TO/teksdb-server
set -euo pipefail

export TEKSDB_SERVER=${1:?usage: $0 PATH/TO/teksdb-server}
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/ycsb/lib.sh"
source "$(dirname "$0")/../support/script_checks.sh" ycsb
stall_pid=
trap 'server_stop; [[ -z $stall_pid ]] || kill "$stall_pid" 2>/dev/null; rm -rf "$tmp"' EXIT

records=200
operations=300
password=ycsb-secret
workloads=$root/ycsb/workloads

start=$SECONDS
ycsb_build || { fail "the YCSB client builds"; finish; }
pass "the YCSB client builds ($((SECONDS - start)) s)"

# phase NAME -load|-t WORKLOAD EXPECTED: one YCSB run, checked.
phase() {
  local name=$1 mode=$2 workload=$3 expected=$4 message
  if ycsb_client "$tmp/$name.txt" "$mode" "$workloads/workload$workload" -threads 2 \
      -p recordcount="$records" -p operationcount="$operations" &&
     message=$(ycsb_check "$tmp/$name.txt" "$expected" 2>&1); then
    pass "$name: $expected operations, all Return=OK"
  else
    fail "$name: ${message:-see above}"
  fi
}

cli() { REDISCLI_AUTH=$password redis-cli -p "$server_port" "$@"; }

server_start teks "$tmp/server-a" "$root/ycsb/rocksdb/in_memory.ini" "$password"
phase load-a -load a "$records"
expect_eq "after the load, _indices holds every record" "$(cli zcard _indices)" "$records"
key=$(cli zrange _indices 0 0)
expect_eq "a key is 16 bytes" "${#key}" 16
expect_eq "a record has 11 fields" "$(cli hlen "$key")" 11
expect_eq "a field holds 100 bytes" "$(cli hget "$key" field7 | tr -d '\n' | wc -c)" 100
for w in a b c d f; do
  phase "run-$w" -t "$w" "$operations"
done
inserted=$(awk -F', ' '$1 == "[INSERT]" && $2 == "Operations" { print $3 }' "$tmp/run-d.txt")
expect_eq "workload D's inserts are indexed too" "$(cli zcard _indices)" "$((records + ${inserted:-0}))"
server_stop

server_start teks "$tmp/server-e" "$root/ycsb/rocksdb/in_memory.ini" "$password"
phase load-e -load e "$records"
phase run-e -t e "$operations"
scans=$(awk -F', ' '$1 == "[SCAN]" && $2 == "Operations" { print $3 }' "$tmp/run-e.txt")
((${scans:-0} > 0)) && pass "workload E scanned ($scans scans)" || fail "workload E ran no scans"

# Bad configuration: each must fail with the binding's message, in seconds.
# expect_refusal NAME PATTERN [YCSB arguments]: the load must fail, its message
# must match PATTERN.
expect_refusal() {
  local name=$1 pattern=$2 message began=$SECONDS
  shift 2
  if timeout 60 bash -c 'source "$1/ycsb/lib.sh"; server_port=$2; shift 2
                         ycsb_client "$@" -threads 2 -p recordcount=10 &&
                         ycsb_check "$1" 10' _ "$root" "$server_port" \
       "$tmp/$name.txt" -load "$workloads/workloada" "$@" 2>"$tmp/$name.msg"; then
    fail "$name: YCSB's run was accepted"
    return
  fi
  message=$(head -n1 "$tmp/$name.msg")
  if [[ $message =~ $pattern ]] && ((SECONDS - began < 30)); then
    pass "$name: refused in $((SECONDS - began)) s: $message"
  else
    fail "$name: expected /$pattern/ within 30 s, got after $((SECONDS - began)) s: $(cat "$tmp/$name.msg")"
  fi
}

expect_refusal wrong-password 'WRONGPASS.*check redis.password' -p redis.password=not-it
expect_refusal no-password 'NOAUTH.*check redis.password'
server_stop   # the port is now closed
expect_refusal server-down 'cannot use the server at 127.0.0.1:[0-9]+: .*Connection refused.*redis.port'
exec {stall}< <(exec python3 -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(16)
print(s.getsockname()[1], flush=True); time.sleep(120)')
stall_pid=$!
read -r -u "$stall" server_port
expect_refusal server-silent 'Read timed out.*redis.timeout' -p redis.timeout=1000
kill "$stall_pid" 2>/dev/null || true
stall_pid=

if out=$("$root/ycsb/run.sh" --workload c --records 100 --operations 100 --keep "$tmp/run-sh" 2>&1) &&
   grep -q '^\[OVERALL\], Throughput(ops/sec), ' <<<"$out" && grep -q '^\[READ\], Return=OK, 100$' <<<"$out"; then
  pass "ycsb/run.sh prints YCSB's summary"
else
  fail "ycsb/run.sh: $out"
fi

if "$root/scripts/bench_ycsb.sh" --servers teks,skip_list --threads 1 --records 100 --operations 100 \
     --scans 20 --no-plots --pin --out "$tmp/study" >"$tmp/study.log" 2>&1; then
  pass "scripts/bench_ycsb.sh runs the study"
  expect_eq "its table has a line per phase" \
    "$(grep -cE '^(load a|a|b|c|d|f|load e|e) +1 +[0-9,]+ +[0-9,]+ +[0-9.]+x$' "$tmp/study/ycsb/table.txt")" 8
  expect_eq "and the server's CPU per operation, pinned, a line per phase" \
    "$(grep -cE '^(load a|a|b|c|d|f|load e|e) +1 +[0-9]+\.[0-9]+ +[0-9]+\.[0-9]+ +([0-9.]+x|-)$' \
      "$tmp/study/ycsb/table.txt")" 8
  expect_eq "runs.tsv has every run" \
    "$(awk -F'\t' 'NR > 1 { print $3 "/" $4 }' "$tmp/study/ycsb/runs.tsv" | sort -u | wc -l)" 16
else
  fail "scripts/bench_ycsb.sh: $(tail -n 20 "$tmp/study.log")"
fi

# 200 operations at 400 a second take half a second at least.
if "$root/scripts/bench_ycsb.sh" --servers teks --threads 1 --records 100 --operations 200 \
     --workloads c --target 400 --no-plots --out "$tmp/target" >"$tmp/target.log" 2>&1; then
  runtime=$(awk -F', ' '$1 == "[OVERALL]" && $2 == "RunTime(ms)" { print int($3) }' \
    "$tmp/target/ycsb/raw/teks-t1-r1-c.txt")
  if ((runtime >= 450)); then
    pass "bench_ycsb.sh --target holds the run to its rate"
  else
    fail "bench_ycsb.sh --target 400: 200 operations in ${runtime:-?} ms"
  fi
  expect_eq "and the table's command names it" "$(grep -c -- '--target 400' "$tmp/target/ycsb/table.txt")" 1
else
  fail "scripts/bench_ycsb.sh --target: $(tail -n 20 "$tmp/target.log")"
fi
if out=$("$root/scripts/bench_ycsb.sh" --target 0 2>&1); then
  fail "bench_ycsb.sh --target 0 ran"
else
  expect_eq "bench_ycsb.sh --target 0 is refused by name" \
    "$(grep -c "target must be a positive integer, not '0'" <<<"$out")" 1
fi

echo "ycsb: $((SECONDS - start)) s"
finish
