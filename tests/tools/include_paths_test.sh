#!/usr/bin/env bash
# No project header may shadow a system one (above all RocksDB's), and every
# `#include "rocksdb/..."` must reach the installed RocksDB headers.
#
# Usage: tests/tools/include_paths_test.sh REPO_ROOT
#
# Check 1 (shadowing). The project's include roots are include/ (public) and
# memtable/, rocksdb/, each layer of server/, tests/support/ (sources
# include their neighbours by file name). A header whose path relative to one of them is also a header under
# a system include root (the compiler's search list, /usr/include at least)
# would hide the system one, e.g. include/rocksdb/db.h. A header in a
# subdirectory named like a system directory (memtable/rocksdb/x.h) is
# refused too: it puts the project into that directory's namespace. The repo
# root is checked for exact matches as well, in case it is ever put on the
# include path (its rocksdb/ directory makes that risky). teksdb/ is our own
# namespace: an installed copy of TeksDB under /usr/include is not a clash.
#
# Check 2 (resolution). Every source's `#include "rocksdb/..."` or
# `<rocksdb/...>` is resolved the way the compiler would, looking first in
# the including file's directory (quote form) and then in the project's
# include roots; it must not land on a project file.
set -euo pipefail

root=${1:?usage: $0 REPO_ROOT}
root=$(cd "$root" && pwd)
project_roots=(include memtable rocksdb tests/support)
for layer in "$root"/server/*/; do project_roots+=("server/$(basename "$layer")"); done

# The compiler's system search list, /usr/include at least.
system_roots=()
while IFS= read -r dir; do
  [[ -d "$dir" ]] && system_roots+=("$(cd "$dir" && pwd)")
done < <(echo | "${CXX:-c++}" -xc++ -E -v - 2>&1 |
  sed -n '/#include <...> search starts here:/,/End of search list/{s/^ //p}' |
  grep -v -e 'search starts here' -e 'End of search list' || true)
[[ " ${system_roots[*]} " == *" /usr/include "* ]] || system_roots+=(/usr/include)

# Project files, skipping VCS and build trees (CMake's build*, Maven's
# target: java/'s holds a RocksDB release's headers).
project_find() {
  find "$@" \( -name .git -o -name 'build*' -o -name target -o -name __pycache__ \) -prune -o \
    -type f \( "${name_tests[@]}" \) -print
}
name_tests=(-name '*.h' -o -name '*.hh' -o -name '*.hpp' -o -name '*.hxx' -o -name '*.inc' -o -name '*.ipp')

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }

# --- Check 1: shadowing -------------------------------------------------------
headers_checked=0
check_header() {  # $1 = path relative to an include root, $2 = project file, $3 = dirs too?
  local rel=$1 file=$2 check_dirs=$3 sys dir
  [[ "$rel" == teksdb/* ]] && return 0
  for sys in "${system_roots[@]}"; do
    if [[ -e "$sys/$rel" ]]; then
      fail "${file#"$root"/} shadows $sys/$rel"
    elif [[ "$check_dirs" == yes && "$rel" == */* ]]; then
      dir=${rel%/*}
      [[ -d "$sys/$dir" ]] && fail "${file#"$root"/} is in $dir/, a system include directory ($sys/$dir)"
    fi
  done
  return 0
}

for r in "${project_roots[@]}"; do
  [[ -d "$root/$r" ]] || continue
  while IFS= read -r f; do
    check_header "${f#"$root/$r"/}" "$f" yes
    headers_checked=$((headers_checked + 1))
  done < <(project_find "$root/$r")
done
repo_headers=0
while IFS= read -r f; do
  check_header "${f#"$root"/}" "$f" no
  repo_headers=$((repo_headers + 1))
done < <(project_find "$root")

# --- Check 2: where RocksDB includes resolve ------------------------------------
name_tests=(-name '*.h' -o -name '*.hh' -o -name '*.hpp' -o -name '*.hxx' -o -name '*.inc'
  -o -name '*.ipp' -o -name '*.cc' -o -name '*.cpp' -o -name '*.cxx')
# Headers of RocksDB releases newer than the one installed, included only
# under include/teksdb/rocksdb_version.h's macros (tests/tools/newest_rocksdb_api_test.sh
# compiles them against the newest release).
newer_rocksdb_headers=(rocksdb/attribute_groups.h rocksdb/multi_scan.h)
sources_checked=0
rocksdb_includes=0
while IFS= read -r src; do
  sources_checked=$((sources_checked + 1))
  while IFS=$'\t' read -r form path; do
    rocksdb_includes=$((rocksdb_includes + 1))
    close='"'; [[ "$form" == '<' ]] && close='>'
    shown="${form}${path}${close}"
    candidates=()
    [[ "$form" == '"' ]] && candidates+=("$(dirname "$src")/$path")
    for r in "${project_roots[@]}"; do candidates+=("$root/$r/$path"); done
    for c in "${candidates[@]}"; do
      [[ -e "$c" ]] && fail "${src#"$root"/}: #include $shown resolves to project file ${c#"$root"/}"
    done
    found_system=no
    for sys in "${system_roots[@]}"; do [[ -e "$sys/$path" ]] && found_system=yes; done
    [[ $found_system == yes || " ${newer_rocksdb_headers[*]} " == *" $path "* ]] ||
      fail "${src#"$root"/}: #include $shown is not an installed RocksDB header"
  done < <(sed -nE 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*([<"])(rocksdb\/[^>"]+)[>"].*/\1\t\2/p' "$src")
done < <(project_find "$root")

echo "include_paths: ${headers_checked} headers under ${project_roots[*]} and ${repo_headers} from the repo root" \
  "checked against ${#system_roots[@]} system include roots (${system_roots[*]})"
echo "include_paths: ${rocksdb_includes} RocksDB includes in ${sources_checked} sources checked: they must resolve to installed headers, not project files"
if ((failures > 0)); then
  echo "include_paths: ${failures} problem(s)"
  exit 1
fi
echo "include_paths: OK"
