#!/usr/bin/env bash
# Side-by-side db_bench comparison of TeksTable and RocksDB's memtables.
#
# Installs what is missing (scripts/setup.sh), builds libteksdb.so (release),
# then runs Debian's stock /usr/bin/db_bench once per memtable (and repeat),
# each with LD_PRELOAD=libteksdb.so and otherwise identical settings, in a
# fresh DB under a temp dir. One db_bench process runs all benchmarks, so
# the reads see the memtable the fill built; the write buffer is sized so
# that nothing is flushed, which the script checks. Prints a table (median
# over repeats): us/op, ops/s, ratio of ops/s to skip_list, peak RSS.
#
# Usage: scripts/bench.sh [options] [-- extra db_bench flags]
#   --num N           keys written by fillrandom, reads per read benchmark (1000000)
#   --value-size N    value bytes (256); keys are 16 bytes
#   --threads N       db_bench threads (1)
#   --memtables LIST  comma-separated --memtablerep values (teks,skip_list);
#                     any registered name or option string works, e.g.
#                     'id=teks;shortcut=false', prefix_hash, hash_linkedlist, vector
#   --repeat N        runs per memtable, interleaved; the table shows medians (1)
#   --out FILE        also write the raw per-run results (TSV)
# Environment: TEKSDB_BUILD_DIR (build), DB_BENCH (/usr/bin/db_bench),
#   TMPDIR, JOBS (build parallelism, nproc).
set -euo pipefail

num=1000000
value_size=256
threads=1
memtables=teks,skip_list
repeat=1
out=
extra=()
benchmarks=fillrandom,readrandom,readseq,seekrandom

usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }
die() { echo "bench.sh: $*" >&2; exit 1; }
while (($#)); do
  case $1 in
    --num) num=${2:?}; shift 2 ;;
    --value-size) value_size=${2:?}; shift 2 ;;
    --threads) threads=${2:?}; shift 2 ;;
    --memtables) memtables=${2:?}; shift 2 ;;
    --repeat) repeat=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    --num=*|--value-size=*|--threads=*|--memtables=*|--repeat=*|--out=*)
      set -- "${1%%=*}" "${1#*=}" "${@:2}" ;;
    --) shift; extra=("$@"); break ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument: $1" ;;
  esac
done
for v in num value_size threads repeat; do
  [[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "--${v/_/-} must be a positive integer, not '${!v}'"
done
[[ -n "$out" ]] && out=$(realpath -m "$out")

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
build=${TEKSDB_BUILD_DIR:-build}
db_bench=${DB_BENCH:-/usr/bin/db_bench}
log() { echo "[bench] $*" >&2; }

bash scripts/setup.sh >&2

# --- Build (release) -------------------------------------------------------------
started=$SECONDS
generator=()
[[ -f "$build/CMakeCache.txt" ]] || generator=(-G Ninja)
log "building $build/libteksdb.so (RelWithDebInfo)"
cmake -S . -B "$build" "${generator[@]}" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTEKSDB_SANITIZE= >/dev/null
cmake --build "$build" --target teksdb -j "${JOBS:-$(nproc)}" >&2
lib=$(realpath "$build/libteksdb.so")
log "built in $((SECONDS - started)) s: $lib"

# --- Per-memtable settings --------------------------------------------------------
# memtable_settings REP: sets `expect` (the factory Name() db_bench must print
# as "Memtablerep: ...", empty if unknown) and `rep_flags` (what that
# memtable needs beyond the common flags).
memtable_settings() {
  rep_flags=()
  case $1 in
    teks|teks-*|*id=teks\;*|*id=teks) expect=TeksTableFactory ;;
    skip_list) expect=SkipListFactory ;;
    # The hash memtables need a prefix extractor (8 of the 16 key bytes) and
    # take no concurrent inserts; their seeks stay within the seek key's
    # prefix, and total-order scans (readseq) are slow by design.
    prefix_hash)
      expect=HashSkipListRepFactory
      rep_flags=(--prefix_size=8 --allow_concurrent_memtable_write=false) ;;
    hash_linkedlist)
      expect=HashLinkListRepFactory
      rep_flags=(--prefix_size=8 --allow_concurrent_memtable_write=false) ;;
    vector)  # no concurrent inserts; reads sort a copy (slow on big memtables)
      expect=VectorRepFactory
      rep_flags=(--allow_concurrent_memtable_write=false) ;;
    *) expect= ;;
  esac
}

