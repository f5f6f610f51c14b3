#!/usr/bin/env bash
# One YCSB workload through teksdb-server, with the real YCSB client.
#
# Builds the YCSB client (ycsb/pom.xml: YCSB's core and our Redis-protocol binding;
# Maven works offline once the first build has cached the dependencies) and, if it
# is missing, teksdb-server; starts the server with the chosen memtable on a free
# port in a fresh directory; loads the records; runs the workload; stops the
# server; prints YCSB's own summary lines ([OVERALL], [READ], [UPDATE], ...) of the
# run (and of the load with --show-load). Fails, saying why, if YCSB could not
# connect, an operation failed (Return= other than OK) or the operation count is
# short.
#
# Usage: ycsb/run.sh [options] [-- more YCSB arguments, e.g. -p requestdistribution=uniform]
#   --workload X     a, b, c, d, e or f: ycsb/workloads/workloadX (a)
#   --memtable M     teks (TeksTable, the default), skip_list (RocksDB's), or
#                    redis (a redis-server without persistence, as a peer)
#   --records N      records loaded (10000)
#   --operations N   operations run (10000)
#   --threads N      YCSB client threads, for the load and the run (1)
#   --large          a 32 MiB write buffer (ycsb/rocksdb/large.ini) instead of
#                    4 GiB (ycsb/rocksdb/in_memory.ini): size --records so the
#                    data set (~1.6 KB a record) is larger, and it is flushed
#   --show-load      also print the load's summary
#   --keep DIR       keep the server's data and YCSB's output in DIR (default: a
#                    temporary directory, removed at exit)
# Environment: TEKSDB_BUILD_DIR (build): where teksdb-server is, or is built.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/lib.sh"
usage() { sed -n '2,/^set -euo/{/^set -euo/d;s/^# \{0,1\}//;p}' "$0"; }
die() { echo "run.sh: $*" >&2; exit 1; }

workload=a memtable=teks records=10000 operations=10000 threads=1
options=$here/rocksdb/in_memory.ini show_load= keep=
while (($#)); do
  case $1 in
    --workload|--memtable|--records|--operations|--threads|--keep)
      [[ $# -ge 2 ]] || die "$1 needs a value"
      declare "${1#--}=$2"
      shift 2 ;;
    --large) options=$here/rocksdb/large.ini; shift ;;
    --show-load) show_load=1; shift ;;
    -h|--help) usage; exit 0 ;;
    --) shift; break ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
[[ $workload =~ ^[a-f]$ ]] || die "--workload must be one of a b c d e f, not '$workload'"
[[ $memtable =~ ^(teks|skip_list|redis)$ ]] || die "--memtable must be teks, skip_list or redis, not '$memtable'"
for n in records operations threads; do
  [[ ${!n} =~ ^[1-9][0-9]*$ ]] || die "--$n must be a positive integer, not '${!n}'"
done

if [[ -n $keep ]]; then
  mkdir -p "$keep"
  work=$(cd "$keep" && pwd)
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/teksdb-ycsb.XXXXXX")
fi
cleanup() {
  server_stop
  [[ -n $keep ]] || rm -rf "$work"
}
trap cleanup EXIT

ycsb_build
server_start "$memtable" "$work/server" "$options"
echo "run.sh: $memtable on port $server_port; loading $records records with $threads threads" >&2
ycsb_client "$work/load.txt" -load "$here/workloads/workload$workload" \
  -p recordcount="$records" -threads "$threads" "$@"
ycsb_check "$work/load.txt" "$records" || exit 1
echo "run.sh: running workload $workload: $operations operations" >&2
ycsb_client "$work/run.txt" -t "$here/workloads/workload$workload" \
  -p recordcount="$records" -p operationcount="$operations" -threads "$threads" "$@"
ycsb_check "$work/run.txt" "$operations" || exit 1
server_stop

if [[ -n $show_load ]]; then
  echo "== load ($memtable, $records records, $threads threads)"
  grep '^\[' "$work/load.txt"
fi
echo "== workload $workload ($memtable, $records records, $operations operations, $threads threads)"
grep '^\[' "$work/run.txt"
