#!/usr/bin/env bash
# TeksTable for Java (java/, issue 56) with the stock rocksdbjni jar:
#   - `mvn install` of java/: the native library built against the jar's
#     RocksDB release (from ../shared/rocksdb's tarball), teksdb-java's tests
#     (TeksTableConfig and loading, another release refused, the randomized
#     differential test against the skip list, whose summary line must show
#     0 mismatches, threads reading their own writes while others write),
#     the Kafka Streams word count's test, the JMH module;
#   - scripts/bench_java.sh --quick runs the benchmarks and prints a row
#     per benchmark with a ratio;
#   - java/native/build.sh refuses a release it has no headers for, saying
#     where it looked.
# The first run fetches rocksdbjni, Kafka Streams and JMH from Maven Central
# (~150 MB into ~/.m2); later runs find them there. Exits 77 (skipped) without
# the release's headers (java/native/build.sh: ROCKSDB_TARBALLS, default
# ../shared/rocksdb, or ROCKSDB_SOURCE). About 60-90 s on a shared 2-core machine.
#
# Usage: tests/tools/java_test.sh
set -euo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd)
source "$(dirname "$0")/../support/script_checks.sh" java
# The release teksdb-java builds for by default: the first <rocksdb.version>
# of java/pom.xml (its profiles name others).
version=$(grep -m1 -o '<rocksdb.version>[^<]*' "$root/java/pom.xml" | cut -d'>' -f2)
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || { echo "java: no release in java/pom.xml: '$version'"; exit 1; }
tarballs=${ROCKSDB_TARBALLS:-$root/../shared/rocksdb}
if [[ -z ${ROCKSDB_SOURCE:-} && ! -f $tarballs/rocksdb-$version.tar.gz ]]; then
  echo "java: skipped: no $tarballs/rocksdb-$version.tar.gz (nor ROCKSDB_SOURCE) for the native library's headers"
  exit 77
fi
if mvn -B -f "$root/java/pom.xml" install >"$tmp/maven.log" 2>&1; then
  pass "mvn install of java/ (native library, tests, Kafka Streams example, JMH)"
else
  fail "mvn install of java/: $(grep -E 'ERROR|FAIL' "$tmp/maven.log" | head -n 20)"
fi
summary=$(grep -E '^differential: seed .* reads compared' "$tmp/maven.log" || true)
if [[ $summary == *", 0 mismatches" ]]; then
  pass "the differential test: $summary"
else
  fail "the differential test's summary: '$summary'"
fi
for suite in org.teksdb.TeksTableConfigTest org.teksdb.DifferentialTest org.teksdb.ConcurrentTest \
             org.teksdb.examples.WordCountTest; do
  line=$(grep -h "Tests run:.* -- in $suite\$" "$tmp/maven.log" | tail -n 1 || true)
  if [[ $line == *"Failures: 0, Errors: 0, Skipped: 0"* ]]; then
    pass "$suite: ${line%%, Time*}"
  else
    fail "$suite: '${line:-did not run}'"
  fi
done

if bash "$root/scripts/bench_java.sh" --quick --offline >"$tmp/bench.log" 2>&1; then
  rows=$(grep -cE '^(get|put|seek|multiGet) +10000 +1 +[0-9]+ +[0-9]+ +[0-9.]+x$' "$tmp/bench.log" || true)
  expect_eq "bench_java.sh --quick: rows with a ratio" "$rows" 4
else
  fail "bench_java.sh --quick: $(tail -n 5 "$tmp/bench.log")"
fi

if ROCKSDB_TARBALLS=$tmp bash "$root/java/native/build.sh" 9.9.9 "$tmp/out" "$tmp/build" \
     >"$tmp/refused.log" 2>&1; then
  fail "build.sh built for a release it has no tarball of"
elif grep -q "no $tmp/rocksdb-9.9.9.tar.gz" "$tmp/refused.log"; then
  pass "build.sh names the tarball it lacks"
else
  fail "build.sh's refusal: $(cat "$tmp/refused.log")"
fi
finish
