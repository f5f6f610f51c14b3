# What ycsb/run.sh, scripts/bench_ycsb.sh and tests/tools/ycsb_test.sh share (source it;
# it defines functions and variables, runs nothing):
#   ycsb_build              builds the YCSB client (ycsb/pom.xml) with Maven, offline
#                           once the first build has cached its dependencies
#   ycsb_server_binary      finds teksdb-server: $TEKSDB_SERVER, else in
#                           $TEKSDB_BUILD_DIR (default build/), built (release) there
#                           first (scripts/server_binary.sh)
#   server_start KIND DIR [OPTIONS_FILE [PASSWORD]]
#                           starts teksdb-server (KIND teks or skip_list, its DB under
#                           DIR) or redis-server (KIND redis, no persistence) on a free
#                           port; sets server_pid and server_port; OPTIONS_FILE is a
#                           RocksDB OPTIONS file (teksdb-server only); with PASSWORD
#                           the server requires it, and ycsb_client sends it
#   server_stop             stops it (SIGTERM) and waits for it
#   server_cpu_ticks        the server's CPU time so far (every thread of it), in
#                           clock ticks (getconf CLK_TCK a second)
# Pinning: set server_cpus and client_cpus (taskset CPU lists) before
# server_start and ycsb_client to run each on CPUs of its own, and
# server_threads to give teksdb-server that many I/O threads; empty, as by
# default, they run wherever the kernel puts them. server_linker_nice, if
# set, is teksdb-server's --linker-nice.
#   ycsb_client OUT -load|-t WORKLOAD_FILE [-p name=value]...
#                           runs YCSB's own client (site.ycsb.Client) with our binding
#                           against server_port; YCSB's stdout (the summary) goes to
#                           OUT, its stderr to OUT.err
#   ycsb_check OUT EXPECTED checks what YCSB wrote to OUT: no DB or workload that
#                           failed to start,
#                           EXPECTED operations, every one Return=OK; else says why on
#                           stderr and returns 1. YCSB's own exit status is 0 even when
#                           no thread could connect, so every caller checks with this.
# Failures print "ycsb: ..." on stderr and return non-zero.

ycsb_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ycsb_root=$(dirname "$ycsb_dir")
ycsb_classpath="$ycsb_dir/target/classes:$ycsb_dir/target/lib/*"
server_pid=
server_log=
server_password=
server_port=
server_cpus=
client_cpus=
server_threads=
server_linker_nice=

ycsb_build() {
  local tool log
  for tool in mvn java; do
    command -v "$tool" >/dev/null || {
      echo "ycsb: $tool is missing; scripts/setup.sh installs maven and openjdk-17-jdk-headless" >&2
      return 1
    }
  done
  log=$(mktemp)
  if ! mvn -B -q -o -f "$ycsb_dir/pom.xml" compile >"$log" 2>&1; then
    echo "ycsb: building the YCSB client; first build: Maven fetches its dependencies" >&2
    if ! mvn -B -q -f "$ycsb_dir/pom.xml" compile >"$log" 2>&1; then
      cat "$log" >&2
      rm -f "$log"
      echo "ycsb: the Maven build of ycsb/ failed (above)" >&2
      return 1
    fi
  fi
  rm -f "$log"
}

ycsb_server_binary() {
  bash "$ycsb_root/scripts/server_binary.sh"
}

# Waits up to 30 s for a started server to answer; fails if it exits first.
wait_for_server() {
  local log=$1 ready=$2 i
  for ((i = 0; i < 300; i++)); do
    if ! kill -0 "$server_pid" 2>/dev/null; then
      echo "ycsb: the server exited at start:" >&2
      cat "$log" >&2
      server_pid=
      return 1
    fi
    "$ready" && return 0
    sleep 0.1
  done
  echo "ycsb: the server did not answer within 30 s (log: $log)" >&2
  server_stop
  return 1
}

teksdb_listening() {
  server_port=$(sed -n 's/.*listening on [^ ]*:\([0-9][0-9]*\),.*/\1/p' "$server_log")
  [[ -n $server_port ]]
}

