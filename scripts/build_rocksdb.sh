#!/usr/bin/env bash
# Builds a RocksDB release with TeksTable as its own plugin ("teks", through
# this repository's plugin/ linked in as plugin/teks) into PREFIX:
#
#   PREFIX/lib/librocksdb.a     static, position-independent, TeksTable inside
#   PREFIX/include/rocksdb/     its headers
#   PREFIX/bin/                 db_bench, db_stress, ldb, sst_dump
#   PREFIX/src/, PREFIX/build/  the unpacked sources (for a tarball) and the
#                               build directory, kept: a second run reuses
#                               them and rebuilds only what changed
#
# Release build (-O2, NDEBUG) of the CPU it runs on, without RTTI unless
# --rtti (RocksDB's own release default), by RocksDB's CMake, or by its
# Makefile with --make (objects in PREFIX/build/obj, never beside plugin/'s
# sources, which every RocksDB tree linked to this repository shares; the
# tools in the source tree, as make leaves them). About 35 minutes on 2
# cores the first time. Then, with no LD_PRELOAD:
#   PREFIX/bin/db_bench --benchmarks=fillrandom,readrandom --memtablerep=teks
#
# With --java (CMake only; about 15 minutes more), also RocksJava with
# TeksTable inside (issue 56's second way; the first needs no build, see
# java/): RocksDB's own JNI build (-DWITH_JNI=ON), its librocksdbjni.so and
# classes put together as a rocksdbjni jar, PREFIX/java/rocksdbjni-teks-
# VERSION.jar, installed into the local Maven repository as
# org.teksdb:rocksdbjni-teks:VERSION (a stand-in for org.rocksdb:rocksdbjni;
# built for this CPU, not portable). RocksDB's JNI build wants its test
# jars, which it would fetch from S3: they come from Maven Central here.
#
# Usage: scripts/build_rocksdb.sh [--rtti] [--make] [--java] SRC PREFIX
#   SRC     a RocksDB source tree (your clone; plugin/teks is linked into it)
#           or a release tarball such as ../shared/rocksdb/rocksdb-11.8.1.tar.gz
#   PREFIX  where to build and install (outside this repository)
# Environment: JOBS (build parallelism, nproc).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
usage() { sed -n '2,/^set -euo/p' "$0" | sed -n 's/^# \{0,1\}//p'; exit "${1:-0}"; }
die() { echo "build_rocksdb: $*" >&2; exit 2; }
log() { echo "[build_rocksdb] $*" >&2; }

rtti=OFF
builder=cmake
java=OFF
args=()
while (($#)); do
  case $1 in
    --rtti) rtti=ON; shift ;;
    --make) builder=make; shift ;;
    --java) java=ON; shift ;;
    -h|--help) usage ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *) args+=("$1"); shift ;;
  esac
