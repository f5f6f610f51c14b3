#!/usr/bin/env bash
# Memory of dropped versions, reused (issue 28, item 4): --keys keys updated
# --updates times each (random order, db_bench's fillrandom with --writes =
# keys x updates, 16-byte keys) through tools/teks_db_bench, no snapshot
# held, for
#   teks        the TeksDB layer, TeksTable reusing dropped versions' memory
#   teks-keep   the same with max_wal_write_buffers=1: versions dropped, their
#               memory kept (TeksTable before reuse)
#   skip_list   plain RocksDB with its skip list (every version kept)
# Two measurements, each in a process of its own per memtable:
#   memory      a write buffer nothing fills (--memory-buffer-mb): the
#               memtable's bytes after the updates (RocksDB's
#               cur-size-active-mem-table), then readrandom, readseq and
#               seekrandom over it
#   flushes     at each --write-buffer-mb: the flushes the updates cause, and
#               the WAL still alive at the end (memstats)
#   snapshots   with --snapshots N (issue 53): fillrounds (--keys keys written
#               in order, --updates rounds) in the memory measurement's write
#               buffer, teks and skip_list, three ways: no snapshot, one
#               held from the first round on, one taken and released every
#               100 ms; the memtable's bytes and the fill's micros/op,
#               medians of N runs, each in a process of its own
# Prints a table per measurement, ratios to skip_list, and writes them to
# OUT/reuse/table.txt (raw output in OUT/reuse/raw/).
#
# Usage: scripts/bench_reuse.sh [options]   (also: scripts/bench.sh --scenario reuse ...)
#   --keys N               distinct keys (1000000)
#   --updates N            writes per key, on average (10)
#   --value-size N         value bytes (100)
#   --write-buffer-mb LIST flushes at these write buffers, MiB (64,512)
#   --memory-buffer-mb N   the memory measurement's write buffer (4096)
#   --snapshots N          also the snapshots measurement, N runs each (0: not)
#   --only-snapshots       only the snapshots measurement
#   --out DIR              results under DIR/reuse (build/bench)
#   --no-plots             accepted, as by bench.sh (this scenario draws none)
#   --prebuilt DIR         use DIR/tools/teks_db_bench as it is (a release
#                          build): no setup, configure or build
# Environment: TEKSDB_BUILD_DIR (build; configured as a release build and
# teks_db_bench built there if needed), TMPDIR (the DBs).
set -euo pipefail

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }
die() { echo "bench_reuse.sh: $*" >&2; exit 1; }
log() { echo "[bench-reuse] $*" >&2; }
number() { [[ $2 =~ ^[1-9][0-9]*$ ]] || die "$1 takes a positive integer, not '$2'"; }

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
keys=1000000 updates=10 value_size=100 buffers=64,512 memory_buffer=4096 out=$root/build/bench
prebuilt= snapshot_runs=0 only_snapshots=
while (($#)); do
  case $1 in
    --keys) number "$1" "${2:-}"; keys=$2; shift ;;
    --updates) number "$1" "${2:-}"; updates=$2; shift ;;
    --value-size) number "$1" "${2:-}"; value_size=$2; shift ;;
    --write-buffer-mb)
      [[ ${2:-} =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || die "--write-buffer-mb takes MiB like 64,512, not '${2:-}'"
      buffers=$2; shift ;;
    --memory-buffer-mb) number "$1" "${2:-}"; memory_buffer=$2; shift ;;
    --snapshots) number "$1" "${2:-}"; snapshot_runs=$2; shift ;;
    --only-snapshots) only_snapshots=1 ;;
    --out) [[ -n ${2:-} ]] || die "--out takes a directory"; out=$2; shift ;;
    --prebuilt) [[ -x ${2:-}/tools/teks_db_bench ]] || die "--prebuilt '${2:-}' has no tools/teks_db_bench"
                prebuilt=$2; shift ;;
    --no-plots) ;;
    -h|--help) usage; exit 0 ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
  shift
done

# The skip list keeps every version: keys x updates entries of ~(value + 60)
# bytes must fit in memory, or the memory run would swap.
need_kb=$((keys * updates * (value_size + 80) / 1024 * 2))
avail_kb=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
((need_kb < avail_kb)) || die "the memory measurement needs about $((need_kb >> 20)) GiB" \
  "free, and MemAvailable is $((avail_kb >> 20)) GiB: lower --keys or --updates"

