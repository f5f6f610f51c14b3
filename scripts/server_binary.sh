#!/usr/bin/env bash
# Prints the path of the teksdb-server to run: $TEKSDB_SERVER as it is, or
# else the one in $TEKSDB_BUILD_DIR (build/), after installing what is
# missing (scripts/setup.sh) and configuring (release) and building it
# there. Progress goes to stderr. Used by bench_server.sh, cluster.sh and
# ycsb/lib.sh.
set -euo pipefail
if [[ -n ${TEKSDB_SERVER:-} ]]; then
  echo "$TEKSDB_SERVER"
  exit 0
fi
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${TEKSDB_BUILD_DIR:-$root/build}
bash "$root/scripts/setup.sh" >&2
[[ -f "$build/CMakeCache.txt" ]] || cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >&2
cmake --build "$build" --target teksdb-server >&2
echo "$build/server/teksdb-server"
