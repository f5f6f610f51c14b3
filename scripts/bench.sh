#!/usr/bin/env bash
# The main job: TeksTable against RocksDB's stock memtables, side by side.
#
# With no flags (--scenario quick; about 3 minutes on 2 cores, build
# included): TeksTable against the skip list (RocksDB's default) and
# hash_linkedlist (the stock hash memtable with the fastest gets), for fill,
# get, scan and seek at 1 and 2 threads. It ends with lines a person can quote,
#   TeksTable vs skip_list, 1 thread: get 4.55x, seek 1.59x, scan 1.00x, fill 1.87x, memory 1.14x
# (also in summary.txt) and a headline chart, headline.png: the speedup over
# the skip list per benchmark on a linear axis, the slow bounded rows (see
# below) as notes instead of bars.
#
# Installs what is missing (scripts/setup.sh), builds libteksdb.so (and the
# tools a scenario needs; release), then runs Debian's stock
# /usr/bin/db_bench once per memtable, thread count and repeat, with
# LD_PRELOAD=libteksdb.so (the run fails unless db_bench reports the
# memtable asked for), in a fresh DB. One process runs fillrandom, memstats
# and then the reads, so the reads see what the fill built (the large
# scenario adds variants, below). Prints a table (medians over repeats) of
# us/op, ops/s and the ratio to skip_list from the same runs, memtable bytes
# after the fill (rocksdb.cur-size-all-mem-tables) and peak RSS; writes PNG
# plots. Each process is logged as it starts, with how far along the job is:
# "run 3/12 (teks, 2 threads) — 1m40s elapsed, ~2m10s left".
#
# Output: build/bench/<scenario>/ (--out DIR: DIR/<scenario>/), never a
# tracked file unless --out names one (--scenario all --out docs/bench
# regenerates the docs' tables and plots):
#   table.txt             what the scenario printed
#   runs.tsv              the raw per-run results (micro: runs.json)
#   <scenario>.png        its plot (large and mixed also <scenario>-variants.png:
#                         the variants' sections, the rate-limited runs)
#   summary.txt, headline.png   quick and memtable: the quotable lines and chart
#
# Scenarios (each sets defaults the flags below override):
#   quick     the default: --num 500000, 16-byte keys, 256-byte values,
#             threads 1 and 2, the whole data set in the memtable; teks,
#             skip_list and hash_linkedlist
#   memtable  the full study, the paper's §6.1 set-up: --num 1000000,
#             16-byte keys, 256-byte values, threads 1 and 2, the whole data
#             set in the memtable (checked: a flush is reported), every
#             memtable
#   versions  several versions per key (--num 200000 --versions 5): skip_list
#             and TeksTable under db_bench, and TeksTable through
#             tools/teks_db_bench without (plaindb:) and with (teksdb:) the
#             TeksDB layer, which drops versions no reader needs; then the
#             hot key: N updates of one key under a held snapshot (nothing
#             can be dropped), N = 10k, 100k, 1M, per-update cost through the
#             TeksDB layer (teksdb:teks) beside plaindb:skip_list
#   large     a data set ~8x the write buffer (32 MiB), flushes and
#             compactions on, snappy compression (paper §7), in sections:
#             - reads right after the fill, each memtable's LSM as its fill
#               left it (the shapes differ between memtables)
#             - same shape: after the fill, flush and a full compaction
#               (db_bench flush, waitforcompaction, compact), then the
#               reads: one LSM shape for every memtable, both memtables empty
#             - mixed, data > memory: readwhilewriting (THREADS readers, one
#               writer at full speed); readrandom on a scattered hot set
#               (--read_random_exp_range=10); readrecent (tools/teks_db_bench,
#               plaindb:REP vs plaindb:skip_list), gets of the last K keys
#               written, K = write buffer / (16 + value bytes)
#             Each variant fills afresh with --seed=R in repeat R (the same
#             keys for every memtable). Under each section: every run's LSM
#             shape (files and MB per level) and memtable entries as the
#             reads began, and whether the shapes matched across memtables
#   writes    writes as users run them: RocksDB's default write buffer
#             (64 MiB), compactions on, snappy, --num 2000000 keys with
#             100-byte values, threads 1 and 2, teks against skip_list; one
#             process runs fillseq (keys in order), another fillrandom,
#             overwrite and readrandomwriterandom (--readwritepercent=50)
#   mixed     reads beside a writer: fillrandom of --num 500000 keys with
#             100-byte values into a 1 GiB write buffer (WAL off), then
#             readwhilewriting, seekrandomwhilewriting (seek + 10 nexts)
#             and readrandomwriterandom (--readwritepercent=50), --num
#             operations per reader thread, threads 1 and 2; teks and
#             skip_list under db_bench, and teksdb:teks (the TeksDB layer,
#             which drops versions no reader needs); one process with the
#             writer at full speed, another running the *whilewriting
#             benchmarks with the fill's and the writer's writes limited to
#             --write-rate bytes/s (db_bench limits no other writes)
#   micro     tools/memtable_bench: the rep alone (insert, get, seek, scan)
#             against RocksDB's skip-list rep and absl::flat_hash_map
#   hotkeys   keys with many versions (every version kept, as with a plain
#             factory): --num writes (300000, 32-byte values) cycling over
#             num/V keys, V = 10, 100, ..., 100000 versions per key; then
#             seekrandom (seek + 1 next), readseq, readreverse and gets at a
#             snapshot taken after the first round (readatsnapshot), through
#             tools/teks_db_bench without the layer; a table and a plot of
#             micros/op against versions per key
#   scale     how the gain grows with the memtable: for each of --sizes
#             (250000,1000000,4000000,16000000; ~17 minutes here), every key in
#             one write buffer, one thread: fillrandom, readrandom,
#             seekrandom (seek + 10 nexts), readseq (min(size, 500000)
#             reads each), memtable bytes per entry and peak RSS, for teks,
#             skip_list, skip_list+bloom (the skip list with RocksDB's
#             whole-key memtable bloom filter, --memtable_whole_key_filtering,
#             10 bits per key: --memtable_bloom_size_ratio sized to the
#             buffer) and, up to 1M entries,
#             hash_linkedlist, prefix_hash and vector (bounded reads, as in
#             memtable); then restarts at 1M entries (--restart-sizes;
#             the largest size if smaller): tools/teks_db_bench fills with the WAL on
#             and is killed (SIGKILL), and the DB is reopened twice from two
#             hard-linked copies: as RocksDB does by default (the WAL's
#             replay, then a flush of what it rebuilt) and, for the parts,
#             with --avoid_flush_during_recovery (the replay alone) followed
#             by a flush alone, teks against skip_list (no TeksDB layer).
#             A table per size, then one across sizes (speedups, bytes per
#             entry, RSS, restart), scale.png (the speedup against entries,
#             log x) and summary.txt. Refuses to start if a size needs more
#             memory or disk than the machine has available.
#   all       each of the above in turn, each into its own directory
#             (--scenario all --repeat 3 --out docs/bench: the docs' results)
#   server, ycsb, reuse   run scripts/bench_server.sh / bench_ycsb.sh /
#             bench_reuse.sh (reused memory of dropped versions: memtable
#             bytes and flushes under updates) with every other argument
#             (see their --help); not part of all
#
# Usage: scripts/bench.sh [options] [-- extra flags for every db_bench run]
#   --scenario NAME   quick (default), memtable, versions, large, writes,
#                     mixed, micro, hotkeys, scale, all; server, ycsb, reuse
#   --sizes LIST      scale only: comma-separated entry counts
#   --restart-sizes LIST   scale only: the entry counts restarts are measured
#                     at, any (default: 1000000, or the largest size if less;
#                     0: none)
#   --num N           distinct keys; reads per thread per read benchmark
#                     (hotkeys: writes per run)
#   --value-size N    value bytes (256); keys are 16 bytes
#   --versions N      fillrandom writes N x --num keys per thread (--writes)
#   --threads LIST    comma-separated thread counts, e.g. 1,2
#   --memtables LIST  comma-separated --memtablerep values. Any registered
#                     name or option string ('id=teks;shortcut=false');
#                     teksdb:REP / plaindb:REP run tools/teks_db_bench with /
#                     without the TeksDB layer
#   --write-buffer-size N   bytes (large, writes and mixed only; the in-memory scenarios size
#                     it so that nothing is flushed)
#   --write-rate N    mixed only: bytes/s of the rate-limited writer (2000000)
#   --repeat N        runs of everything, interleaved; tables show medians (1)
#   --out DIR         results go under DIR/<scenario>/ (build/bench)
#   --no-plots        no plots (no matplotlib venv)
#   --prebuilt DIR    use the libteksdb.so and tools already built in DIR (a
#                     release build): no setup, configure or build (tests)
# Environment: TEKSDB_BUILD_DIR (build), DB_BENCH (/usr/bin/db_bench),
#   TEKSDB_PLOT_VENV (the matplotlib venv, <build dir>/plot-venv), TMPDIR,
#   JOBS (build parallelism, nproc).
#
# Bounded rows: vector memtables sort a copy of themselves for every get
# and seek, and the hash memtables copy themselves into a skip list for every
# total-order iterator (each seek). At 1M keys that is about a second per
# operation, so those benchmarks run fewer operations (--reads: vector 10,
# hash 5, hash in quick 2), in a process of their own after the same fill;
# the table labels such rows.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }
die() { echo "bench.sh: $*" >&2; exit 1; }
log() { echo "[bench] $*" >&2; }
# duration SECONDS: "45s", "2m05s".
duration() { (($1 < 60)) && echo "$1s" || printf '%dm%02ds\n' $(($1 / 60)) $(($1 % 60)); }
# progress WORK_DONE WORK_TOTAL: "1m40s elapsed, ~2m10s left", the time left
# estimated from the pace of the runs so far (since runs_started).
progress() {
  local note
  note="$(duration $((SECONDS - started))) elapsed"
  (($1 == 0)) || note+=", ~$(duration $(((SECONDS - runs_started) * ($2 - $1) / $1))) left"
  echo "$note"
}