if [[ -n $prebuilt ]]; then
  bench=$prebuilt/tools/teks_db_bench
else
  build=${TEKSDB_BUILD_DIR:-$root/build}
  bash "$root/scripts/setup.sh" >&2
  [[ -f "$build/CMakeCache.txt" ]] || cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >&2
  cmake --build "$build" --target teks_db_bench >&2
  bench=$build/tools/teks_db_bench
fi

results=$out/reuse
mkdir -p "$results/raw"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/teksdb-bench-reuse.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

memtables=(teks teks-keep skip_list)
flags_of() {  # MEMTABLE
  case $1 in
    teks) echo "--teksdb_layer=true --memtablerep=teks" ;;
    teks-keep) echo "--teksdb_layer=true --memtablerep=id=teks;max_wal_write_buffers=1" ;;
    skip_list) echo "--teksdb_layer=false --memtablerep=skip_list" ;;
  esac
}
writes=$((keys * updates))
reads=$((keys < 500000 ? keys : 500000))
run() {  # NAME MEMTABLE BUFFER_MB BENCHMARKS SEED [FLAG...]
  local log=$results/raw/$1.txt flags
  read -r -a flags <<<"$(flags_of "$2")"
  rm -rf "$tmp/db"
  "$bench" --db="$tmp/db" "${flags[@]}" --num="$keys" --writes="$writes" --reads="$reads" \
    --value_size="$value_size" --write_buffer_size=$(($3 << 20)) --compression_type=snappy \
    --seed="$5" --benchmarks="$4" "${@:6}" >"$log" 2>&1 || die "$1 failed: see $log"
}
# FIELD of LOG: micros/op of a benchmark, or a memstats line's value.
# (Progress lines end in carriage returns.)
micros() { tr '\r' '\n' <"$1" | awk -v b="$2" '$1 == b && $2 == ":" { print $3 }'; }
stat() { awk -v k="$2" 'index($0, k ": ") == 1 { print substr($0, length(k) + 3) }' "$1"; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf (b > 0 ? "%.2fx" : "-"), a / b }'; }

