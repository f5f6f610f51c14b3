#!/usr/bin/env bash
# TeksTable inside a RocksDB built by scripts/build_rocksdb.sh: that
# RocksDB's own db_bench, no LD_PRELOAD, the whole data set in the memtable
# (16-byte keys, 100-byte values, one write buffer big enough, no flush),
# one thread, for three memtables in the same run:
#   teks                 TeksTable (built into librocksdb as plugin "teks")
#   skip_list            RocksDB's default
#   skip_list+bloom      the skip list with the whole-key memtable bloom
#                        filter (memtable_whole_key_filtering,
#                        memtable_prefix_bloom_size_ratio=0.1): the best a
#                        stock memtable does for point reads
# and for each: fillrandom, readrandom, seekrandom (no Next), and
# multireadrandom with batches of 32 and 64, with RocksDB's batched memtable
# lookup on (memtable_batch_lookup_optimization, 11.1 and later: the rep's
# MultiGet) and, for 32, off. Every process fills its own DB first.
#
# Prints each db_bench line as it comes, then a table of medians over the
# repeats: us/op per benchmark and memtable (multireadrandom: per key), the
# ratios teks/skip_list and teks/skip_list+bloom (> 1: TeksTable faster),
# and TeksTable's multireadrandom against its own readrandom. Results go to
# build/bench/rocksdb-VERSION/ (--out DIR: DIR/rocksdb-VERSION/): table.txt
# and runs.tsv.
#
# Usage: scripts/bench_rocksdb.sh [--num N] [--reads N] [--repeat K] [--out DIR] PREFIX
#   PREFIX     what scripts/build_rocksdb.sh built (PREFIX/bin/db_bench); for
#              Debian's RocksDB: LD_PRELOAD=$PWD/build/libteksdb.so
#              scripts/bench_rocksdb.sh /usr
#   --num      keys (default 1000000)
#   --reads    reads per read benchmark (default: --num)
#   --repeat   runs of everything (default 1; medians reported)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
usage() { sed -n '2,/^set -euo/p' "$0" | sed -n 's/^# \{0,1\}//p'; exit "${1:-0}"; }
die() { echo "bench_rocksdb: $*" >&2; exit 2; }
log() { echo "[bench_rocksdb] $*" >&2; }

num=1000000 reads= repeat=1 out=$root/build/bench prefix=
while (($#)); do
  case $1 in
    --num) num=${2:?}; shift 2 ;;
    --reads) reads=${2:?}; shift 2 ;;
    --repeat) repeat=${2:?}; shift 2 ;;
    --out) out=${2:?}; shift 2 ;;
    -h|--help) usage ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *) [[ -z $prefix ]] || die "one PREFIX only"; prefix=$1; shift ;;
  esac