redis_answering() {
  [[ $(REDISCLI_AUTH=$server_password redis-cli -p "$server_port" ping 2>/dev/null) == PONG ]]
}

server_start() {
  local kind=$1 dir=$2 options=${3:-} binary
  server_password=${4:-}
  mkdir -p "$dir"
  server_log=$dir/server.log
  : >"$server_log"
  server_port=
  case $kind in
    teks|skip_list)
      binary=$(ycsb_server_binary) || return 1
      ${server_cpus:+taskset -c "$server_cpus"} "$binary" --dir "$dir/db" --port 0 --memtable "$kind" \
        ${options:+--rocksdb-options "$options"} ${server_threads:+--threads "$server_threads"} \
        ${server_linker_nice:+--linker-nice "$server_linker_nice"} \
        ${server_password:+--requirepass "$server_password"} 2>"$server_log" &
      server_pid=$!
      wait_for_server "$server_log" teksdb_listening ;;
    redis)
      command -v redis-server >/dev/null || { echo "ycsb: redis-server is missing (scripts/setup.sh)" >&2; return 1; }
      server_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
      ${server_cpus:+taskset -c "$server_cpus"} redis-server --port "$server_port" --bind 127.0.0.1 --dir "$dir" --save '' --appendonly no \
        ${server_password:+--requirepass "$server_password"} >"$server_log" 2>&1 &
      server_pid=$!
      wait_for_server "$server_log" redis_answering ;;
    *)
      echo "ycsb: unknown server '$kind' (teks, skip_list, redis)" >&2
      return 1 ;;
  esac
}

server_stop() {
  [[ -n $server_pid ]] || return 0
  kill -TERM "$server_pid" 2>/dev/null || true
  wait "$server_pid" 2>/dev/null || true
  server_pid=
}

server_cpu_ticks() {
  awk '{print $14 + $15}' "/proc/$server_pid/stat"
}

ycsb_client() {
  local out phase=$2 workload=$3
  out=$(realpath -m "$1")
  shift 3
  # From the workload's directory, so that the "Command line:" YCSB prints
  # names the workload file, not a path of this machine.
  (cd "$(dirname "$workload")" &&
    ${client_cpus:+taskset -c "$client_cpus"} java -cp "$ycsb_classpath" site.ycsb.Client "$phase" -db org.teksdb.ycsb.RedisClient \
      -P "$(basename "$workload")" -p redis.host=127.0.0.1 -p redis.port="$server_port" \
      ${server_password:+-p redis.password="$server_password"} "$@" >"$out" 2>"$out.err") || {
    echo "ycsb: YCSB's client exited with status $?:" >&2
    tail -n 20 "$out.err" >&2
    return 1
  }
}

ycsb_check() {
  local out=$1 expected=$2 failure
  failure=$(grep -h -m1 -oE '(DB|Workload)Exception: .*' "$out" "$out.err" | head -n1)
  if [[ -n $failure ]]; then
    echo "ycsb: ${failure#*Exception: }" >&2
    return 1
  fi
  failure=$(awk -F', ' -v expected="$expected" '
    $1 ~ /^\[(READ|UPDATE|INSERT|SCAN|DELETE)\]$/ && $2 == "Operations" { ops += $3 }
    # A read-modify-write is also counted as a READ and an UPDATE.
    $1 == "[READ-MODIFY-WRITE]" && $2 == "Operations" { ops -= $3 }
    $2 ~ /^Return=/ && $2 != "Return=OK" { bad = bad " " $1 " " $2 " " $3 ";" }
    END {
      if (bad != "") print "operations failed:" bad
      else if (ops != expected) print "YCSB reports " ops + 0 " operations, not " expected
    }' "$out")
  if [[ -n $failure ]]; then
    echo "ycsb: $out: $failure" >&2
    grep -h -m1 '^redis binding:' "$out.err" >&2 || true
    return 1
  fi
}