# --scenario server / ycsb / reuse: another script's job, given every other argument.
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
  case ${args[i]} in
    --) break ;;
    --scenario=server|--scenario=ycsb|--scenario=reuse)
      other=${args[i]#--scenario=} rest=("${args[@]:0:i}" "${args[@]:i+1}") ;;
    --scenario) [[ ${args[i + 1]:-} =~ ^(server|ycsb|reuse)$ ]] || continue
                other=${args[i + 1]} rest=("${args[@]:0:i}" "${args[@]:i+2}") ;;
    *) continue ;;
  esac
  [[ -f "$root/scripts/bench_$other.sh" ]] || die "--scenario $other runs scripts/bench_$other.sh," \
    "which this checkout does not have"
  exec bash "$root/scripts/bench_$other.sh" "${rest[@]}"
done

all_memtables=teks,teks-s,teks-a,teks-ac,teks-acsp,teks-acsp-in,skip_list,vector,prefix_hash,hash_linkedlist
scenario=quick
declare -A flag=()
repeat=1
out=
no_plots=
prebuilt=
extra=()
opts=("$@")  # the arguments before "--", for --scenario all
while (($#)); do
  case $1 in
    --scenario|--num|--value-size|--versions|--threads|--memtables|--write-buffer-size|--write-rate|--repeat|--out|--prebuilt|--sizes|--restart-sizes)
      [[ $# -ge 2 ]] || die "$1 needs a value"
      case $1 in
        --scenario) scenario=$2 ;;
        --repeat) repeat=$2 ;;
        --out) out=$2 ;;
        --prebuilt) prebuilt=$2 ;;
        *) flag[${1#--}]=$2 ;;
      esac
      shift 2 ;;
    --*=*) set -- "${1%%=*}" "${1#*=}" "${@:2}" ;;
    --no-plots) no_plots=1; shift ;;
    --) opts=("${opts[@]:0:${#opts[@]}-$#}"); shift; extra=("$@"); break ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument: $1" ;;
  esac
done

# Paths given relative to where bench.sh was started; everything else is
# relative to the repository root.
[[ -n "$out" ]] && out=$(realpath -m "$out")
if [[ -n "$prebuilt" ]]; then
  prebuilt=$(realpath -m "$prebuilt")
  [[ -d "$prebuilt" ]] || die "--prebuilt $prebuilt: no such directory"
fi
cd "$root"
out=${out:-$root/build/bench}

if [[ $scenario == all ]]; then
  [[ -z "${flag[write-buffer-size]:-}" ]] || die "--write-buffer-size applies to --scenario large, writes and mixed only"
  ((${#extra[@]} == 0)) || die "--scenario all takes no extra db_bench flags (they would not reach" \
    "tools/teks_db_bench in the versions scenario); run the scenarios one by one"
  for s in quick memtable versions large writes mixed micro hotkeys scale; do
    # Later flags win, so the scenario given here overrides the 'all'.
    passed=("${opts[@]}" --scenario "$s" --out "$out")
    [[ -z "$prebuilt" ]] || passed+=(--prebuilt "$prebuilt")
    bash "$root/scripts/bench.sh" "${passed[@]}"
  done
  exit 0
fi

# --- Scenario defaults -------------------------------------------------------------
in_memory=1
write_buffer_size=
compression=none
value_size=256
hash_seeks=5
case $scenario in
  quick) num=500000 versions=1 threads=1,2 memtables=teks,skip_list,hash_linkedlist hash_seeks=2 ;;
  memtable) num=1000000 versions=1 threads=1,2 memtables=$all_memtables ;;
  versions) num=200000 versions=5 threads=1,2 memtables=skip_list,teks,plaindb:teks,teksdb:teks ;;
  large) num=1000000 versions=1 threads=1 memtables=teks,skip_list in_memory=0
         write_buffer_size=$((32 << 20)) compression=snappy ;;
  writes) num=2000000 versions=1 threads=1,2 memtables=teks,skip_list in_memory=0
          write_buffer_size=$((64 << 20)) compression=snappy value_size=100 ;;
  mixed) num=500000 versions=1 threads=1,2 memtables=teks,teksdb:teks,skip_list in_memory=0
         write_buffer_size=$((1 << 30)) value_size=100 ;;
  micro) num=1000000 versions=1 threads=1 memtables=skip_list,teks-s,teks ;;
  hotkeys) num=300000 versions=1 threads=1 memtables=plaindb:skip_list,plaindb:teks value_size=32 ;;
  scale) num=1 versions=1 threads=1 memtables=teks,skip_list,skip_list+bloom,hash_linkedlist,prefix_hash,vector ;;
  *) die "unknown --scenario '$scenario' (known: quick, memtable, versions, large, writes, mixed," \
       "micro, hotkeys, scale, all; server, ycsb, reuse)" ;;
