#!/usr/bin/env bash
# Installs the Debian (bookworm) packages TeksDB needs to build, test and
# benchmark, and nothing else. Idempotent: asks dpkg first and runs apt-get
# only when something is missing. Non-interactive (safe under CI, no stdin).
# Uses sudo only when not running as root.
set -euo pipefail

packages=(
  build-essential cmake ninja-build   # toolchain
  librocksdb-dev rocksdb-tools        # RocksDB 7.8.3 headers/library, /usr/bin/db_bench
  libconcurrentqueue-dev              # link queue
  libgflags-dev libsnappy-dev         # RocksDB's CMake config wants these
  libgtest-dev                        # tests
  libxxhash-dev                       # the cuckoo hash's keyed XXH3 (header only)
  libbenchmark-dev libabsl-dev        # tools/memtable_bench (Google Benchmark, absl::flat_hash_map)
  libasio-dev                         # teksdb-server's I/O (header only)
  liblua5.1-0-dev nettle-dev pkg-config  # teksdb-server's EVAL (Lua 5.1, as Redis; SHA1)
  lua-cjson-dev lua-bitop-dev         # the cjson and bit libraries scripts use
  liblzf-dev                          # FUNCTION RESTORE's LZF-compressed payloads
  redis-server redis-tools            # tests: real Redis to compare with, redis-cli, redis-benchmark,
                                      # Redis Sentinel (redis-server --sentinel) for failover
  tcl                                 # scripts/redis_suite.sh: Redis's own test suite
  nutcracker                          # scripts/cluster.sh: twemproxy in front of several servers
  time                                # GNU /usr/bin/time, peak RSS in bench.sh
  python3 python3-venv                # bench.sh report; plots (matplotlib from PyPI, in a venv)
  maven openjdk-17-jdk-headless       # ycsb/: the YCSB client (its jars from Maven Central)
  nodejs                              # tests: a Node.js client (ioredis, from npm)
)
# npm: Debian's package, unless the nodejs installed brings its own.
command -v npm >/dev/null || packages+=(npm)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true)
  [[ "$status" == installed ]] || missing+=("$p")
done

if ((${#missing[@]} == 0)); then
  echo "setup.sh: all ${#packages[@]} packages present" >&2
  exit 0
fi

echo "setup.sh: installing ${missing[*]}" >&2
sudo=()
if ((EUID != 0)); then
  command -v sudo >/dev/null || { echo "setup.sh: not root and no sudo; install: ${missing[*]}" >&2; exit 1; }
  sudo=(sudo -n)
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q </dev/null
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
  "${missing[@]}" </dev/null
