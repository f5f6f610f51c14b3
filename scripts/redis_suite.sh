#!/usr/bin/env bash
# Redis's own test suite (Redis 7.0.15's tests/, from ../shared/redis/)
# against teksdb-server, the harness unpatched, in one of its two modes:
# - external-server mode (most files): each file against a fresh
#   teksdb-server this script starts;
# - the harness's own mode (the files in $own_files, whose tests are
#   tagged external:skip: limits, buffers, AUTH, INFO's client stats): the
#   harness starts each server itself, as `src/redis-server CONFIG_FILE`
#   with a redis.conf it writes, and waits for its "Ready to accept" line;
#   here src/redis-server is a small wrapper that runs teksdb-server on that
#   file (with --redis, Debian's redis-server).
# Files run JOBS (twice the CPUs) at a time, as the harness runs its own
# files in parallel; each with the suite's per-test timeout and an outer timeout, so
# nothing hangs. Prints
# per file the tests run, passed and failed, what redis-server (7.0, or the --version) passes
# of the same file (tests/tools/redis_suite_redis_passes.txt) and the share
# of that teksdb-server passes, and for each failure whether it is expected
# (tests/tools/redis_suite_expected_failures.txt: "FILE<TAB>TEST<TAB>why",
# one a line) or new. Tests that could only wait for ever here (for an
# eviction, say) are skipped by name (--skiptest), each with its reason in
# tests/tools/redis_suite_skipped_tests.txt, and count as not passed.
# Exits non-zero when a test newly fails, or hangs, or a file times out.
# The tarball is unpacked once, outside the work tree.
#
# Usage: scripts/redis_suite.sh [--server PATH] [--files "unit/type/string unit/expire ..."]
#          [--long]     the longer job: the long files too ($long_files)
#          [--slow]     the tests Redis tags "slow" too, and unit/type/list-2 (all
#                       slow): their pass counts in tests/tools/redis_suite_*_passes_slow.txt,
#                       the failures they add to the expected list in
#                       redis_suite_expected_failures_slow.txt (the skipped list is
#                       shared): a few minutes more
#          [--record]   writes the failures of this run as the expected list,
#                       keeping the reasons already there (new ones: "not triaged"),
#                       and its pass counts (docs/COMMANDS.md shows them)
#          [--redis]    runs the files against Debian's redis-server instead (or
#                       REDIS_SERVER); with --record, writes its pass counts (the baseline)
#          [--version 7.4.1]  Redis 7.4.1's files instead (what Redis 7.2 and 7.4
#                       added that teksdb-server runs: unit/type/zset, unit/introspection,
#                       unit/wait, unit/type/hash-field-expire), against their own
#                       lists (tests/tools/redis_suite_*_7.4.1.txt); its --redis needs
#                       REDIS_SERVER, a redis-server 7.4.1 built outside the tree
#                       (../shared/redis/README.md)
# Environment: JOBS (files at once: twice the CPUs), TEKSDB_REDIS_SUITE_DIR (where the suite is unpacked:
#   ~/.cache/teksdb/redis-7.0.15, or redis-7.4.1-suite: apart from a 7.4 build,
#   whose src/redis-server the wrapper would replace), TEKSDB_SERVER (a teksdb-server to use as
#   it is; else build/'s, built first: scripts/server_binary.sh).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
files_70="unit/type/string unit/type/incr unit/type/hash unit/type/list unit/type/list-3 unit/type/set
unit/type/zset unit/expire unit/keyspace unit/multi unit/pubsub unit/scripting unit/bitops unit/bitfield unit/hyperloglog
unit/functions unit/pause unit/info-command unit/protocol unit/introspection unit/introspection-2
unit/latency-monitor unit/slowlog unit/lazyfree unit/replybufsize unit/other unit/tracking unit/sort unit/geo unit/dump
unit/type/stream unit/type/stream-cgroups unit/obuf-limits unit/limits unit/querybuf unit/auth
unit/networking unit/info unit/acl unit/acl-v2 unit/scan unit/quit unit/violations unit/printver
unit/pubsubshard unit/wait unit/tls integration/redis-cli integration/redis-benchmark integration/corrupt-dump
integration/corrupt-dump-fuzzer"
# Redis 7.4.1's files with what 7.2 and 7.4 added that teksdb-server runs.
files_74="unit/type/zset unit/introspection unit/wait unit/type/hash-field-expire"
# The files of what teksdb-server deliberately does otherwise (in the
# longer job): cluster mode, Redis's replication stream and its replicas'
# protocol, AOF and RDB files on disk, Redis's crash log. Run so that every
# failure is listed with its reason.
deliberately_other="unit/cluster unit/cluster-scripting unit/cluster/misc unit/cluster/links
integration/block-repl integration/replication integration/replication-2 integration/replication-3
integration/replication-4 integration/replication-psync integration/replication-buffer
integration/shutdown integration/aof integration/aof-race integration/aof-multi-part integration/rdb
integration/convert-zipmap-hash-on-load integration/convert-ziplist-hash-on-load
integration/convert-ziplist-zset-on-load integration/logging integration/psync2 integration/psync2-reg
integration/psync2-pingoff integration/psync2-master-restart integration/failover integration/dismiss-mem"
# The longer job's files besides (--long): eviction, memory, shutdown and
# AOF files whose tests mostly wait on what teksdb-server does otherwise
# (their reasons in the expected list); minutes more.
long_files="unit/maxmemory unit/memefficiency unit/client-eviction unit/oom-score-adj unit/shutdown
unit/aofrw unit/pendingquerybuf $deliberately_other"
# The files run in the harness's own mode (see above).
own_files=" unit/type/hash-field-expire unit/obuf-limits unit/limits unit/querybuf unit/auth unit/networking unit/info unit/acl unit/acl-v2
unit/pubsubshard unit/wait integration/redis-benchmark integration/corrupt-dump integration/corrupt-dump-fuzzer
unit/maxmemory unit/memefficiency unit/client-eviction unit/oom-score-adj
unit/shutdown unit/aofrw unit/pendingquerybuf $deliberately_other"
own_files=" $(echo $own_files) "  # (one space between, and around)
server=${TEKSDB_SERVER:-}
version=7.0.15
files=
long=0
slow=0
record=0
against_redis=0
file_timeout=900
# Files at once (run_file): twice the CPUs, as the harness's files mostly
# wait (timeouts, sleeps, replies).
files_at_once=${JOBS:-$(($(nproc) * 2))}
while (($#)); do
  case $1 in
    --server) server=$2; shift 2 ;;
    --files) files=$2; shift 2 ;;
    --long) long=1; shift ;;
    --slow) slow=1; shift ;;
    --version) version=$2; shift 2 ;;
    --record) record=1; shift ;;
    --redis) against_redis=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed -n 's/^# \{0,1\}//p'; exit 0 ;;
    *) echo "redis_suite: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
