#!/usr/bin/env bash
# Installs the build tree given as $1 (source root $2) into a temporary
# prefix with `cmake --install`, then configures, builds and runs
# tests/tools/install_consumer against it through find_package(teksdb), with the
# RocksDB the build used (CMAKE_PREFIX_PATH from its cache). $3 is "shared"
# (libteksdb.so and libteksdb.a, over Debian's shared RocksDB) or "static"
# (libteksdb.a only, over a static RocksDB).
set -euo pipefail
build=$1
src=$2
kind=${3:-shared}
rocksdb_prefix=$(sed -n 's/^CMAKE_PREFIX_PATH:[A-Z]*=//p' "$build/CMakeCache.txt")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
test -f "$work/prefix/include/teksdb/teks_table.h"
test -f "$work/prefix/include/teksdb/teks_db.h"
ls "$work"/prefix/lib*/libteksdb.a >/dev/null
[[ $kind == static ]] || ls "$work"/prefix/lib*/libteksdb.so >/dev/null
cmake -S "$src/tests/tools/install_consumer" -B "$work/consumer" -G Ninja \
  -DCMAKE_PREFIX_PATH="$work/prefix${rocksdb_prefix:+;$rocksdb_prefix}" >/dev/null
cmake --build "$work/consumer" >/dev/null
LD_LIBRARY_PATH=$(dirname "$(ls "$work"/prefix/lib*/libteksdb.a)") \
  "$work/consumer/consumer" "$work/db"
echo "install_test: headers, libraries and package config installed; consumer built and ran"
