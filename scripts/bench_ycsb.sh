#!/usr/bin/env bash
# The paper's YCSB study (its Fig. 5, 7 and 9) with the real YCSB client
# (ycsb/: YCSB 0.17.0's core and our Redis-protocol binding): teksdb-server on
# TeksTable against teksdb-server on RocksDB's skip list, and a real
# redis-server as a peer, in one run.
#
# For each repeat and thread count, each server in turn (so the machine's noise
# falls on all of them alike), the same YCSB client threads for loads and runs:
#   a fresh server: load A (--records records), run A, B, C, D, F
#   a fresh server: load E, run E
# YCSB's core workloads with the paper's record shape (16-byte keys, 11 fields of
# 100 bytes; ycsb/workloads/). Every YCSB run is checked (the expected operation
# count, every one Return=OK) and the study stops, saying why, at the first that
# is not. Prints progress with how far along it is, then tables: throughput per
# phase, thread count and server with the ratios teks/skip_list and teks/redis;
# how throughput grows with threads; p99 latency per operation (YCSB's
# HdrHistogram); the server's own CPU time per operation (from /proc: every
# thread of it, RocksDB's and TeksTable's background threads included), the
# honest measure where client and server share the machine. Writes under --out: table.txt (the tables), runs.tsv (a line
# per run and operation), raw/ (YCSB's own output of every run) and, unless
# --no-plots, ycsb-throughput.png (ops/s against threads, a panel per phase) and
# ycsb-p99.png (p99 against threads, a panel per phase and operation).
#
# Servers: teks = teksdb-server --memtable teks (TeksTable, under the TeksDB
# layer); skip_list = teksdb-server --memtable skip_list (RocksDB's skip list,
# plain RocksDB); both with one I/O thread per CPU and a WAL written without
# sync. redis = redis-server without persistence (--save '' --appendonly no).
# In memory (the default), a 4 GiB write buffer holds the whole data set
# (ycsb/rocksdb/in_memory.ini); --large gives a 32 MiB one
# (ycsb/rocksdb/large.ini), so the data set is flushed and compacted as the
# workloads run (the paper's §7; redis-server keeps everything in memory anyway).
#
# Usage: scripts/bench_ycsb.sh [options]
#   --servers LIST     comma-separated: teks, skip_list, redis (all three)
#   --threads LIST     YCSB client thread counts (1,2,4,8,16)
#   --records N        records per load (100000, ~160 MB in the server;
#                      --large: 200000, ~10x the write buffer)
#   --operations N     operations per run of A, B, C, D and F (100000)
#   --scans N          operations of the run of E (--operations / 20): 95% are
#                      scans, each 1-100 records read one round trip at a time
#   --large            a data set larger than the write buffer (above)
#   --write-buffer-mb N  the in-memory write buffer in MiB (4096): the paper's
#                      scale, 5M records (--records 5000000, ~7 GB in the
#                      server), needs 12288 to stay in the memtable
#   --workloads LIST   comma-separated, of a, b, c, d, f, e (all), run in that
#                      order: A's load runs before any of a-f, E's load before e
#   --pin              each server on CPU 0 (teksdb-server with one I/O thread),
#                      the YCSB client on the others (taskset), so the client
#                      takes none of the server's CPU time
#   --huge-pages       the memtable's arena in 2 MiB huge pages (RocksDB's
#                      memtable_huge_page_size=2097152, for teks and skip_list
#                      alike) from pages reserved beforehand (as root: sysctl
#                      vm.nr_hugepages=N, N pages of 2 MiB; the study stops if
#                      none are free; past them the arena takes normal pages)
#   --target N         each workload's run at N operations a second (YCSB's
#                      -target; loads run flat out): every server then serves
#                      the same load, so latencies compare as the servers'
#                      own, not the client's (16 client threads on one CPU
#                      queue for it when a server answers faster)
#   --linker-nice N    teksdb-server's --linker-nice (TeksTable's linker's nice
#                      value, 0-19; the server's own default when not given)
#   --repeat N         everything N times, interleaved; tables show medians (1)
#   --out DIR          results go to DIR/ycsb (with --large DIR/ycsb-large) (build/bench)
#   --no-plots         no plots (and no matplotlib venv)
# Environment: TEKSDB_BUILD_DIR (build): where teksdb-server is built and the
# plotting venv lives (shared with scripts/bench.sh). The defaults take about
# 15 minutes on a 2-core machine (--large about 25). The paper's scale, about
# 50 minutes here (docs/BENCHMARKS.md §8.1):
#   scripts/bench_ycsb.sh --records 5000000 --write-buffer-mb 12288 --threads 16 \
#     --workloads a,b,c,d,f --pin
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }
die() { echo "bench_ycsb.sh: $*" >&2; exit 1; }
log() { echo "[ycsb] $*" >&2; }