# What differs by version: the tarball, the lists, the files, and the
# server's settings (Redis 7.0 keeps no set of strings compact; a listpack
# set is Redis 7.2's).
case $version in
  7.0.15) lists_suffix= default_files=$files_70 compat_flags=(--set-max-listpack-entries 0) ;;
  7.4.1) lists_suffix=_7.4.1 default_files=$files_74 compat_flags=() ;;
  *) echo "redis_suite: unknown --version '$version' (7.0.15 or 7.4.1)" >&2; exit 2 ;;
esac
files=${files:-$default_files}
if ((long)); then
  [[ $version == 7.0.15 ]] || { echo "redis_suite: --long is for 7.0.15's files" >&2; exit 2; }
  files="$files $long_files"
fi
# The harness's tags: the slow tests left out, or (--slow) not.
tags=(--tags -slow)
skipped=$root/tests/tools/redis_suite_skipped_tests$lists_suffix.txt
if ((slow)); then
  [[ $version == 7.0.15 ]] || { echo "redis_suite: --slow is for 7.0.15's files" >&2; exit 2; }
  [[ " $(echo $files) " == *" unit/type/list "* ]] && files="$files unit/type/list-2"
  tags=()
fi
tarball=$root/../shared/redis/redis-$version.tar.gz
expected=$root/tests/tools/redis_suite_expected_failures$lists_suffix.txt
# With --slow: the failures the slow tests add, beside those expected above.
also_expected=/dev/null
if ((slow)); then
  also_expected=$expected
  lists_suffix+=_slow
  expected=$root/tests/tools/redis_suite_expected_failures$lists_suffix.txt
