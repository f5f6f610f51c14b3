#!/usr/bin/env bash
# The test entry point. Installs what is missing (scripts/setup.sh), then
# builds and runs ctest phases, each in its own build directory and
# configured by the CMakePresets.json preset of the same name:
#
#   asan     build-asan   TEKSDB_SANITIZE=address (ASan + UBSan), -O1 -g1
#                         (line tables), contracts checked by assert
#                                                                 -L 'sequential|concurrent' (all)
#   tsan     build-tsan   TEKSDB_SANITIZE=thread, -O1 -g1, only   -L concurrent
#                         what those tests run (target concurrent_tests)
#   release  build        RelWithDebInfo (-O2 -g1), without the   -L 'sequential|concurrent|preload|api'
#                         single-threaded gtests the asan phase ran
#                         (TEKSDB_SEQUENTIAL_GTESTS=OFF)
#   fault    build-fault  TEKSDB_FAULT_INJECTION=ON, teks_stress only  -L fault
#            (a deliberately broken drop horizon that teks_stress must catch)
#   debug    build-debug  Debug (-O0): contracts checked by assert, -Werror  -L 'sequential|concurrent'
#            (not by default: the asan phase checks the same asserts; the
#            longer job, PHASES="asan tsan debug release fault", adds it)
#
# A phase whose configure or build fails, or whose ctest finds no tests,
# counts as one failure; the other phases still run; so does a file the tests
# left in the source tree (git status not clean after them). Ends with a summary and
# the line "N passed, M failed" (tests over all phases); exits non-zero if
# anything failed.
#
# Usage: scripts/test.sh [--rocksdb PREFIX]
#   --rocksdb PREFIX  build and test against the RocksDB in PREFIX (one that
#                     scripts/build_rocksdb.sh built, or any other install)
#                     instead of Debian's package; the build directories are
#                     then build-NAME(-asan, ...), NAME the prefix's last
#                     component (/opt/rocksdb-11.8.1-rtti: build-rocksdb-
#                     11.8.1-rtti), so two builds of one release keep
#                     apart. The tsan
#                     phase needs a shared librocksdb there (a static one
#                     is skipped, saying so). Tests of
#                     preloading libteksdb.so into Debian's db_bench do not
#                     apply to a static RocksDB and are left out
#                     (cmake/rocksdb.cmake).
#
# Environment: TEKSDB_BUILD_DIR (build; the others are $TEKSDB_BUILD_DIR-asan,
#   -tsan, -debug and -fault), JOBS (build parallelism, nproc), TEST_TIMEOUT (seconds
#   per test, 300), PHASES (asan tsan release fault; the longer job: asan tsan
#   debug release fault), CI (true: compiler
#   warnings are errors, TEKSDB_WERROR).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
rocksdb_prefix=
while (($#)); do
  case $1 in
    --rocksdb) rocksdb_prefix=$(realpath "${2:?--rocksdb needs a PREFIX}"); shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed -n 's/^# \{0,1\}//p'; exit 0 ;;
    *) echo "test.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
cd "$root"
rocksdb_args=()
default_build=build
if [[ -n $rocksdb_prefix ]]; then
  rocksdb_version=$(bash scripts/rocksdb_version.sh "$rocksdb_prefix")
  rocksdb_args=(-DCMAKE_PREFIX_PATH="$rocksdb_prefix")
  default_build=build-$(basename "$(realpath -m "$rocksdb_prefix")")
fi
build=${TEKSDB_BUILD_DIR:-$default_build}
jobs=${JOBS:-$(nproc)}
timeout=${TEST_TIMEOUT:-300}
read -r -a phases <<<"${PHASES:-asan tsan release fault}"
log() { echo "[test] $*" >&2; }

started=$SECONDS
# Python's tests write no __pycache__ beside their sources.
export PYTHONDONTWRITEBYTECODE=1
tree_status() { git -C "$root" status --porcelain --untracked-files=all 2>/dev/null || true; }
tree_before=$(tree_status)
bash scripts/setup.sh
setup_s=$((SECONDS - started))

logs=$(mktemp -d "${TMPDIR:-/tmp}/teksdb-test.XXXXXX")
trap 'rm -rf "$logs"' EXIT

total_passed=0
total_failed=0
summary=()

