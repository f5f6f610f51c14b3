#!/usr/bin/env bash
# Prints the release (X.Y.Z) of the RocksDB in DIR, a source tree or an
# install prefix: both hold include/rocksdb/version.h. Exit status 2, with a
# message, when DIR has none. Used by build_rocksdb.sh, test.sh and
# tests/tools/newest_rocksdb_api_test.sh.
#
# Usage: scripts/rocksdb_version.sh DIR
set -euo pipefail
version_h=${1:?usage: rocksdb_version.sh DIR}/include/rocksdb/version.h
[[ -f $version_h ]] || { echo "rocksdb_version: no RocksDB in $1 ($version_h missing)" >&2; exit 2; }
sed -nE 's/^#define ROCKSDB_(MAJOR|MINOR|PATCH) ([0-9]+).*/\2/p' "$version_h" | paste -sd.