fi
baseline=$root/tests/tools/redis_suite_redis_passes$lists_suffix.txt
passes=$root/tests/tools/redis_suite_teksdb_passes$lists_suffix.txt
suite_name=redis-$version
[[ $version == 7.0.15 ]] || suite_name+=-suite
suite=${TEKSDB_REDIS_SUITE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/teksdb/$suite_name}
if [[ -n ${REDIS_SERVER:-} ]]; then
  redis_server=$(realpath "$REDIS_SERVER")
elif [[ $version == 7.0.15 ]]; then
  redis_server=redis-server
else
  redis_server=  # (--redis refuses to run without it)
fi
command -v tclsh >/dev/null || { echo "redis_suite: tclsh not found (scripts/setup.sh installs tcl)" >&2; exit 1; }
redis_tools=()
for tool in redis-cli redis-benchmark redis-check-aof redis-check-rdb; do
  redis_tools+=("$(command -v "$tool")") ||
    { echo "redis_suite: $tool not found (Debian's redis-tools: scripts/setup.sh)" >&2; exit 1; }
done
# (Exit 77, ctest's "skipped", where the sources are not beside the project.)
[[ -f $tarball ]] || { echo "redis_suite: $tarball not found: skipped" >&2; exit 77; }
if ((against_redis)); then
  [[ -n $redis_server ]] || { echo "redis_suite: --redis with --version $version needs REDIS_SERVER" >&2; exit 2; }
  command -v "$redis_server" >/dev/null || { echo "redis_suite: $redis_server not found" >&2; exit 1; }
elif [[ -z $server ]]; then
  server=$(bash "$root/scripts/server_binary.sh")
fi

if [[ ! -x $suite/runtest ]]; then
  echo "[redis_suite] unpacking $(basename "$tarball") into $suite" >&2
  mkdir -p "$suite"
  tar xzf "$tarball" -C "$suite" --strip-components=1
fi