# phase NAME DIR LABEL CMAKE_ARGS... -- CTEST_ARGS...
# Configures DIR with the preset NAME plus CMAKE_ARGS; builds only
# $build_target if the caller sets it. Runs with the sanitizer options
# exported by the caller.
phase() {
  local name=$1 dir=$2 label=$3
  shift 3
  local cmake_args=() ctest_args=()
  while (($#)) && [[ $1 != -- ]]; do cmake_args+=("$1"); shift; done
  (($#)) && shift
  ctest_args=("$@")

  local t0=$SECONDS build_s test_s rc passed=0 failed=0 total=0 status
  log "=== $name: configure and build $dir (preset $name ${cmake_args[*]})"
  if ! cmake --preset "$name" -B "$dir" "${rocksdb_args[@]}" "${cmake_args[@]}" ||
    ! cmake --build "$dir" -j "$jobs" ${build_target:+--target "$build_target"}; then
    build_s=$((SECONDS - t0))
    summary+=("$(printf '%-8s build %4ss  test     -  BUILD FAILED (counted as 1 failure)' "$name" "$build_s")")
    total_failed=$((total_failed + 1))
    return 0
  fi
  build_s=$((SECONDS - t0))

  t0=$SECONDS
  log "=== $name: ctest --test-dir $dir -L $label ${ctest_args[*]}"
  set +e
  ctest --test-dir "$dir" -L "$label" --output-on-failure --no-tests=error \
    --timeout "$timeout" "${ctest_args[@]}" 2>&1 | tee "$logs/$name.log"
  rc=${PIPESTATUS[0]}
  set -e
  test_s=$((SECONDS - t0))

  # "92% tests passed, 1 tests failed out of 12"
  local line
  line=$(grep -E '^[0-9]+% tests passed, [0-9]+ tests? failed out of [0-9]+' "$logs/$name.log" | tail -n 1 || true)
  if [[ -n "$line" ]]; then
    failed=$(sed -E 's/.* ([0-9]+) tests? failed out of.*/\1/' <<<"$line")
    total=$(sed -E 's/.* out of ([0-9]+).*/\1/' <<<"$line")
    passed=$((total - failed))
    status="$passed/$total passed"
    ((rc == 0 || failed > 0)) || { failed=1; status+=", ctest exit $rc"; }
  else
    failed=1
    status="no ctest summary (exit $rc; no tests labelled $label?), counted as 1 failure"
  fi
  if ((failed > 0)) && grep -q 'The following tests FAILED' "$logs/$name.log"; then
    local names
    names=$(sed -n '/The following tests FAILED/,$p' "$logs/$name.log" |
      sed -nE 's/^[[:space:]]*[0-9]+ - ([^ ]+).*/\1/p' | paste -sd' ')
    status+="; FAILED: $names"
  fi
  total_passed=$((total_passed + passed))
  total_failed=$((total_failed + failed))
  summary+=("$(printf '%-8s build %4ss  test %4ss  %s' "$name" "$build_s" "$test_s" "$status")")
}

for p in "${phases[@]}"; do
  case $p in
    asan)
      ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
        phase asan "$build-asan" 'sequential|concurrent' -- -j "$jobs" ;;
    tsan)
      # ThreadSanitizer needs RocksDB as a shared library: its
      # uninstrumented hand-offs (the write group's, the WAL writer's) are
      # invisible to TSan, and only a separate module's accesses can be
      # ignored (ignore_noninstrumented_modules). Linked in statically they
      # read as races.
      if [[ -n $rocksdb_prefix ]] && ! ls "$rocksdb_prefix"/lib*/librocksdb.so >/dev/null 2>&1; then
        summary+=("$(printf '%-8s skipped: %s has no shared librocksdb (see scripts/test.sh)' tsan "$rocksdb_prefix")")
        continue
      fi
      # librocksdb.so is not instrumented: calls it makes into TSan's
      # interceptors are ignored, and tests/support/tsan.supp names its internal
      # hand-offs TSan cannot see.
      tsan_options=halt_on_error=1:second_deadlock_stack=1:ignore_noninstrumented_modules=1
      tsan_options+=":suppressions=$root/tests/support/tsan.supp"
      TSAN_OPTIONS=$tsan_options build_target=concurrent_tests phase tsan "$build-tsan" concurrent -- ;;
    debug)
      # Every REQUIRES that an assert can check, checked: unoptimized, so
      # the scripted (preload) tests, which need speed, stay in release.
      phase debug "$build-debug" 'sequential|concurrent' -- -j "$jobs" ;;
    release)
      # Everything again but the single-threaded gtests, optimized: races
      # show differently without sanitizers, the preload tests need an
      # uninstrumented build, and the server's tests run at its speed. (The
      # single-threaded gtests ran under ASan and UBSan; built and run
      # again here they cost CI ~5 minutes; the longer job's debug phase
      # runs them once more.) Two at a time, as the other phases: tests that
      # time themselves (the benchmarks, server_limits, Redis's suite) are
      # RUN_SERIAL.
      phase release "$build" 'sequential|concurrent|preload|api' -DTEKSDB_SEQUENTIAL_GTESTS=OFF -- -j "$jobs" ;;
    fault)
      build_target=teks_stress phase fault "$build-fault" fault -- ;;
    *) echo "test.sh: unknown phase '$p' (asan, tsan, debug, release, fault)" >&2; exit 2 ;;
  esac
done

# Tests leave no file in the source tree: a change to git's status over the
# run (a file git does not ignore, left or changed) counts as one failure.
left=$(diff <(echo "$tree_before") <(tree_status) | sed -n 's/^> //p' || true)
if [[ -n $left ]]; then
  summary+=("$(printf 'tree     the tests left files in the source tree (counted as 1 failure):\n%s' "$left")")
  total_failed=$((total_failed + 1))
fi

echo
echo "==================== TeksDB test summary ===================="
[[ -z $rocksdb_prefix ]] || echo "RocksDB  $rocksdb_version from $rocksdb_prefix"
printf 'setup    %4ss\n' "$setup_s"
printf '%s\n' "${summary[@]}"
printf 'total    %4ss\n' "$((SECONDS - started))"
echo "============================================================="
echo "$total_passed passed, $total_failed failed"
((total_failed == 0))