servers=teks,skip_list,redis threads=1,2,4,8,16 records= operations=100000 scans=
large= repeat=1 out= no_plots= pin= write_buffer_mb= workloads=a,b,c,d,f,e linker_nice= huge_pages= target=
while (($#)); do
  case $1 in
    --servers|--threads|--records|--operations|--scans|--repeat|--out|--write-buffer-mb|--workloads|--linker-nice|--target)
      [[ $# -ge 2 ]] || die "$1 needs a value"
      v=${1#--}
      declare "${v//-/_}=$2"
      shift 2 ;;
    --*=*) set -- "${1%%=*}" "${1#*=}" "${@:2}" ;;
    --large) large=1; shift ;;
    --pin) pin=1; shift ;;
    --huge-pages) huge_pages=1; shift ;;
    --no-plots) no_plots=1; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown argument: $1" ;;
  esac
done
records=${records:-$([[ -n $large ]] && echo 200000 || echo 100000)}
scans=${scans:-$((operations / 20))}
for v in records operations scans repeat; do
  [[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "--$v must be a positive integer, not '${!v}'"
done
[[ $threads =~ ^[1-9][0-9]*(,[1-9][0-9]*)*$ ]] || die "--threads must be a list of positive integers, not '$threads'"
[[ $workloads =~ ^[abcdfe](,[abcdfe])*$ ]] || die "--workloads must be a list of a, b, c, d, f, e, not '$workloads'"
[[ -z $write_buffer_mb || $write_buffer_mb =~ ^[1-9][0-9]*$ ]] ||
  die "--write-buffer-mb must be a positive integer, not '$write_buffer_mb'"
[[ -z $write_buffer_mb || -z $large ]] || die "--write-buffer-mb is for the in-memory study, not --large"
[[ -z $linker_nice || $linker_nice =~ ^([0-9]|1[0-9])$ ]] || die "--linker-nice must be 0-19, not '$linker_nice'"
[[ -z $target || $target =~ ^[1-9][0-9]*$ ]] || die "--target must be a positive integer, not '$target'"
run_target=()
[[ -z $target ]] || run_target=(-target "$target")
[[ $servers =~ ^(teks|skip_list|redis)(,(teks|skip_list|redis))*$ ]] ||
  die "--servers must be a list of teks, skip_list, redis, not '$servers'"
options=$root/ycsb/rocksdb/in_memory.ini
[[ -z $large ]] || options=$root/ycsb/rocksdb/large.ini
out=$(realpath -m "${out:-$root/build/bench}")/ycsb${large:+-large}
IFS=, read -r -a server_list <<<"$servers"
IFS=, read -r -a thread_list <<<"$threads"
IFS=, read -r -a workload_list <<<"$workloads"
run_a= run_e=
for w in "${workload_list[@]}"; do
  if [[ $w == e ]]; then run_e=1; else run_a=1; fi
done

source "$root/ycsb/lib.sh"
if [[ -n $pin ]]; then
  (($(nproc) >= 2)) || die "--pin needs 2 CPUs or more"
  server_cpus=0 client_cpus=1-$(($(nproc) - 1)) server_threads=1
fi
server_linker_nice=$linker_nice
clock_ticks=$(getconf CLK_TCK)
bash "$root/scripts/setup.sh" >&2
ycsb_build
export TEKSDB_SERVER
TEKSDB_SERVER=$(ycsb_server_binary)

python=python3
if [[ -z $no_plots ]]; then
  python=$(bash "$root/scripts/python_venv.sh" "${TEKSDB_BUILD_DIR:-$root/build}/plot-venv" matplotlib \
    'matplotlib>=3.6') || die "no matplotlib; rerun with --no-plots"
fi

mkdir -p "$out/raw"
rm -f "$out"/raw/*.txt "$out"/raw/*.txt.err
work=$(mktemp -d "${TMPDIR:-/tmp}/teksdb-bench-ycsb.XXXXXX")
trap 'server_stop; rm -rf "$work"' EXIT
if [[ -n $write_buffer_mb ]]; then
  sed "s/^\( *write_buffer_size=\).*/\1$((write_buffer_mb << 20))/" "$options" >"$work/options.ini"
  options=$work/options.ini
fi
if [[ -n $huge_pages ]]; then
  free_pages=$(awk '/^HugePages_Free:/ {print $2}' /proc/meminfo)
  [[ ${free_pages:-0} -gt 0 ]] ||
    die "--huge-pages: no huge pages free; reserve them first (as root: sysctl vm.nr_hugepages=N)"
  log "--huge-pages: $free_pages huge pages of 2 MiB free for the memtables"
  sed 's/^\(\[CFOptions "default"\]\)$/\1\n  memtable_huge_page_size=2097152/' "$options" >"$work/options-huge.ini"
  options=$work/options-huge.ini
fi
index=$out/raw/index.tsv
printf 'repeat\tthreads\tserver\tphase\tfile\tserver_cpu_us_per_op\n' >"$index"

phases_per_server=$((${#workload_list[@]} + ${run_a:-0} + ${run_e:-0}))
total=$((repeat * ${#thread_list[@]} * ${#server_list[@]} * phases_per_server))
done_phases=0
began=$SECONDS
log "servers $servers, threads $threads, $records records, $operations operations" \
    "(E: $scans), workloads $workloads, $([[ -n $large ]] && echo '32 MiB write buffer' ||
      echo "in memory (${write_buffer_mb:-4096} MiB write buffer)"), repeat $repeat;" \
    "$total YCSB runs; results in $out"

# phase REPEAT THREADS SERVER NAME -load|-t WORKLOAD EXPECTED [YCSB args]: one
# checked YCSB run, its output kept under raw/ and listed in the index.
phase() {
  local r=$1 t=$2 s=$3 name=$4 mode=$5 workload=$6 expected=$7 file elapsed left ticks cpu
  shift 7
  file=$out/raw/$s-t$t-r$r-${name// /-}.txt
  ticks=$(server_cpu_ticks)
  ycsb_client "$file" "$mode" "$root/ycsb/workloads/workload$workload" -threads "$t" \
    -p recordcount="$records" "$@" || die "$s, threads $t: $name: YCSB did not finish"
  ticks=$(($(server_cpu_ticks) - ticks))
  ycsb_check "$file" "$expected" || die "$s, threads $t: $name failed (above; $file)"
  cpu=$(awk -v t="$ticks" -v hz="$clock_ticks" -v n="$expected" 'BEGIN {printf "%.3f", t * 1e6 / hz / n}')
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$r" "$t" "$s" "$name" "${file##*/}" "$cpu" >>"$index"
  done_phases=$((done_phases + 1))
  elapsed=$((SECONDS - began))
  left=$((elapsed * (total - done_phases) / done_phases))
  log "$done_phases/$total ($((elapsed / 60))m$((elapsed % 60))s, ~$((left / 60))m$((left % 60))s left)" \
      "$s, threads $t: $name: $(awk -F', ' '$1 == "[OVERALL]" && $2 == "Throughput(ops/sec)" {
        printf "%.0f ops/s", $3 }' "$file")"
}

for ((r = 1; r <= repeat; r++)); do
  for t in "${thread_list[@]}"; do
    for s in "${server_list[@]}"; do
      if [[ -n $run_a ]]; then
        rm -rf "$work/server"
        server_start "$s" "$work/server" "$options" || die "$s did not start"
        phase "$r" "$t" "$s" "load a" -load a "$records"
        for w in a b c d f; do
          if [[ ,$workloads, == *,$w,* ]]; then
            phase "$r" "$t" "$s" "$w" -t "$w" "$operations" -p operationcount="$operations" "${run_target[@]}"
          fi
        done
        server_stop
      fi
      if [[ -n $run_e ]]; then
        rm -rf "$work/server"
        server_start "$s" "$work/server" "$options" || die "$s did not start"
        phase "$r" "$t" "$s" "load e" -load e "$records"
        phase "$r" "$t" "$s" e -t e "$scans" -p operationcount="$scans" "${run_target[@]}"
        server_stop
      fi
    done
  done
done
log "all $total runs in $(((SECONDS - began) / 60))m$(((SECONDS - began) % 60))s"

title="YCSB through teksdb-server: $records records, $operations operations (E: $scans)"
title+=", $([[ -n $large ]] && echo '32 MiB write buffer' ||
  echo "in memory (${write_buffer_mb:-4096} MiB write buffer)"), repeat $repeat"
[[ -z $pin ]] || title+=", server pinned to CPU $server_cpus, client to $client_cpus"
[[ -z $linker_nice ]] || title+=", linker nice $linker_nice"
[[ -z $huge_pages ]] || title+=", memtables in 2 MiB huge pages"
[[ -z $target ]] || title+=", runs at $target operations/s"
report=("$python" "$root/scripts/ycsb_report.py" "$index" --title "$title" --out "$out/runs.tsv")
[[ -n $no_plots ]] || report+=(--plots "$out")
{
  "${report[@]}"
  echo
  echo "Run on $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null ||
    echo unknown), $(nproc) CPUs, $(uname -sr); $(java -version 2>&1 | head -n1);" \
    "$(redis-server --version | cut -d' ' -f1-3)"
  echo "Command: scripts/bench_ycsb.sh --servers $servers --threads $threads --records $records" \
    "--operations $operations --scans $scans --repeat $repeat${large:+ --large}${pin:+ --pin}${huge_pages:+ --huge-pages}${target:+ --target $target}" \
    "${write_buffer_mb:+--write-buffer-mb $write_buffer_mb }${linker_nice:+--linker-nice $linker_nice }--workloads $workloads"
} | tee "$out/table.txt"