work=$(mktemp -d)
# Each file runs in a subshell that stops its harness and its own server
# (stop_server) as it ends, killed or not; the script, as it ends, kills
# those still running.
server_pid=
harness_pid=
stop_server() {
  [[ -z $harness_pid ]] || kill "$harness_pid" 2>/dev/null
  [[ -z $server_pid ]] || { kill "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null || true; }
  harness_pid= server_pid=
}
cleanup() {
  local running
  running=$(jobs -rp)
  [[ -z $running ]] || { kill $running 2>/dev/null; wait 2>/dev/null || true; }
  [[ -n ${KEEP_WORK:-} ]] || rm -rf "$work"
}
trap cleanup EXIT

# The harness's own mode runs src/redis-server CONFIG_FILE [--flag ...]
# in the suite's directory: a wrapper that runs the server asked for, its
# log on standard output (where the harness reads "PID:" and "Ready to
# accept"). teksdb-server runs as in the external mode: one I/O thread,
# sets kept as Redis 7.0 keeps them; its database in DIR/teksdb, DIR the
# file's "dir" (the harness's files there, stdout and stderr, stay where
# the harness looks for them when a replica swaps a full sync's copy in
# beside its database); a relative aclfile as DIR/FILE (Redis reads it in
# its dir, which here is the database's parent).
write_wrapper() {
  mkdir -p "$suite/src"
  # (The integration files run Redis's own tools from src/ too: Debian's.)
  local tool
  for tool in "${redis_tools[@]}"; do ln -sf "$tool" "$suite/src/${tool##*/}"; done
  if ((against_redis)); then
    printf '#!/bin/sh\nexec %q "$@"\n' "$redis_server" >"$suite/src/redis-server"
  else
    # (Without a file, "--user foo --user foo": the flags as they are.)
    printf '%s\n' '#!/bin/sh' \
      "case \$1 in --*) exec $(printf %q "$(realpath "$server")") \"\$@\" 2>&1 ;; esac" \
      'conf=$1' 'shift' \
      "dir=\$(sed -n 's/^dir //p' \"\$conf\" | tail -n 1)" \
      "acl=\$(sed -n 's/^aclfile //p' \"\$conf\" | tail -n 1)" \
      'case $acl in ""|/*) ;; *) set -- --aclfile "$(realpath -m "$dir/$acl")" "$@" ;; esac' \
      "exec $(printf %q "$(realpath "$server")") \"\$conf\" --dir \"\$dir/teksdb\" --threads 1 ${compat_flags[*]} \"\$@\" 2>&1" \
      >"$suite/src/redis-server"
  fi
  chmod +x "$suite/src/redis-server"
}

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
start_server() {  # file, port, log
  local dir=$work/db-${1//\//-}
  if ((against_redis)); then
    mkdir -p "$dir"
    "$redis_server" --port "$2" --bind 127.0.0.1 --dir "$dir" --save "" --appendonly no \
      --enable-debug-command yes >"$3" 2>&1 &
  else
    # One I/O thread, as Redis's one event loop: the suite's tests send on
    # one connection and then on another without waiting (UNSUBSCRIBE, then
    # PUBLISH elsewhere) and read the result as if the server ran them in
    # the order they were sent, which concurrent I/O threads do not promise.
    "$server" --dir "$dir" --port "$2" --threads 1 --enable-debug-command yes 2>"$3" &
  fi
  server_pid=$!
  for _ in $(seq 1 100); do redis-cli -p "$2" ping >/dev/null 2>&1 && break; sleep 0.1; done
  # (compat_flags, in CONFIG SET's words.)
  if ((!against_redis)) && ((${#compat_flags[@]})); then
    redis-cli -p "$2" config set "${compat_flags[0]#--}" "${compat_flags[1]}" >/dev/null
  fi
}
redis_passes() {  # file: what redis-server passes of it (the baseline), or "-"
  awk -F'\t' -v f="$1" '$1 == f { print $2; found = 1 } END { if (!found) print "-" }' "$baseline" 2>/dev/null || echo -
}

# slot_tree SLOT: the suite's directory as the harness of SLOT sees it:
# its files linked, but tests/tmp its own (a harness empties tests/tmp as
# it starts and ends: two in one tree would remove each other's servers).
slot_tree() {
  local tree=$work/tree-$1 entry
  if [[ ! -d $tree ]]; then
    mkdir -p "$tree/tests/tmp"
    for entry in "$suite"/*; do [[ ${entry##*/} == tests ]] || ln -s "$entry" "$tree/"; done
    for entry in "$suite"/tests/*; do [[ ${entry##*/} == tmp ]] || ln -s "$entry" "$tree/tests/"; done
  fi
  echo "$tree"
}

