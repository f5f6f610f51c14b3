#!/usr/bin/env bash
# TeksTable from Java (issue 56): java/jmh's MemtableBenchmark (RocksJava's
# get, put, seek and MultiGet, every key in one memtable) for TeksTable and
# the skip list in the same run, through the stock rocksdbjni jar and
# teksdb-java. Builds java/ with Maven first (its native library too).
# Runs JMH --repeat times (a JVM each, teks and skip_list alternating
# inside every run) and prints a table of the medians, ns per operation,
# and skip_list/teks; writes it to OUT/java/table.txt, JMH's JSON and
# output of each run to OUT/java/raw/. About 3 minutes a run at the defaults.
#
# Usage: scripts/bench_java.sh [options]
#   --keys N      keys in the memtable (1000000)
#   --repeat N    JMH runs; the table shows medians (3)
#   --quick       a smoke run: 10,000 keys, one short iteration (seconds; the
#                 figures mean nothing)
#   --out DIR     where results go (docs/bench; with --quick a temporary
#                 directory, removed at exit)
#   --offline     Maven offline (everything cached by an earlier build)
#   --profile P   java/'s Maven profile P: rocksdbjni-teks runs on RocksJava
#                 built with TeksTable inside (scripts/build_rocksdb.sh
#                 --java); results then go to OUT/java-P
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
usage() { sed -n '2,/^set -euo/p' "$0" | sed -n 's/^# \{0,1\}//p'; exit "${1:-0}"; }
keys=1000000 repeat=3 quick=0 out= offline=() profile=
while (($#)); do
  case $1 in
    --keys) keys=${2:?}; shift 2 ;;
    --repeat) repeat=${2:?}; shift 2 ;;
    --quick) quick=1; shift ;;
    --out) out=${2:?}; shift 2 ;;
    --offline) offline=(-o); shift ;;
    --profile) profile=${2:?}; shift 2 ;;
    -h|--help) usage ;;
    *) echo "bench_java: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done
jmh_args=(-f 1 -wi 3 -w 2s -i 5 -r 2s)
if ((quick)); then
  keys=10000 repeat=1
  jmh_args=(-f 1 -wi 0 -i 1 -r 200ms)
  if [[ -z $out ]]; then
    out=$(mktemp -d "${TMPDIR:-/tmp}/teksdb-bench-java.XXXXXX")
    trap 'rm -rf "$out"' EXIT
  fi
fi
out=${out:-$root/docs/bench}
results=$out/java${profile:+-$profile}
mkdir -p "$results/raw"

maven=(mvn -q -B "${offline[@]}" -f "$root/java/pom.xml")
[[ -z $profile ]] || maven+=(-P "$profile")
echo "[bench_java] building java/ (Maven${profile:+, profile $profile}, with TeksTable's native library)" >&2
# The benchmarks' class path is target/lib: only this build's jars in it
# (another profile's RocksJava would otherwise sit beside this one's).
rm -rf "$root/java/jmh/target/lib" "$results"/raw/run*
"${maven[@]}" install -DskipTests
classpath="$root/java/jmh/target/classes:$root/java/jmh/target/lib/*"
# The benchmark checks it runs on the TeksTable asked for.
built_in=false
[[ $profile != rocksdbjni-teks ]] || built_in=true
runs=()
for ((run = 1; run <= repeat; ++run)); do
  echo "[bench_java] JMH run $run of $repeat ($keys keys)" >&2
  java -cp "$classpath" org.openjdk.jmh.Main "${jmh_args[@]}" -p keys="$keys" \
    -jvmArgsAppend "-Dteksdb.expect.builtin=$built_in" \
    -rf json -rff "$results/raw/run$run.json" MemtableBenchmark >"$results/raw/run$run.log"
  runs+=("$results/raw/run$run.json")
done
python3 "$root/scripts/java_bench_report.py" "${runs[@]}" | tee "$results/table.txt"
