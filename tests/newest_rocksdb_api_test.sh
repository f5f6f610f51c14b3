#!/usr/bin/env bash
# Compiles TeksTable against the newest RocksDB release in ../shared/rocksdb/
# (a tarball, not built: syntax only, seconds), so that an API break in a
# newer RocksDB shows in CI, which builds and tests against Debian's 7.8.3:
#   - memtable/*.cc as this project builds them (RocksDB's installed headers);
#   - plugin/teks_plugin.cc as RocksDB builds it with ROCKSDB_PLUGINS=teks
#     (its internal headers, no RTTI, RocksDB's C++ standard).
#   - rocksdb/*.cc, the TeksDB layer, the same way, except
#     teks_transaction_db.cc: Transaction in 9.10 and 11.8.1 has pure virtuals
#     ForwardingTransaction does not forward yet (docs/DESIGN.md §7).
# Exits 77 (skipped) when ../shared/rocksdb/ has no release tarball.
#
# Usage: tests/newest_rocksdb_api_test.sh [SOURCE_DIR]
set -euo pipefail

root=$(cd "${1:-$(dirname "${BASH_SOURCE[0]}")/..}" && pwd)
shared=$root/../shared/rocksdb
tarball=$(ls "$shared"/rocksdb-*.tar.gz 2>/dev/null | sort -V | tail -n 1 || true)
if [[ -z $tarball ]]; then
  echo "newest_rocksdb_api: skipped: no RocksDB release tarball in $shared"
  exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/teksdb-api.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
tar xzf "$tarball" -C "$tmp"
rocksdb=$(ls -d "$tmp"/rocksdb-*)
version=$(sed -nE 's/^#define ROCKSDB_(MAJOR|MINOR|PATCH) ([0-9]+).*/\2/p' \
  "$rocksdb/include/rocksdb/version.h" | paste -sd.)
echo "newest_rocksdb_api: RocksDB $version from $(basename "$tarball")"

passed=0 failed=0
check() {
  local what=$1
  shift
  if out=$(g++ -std=c++20 -fsyntax-only -Wall -Wextra -Werror "$@" 2>&1); then
    echo "ok: $what"
    passed=$((passed + 1))
  else
    echo "FAILED: $what"
    echo "$out" | grep -E 'error' | head -n 5
    failed=$((failed + 1))
  fi
}

for src in "$root"/memtable/*.cc; do
  check "memtable/$(basename "$src") against RocksDB $version's installed headers" \
    -I"$root/include" -I"$root/memtable" -I"$rocksdb/include" "$src"
done
for src in "$root"/rocksdb/*.cc; do
  [[ $(basename "$src") == teks_transaction_db.cc ]] && continue
  check "rocksdb/$(basename "$src") against RocksDB $version's installed headers" \
    -I"$root/include" -I"$root/memtable" -I"$root/rocksdb" -I"$rocksdb/include" "$src"
done
check "plugin/teks_plugin.cc inside RocksDB $version's tree (no RTTI)" \
  -fno-rtti -DROCKSDB_PLATFORM_POSIX -DOS_LINUX -I"$rocksdb" -I"$rocksdb/include" \
  -I"$root/include" "$root/plugin/teks_plugin.cc"

echo "newest_rocksdb_api: $passed passed, $failed failed"
((failed == 0))