# run_file INDEX FILE SLOT: runs FILE with the harness, its output in
# $work/INDEX.out and the harness's exit status in $work/INDEX.status. Files
# run $files_at_once at a time (as the harness itself runs its files,
# --clients, in its own mode); each running file holds a slot, the slot
# its tree (slot_tree) and its ports: the harness's servers from
# 21111 + 500 * SLOT, its client port below.
run_file() {
  local index=$1 file=$2 slot=$3 own=0 port status=0 skip=() server_args=()
  [[ $own_files == *" $file "* ]] && own=1
  server_args=(--baseport $((21111 + 500 * slot)) --portcount 500)
  if ((!own)); then
    port=$(free_port)
    start_server "$file" "$port" "$work/$index.server.log"
    server_args+=(--host 127.0.0.1 --port "$port")
  fi
  if ((!against_redis)); then
    while IFS=$'\t' read -r skip_file skip_test _; do
      [[ $skip_file == "$file" ]] && skip+=(--skiptest "$skip_test")
    done < <(grep -v '^#' "$skipped")
  fi
  # (In the background, so that the subshell's TERM trap runs at once.)
  (cd "$(slot_tree "$slot")" && exec timeout "$file_timeout" tclsh tests/test_helper.tcl "${server_args[@]}" \
     --single "$file" "${tags[@]}" --durable --clients 1 --timeout 120 "${skip[@]}") \
     >"$work/$index.out" 2>&1 &
  harness_pid=$!
  wait "$harness_pid" || status=$?
  # What the harness started and left running (a server that a failed
  # test never stopped): the rest of the process group timeout made.
  kill -- -"$harness_pid" 2>/dev/null || true
  harness_pid=
  stop_server
  echo "$status" >"$work/$index.status"
}

# listed FILE TEST LIST...: whether a "FILE<TAB>TEST<TAB>..." list names TEST
# of FILE (numbers aside: an error's text may name a port or a process).
listed() {
  local file=$1 name=$2
  shift 2
  awk -F'\t' -v f="$file" -v t="$name" 'BEGIN { gsub(/[0-9]+/, "N", t) }
    $1 == f { n = $2; gsub(/[0-9]+/, "N", n); if (n == t) found = 1 } END { exit !found }' "$@" 2>/dev/null
}

# report INDEX FILE: FILE's line of the table, from run_file's output.
report() {
  local index=$1 file=$2 status passed failed expected_here=0 new_here=0 reference share=- name
  status=$(cat "$work/$index.status")
  # Results, colours stripped: "[ok]: NAME (N ms)", "[err]: NAME in FILE", "[exception]: ...".
  sed 's/\x1b\[[0-9;]*m//g' "$work/$index.out" >"$work/plain"
  passed=$(grep -c '^\[ok\]: ' "$work/plain" || true)
  grep -E '^\[(err|exception)\]: ' "$work/plain" |
    sed -E 's/^\[(err|exception)\]: //; s/ in tests\/.*$//; s/ \([0-9]+ ms\)$//' >"$work/failed" || true
  # A test that hung past --timeout ends the file: "(IN PROGRESS) NAME".
  sed -nE 's/^sock[0-9a-f]+ => \(IN PROGRESS\) (.*)$/hung: \1/p' "$work/plain" >>"$work/failed"
  failed=$(wc -l <"$work/failed")
  printf '%s\t%s\n' "$file" "$passed" >>"$work/passes"
  while IFS= read -r name; do
    if ((against_redis)); then
      echo "  redis-server fails in $file: $name" >&2
    elif listed "$file" "$name" "$expected" "$also_expected"; then
      expected_here=$((expected_here + 1))
    else
      new_here=$((new_here + 1))
      echo "  new failure in $file: $name" >&2
    fi
    printf '%s\t%s\n' "$file" "$name" >>"$work/failures"
  done <"$work/failed"
  if ((status == 124)); then
    echo "  $file: timed out after ${file_timeout} s" >&2
    new_here=$((new_here + 1))
  elif ((status != 0 && passed + failed == 0)); then
    echo "  $file: the harness ran nothing (exit $status): $(grep -v '^$' "$work/plain" | tail -n 3 | paste -sd' ')" >&2
    new_here=$((new_here + 1))
  fi
  new_failures=$((new_failures + new_here))
  reference=$(redis_passes "$file")
  [[ $reference != - && $reference -gt 0 ]] && share="$((100 * passed / reference))%"
  printf '%-32s %5d %6d %6d %6s %6s %9d %5d\n' "$file" $((passed + failed)) "$passed" "$failed" \
    "$reference" "$share" "$expected_here" "$new_here"
}