esac
num=${flag[num]:-$num}
value_size=${flag[value-size]:-$value_size}
versions=${flag[versions]:-$versions}
threads=${flag[threads]:-$threads}
memtables=${flag[memtables]:-$memtables}
if [[ -n "${flag[write-buffer-size]:-}" ]]; then
  ((in_memory == 0)) || die "--write-buffer-size applies to --scenario large, writes and mixed only" \
    "(the in-memory scenarios size the write buffer to hold everything)"
  write_buffer_size=${flag[write-buffer-size]}
fi
write_rate=${flag[write-rate]:-2000000}
[[ -z "${flag[write-rate]:-}" || $scenario == mixed ]] || die "--write-rate applies to --scenario mixed only"
for v in num value_size versions repeat write_buffer_size write_rate; do
  [[ -z ${!v} || ${!v} =~ ^[1-9][0-9]*$ ]] || die "--${v//_/-} must be a positive integer, not '${!v}'"
done
[[ $threads =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || die "--threads must be a list of positive integers, not '$threads'"
[[ -n "$memtables" ]] || die "--memtables is empty"
if [[ $scenario == micro ]]; then
  ((${#extra[@]} == 0)) || die "--scenario micro takes no extra db_bench flags"
  for f in memtables threads versions; do
    [[ -z "${flag[$f]:-}" ]] || die "--$f does not apply to --scenario micro" \
      "(it runs skip_list, teks-s and teks on one thread, one version per key)"
  done
fi
if [[ $scenario == hotkeys ]]; then
  ((${#extra[@]} == 0)) || die "--scenario hotkeys takes no extra db_bench flags (it runs tools/teks_db_bench)"
  for f in threads versions; do
    [[ -z "${flag[$f]:-}" ]] || die "--$f does not apply to --scenario hotkeys" \
      "(one thread; versions per key run from 10 to 100000)"
  done
  for spec in ${memtables//,/ }; do
    [[ $spec == plaindb:* || $spec == teksdb:* ]] || die "--scenario hotkeys runs" \
      "tools/teks_db_bench: name memtables as plaindb:REP or teksdb:REP, not '$spec'"
  done
fi
if [[ $scenario == scale ]]; then
  for f in num threads versions; do
    [[ -z "${flag[$f]:-}" ]] || die "--$f does not apply to --scenario scale" \
      "(--sizes sets the entries; one thread, one version per key)"
  done
  sizes=${flag[sizes]:-250000,1000000,4000000,16000000}
  [[ $sizes =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || die "--sizes must be a list of positive integers, not '$sizes'"
  IFS=, read -r -a scale_sizes <<<"$(tr , '\n' <<<"$sizes" | sort -n | uniq | paste -sd,)"
  num=${scale_sizes[-1]}
  # Restarts at 1M entries by default (at 16M they take ~12 minutes more).
  restart_sizes=${flag[restart-sizes]:-$((num < 1000000 ? num : 1000000))}
  [[ $restart_sizes =~ ^[0-9]+(,[0-9]+)*$ ]] ||
    die "--restart-sizes must be a list of entry counts (0: none), not '$restart_sizes'"
  IFS=, read -r -a scale_restart_sizes <<<"$(tr , '\n' <<<"$restart_sizes" | grep -vx 0 | sort -n | uniq | paste -sd,)"
  for spec in ${memtables//,/ }; do
    [[ $spec != plaindb:* && $spec != teksdb:* ]] || die "--scenario scale runs Debian's db_bench" \
      "(restarts: teks and skip_list through tools/teks_db_bench, always): not '$spec'"
  done
else
  for f in sizes restart-sizes; do
    [[ -z "${flag[$f]:-}" ]] || die "--$f applies to --scenario scale only"
  done
fi
if [[ $scenario == writes || $scenario == mixed ]]; then
  [[ -z "${flag[versions]:-}" ]] || die "--versions does not apply to --scenario $scenario" \
    "(its writers rewrite the keys instead)"
fi
if [[ $scenario == writes ]]; then
  for spec in ${memtables//,/ }; do
    [[ $spec != plaindb:* && $spec != teksdb:* ]] || die "--scenario writes runs Debian's" \
      "db_bench only (tools/teks_db_bench has no fillseq or overwrite): not '$spec'"
  done
fi
[[ -z $(tr , '\n' <<<"$threads" | sort | uniq -d) ]] || die "--threads '$threads' lists a count twice"
[[ -z $(tr , '\n' <<<"$memtables" | sort | uniq -d) ]] || die "--memtables '$memtables' lists a memtable twice"
out=$out/$scenario

# --- Per-memtable settings --------------------------------------------------------
# memtable_settings SPEC: sets `runner` (db_bench or teks_db_bench), `rep`
# (its --memtablerep), `expect` (the factory Name() the run must print as
# "Memtablerep: ...", empty if unknown), `rep_flags` (what that memtable
# needs beyond the common flags) and `bounded` (read benchmarks that run
# with a bounded --reads, see the top of this file).
memtable_settings() {
  local spec=$1
  runner=db_bench rep_flags=() bounded=()
  case $spec in
    teksdb:*) runner=teks_db_bench rep=${spec#teksdb:} rep_flags=(--teksdb_layer=true) ;;
    plaindb:*) runner=teks_db_bench rep=${spec#plaindb:} rep_flags=(--teksdb_layer=false) ;;
    *) rep=$spec ;;
  esac
  case $rep in
    teks|teks-*|*id=teks\;*|*id=teks) expect=TeksTableFactory ;;
    skip_list) expect=SkipListFactory ;;
    skip_list+bloom)
      rep=skip_list expect=SkipListFactory
      rep_flags+=(--memtable_whole_key_filtering=true --memtable_bloom_size_ratio=0.1) ;;
    # The hash memtables need a prefix extractor (8 of the 16 key bytes) and
    # take no concurrent inserts. Scans and range seeks must see all keys,
    # not one prefix, hence total-order iterators.
    prefix_hash|hash_linkedlist)
      [[ $rep == prefix_hash ]] && expect=HashSkipListRepFactory || expect=HashLinkListRepFactory
      rep_flags+=(--prefix_size=8 --allow_concurrent_memtable_write=false --total_order_seek=true)
      bounded=("seekrandom:$hash_seeks") ;;
    vector)
      expect=VectorRepFactory
      rep_flags+=(--allow_concurrent_memtable_write=false)
      bounded=(readrandom:10 seekrandom:10) ;;
    *) expect= ;;
  esac
  if [[ $runner == teks_db_bench && ${#bounded[@]} -gt 0 ]]; then
    die "$spec: tools/teks_db_bench has no prefix or vector settings; run $rep under db_bench"
  fi
}

# Refuse bad specs before building anything.
IFS=, read -r -a specs <<<"$memtables"
if [[ $scenario != micro ]]; then
  for spec in "${specs[@]}"; do
    memtable_settings "$spec"
    if [[ $runner == teks_db_bench && ${#extra[@]} -gt 0 ]]; then
      die "$spec runs tools/teks_db_bench, which extra db_bench flags (${extra[*]}) would not reach"
    fi
  done
fi

# What the scenario runs besides libteksdb.so under db_bench.
targets=(teksdb)
case $scenario in
  micro) targets+=(memtable_bench) ;;
  versions|large|hotkeys|scale) targets+=(teks_db_bench) ;;
  *) [[ ,$memtables, != *,plaindb:* && ,$memtables, != *,teksdb:* ]] || targets+=(teks_db_bench) ;;
esac

# Everything the scenario prints also goes into table.txt.
mkdir -p "$out"
exec > >(tee "$out/table.txt")
tee_pid=$!
tmp=$(mktemp -d "${TMPDIR:-/tmp}/teksdb-bench.XXXXXX")
# On exit: the scratch directory goes, and table.txt is complete.
trap 'rm -rf "$tmp"; exec >&-; wait "$tee_pid"' EXIT

# --- Build (release) and the plotting venv -----------------------------------------
started=$SECONDS
db_bench=${DB_BENCH:-/usr/bin/db_bench}
if [[ -n "$prebuilt" ]]; then
  build=$prebuilt
  [[ -f "$build/CMakeCache.txt" ]] || die "--prebuilt $build is not a CMake build directory"
  grep -q '^TEKSDB_SANITIZE:STRING=$' "$build/CMakeCache.txt" ||
    die "--prebuilt $build is a sanitizer build; benchmarks need a release build"
  for t in "${targets[@]}"; do
    f=tools/$t
    [[ $t == teksdb ]] && f=libteksdb.so
    [[ -e "$build/$f" ]] || die "--prebuilt $build has no $f (cmake --build $build --target ${targets[*]})"
  done
  log "using the build in $build as it is (--prebuilt)"
else
  build=${TEKSDB_BUILD_DIR:-build}
  bash scripts/setup.sh >&2
  generator=()
  [[ -f "$build/CMakeCache.txt" ]] || generator=(-G Ninja)
  log "building ${targets[*]} in $build (RelWithDebInfo)"
  cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTEKSDB_SANITIZE= \
    -DTEKSDB_BUILD_TOOLS=ON >/dev/null
  cmake --build "$build" --target "${targets[@]}" -j "${JOBS:-$(nproc)}" >&2
  log "built in $((SECONDS - started)) s"
fi
lib=$(realpath "$build/libteksdb.so")
teks_db_bench=$(realpath -m "$build/tools/teks_db_bench")

python=python3
if [[ -z "$no_plots" ]]; then
  python=$(bash "$root/scripts/python_venv.sh" "${TEKSDB_PLOT_VENV:-$build/plot-venv}" matplotlib \
    'matplotlib>=3.6') || die "no matplotlib; rerun with --no-plots"
fi

# --- micro: the rep alone ------------------------------------------------------------
if [[ $scenario == micro ]]; then
  log "memtable_bench --keys=$num --value_size=$value_size, $repeat repetition(s)"
  "$build/tools/memtable_bench" --keys="$num" --value_size="$value_size" \
    --benchmark_repetitions="$repeat" --benchmark_min_time=1 \
    --benchmark_out="$tmp/micro.json" --benchmark_out_format=json >&2
  report=("$python" scripts/micro_report.py "$tmp/micro.json")
  [[ -z "$no_plots" ]] && report+=(--plot "$out/micro.png")
  cp "$tmp/micro.json" "$out/runs.json"
  "${report[@]}"
  log "done in $(duration $((SECONDS - started))); results in $out/"
  exit 0
fi

# check_memtablerep STDOUT LABEL: the run of memtable_settings' `rep` must
# have reported the factory it expects ("Memtablerep: ..."), so a fallback to
# the skip list cannot pass for TeksTable.
check_memtablerep() {
  local got
  got=$(sed -n 's/^Memtablerep: //p' "$1")
  if [[ -n "$expect" && "$got" != "$expect" ]]; then
    die "--memtablerep='$rep' ran with '${got:-no Memtablerep line}', not $expect" \
      "(is $lib loaded and registering it?)"
  fi
  [[ -n "$expect" ]] || log "$2: $runner reports Memtablerep: ${got:-?} (not checked)"
}

# --- hotkeys: keys with many versions ----------------------------------------------
if [[ $scenario == hotkeys ]]; then
  IFS=, read -r -a specs <<<"$memtables"
  reads=$((num < 30000 ? num : 30000))
  hot_benchmarks=seekrandom,readseq,readreverse,readatsnapshot
  runs=$tmp/hotkeys.tsv
  : >"$runs"
  counts=()
  for v in 10 100 1000 10000 100000; do ((v > num)) || counts+=("$v"); done
  runs_total=$((repeat * ${#counts[@]} * ${#specs[@]})) runs_done=0 runs_started=$SECONDS
  for ((r = 1; r <= repeat; r++)); do
    for v in "${counts[@]}"; do
      for spec in "${specs[@]}"; do
        memtable_settings "$spec"
        dir=$tmp/hot-$r-$v-${spec//[^A-Za-z0-9_-]/_}
        log "run $((runs_done + 1))/$runs_total ($spec, $v versions/key x $((num / v)) keys," \
          "repeat $r/$repeat) — $(progress "$runs_done" "$runs_total")"
        runs_done=$((runs_done + 1))
        "$teks_db_bench" --db="$dir" --wal_dir="$dir" --memtablerep="$rep" "${rep_flags[@]}" \
          --benchmarks="fillrounds,$hot_benchmarks" --num=$((num / v)) --writes="$num" \
          --reads="$reads" --seek_nexts=1 --key_size=16 --value_size="$value_size" \
          --write_buffer_size=$((4 << 30)) --disable_auto_compactions=true \
          --compression_type=none 2>"$tmp/stderr" </dev/null >"$tmp/stdout" ||
          die "teks_db_bench failed for $spec: $(tail -n 5 "$tmp/stderr")"
        rm -rf "$dir"
        check_memtablerep "$tmp/stdout" "$spec, $v versions/key"
        awk -v v="$v" -v m="$spec" -v r="$r" \
          '$2 == ":" && $4 == "micros/op" { printf "%s\t%s\t%s\t%s\t%s\n", v, m, r, $1, $3 }' \
          "$tmp/stdout" >>"$runs"
      done
    done
  done
  echo "scenario hotkeys: tools/teks_db_bench --benchmarks=fillrounds,$hot_benchmarks" \
    "--writes=$num --num=$num/V --reads=$reads --seek_nexts=1 --key_size=16" \
    "--value_size=$value_size, WAL on, every version in one memtable (plaindb: without" \
    "the TeksDB layer, teksdb: through it), $(nproc) CPUs"
  echo
  report=("$python" scripts/hotkeys_report.py "$runs" --title "scenario hotkeys")
  [[ -z "$no_plots" ]] && report+=(--plot "$out/hotkeys.png")
  cp "$runs" "$out/runs.tsv"
  "${report[@]}"
  log "done in $(duration $((SECONDS - started))); results in $out/"
  exit 0
fi

read_benchmarks=(readrandom readseq seekrandom)
# Where data outgrows the memtable, reads depend on the LSM's shape as much as
# on the memtable: print it (levelstats) as the reads begin, per run.
shape=
((in_memory)) || shape=levelstats,
writes=$((versions * num))
entry_bytes=$((16 + value_size + 64))
max_threads=$(tr , '\n' <<<"$threads" | sort -n | tail -n 1)
if ((in_memory)); then
  # Nothing may be flushed: at least 4 GiB, and twice the raw data.
  write_buffer_size=$((4 << 30))
  need=$((2 * writes * max_threads * entry_bytes))
  ((need > write_buffer_size)) && write_buffer_size=$need
fi
common_flags=(
  --num="$num" --writes="$writes" --key_size=16 --value_size="$value_size" --seek_nexts=10
  --write_buffer_size="$write_buffer_size" --max_write_buffer_number=2
  --disable_auto_compactions="$( ((in_memory)) && echo true || echo false)"
  --compression_type="$compression"
)

warnings=()
IFS=, read -r -a thread_counts <<<"$threads"

# --- scale: sizes, and whether the machine holds them --------------------------------
# Reads per read benchmark at each size; the stock memtables other than the
# skip list run up to others_max entries (their bounded reads take about a
# second each at 1M).
scale_reads=500000
others_max=1000000
gib() { awk -v kb="$1" 'BEGIN { printf "%.1f GiB", kb / 1048576 }'; }
if [[ $scenario == scale ]]; then
  # One memtable of the largest size at a time (a process fills one), about
  # 1.25x its raw entries plus 256 MiB of process; the restarts keep the WAL
  # and two flushed copies on disk.
  avail_kb=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
  largest=$num
  ((${#scale_restart_sizes[@]} == 0 || scale_restart_sizes[-1] <= largest)) || largest=${scale_restart_sizes[-1]}
  need_kb=$((largest * (16 + value_size + 96) * 5 / 4 / 1024 + 262144))
  ((need_kb <= avail_kb)) || die "--sizes, --restart-sizes: $largest entries of $((16 + value_size)) bytes need about" \
    "$(gib "$need_kb") of memory for one memtable, and this machine has $(gib "$avail_kb")" \
    "available (MemAvailable); leave the size out (--sizes) rather than swap or be killed"
  if ((${#scale_restart_sizes[@]} > 0)); then
    disk_kb=$(df --output=avail -k "${TMPDIR:-/tmp}" | tail -n 1)
    need_kb=$((scale_restart_sizes[-1] * (16 + value_size + 32) * 3 / 1024))
    ((need_kb <= disk_kb)) || die "--restart-sizes: ${scale_restart_sizes[-1]} entries need about" \
      "$(gib "$need_kb") of disk in ${TMPDIR:-/tmp} (the WAL and two flushed copies), which has" \
      "$(gib "$disk_kb") free; set TMPDIR, or --restart-sizes 0"
  fi
fi
# scale_section SIZE: the table section of one size.
scale_section() { echo "$1 entries in the memtable"; }

# --- large: the variants, each a table section of its own ----------------------------
# Each variant is a process of its own that fills afresh (fillrandom, memstats,
# levelstats) with --seed=R in repeat R, so every memtable writes the same
# keys, and then:
#   same shape   flush, waitforcompaction, compact (a full CompactRange),
#                waitforcompaction, memstats, levelstats, then the reads: every
#                memtable's LSM ends in the same shape, and the memtables are
#                empty during the reads
#   mixed        readwhilewriting (--threads readers, 1 writer overwriting at full
#                speed); readrandom skewed to a scattered hot set
#                (--read_random_exp_range); readrecent (tools/teks_db_bench,
#                plaindb:REP for a db_bench memtable REP): gets of the last K
#                keys written, K about one write buffer
# The db_bench variants run for db_bench memtables without bounded reads.
main_section=
write_mix=fillrandom,overwrite,readrandomwriterandom
while_writing=readwhilewriting,seekrandomwhilewriting
beside_writer=$while_writing,readrandomwriterandom
limited_section="writes (the fill's and the writer's) limited to $write_rate bytes/s"
if [[ $scenario == large ]]; then
  main_section="reads right after the fill (each memtable's own LSM shape)"
  variant_fill=fillrandom,memstats,levelstats
  reads_list=$(IFS=,; echo "${read_benchmarks[*]}")
  same_shape_benchmarks=$variant_fill,flush,waitforcompaction,compact,waitforcompaction
  same_shape_benchmarks+=,memstats,levelstats,$reads_list
  same_shape_section="same shape: fill, flush, full compaction, then the reads"
  same_shape_section+=" (both memtables empty during the reads)"
  read_while_writing_section="mixed: readwhilewriting, as many readers as threads while 1 writer"
  read_while_writing_section+=" overwrites at full speed, right after the fill"
  hot_range=10
  hot_set_section="mixed: readrandom skewed to a scattered hot set"
  hot_set_section+=" (--read_random_exp_range=$hot_range), right after the fill"
  recent_keys=$((write_buffer_size / (16 + value_size)))
  recent_section="mixed: readrecent, gets of the last $recent_keys keys written (about one write"
  recent_section+=" buffer), right after the fill (tools/teks_db_bench, no TeksDB layer)"
  recent_specs=() variants_skipped=()
  for spec in "${specs[@]}"; do
    memtable_settings "$spec"
    if [[ $runner != db_bench || ${#bounded[@]} -gt 0 ]]; then variants_skipped+=("$spec"); fi
    ((${#bounded[@]} == 0)) || continue
    recent_spec=$spec
    [[ $runner == teks_db_bench ]] || recent_spec=plaindb:$rep
    [[ " ${recent_specs[*]} " == *" $recent_spec "* ]] || recent_specs+=("$recent_spec")
  done
  if ((${#extra[@]} > 0)); then
    warnings+=("NOTE: the readrecent rows ran tools/teks_db_bench, which the extra db_bench flags\
 (${extra[*]}) did not reach")
  fi
fi

# split_reads: sets `unbounded` (the read benchmarks memtable_settings did
# not bound, comma-separated) and `limited` (BENCHMARK:READS for those it did).
split_reads() {
  local b entry limit full=()
  limited=()
  for b in "${read_benchmarks[@]}"; do
    limit=
    for entry in "${bounded[@]}"; do [[ ${entry%%:*} == "$b" ]] && limit=${entry#*:}; done
    if [[ -n "$limit" ]]; then limited+=("$b:$limit"); else full+=("$b"); fi
  done
  unbounded=$(IFS=,; echo "${full[*]}")
}

# each_run CALLBACK: calls CALLBACK with run_once's arguments for every
# process, in the order they run: per repeat and thread count, each memtable's
# main process (and its bounded reads), then in the large scenario its
# variants; then the readrecent processes.
each_run() {
  local callback=$1 r t spec entry limited unbounded
  for ((r = 1; r <= repeat; r++)); do
    for t in "${thread_counts[@]}"; do
      if [[ $scenario == scale ]]; then
        each_scale_run "$callback" "$t" "$r"
        continue
      fi
      for spec in "${specs[@]}"; do
        memtable_settings "$spec"
        if [[ $scenario == writes ]]; then
          "$callback" "$spec" "$t" "$r" fillseq "" fillseq fillseq all
          "$callback" "$spec" "$t" "$r" mixed "" "$write_mix" "$write_mix" all --readwritepercent=50
          continue
        fi
        if [[ $scenario == mixed ]]; then
          "$callback" "$spec" "$t" "$r" full "" "fillrandom,$beside_writer" "$beside_writer" all \
            --seed="$r" --disable_wal=1 --readwritepercent=50
          "$callback" "$spec" "$t" "$r" limited "$limited_section" "fillrandom,$while_writing" \
            "$while_writing" all --seed="$r" --disable_wal=1 --benchmark_write_rate_limit="$write_rate"
          continue
        fi
        split_reads
        "$callback" "$spec" "$t" "$r" full "$main_section" "fillrandom,memstats,$shape$unbounded" \
          "fillrandom,$unbounded" all
        for entry in "${limited[@]}"; do
          "$callback" "$spec" "$t" "$r" "${entry%%:*}" "$main_section" \
            "fillrandom,memstats,$shape${entry%%:*}" "${entry%%:*}" "${entry#*:}"
        done
        [[ $scenario == large && $runner == db_bench && ${#bounded[@]} -eq 0 ]] || continue
        "$callback" "$spec" "$t" "$r" same-shape "$same_shape_section" "$same_shape_benchmarks" \
          "$reads_list" all --seed="$r"
        "$callback" "$spec" "$t" "$r" read-while-writing "$read_while_writing_section" \
          "$variant_fill,readwhilewriting" readwhilewriting all --seed="$r"
        "$callback" "$spec" "$t" "$r" hot-set "$hot_set_section" "$variant_fill,readrandom" \
          readrandom all --seed="$r" --read_random_exp_range="$hot_range"
      done
      [[ $scenario == large ]] || continue
      for spec in "${recent_specs[@]}"; do
        "$callback" "$spec" "$t" "$r" recent "$recent_section" "$variant_fill,readrecent" \
          readrecent all --seed="$r" --recent_keys="$recent_keys"
      done
    done
  done
}

# bloom_ratio SIZE: the memtable bloom filter's share of the write buffer
# that gives SIZE keys 10 bits each (RocksDB sizes the filter by the buffer,
# and the scale scenario's buffer holds the largest size).
bloom_ratio() { awk -v n="$1" -v b="$write_buffer_size" 'BEGIN { printf "%.6f", n * 10 / 8 / b }'; }

# each_scale_run CALLBACK THREADS REPEAT: the scale scenario's processes of
# one repeat, size by size: each memtable's fill and reads at that size (and
# its bounded reads), in the section of that size.
each_scale_run() {
  local callback=$1 t=$2 r=$3 size spec entry limited unbounded reads bloom
  for size in "${scale_sizes[@]}"; do
    reads=$((size < scale_reads ? size : scale_reads))
    for spec in "${specs[@]}"; do
      memtable_settings "$spec"
      ((${#bounded[@]} == 0 || size <= others_max)) || continue
      split_reads
      bloom=()
      [[ $spec != skip_list+bloom ]] || bloom=(--memtable_bloom_size_ratio="$(bloom_ratio "$size")")
      "$callback" "$spec" "$t" "$r" "$size entries" "$(scale_section "$size")" \
        "fillrandom,memstats${unbounded:+,$unbounded}" "fillrandom${unbounded:+,$unbounded}" all \
        --num="$size" --writes="$size" --reads="$reads" "${bloom[@]}"
      for entry in "${limited[@]}"; do
        "$callback" "$spec" "$t" "$r" "$size entries, ${entry%%:*}" "$(scale_section "$size")" \
          "fillrandom,memstats,${entry%%:*}" "${entry%%:*}" "${entry#*:}" --num="$size" --writes="$size"
      done
    done
  done
}

runs=$tmp/runs.tsv
: >"$runs"
: >"$tmp/flush_entries.tsv"
# run_work THREADS BENCHMARKS [FLAGS...]: a process's share of the work, for
# the time left: its thread count times the benchmarks it runs (statistics
# aside), times its thousands of keys where FLAGS set --num (scale).
run_work() {
  local work=$(($1 * $(tr , '\n' <<<"$2" | grep -cv -e memstats -e levelstats))) f
  shift 2
  for f in "$@"; do [[ $f != --num=* ]] || work=$((work * (${f#--num=} / 1000 + 1))); done
  echo "$work"
}
runs_total=0 work_total=0
count_run() {
  runs_total=$((runs_total + 1)) work_total=$((work_total + $(run_work "$2" "$6" "${@:9}")))
}
each_run count_run
runs_done=0 work_done=0

log "scenario $scenario: ${common_flags[*]} ${extra[*]}"
log "memtables: $memtables; threads: $threads; repeats: $repeat; $runs_total processes"

# run_once SPEC THREADS REPEAT GROUP SECTION BENCHMARKS COUNTED READS [FLAGS...]:
# one process in a fresh DB running BENCHMARKS (comma-separated) with the
# common flags and FLAGS, READS reads per thread (all: --num, else bounded);
# appends to $runs which benchmarks of its log count (COUNTED) and in which
# table section (SECTION; empty: the main table). Peak RSS counts where the
# fill does.
run_once() {
  local spec=$1 t=$2 r=$3 group=$4 section=$5 benchmarks=$6 counted=$7 reads=$8
  shift 8
  memtable_settings "$spec"
  runs_done=$((runs_done + 1))
  local label="$spec, $t thread$( ((t == 1)) || echo s)" dir cmd rc flushes
  [[ $group == full ]] || label+=", $group"
  [[ $reads == all ]] || label+=" (bounded: $reads ops/thread)"
  ((repeat == 1)) || label+=", repeat $r/$repeat"
  dir=$tmp/$r-$t-${spec//[^A-Za-z0-9_-]/_}-${group// /_}
  mkdir -p "$dir"
  if [[ $runner == db_bench ]]; then
    cmd=(env LD_PRELOAD="$lib" stdbuf -oL "$db_bench")
  else
    cmd=(stdbuf -oL "$teks_db_bench")
  fi
  cmd+=(--db="$dir/db" --wal_dir="$dir/db" --memtablerep="$rep" --threads="$t"
        --benchmarks="$benchmarks" "${common_flags[@]}" "${rep_flags[@]}" "$@")
  [[ $reads == all ]] || cmd+=(--reads="$reads")
  [[ $runner == db_bench ]] && cmd+=("${extra[@]}")
  log "run $runs_done/$runs_total ($label) — $(progress "$work_done" "$work_total")"
  log "  $runner --memtablerep='$rep' --threads=$t --benchmarks=$benchmarks ${rep_flags[*]} $*" \
    "$([[ $reads == all ]] || echo "--reads=$reads")"
  work_done=$((work_done + $(run_work "$t" "$benchmarks" "$@")))
  set +e
  /usr/bin/time -f %M -o "$dir/rss" "${cmd[@]}" 2>"$dir/stderr" </dev/null |
    tee "$dir/stdout" | while IFS= read -r line; do
      case $line in *" micros/op "*) log "$label:   $line" ;; esac
    done
  rc=${PIPESTATUS[0]}
  set -e
  if ((rc != 0)); then
    tail -n 20 "$dir/stdout" >&2
    { tr '\r' '\n' <"$dir/stderr" | grep -v -e '^\.\.\. finished' -e '^ *$' || true; } | tail -n 20 >&2
    die "$runner failed (exit $rc) for --memtablerep='$rep'"
  fi
  check_memtablerep "$dir/stdout" "$label"
  flushes=$(grep -o '"flush_reason": "[^"]*"' "$dir/db/LOG" | grep -vc '"Shut down"' || true)
  if [[ $scenario == writes ]]; then
    # Entries per flush of a full write buffer: how much one buffer holds.
    { grep -o '"event": "flush_started".*"flush_reason": "Write Buffer Full"' "$dir/db/LOG" || true; } |
      sed -n 's/.*"num_entries": \([0-9]*\).*/\1/p' |
      awk -v s="$spec" -v t="$t" -v g="$group" \
        '{ n++; sum += $1 } END { if (n) printf "%s\t%s\t%s\t%d\t%d\n", s, t, g, n, sum / n }' \
        >>"$tmp/flush_entries.tsv"
  fi
  if ((in_memory && flushes > 0)); then
    warnings+=("WARNING: $label: $flushes memtable flush(es); reads were not all served from the memtable")
    log "${warnings[-1]}"
  fi
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$spec" "$t" "$r" "$dir/stdout" \
    "$([[ ,$counted, == *,fillrandom,* ]] && tail -n 1 "$dir/rss" || echo -)" "$counted" \
    "$([[ $reads == all ]] || echo "$reads")" "$section" >>"$runs"
  rm -rf "$dir/db"
}

runs_started=$SECONDS
each_run run_once

echo
if [[ $scenario == writes ]]; then
  echo "scenario writes: db_bench fillseq, and db_bench $write_mix --readwritepercent=50," \
    "each in a fresh DB: ${common_flags[*]} ${extra[*]}"
elif [[ $scenario == mixed ]]; then
  echo "scenario mixed: db_bench (teksdb: tools/teks_db_bench) fillrandom,$beside_writer" \
    "--readwritepercent=50 --disable_wal=1 --seed=R (repeat R), in a fresh DB: ${common_flags[*]} ${extra[*]}"
elif [[ $scenario == scale ]]; then
  echo "scenario scale: db_bench fillrandom,readrandom,readseq,seekrandom, for SIZE in ${scale_sizes[*]}:" \
    "--num=SIZE --writes=SIZE --reads=min(SIZE, $scale_reads) ${common_flags[*]:2} ${extra[*]}"
  echo "  hash_linkedlist, prefix_hash, vector up to $others_max entries; skip_list+bloom:" \
    "--memtable_whole_key_filtering=true --memtable_bloom_size_ratio=SIZE*10/8/write_buffer_size" \
    "(10 bits per key)"
else
  echo "scenario $scenario: db_bench fillrandom,readrandom,readseq,seekrandom ${common_flags[*]} ${extra[*]}"
fi
if [[ $scenario == large ]]; then
  echo "variants, each in a fresh DB with --seed=R in repeat R (same keys for every memtable):"
  echo "  same shape: db_bench --benchmarks=$same_shape_benchmarks"
  echo "  mixed: db_bench --benchmarks=$variant_fill,readwhilewriting"
  echo "         db_bench --benchmarks=$variant_fill,readrandom --read_random_exp_range=$hot_range"
  echo "         tools/teks_db_bench --teksdb_layer=false --benchmarks=$variant_fill,readrecent" \
    "--recent_keys=$recent_keys"
  ((${#variants_skipped[@]} == 0)) || echo "  (the db_bench variants did not run for" \
    "${variants_skipped[*]}: a teks_db_bench memtable, or one with bounded reads)"
fi
echo "$(grep -h -m1 '^RocksDB:' "$tmp"/*/std* | head -n 1 | tr -s ' '), $(nproc) CPUs" \
  "($(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)), LD_PRELOAD=${lib#"$root"/}"
echo

# --- scale: restarts --------------------------------------------------------------
# restart_once SPEC SIZE REPEAT: tools/teks_db_bench fills SIZE entries with
# the WAL on and kills itself (SIGKILL); two hard-linked copies of what it
# left are reopened, one as RocksDB does by default (replay, then the flush
# of what the replay rebuilt), one keeping the replayed memtable and then
# flushing it alone. Appends the seconds of each to $restarts.
restarts=$tmp/restarts.tsv
: >"$restarts"
restart_once() {
  local spec=$1 size=$2 r=$3 dir flags rc reopen replay flush entries buffer
  memtable_settings "$spec"
  # One write buffer holds the whole fill, as in the runs above.
  buffer=$((2 * size * entry_bytes > write_buffer_size ? 2 * size * entry_bytes : write_buffer_size))
  dir=$tmp/restart-$r-$size-${spec//[^A-Za-z0-9_-]/_}
  mkdir -p "$dir"
  flags=(--memtablerep="$rep" "${rep_flags[@]}" --num="$size" --writes="$size" --key_size=16
         --value_size="$value_size" --write_buffer_size="$buffer" --max_write_buffer_number=2 --disable_auto_compactions=true --compression_type=none)
  log "restart ($spec, $size entries, repeat $r/$repeat): fill with the WAL on, then SIGKILL" \
    "— $(duration $((SECONDS - started))) elapsed"
  set +e
  "$teks_db_bench" --db="$dir/db" "${flags[@]}" --benchmarks=fillrandom,crash \
    >"$dir/fill" 2>"$dir/stderr" </dev/null
  rc=$?
  set -e
  grep -q '^crash: SIGKILL' "$dir/fill" && ((rc == 137)) ||
    die "teks_db_bench's fill for the restart of $spec did not end in its kill (exit $rc):" \
      "$(tail -n 5 "$dir/stderr")"
  cp -al "$dir/db" "$dir/parts"
  log "  reopen as RocksDB does by default (the WAL's replay, then a flush)"
  "$teks_db_bench" --db="$dir/db" --use_existing_db "${flags[@]}" --benchmarks=memstats \
    >"$dir/reopen" 2>"$dir/stderr" </dev/null || die "reopen of $spec failed: $(tail -n 5 "$dir/stderr")"
  log "  reopen keeping the replayed memtable (--avoid_flush_during_recovery), then a flush"
  "$teks_db_bench" --db="$dir/parts" --use_existing_db --avoid_flush_during_recovery "${flags[@]}" \
    --benchmarks=memstats,flush >"$dir/parts.out" 2>"$dir/stderr" </dev/null ||
    die "reopen of $spec without the recovery flush failed: $(tail -n 5 "$dir/stderr")"
  reopen=$(sed -n 's/^Open: *\([0-9.]*\) seconds$/\1/p' "$dir/reopen")
  replay=$(sed -n 's/^Open: *\([0-9.]*\) seconds$/\1/p' "$dir/parts.out")
  flush=$(sed -n 's/^flush *: *[0-9.]* micros\/op [0-9]* ops\/sec \([0-9.]*\) seconds.*/\1/p' "$dir/parts.out")
  entries=$(sed -n 's/^rocksdb\.num-entries-active-mem-table: //p' "$dir/parts.out" | head -n 1)
  [[ -n $reopen && -n $replay && -n $flush ]] || die "no open or flush time in $dir: see teks_db_bench's output"
  # Every acknowledged write of the fill comes back from the WAL.
  [[ $entries == "$size" ]] || die "$spec: the replay rebuilt $entries entries, the fill wrote $size"
  log "  $spec, $size entries: reopen ${reopen}s (replay ${replay}s, flush ${flush}s)"
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$spec" "$size" "$r" "$reopen" "$replay" "$flush" >>"$restarts"
  rm -rf "$dir"
}
if [[ $scenario == scale ]]; then
  for ((r = 1; r <= repeat; r++)); do
    for size in "${scale_restart_sizes[@]}"; do
      for spec in plaindb:teks plaindb:skip_list; do restart_once "$spec" "$size" "$r"; done
    done
  done
fi

report=("$python" scripts/bench_report.py "$runs" --title "scenario $scenario" --out "$out/runs.tsv")
[[ $scenario == writes ]] && report+=(--flush-entries "$tmp/flush_entries.tsv")
summary=
if [[ $scenario == quick || $scenario == memtable ]]; then
  summary=$out/summary.txt
  report+=(--summary "$summary")
  [[ -n "$no_plots" ]] || report+=(--headline "$out/headline.png")
fi
if [[ -z "$no_plots" && $scenario != scale ]]; then
  report+=(--plot "$out/$scenario.png")
  [[ $scenario == large || $scenario == mixed ]] && report+=(--plot-sections "$out/$scenario-variants.png")
fi
"${report[@]}"
((${#warnings[@]} == 0)) || printf '%s\n' "" "${warnings[@]}"
if [[ $scenario == scale ]]; then
  summary=$out/summary.txt
  cp "$restarts" "$out/restarts.tsv"
  echo
  echo "restarts: tools/teks_db_bench --teksdb_layer=false --benchmarks=fillrandom,crash (the WAL on," \
    "then SIGKILL), reopened with --use_existing_db, and with --avoid_flush_during_recovery" \
    "--benchmarks=flush for the parts; the keys and values above"
  report=("$python" scripts/scale_report.py "$out/runs.tsv" --restarts "$restarts" --summary "$summary")
  [[ -n "$no_plots" ]] || report+=(--plot "$out/scale.png")
  "${report[@]}"
fi

# --- versions: the hot key under a held snapshot ------------------------------------
# hot_key_row SPEC N: micros per update of N updates of one key.
hot_key_row() {
  memtable_settings "$1"
  local dir=$tmp/hotkey-$2-${1//[^A-Za-z0-9_-]/_}
  mkdir -p "$dir"
  "$teks_db_bench" --db="$dir/db" --wal_dir="$dir/db" --memtablerep="$rep" "${rep_flags[@]}" \
    --benchmarks=hotkeysnapshot --writes="$2" --num=1 --key_size=16 \
    --value_size="$value_size" --write_buffer_size=$((4 << 30)) \
    --disable_auto_compactions=true --compression_type=none 2>/dev/null </dev/null |
    sed -n 's/^hotkeysnapshot *: *\([0-9.]*\) micros\/op.*/\1/p'
  rm -rf "$dir"
}
if [[ $scenario == versions ]]; then
  echo
  echo "hot key: N updates of one key (--value-size $value_size) while a snapshot taken" \
    "before them is held; micros/update, medians over $repeat run(s)"
  printf '%-10s %18s %20s %8s\n' updates teksdb:teks plaindb:skip_list ratio
  for n in 10000 100000 1000000; do
    teks=() skip=()
    for ((r = 1; r <= repeat; r++)); do
      log "hot key: $n updates under a held snapshot, repeat $r/$repeat" \
        "— $(duration $((SECONDS - started))) elapsed"
      teks+=("$(hot_key_row teksdb:teks "$n")")
      skip+=("$(hot_key_row plaindb:skip_list "$n")")
    done
    t=$(printf '%s\n' "${teks[@]}" | sort -g | sed -n "$(((repeat + 1) / 2))p")
    k=$(printf '%s\n' "${skip[@]}" | sort -g | sed -n "$(((repeat + 1) / 2))p")
    printf '%-10s %18s %20s %8s\n' "$n" "$t" "$k" "$(awk -v a="$t" -v b="$k" 'BEGIN { printf "%.2f", a / b }')"
  done
fi
log "done in $(duration $((SECONDS - started))) (build and runs); results in $out/"
# Last, the lines to quote.
[[ -z "$summary" ]] || { echo; cat "$summary"; }
