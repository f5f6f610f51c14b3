#!/usr/bin/env bash
# Compiles TeksTable against every RocksDB release in ../shared/rocksdb/
# (tarballs, not built: syntax only, seconds each), so that an API break in
# a newer RocksDB shows in CI, which builds and tests against Debian's 7.8.3:
#   - memtable/*.cc as this project builds them (RocksDB's installed headers);
#   - rocksdb/*.cc, the TeksDB layer, the same way;
#   - teksdb-server's files that call RocksDB (its storage: keyspace,
#     write group, format, versions, compaction filter; main.cc's open);
#   - plugin/teks_plugin.cc as RocksDB builds it with ROCKSDB_PLUGINS=teks
#     (its internal headers, no RTTI, RocksDB's C++ standard).
# JOBS (nproc) compilers at once. Exits 77 (skipped) when ../shared/rocksdb/
# has no release tarball.
#
# Usage: tests/tools/newest_rocksdb_api_test.sh [SOURCE_DIR]
set -euo pipefail

root=$(cd "${1:-$(dirname "${BASH_SOURCE[0]}")/../..}" && pwd)
shared=$root/../shared/rocksdb
mapfile -t tarballs < <(ls "$shared"/rocksdb-*.tar.gz 2>/dev/null | sort -V)
if ((${#tarballs[@]} == 0)); then
  echo "newest_rocksdb_api: skipped: no RocksDB release tarball in $shared"
  exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/teksdb-api.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# check WHAT COMPILER_ARGS...: compiles in the background, at most JOBS
# (nproc) at once; report() prints the results in the order asked.
jobs=${JOBS:-$(nproc)}
results=$tmp/results
mkdir -p "$results"
checks=0
check() {
  local what=$1 out=$results/$(printf '%04d' "$checks")
  shift
  checks=$((checks + 1))
  while (($(jobs -rp | wc -l) >= jobs)); do wait -n || true; done
  (
    if log=$(g++ -std=c++20 -fsyntax-only -Wall -Wextra -Werror "$@" 2>&1); then
      echo "ok: $what" >"$out"
    else
      { echo "FAILED: $what"; echo "$log" | grep -E 'error' | head -n 5; } >"$out"
    fi
  ) &
}
report() {
  wait
  cat "$results"/*
  passed=$(cat "$results"/* | grep -c '^ok: ' || true)
  failed=$(cat "$results"/* | grep -c '^FAILED: ' || true)
}

for tarball in "${tarballs[@]}"; do
  tar xzf "$tarball" -C "$tmp"
  rocksdb=$tmp/$(tar tzf "$tarball" | head -n 1 | cut -d/ -f1 || true)  # tar dies of SIGPIPE
  version=$(bash "$root/scripts/rocksdb_version.sh" "$rocksdb")
  echo "newest_rocksdb_api: RocksDB $version from $(basename "$tarball")"
  for src in "$root"/memtable/*.cc; do
    check "memtable/$(basename "$src") against RocksDB $version's installed headers" \
      -I"$root/include" -I"$root/memtable" -I"$rocksdb/include" "$src"
  done
  for src in "$root"/rocksdb/*.cc; do
    check "rocksdb/$(basename "$src") against RocksDB $version's installed headers" \
      -I"$root/include" -I"$root/memtable" -I"$root/rocksdb" -I"$rocksdb/include" "$src"
  done
  server_includes=()
  for layer in "$root"/server/*/; do server_includes+=(-I"$layer"); done
  for name in storage/keyspace storage/write_group storage/storage_format \
      storage/version_allocator storage/stale_member_filter main; do
    check "server/$name.cc against RocksDB $version's installed headers" \
      -DASIO_STANDALONE -DASIO_NO_DEPRECATED -I"$root/include" "${server_includes[@]}" \
      -I"$rocksdb/include" "$root/server/$name.cc"
  done
  check "plugin/teks_plugin.cc inside RocksDB $version's tree (no RTTI)" \
    -fno-rtti -DROCKSDB_PLATFORM_POSIX -DOS_LINUX -I"$rocksdb" -I"$rocksdb/include" \
    -I"$root/include" "$root/plugin/teks_plugin.cc"
  wait
  rm -rf "$rocksdb"
done
report
echo "newest_rocksdb_api: $passed passed, $failed failed"
((failed == 0))