write_wrapper
printf '%-32s %5s %6s %6s %6s %6s %9s %5s\n' file run passed failed redis share expected new
new_failures=0
: >"$work/failures"
: >"$work/passes"
read -r -a file_list <<<"$(echo $files)"
reported=0
# report_done: the table's lines, in the files' order, as far as they have run.
report_done() {
  while ((reported < ${#file_list[@]})) && [[ -f $work/$reported.status ]]; do
    report "$reported" "${file_list[$reported]}"
    reported=$((reported + 1))
  done
}
for index in "${!file_list[@]}"; do
  while (($(jobs -rp | wc -l) >= files_at_once)); do wait -n || true; report_done; done
  slot=0
  while [[ -e $work/slot-$slot.busy ]]; do slot=$((slot + 1)); done
  touch "$work/slot-$slot.busy"
  (
    trap stop_server EXIT
    trap 'exit 143' TERM
    run_file "$index" "${file_list[$index]}" "$slot"
    rm -f "$work/slot-$slot.busy"
  ) &
done
wait
report_done

# --record rewrites, for the files run only, the lines of a "FILE<TAB>..." list.
keep_other_files() {  # list: its comment lines and the lines of files not run
  local list=$1
  [[ -f $list ]] || return 0
  awk -F'\t' -v run="$files" 'BEGIN { n = split(run, f, /[ \n]+/); for (i = 1; i <= n; i++) ran[f[i]] = 1 }
    /^#/ || !($1 in ran)' "$list"
}
# Expected failures that pass or fail by timing ("fails now and then: ..."):
# kept by --record even when this run passed them, unless they failed (then
# the failures below write them again).
keep_timing_failures() {
  [[ -f $expected ]] || return 0
  awk -F'\t' -v run="$files" 'BEGIN { n = split(run, f, /[ \n]+/); for (i = 1; i <= n; i++) ran[f[i]] = 1 }
    ($1 in ran) && $3 ~ /^fails now and then/' "$expected" |
    while IFS=$'\t' read -r file name reason; do
      grep -qxF "$file"$'\t'"$name" "$work/failures" || printf '%s\t%s\t%s\n' "$file" "$name" "$reason"
    done
}
if ((record && against_redis)); then
  { keep_other_files "$baseline"; cat "$work/passes"; } >"$work/baseline"
  mv "$work/baseline" "$baseline"
  echo "[redis_suite] wrote $baseline" >&2
elif ((record)); then
  # Keep the reasons already written; new failures say they are not triaged.
  {
    keep_other_files "$expected"
    keep_timing_failures
    while IFS=$'\t' read -r file name; do
      listed "$file" "$name" "$also_expected" && continue  # (--slow: the base list has it)
      reason=$(awk -F'\t' -v f="$file" -v t="$name" 'BEGIN { gsub(/[0-9]+/, "N", t) }
        $1 == f { n = $2; gsub(/[0-9]+/, "N", n); if (n == t) { print $3; exit } }' "$expected" 2>/dev/null)
      printf '%s\t%s\t%s\n' "$file" "$name" "${reason:-not triaged}"
    done <"$work/failures"
  } >"$work/expected"
  mv "$work/expected" "$expected"
  { keep_other_files "$passes"; cat "$work/passes"; } >"$work/passes.new"
  mv "$work/passes.new" "$passes"
  echo "[redis_suite] wrote $expected and $passes (then: scripts/command_coverage.py)" >&2
fi
echo "redis_suite: $new_failures new failure(s)"
((new_failures == 0))
