#!/usr/bin/env bash
# Installs the build tree given as $1 (source root $2) into a temporary
# prefix with `cmake --install`, then configures, builds and runs
# tests/install_consumer against it through find_package(teksdb).
set -euo pipefail
build=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cmake --install "$build" --prefix "$work/prefix" >/dev/null
test -f "$work/prefix/include/teksdb/teks_table.h"
test -f "$work/prefix/include/teksdb/teks_db.h"
ls "$work"/prefix/lib*/libteksdb.so >/dev/null
ls "$work"/prefix/lib*/libteksdb.a >/dev/null
cmake -S "$src/tests/install_consumer" -B "$work/consumer" -G Ninja \
  -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/consumer" >/dev/null
LD_LIBRARY_PATH=$(dirname "$(ls "$work"/prefix/lib*/libteksdb.so)") \
  "$work/consumer/consumer" "$work/db"
echo "install_test: headers, libraries and package config installed; consumer built and ran"