# Large enough that nothing is flushed: at least 4 GiB, and twice the raw
# data (each thread writes --num keys).
entry_bytes=$((16 + value_size + 64))
write_buffer=$((4 << 30))
((2 * num * threads * entry_bytes > write_buffer)) && write_buffer=$((2 * num * threads * entry_bytes))
common_flags=(
  --benchmarks="$benchmarks" --num="$num" --key_size=16 --value_size="$value_size"
  --threads="$threads" --seek_nexts=10
  --write_buffer_size="$write_buffer" --max_write_buffer_number=2
  --disable_auto_compactions --compression_type=none --statistics=0 --histogram=0
)

tmp=$(mktemp -d "${TMPDIR:-/tmp}/teksdb-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
runs=$tmp/runs.tsv
: >"$runs"
warnings=()
IFS=, read -r -a reps <<<"$memtables"
IFS=, read -r -a bench_list <<<"$benchmarks"
((${#reps[@]})) || die "--memtables is empty"

log "db_bench: $db_bench, LD_PRELOAD=$lib"
log "common flags: ${common_flags[*]} ${extra[*]}"

# progress LABEL: echoes db_bench's stdout to stderr as a benchmark starts
# ("DB path:" comes before each one) and ends (its result line).
progress() {
  local label=$1 i=0 line
  while IFS= read -r line; do
    case $line in
      "DB path:"*) log "$label: ${bench_list[i]:-next benchmark} ..."; i=$((i + 1)) ;;
      *" micros/op "*) log "$label:   $line" ;;
    esac
  done
}

for ((r = 1; r <= repeat; r++)); do
  for i in "${!reps[@]}"; do
    rep=${reps[i]}
    memtable_settings "$rep"
    label="$rep (run $r/$repeat)"
    dir=$tmp/$r-$i-${rep//[^A-Za-z0-9_-]/_}
    mkdir -p "$dir"
    log "$label: db_bench --memtablerep='$rep' ${rep_flags[*]}"
    set +e
    /usr/bin/time -f %M -o "$dir/rss" \
      env LD_PRELOAD="$lib" stdbuf -oL "$db_bench" --db="$dir/db" --wal_dir="$dir/db" \
      --memtablerep="$rep" "${common_flags[@]}" "${rep_flags[@]}" "${extra[@]}" \
      2>"$dir/stderr" </dev/null | tee "$dir/stdout" | progress "$label"
    rc=${PIPESTATUS[0]}
    set -e
    if ((rc != 0)); then
      tail -n 20 "$dir/stdout" >&2
      tr '\r' '\n' <"$dir/stderr" | grep -v -e '^\.\.\. finished' -e '^ *$' | tail -n 20 >&2
      die "db_bench failed (exit $rc) for --memtablerep='$rep'"
    fi
    got=$(sed -n 's/^Memtablerep: //p' "$dir/stdout")
    if [[ -n "$expect" && "$got" != "$expect" ]]; then
      die "--memtablerep='$rep' ran with '${got:-no Memtablerep line}', not $expect" \
        "(is $lib loaded and registering it?)"
    fi
    [[ -n "$expect" ]] || log "$label: db_bench reports Memtablerep: ${got:-?} (not checked)"
    flushes=$(grep -o '"flush_reason": "[^"]*"' "$dir/db/LOG" | grep -vc '"Shut down"' || true)
    if ((flushes > 0)); then
      warnings+=("WARNING: $label: $flushes memtable flush(es) during the run; reads were not all served from the memtable (raise --write_buffer_size)")
      log "${warnings[-1]}"
    fi
    printf '%s\t%s\t%s\t%s\n' "$rep" "$r" "$dir/stdout" "$(tail -n 1 "$dir/rss")" >>"$runs"
    rm -rf "$dir/db"
  done
done

echo
echo "db_bench $benchmarks: --num=$num --key_size=16 --value_size=$value_size --threads=$threads" \
  "--seek_nexts=10 --write_buffer_size=$write_buffer ${extra[*]}"
echo "$(grep -h -m1 '^RocksDB:' "$tmp"/1-0-*/std* | tr -s ' '), $(nproc) CPUs ($(grep -h -m1 '^CPU:' "$tmp"/1-0-*/std* | tr -s ' ')), LD_PRELOAD=$lib"
echo
report=(python3 scripts/bench_report.py "$runs" --benchmarks "$benchmarks")
[[ -n "$out" ]] && report+=(--out "$out")
"${report[@]}"
((${#warnings[@]} == 0)) || printf '%s\n' "" "${warnings[@]}"
[[ -n "$out" ]] && log "raw results: $out"
log "done in $((SECONDS - started)) s (build and runs)"