done
[[ -n $prefix ]] || usage 2
reads=${reads:-$num}
for v in num reads repeat; do
  [[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "--$v must be a positive integer, not '${!v}'"
done
db_bench=$prefix/bin/db_bench
[[ -x $db_bench ]] || die "no $db_bench: build it with scripts/build_rocksdb.sh SRC $prefix"
# A prefix of build_rocksdb.sh names its release; another db_bench (Debian's,
# PREFIX /usr, with LD_PRELOAD=build/libteksdb.so) says it itself.
version=$(cat "$prefix/ROCKSDB_VERSION" 2>/dev/null ||
  "$db_bench" --version 2>/dev/null | sed -n 's/^db_bench version \([0-9.]*\)$/\1/p')
version=${version:-unknown}
major=${version%%.*} rest=${version#*.}
minor=${rest%%.*}
batched_lookup=0
[[ $major =~ ^[0-9]+$ && $minor =~ ^[0-9]+$ ]] && ((major > 11 || (major == 11 && minor >= 1))) &&
  batched_lookup=1

# Memory: about 250 bytes per key per memtable (entry, index, arena slack);
# refuse rather than swap.
need_kib=$((num * 250 / 1024 * 2))
avail_kib=$(sed -n 's/^MemAvailable: *\([0-9]*\) kB/\1/p' /proc/meminfo)
((need_kib < avail_kib)) || die "--num $num needs about $((need_kib >> 10)) MiB free; $((avail_kib >> 10)) MiB available"

out=$out/rocksdb-$version
mkdir -p "$out"
exec > >(tee "$out/table.txt")
tmp=$(mktemp -d "${TMPDIR:-/tmp}/teksdb-bench-rocksdb.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
runs=$out/runs.tsv
printf 'repeat\tmemtable\tbenchmark\tus_per_op\n' >"$runs"

wbs=$((num * 400 + (64 << 20)))
common=(--num="$num" --reads="$reads" --key_size=16 --value_size=100 --threads=1
        --write_buffer_size="$wbs" --max_write_buffer_number=2 --compression_type=none
        --disable_auto_compactions=true --seek_nexts=0 --histogram=false)
memtables=(teks skip_list skip_list+bloom)
flags_of() {
  case $1 in
    teks) echo --memtablerep=teks ;;
    skip_list) echo --memtablerep=skip_list ;;
    skip_list+bloom) echo --memtablerep=skip_list --memtable_whole_key_filtering=true \
      --memtable_bloom_size_ratio=0.1 ;;
  esac
}
# name|benchmarks|flags: one process each.
groups=("reads|fillrandom,readrandom,seekrandom|")
if ((batched_lookup)); then
  groups+=("multiget32|fillrandom,multireadrandom|--batch_size=32 --memtable_batch_lookup_optimization=true"
           "multiget64|fillrandom,multireadrandom|--batch_size=64 --memtable_batch_lookup_optimization=true"
           "multiget32-unbatched|fillrandom,multireadrandom|--batch_size=32")
else
  groups+=("multiget32-unbatched|fillrandom,multireadrandom|--batch_size=32"
           "multiget64-unbatched|fillrandom,multireadrandom|--batch_size=64")
fi

total=$((repeat * ${#memtables[@]} * ${#groups[@]}))
n=0 started=$SECONDS
log "RocksDB $version ($db_bench), --num $num, --reads $reads, $total processes"
for ((r = 1; r <= repeat; r++)); do
  for m in "${memtables[@]}"; do
    for g in "${groups[@]}"; do
      IFS='|' read -r gname benchmarks gflags <<<"$g"
      n=$((n + 1))
      elapsed=$((SECONDS - started))
      left=$((n > 1 ? elapsed * (total - n + 1) / (n - 1) : 0))
      log "run $n/$total ($m, $gname, repeat $r) — ${elapsed}s elapsed, ~${left}s left"
      dir=$tmp/$r-$n
      # shellcheck disable=SC2046  # the flags split on purpose
      "$db_bench" --db="$dir" --benchmarks="$benchmarks" "${common[@]}" $(flags_of "$m") $gflags \
        >"$tmp/out" 2>&1 || { tail -n 20 "$tmp/out" >&2; die "db_bench failed: $m, $gname"; }
      grep -q "^Memtablerep: $([[ $m == teks ]] && echo TeksTableFactory || echo SkipListFactory)" \
        "$tmp/out" || die "$m, $gname: db_bench did not use the memtable asked for"
      if grep -q '"flush_reason"' "$dir/LOG" 2>/dev/null &&
        grep '"flush_reason"' "$dir/LOG" | grep -vq 'Shut down'; then
        die "$m, $gname: a memtable flush ran; the data set did not stay in memory"
      fi
      while read -r bench us; do
        [[ $bench == multireadrandom ]] && bench=$gname
        [[ $bench == fillrandom && $gname != reads ]] && continue
        printf '%s\t%s\t%s\t%s\n' "$r" "$m" "$bench" "$us" >>"$runs"
        log "  $m $bench: $us us/op"
      done < <(sed -nE 's/^([a-z0-9]+) +: +([0-9.]+) micros\/op.*/\1 \2/p' "$tmp/out")
      rm -rf "$dir"
    done
  done
done

python3 - "$runs" "$version" "$num" <<'EOF'
import csv, statistics, sys
runs, version, num = sys.argv[1], sys.argv[2], sys.argv[3]
us = {}
for row in csv.DictReader(open(runs), delimiter='\t'):
    us.setdefault((row['benchmark'], row['memtable']), []).append(float(row['us_per_op']))
med = {k: statistics.median(v) for k, v in us.items()}
benches = []
for (b, _) in med:
    if b not in benches:
        benches.append(b)
print(f"RocksDB {version}, {num} keys in memory, 1 thread: us/op (multireadrandom: per key), "
      "medians; ratio > 1: TeksTable faster")
hdr = f"{'benchmark':<22}{'teks':>9}{'skip_list':>11}{'+bloom':>9}{'vs skip':>9}{'vs bloom':>9}"
print(hdr)
print('-' * len(hdr))
for b in benches:
    t, s, f = (med.get((b, m)) for m in ('teks', 'skip_list', 'skip_list+bloom'))
    cell = lambda x: f"{x:9.3f}" if x is not None else f"{'-':>9}"
    ratio = lambda a, c: f"{c / a:8.2f}x" if a and c else f"{'-':>9}"
    print(f"{b:<22}{cell(t)}{cell(s):>11}{cell(f)}{ratio(t, s)}{ratio(t, f)}")
rr = med.get(('readrandom', 'teks'))
for b in benches:
    if b.startswith('multiget') and rr and med.get((b, 'teks')):
        print(f"teks {b} per key vs its own readrandom: {rr / med[(b, 'teks')]:.2f}x")
EOF
log "done in $((SECONDS - started))s; results in $out"
