#!/usr/bin/env bash
# Builds TeksTable's native libraries for RocksJava (CMakeLists.txt here)
# against RocksDB release VERSION, the one the rocksdbjni jar of that
# version carries, and copies them with teksdbjni.properties into OUT.
# The release's headers come from its source tarball, looked for as
# rocksdb-VERSION.tar.gz in $ROCKSDB_TARBALLS (default: ../shared/rocksdb
# beside the checkout), or from an unpacked tree in $ROCKSDB_SOURCE. The
# build directory (BUILD, default java/target/native-build) is kept, so a
# second run recompiles only what changed. Needs cmake, Ninja, a C++20 compiler,
# a JDK (jni.h), and Debian's libxxhash-dev and libconcurrentqueue-dev.
# TEKSDB_STRING_ABI: the std::string ABI of the jar's librocksdbjni, cxx11
# (the stock jar's, the default) or old (FRocksDB's).
#
# Usage: java/native/build.sh VERSION OUT [BUILD]
set -euo pipefail

version=${1:?usage: build.sh VERSION OUT [BUILD]}
out=${2:?usage: build.sh VERSION OUT [BUILD]}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${3:-$root/java/target/native-build}
mkdir -p "$build" "$out"

source_dir=${ROCKSDB_SOURCE:-}
if [[ -z $source_dir ]]; then
  tarballs=${ROCKSDB_TARBALLS:-$root/../shared/rocksdb}
  tarball=$tarballs/rocksdb-$version.tar.gz
  if [[ ! -f $tarball ]]; then
    echo "build.sh: no $tarball: set ROCKSDB_TARBALLS to where RocksDB's release tarballs are," \
      "or ROCKSDB_SOURCE to an unpacked RocksDB $version" >&2
    exit 2
  fi
  source_dir=$build/rocksdb-$version
  if [[ ! -f $source_dir/include/rocksdb/version.h ]]; then
    echo "build.sh: unpacking the headers of $(basename "$tarball")" >&2
    mkdir -p "$source_dir"
    tar xzf "$tarball" -C "$source_dir" --strip-components=1 --wildcards '*/include/*'
  fi
fi
found=$(bash "$root/scripts/rocksdb_version.sh" "$source_dir")
if [[ $found != "$version" ]]; then
  echo "build.sh: $source_dir holds RocksDB $found, not $version" >&2
  exit 2
fi

if [[ -z ${JAVA_HOME:-} ]]; then
  javac=$(command -v javac) || { echo "build.sh: no javac: install a JDK or set JAVA_HOME" >&2; exit 2; }
  export JAVA_HOME=$(dirname "$(dirname "$(readlink -f "$javac")")")
fi
cmake -S "$here" -B "$build/cmake" -G Ninja -DTEKSDB_ROCKSDB_INCLUDE="$source_dir/include" \
  -DTEKSDB_ROCKSDB_VERSION="$version" -DTEKSDB_STRING_ABI="${TEKSDB_STRING_ABI:-cxx11}" >/dev/null
cmake --build "$build/cmake" -j "${JOBS:-$(nproc)}"
cp "$build/cmake/libteksdbjni.so" "$build/cmake/libteksdbjni_glue.so" "$build/cmake/libteksdbjni_loader.so" \
  "$build/cmake/teksdbjni.properties" "$out/"