[[ -z $only_snapshots || $snapshot_runs -gt 0 ]] || die "--only-snapshots needs --snapshots N"
started=$SECONDS
snapshot_ways=(none held cycle)
snapshot_memtables=(teks skip_list)
total=$((snapshot_runs * ${#snapshot_ways[@]} * ${#snapshot_memtables[@]}))
[[ -n $only_snapshots ]] || total=$((total + ${#memtables[@]} * (1 + $(tr , '\n' <<<"$buffers" | wc -l))))
step=0
progress() {
  step=$((step + 1))
  log "$step/$total: $1 ($((SECONDS - started))s elapsed)"
}

snapshot_flags() {  # WAY
  case $1 in
    none) echo "--fillrounds_snapshot=false" ;;
    held) echo "--fillrounds_snapshot=true" ;;
    cycle) echo "--fillrounds_snapshot=false --snapshot_cycle_ms=100" ;;
  esac
}
for ((r = 1; r <= snapshot_runs; r++)); do
  for way in "${snapshot_ways[@]}"; do
    for m in "${snapshot_memtables[@]}"; do
      progress "snapshots $way, $m, run $r"
      read -r -a extra <<<"$(snapshot_flags "$way")"
      run "snapshots-$way-$m-$r" "$m" "$memory_buffer" fillrounds,memstats "$r" "${extra[@]}"
    done
  done
done
IFS=, read -r -a buffer_list <<<"$buffers"
if [[ -z $only_snapshots ]]; then
  for m in "${memtables[@]}"; do
    progress "memory, $m"
    run "memory-$m" "$m" "$memory_buffer" fillrandom,memstats,readrandom,readseq,seekrandom 1
  done
  for mb in "${buffer_list[@]}"; do
    for m in "${memtables[@]}"; do
      progress "flushes at $mb MiB, $m"
      run "flushes-$mb-$m" "$m" "$mb" fillrandom,memstats 1
    done
  done
fi
# The median of the numbers on stdin.
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }
# WAY MEMTABLE FIELD: the median over the snapshot runs of the memtable's
# bytes ("bytes") or fillrounds' micros/op ("fill").
snapshot_median() {
  local r f
  for ((r = 1; r <= snapshot_runs; r++)); do
    f=$results/raw/snapshots-$1-$2-$r.txt
    if [[ $3 == bytes ]]; then stat "$f" rocksdb.cur-size-active-mem-table; else micros "$f" fillrounds; fi
  done | median
}

snapshot_table() {
  echo "Held snapshots: fillrounds, $keys keys x $updates rounds (in order), $value_size-byte values," \
    "one $memory_buffer MiB write buffer, medians of $snapshot_runs"
  printf '%-10s %-8s %14s %8s %10s %8s\n' snapshot memtable "memtable MB" ratio "fill us" speedup
  local way m bytes fill base_bytes base_fill
  for way in "${snapshot_ways[@]}"; do
    base_bytes=$(snapshot_median "$way" skip_list bytes)
    base_fill=$(snapshot_median "$way" skip_list fill)
    for m in "${snapshot_memtables[@]}"; do
      bytes=$(snapshot_median "$way" "$m" bytes)
      fill=$(snapshot_median "$way" "$m" fill)
      printf '%-10s %-8s %14.1f %8s %10s %8s\n' "$way" "$m" "$(awk -v b="$bytes" 'BEGIN { print b / 1e6 }')" \
        "$(ratio "$bytes" "$base_bytes")" "$fill" "$(ratio "$base_fill" "$fill")"
    done
  done
  echo "(held: from the first round on; cycle: taken and released every 100 ms)"
}
{
  if ((snapshot_runs > 0)); then
    snapshot_table
    echo
  fi
  if [[ -z $only_snapshots ]]; then
    echo "Reused memory of dropped versions: $keys keys x $updates updates (random order), $value_size-byte values, no snapshot"
    echo "tools/teks_db_bench; ratios are to skip_list (memory: <1 is smaller; speed: >1 is faster)"
    echo
    echo "Memory: one $memory_buffer MiB write buffer, nothing flushed"
    printf '%-10s %14s %8s %10s %8s %12s %8s %10s %8s %12s %8s\n' memtable "memtable MB" ratio \
      "fill us" speedup "readrandom" speedup readseq speedup seekrandom speedup
    base=$results/raw/memory-skip_list.txt
    for m in "${memtables[@]}"; do
      f=$results/raw/memory-$m.txt
      bytes=$(stat "$f" rocksdb.cur-size-active-mem-table)
      printf '%-10s %14.1f %8s' "$m" "$(awk -v b="$bytes" 'BEGIN { print b / 1e6 }')" \
        "$(ratio "$bytes" "$(stat "$base" rocksdb.cur-size-active-mem-table)")"
      for b in fillrandom readrandom readseq seekrandom; do
        printf ' %10s %8s' "$(micros "$f" $b)" "$(ratio "$(micros "$base" $b)" "$(micros "$f" $b)")"
      done
      echo
    done
    for mb in "${buffer_list[@]}"; do
      echo
      echo "Flushes: $mb MiB write buffer"
      printf '%-10s %9s %18s %14s %10s\n' memtable flushes "fewer than skip" "live WAL MB" "fill us"
      base=$results/raw/flushes-$mb-skip_list.txt
      for m in "${memtables[@]}"; do
        f=$results/raw/flushes-$mb-$m.txt
        printf '%-10s %9s %18s %14.1f %10s\n' "$m" "$(stat "$f" "flushes completed")" \
          "$(ratio "$(stat "$base" "flushes completed")" "$(stat "$f" "flushes completed")")" \
          "$(awk -v b="$(stat "$f" "live WAL bytes")" 'BEGIN { print b / 1e6 }')" "$(micros "$f" fillrandom)"
      done
    done
    echo
  fi
  echo "Command: scripts/bench_reuse.sh --keys $keys --updates $updates --value-size $value_size" \
    "--write-buffer-mb $buffers --memory-buffer-mb $memory_buffer" \
    "$( ((snapshot_runs == 0)) || echo "--snapshots $snapshot_runs")${only_snapshots:+ --only-snapshots}" \
    "($((SECONDS - started))s)"
} | tee "$results/table.txt"