done
((${#args[@]} == 2)) || usage 2
src=${args[0]}
prefix=$(realpath -m "${args[1]}")
[[ $prefix != "$root" && $prefix != "$root"/* ]] || die "PREFIX must lie outside this repository"
jobs=${JOBS:-$(nproc)}
[[ $java == OFF || $builder == cmake ]] || die "--java needs RocksDB's CMake build (not --make)"

bash "$root/scripts/setup.sh"
# RocksDB's compression libraries (snappy and gflags come with setup.sh).
missing=()
for p in liblz4-dev libzstd-dev zlib1g-dev libbz2-dev; do
  [[ $(dpkg-query -W -f='${db:Status-Status}' "$p" 2>/dev/null || true) == installed ]] || missing+=("$p")
done
if ((${#missing[@]})); then
  log "installing ${missing[*]}"
  sudo=(); ((EUID == 0)) || sudo=(sudo -n)
  "${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
    "${missing[@]}" </dev/null
fi

mkdir -p "$prefix"
if [[ -f $src && $src == *.tar.gz ]]; then
  top=$(tar tzf "$src" | head -n 1 | cut -d/ -f1 || true)  # tar dies of SIGPIPE
  [[ -n $top ]] || die "$src: an empty tarball"
  if [[ ! -f $prefix/src/$top/CMakeLists.txt ]]; then
    log "unpacking $src into $prefix/src"
    mkdir -p "$prefix/src"
    tar xzf "$src" -C "$prefix/src"
  fi
  tree=$prefix/src/$top
elif [[ -d $src ]]; then
  tree=$(realpath "$src")
else
  die "SRC must be a RocksDB source directory or a .tar.gz release tarball: '$src'"
fi
[[ -f $tree/include/rocksdb/version.h && -f $tree/plugin/README.md ]] ||
  die "$tree is not a RocksDB source tree with plugin support (include/rocksdb/version.h, plugin/)"
version=$(bash "$root/scripts/rocksdb_version.sh" "$tree")
log "RocksDB $version in $tree"

# plugin/teks -> this repository's plugin/ (replacing an older link).
if [[ -e $tree/plugin/teks && ! -L $tree/plugin/teks ]]; then
  die "$tree/plugin/teks exists and is not a symlink: remove it first"
fi
ln -sfn "$root/plugin" "$tree/plugin/teks"

build=$prefix/build
tools=(db_bench db_stress ldb sst_dump)
if [[ $java == ON ]]; then
  # CMake's FindJNI looks in JAVA_HOME: the JDK of the javac on the path.
  if [[ -z ${JAVA_HOME:-} ]]; then
    javac=$(command -v javac) || die "--java needs a JDK (javac): install one or set JAVA_HOME"
    export JAVA_HOME=$(dirname "$(dirname "$(readlink -f "$javac")")")
  fi
  # RocksDB's java/CMakeLists.txt downloads these unless they are present.
  test_libs=$tree/java/test-libs
  mkdir -p "$test_libs"
  for jar in junit:junit:4.13.1:junit-4.13.1 org.hamcrest:hamcrest:2.2:hamcrest-2.2 \
             org.mockito:mockito-all:1.10.19:mockito-all-1.10.19 cglib:cglib:3.3.0:cglib-3.3.0 \
             org.assertj:assertj-core:2.9.0:assertj-core-2.9.0; do
    [[ -f $test_libs/${jar##*:}.jar ]] && continue
    log "fetching ${jar%:*} (RocksDB's JNI build wants it) from Maven Central"
    mvn -q -B dependency:copy -Dartifact="${jar%:*}" -DoutputDirectory="$test_libs" >&2
  done
fi
if [[ $builder == cmake ]]; then
  cmake -S "$tree" -B "$build" -G Ninja -DWITH_JNI="$java" \
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_PREFIX="$prefix" -DCMAKE_INSTALL_LIBDIR=lib \
    -DROCKSDB_PLUGINS=teks -DUSE_RTTI="$rtti" -DFAIL_ON_WARNINGS=OFF \
    -DROCKSDB_BUILD_SHARED=OFF -DCMAKE_POSITION_INDEPENDENT_CODE=ON \
    -DWITH_TESTS=OFF -DWITH_ALL_TESTS=OFF -DWITH_BENCHMARK_TOOLS=ON -DWITH_TOOLS=ON \
    -DWITH_CORE_TOOLS=ON -DWITH_TRACE_TOOLS=OFF -DWITH_LIBURING=OFF -DWITH_GFLAGS=ON \
    -DWITH_SNAPPY=ON -DWITH_LZ4=ON -DWITH_ZLIB=ON -DWITH_ZSTD=ON -DWITH_BZ2=ON >&2
  log "building (ninja -j $jobs; progress below)"
  cmake --build "$build" -j "$jobs" --target rocksdb "${tools[@]}"
  if [[ $java == ON ]]; then
    # Its javadoc too: RocksDB's install rules copy it.
    log "building RocksJava (librocksdbjni with TeksTable, its classes, its javadoc)"
    cmake --build "$build" -j "$jobs" --target rocksdbjni rocksdbjni_classes rocksdb_javadoc
  fi
  cmake --install "$build" >/dev/null
  if [[ $java == ON ]]; then
    jar_dir=$prefix/java/jar
    rm -rf "$jar_dir" && mkdir -p "$jar_dir"
    (cd "$jar_dir" && jar xf "$build/java/rocksdbjni_classes.jar")
    # RocksDB's CMake names it as RocksJava's NativeLibraryLoader looks
    # for it in its jar.
    cp "$build/java/librocksdbjni-linux64.so" "$jar_dir/"
    rocksjava=$prefix/java/rocksdbjni-teks-$version.jar
    jar cf "$rocksjava" -C "$jar_dir" .
    mvn -q -B install:install-file -Dfile="$rocksjava" -DgroupId=org.teksdb \
      -DartifactId=rocksdbjni-teks -Dversion="$version" -Dpackaging=jar >&2
    log "RocksJava with TeksTable: $rocksjava, org.teksdb:rocksdbjni-teks:$version in Maven's local repository"
  fi
  tool_dir=$build
else
  # RocksDB's Makefile; -fPIC so that the static library links into
  # position-independent executables. Warnings are not errors, as in the
  # CMake build above: GCC 12 building for an AVX-512 CPU finds
  # "uninitialized" reads in RocksDB's own util/xxhash.cc (false, inside
  # GCC's intrinsics), plugin or not.
  make_vars=(DEBUG_LEVEL=0 ROCKSDB_PLUGINS=teks DISABLE_WARNING_AS_ERROR=1
             USE_RTTI=$([[ $rtti == ON ]] && echo 1 || echo 0)
             EXTRA_CXXFLAGS=-fPIC EXTRA_CFLAGS=-fPIC OBJ_DIR="$build/obj"
             PREFIX="$prefix" LIBDIR="$prefix/lib")
  mkdir -p "$build/obj"
  log "building (make -j $jobs in $tree; progress below)"
  make -C "$tree" -j "$jobs" "${make_vars[@]}" static_lib "${tools[@]}"
  make -C "$tree" "${make_vars[@]}" install-static >/dev/null
  tool_dir=$tree
fi
mkdir -p "$prefix/bin"
for tool in "${tools[@]}"; do
  found=$(find "$tool_dir" -maxdepth 3 -type f -name "$tool" -perm -u+x | head -n 1)
  [[ -n $found ]] || die "the build made no $tool"
  cp -f "$found" "$prefix/bin/$tool"
done
echo "$version" >"$prefix/ROCKSDB_VERSION"

# The plugin is really in: RocksDB's own tool takes "teks" with no preload.
"$prefix/bin/db_bench" --benchmarks=fillrandom --num=1000 --memtablerep=teks \
  --db="$build/check-db" >"$build/check.log" 2>&1 ||
  die "$prefix/bin/db_bench --memtablerep=teks failed: $(tail -n 5 "$build/check.log")"
rm -rf "$build/check-db"
log "RocksDB $version with TeksTable in $prefix (db_bench --memtablerep=teks works)"
