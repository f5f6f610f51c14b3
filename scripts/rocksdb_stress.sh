#!/usr/bin/env bash
# RocksDB's own stress test, db_stress, on a RocksDB built with TeksTable as
# its plugin (scripts/build_rocksdb.sh), pointed at TeksTable by an OPTIONS
# file (memtable_factory=teks): every operation checked against db_stress's
# expected state, the DB reopened --reopen times and verified. The same runs
# with the SkipList are the control. For each memtable, three modes: a plain
# DB, and TransactionDB with WriteCommitted and WritePrepared transactions;
# each with RocksDB's paranoid memtable checks on as far as the release has
# them (paranoid_memory_checks, memtable_protection_bytes_per_key=8 with the
# checksum checked on seek, memtable_batch_lookup_optimization, which reach
# TeksTable's GetAndValidate, validating iterator steps and MultiGet) and
# off.
# db_stress's fault injection is off (a release build refuses it).
#
# Prints db_stress's lines as they come and a table: memtable, mode, checks,
# operations, seconds, result. Exit status 1 if any run failed; its log and
# DB are kept and named.
#
# Usage: scripts/rocksdb_stress.sh [--ops N] [--threads N] [--max-key N] PREFIX
#   --ops       operations per thread and run (default 100000)
#   --threads   (default 4)
#   --max-key   keys (default 100000)
set -euo pipefail

usage() { sed -n '2,/^set -euo/p' "$0" | sed -n 's/^# \{0,1\}//p'; exit "${1:-0}"; }
die() { echo "rocksdb_stress: $*" >&2; exit 2; }
log() { echo "[rocksdb_stress] $*" >&2; }

ops=100000 threads=4 max_key=100000 prefix=
while (($#)); do
  case $1 in
    --ops) ops=${2:?}; shift 2 ;;
    --threads) threads=${2:?}; shift 2 ;;
    --max-key) max_key=${2:?}; shift 2 ;;
    -h|--help) usage ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *) [[ -z $prefix ]] || die "one PREFIX only"; prefix=$1; shift ;;
  esac
done
[[ -n $prefix ]] || usage 2
for v in ops threads max_key; do
  [[ ${!v} =~ ^[1-9][0-9]*$ ]] || die "--${v//_/-} must be a positive integer, not '${!v}'"
done
db_stress=$prefix/bin/db_stress
[[ -x $db_stress ]] || die "no $db_stress: build it with scripts/build_rocksdb.sh SRC $prefix"
version=$(cat "$prefix/ROCKSDB_VERSION" 2>/dev/null || echo unknown)

# at_least X.Y: the RocksDB in PREFIX is release X.Y or later.
at_least() { [[ $(printf '%s\n' "$1" "$version" | sort -V | head -n 1) == "$1" ]]; }

work=$(mktemp -d "${TMPDIR:-/tmp}/teksdb-rocksdb-stress.XXXXXX")
options_file() {  # MEMTABLE CHECKS(on|off) -> path
  local f=$work/options-$1-$2.ini
  {
    printf '[Version]\n  rocksdb_version=%s\n  options_file_version=1.1\n' "$version"
    printf '[DBOptions]\n  create_if_missing=true\n  create_missing_column_families=true\n'
    printf '[CFOptions "default"]\n  memtable_factory=%s\n  write_buffer_size=4194304\n' "$1"
    if [[ $2 == on ]]; then
      # As far as this release has them (include/teksdb/rocksdb_version.h).
      printf '  memtable_protection_bytes_per_key=8\n'
      at_least 9.6 && printf '  paranoid_memory_checks=true\n'
      if at_least 11.4; then
        printf '  memtable_verify_per_key_checksum_on_seek=true\n'
      elif at_least 10.7; then
        printf '  memtable_veirfy_per_key_checksum_on_seek=true\n'  # sic, until 11.4
      fi
      at_least 11.1 && printf '  memtable_batch_lookup_optimization=true\n'
    fi
    printf '[TableOptions/BlockBasedTable "default"]\n'
  } >"$f"
  echo "$f"
}
mode_flags() {
  case $1 in
    plain) ;;
    write_committed) echo --use_txn=1 --txn_write_policy=0 ;;
    write_prepared) echo --use_txn=1 --txn_write_policy=1 ;;
  esac
}

rows=() failed=0 n=0 total=12
for memtable in teks skip_list; do
  for mode in plain write_committed write_prepared; do
    for checks in on off; do
      n=$((n + 1))
      run=$work/$memtable-$mode-$checks
      mkdir -p "$run/expected"
      log "run $n/$total: $memtable, $mode, paranoid checks $checks"
      t0=$SECONDS
      # shellcheck disable=SC2046  # mode flags split on purpose
      if "$db_stress" --options_file="$(options_file "$memtable" "$checks")" --db="$run/db" \
        --expected_values_dir="$run/expected" --destroy_db_initially=1 \
        --ops_per_thread="$ops" --threads="$threads" --max_key="$max_key" --reopen=5 \
        --column_families=1 --clear_column_family_one_in=0 --use_multiget=1 \
        --read_fault_one_in=0 --write_fault_one_in=0 --metadata_read_fault_one_in=0 \
        --metadata_write_fault_one_in=0 --open_metadata_write_fault_one_in=0 \
        --open_metadata_read_fault_one_in=0 --open_write_fault_one_in=0 \
        --open_read_fault_one_in=0 --sync_fault_injection=0 $(mode_flags "$mode") \
        >"$run/log" 2>&1 && grep -q 'Verification successful' "$run/log" &&
        grep -q "memtable_factory: $([[ $memtable == teks ]] && echo TeksTableFactory || echo SkipListFactory)" \
          "$run/db/LOG"; then
        result=passed
        rm -rf "$run/db"
      else
        result="FAILED (log and DB kept in $run)"
        failed=$((failed + 1))
        tail -n 20 "$run/log" >&2
      fi
      rows+=("$(printf '%-10s %-16s %-7s %10d %8d  %s' "$memtable" "$mode" "$checks" \
        $((ops * threads)) $((SECONDS - t0)) "$result")")
      log "  $result in $((SECONDS - t0)) s"
    done
  done
done

echo
echo "db_stress, RocksDB $version ($db_stress): --ops_per_thread $ops --threads $threads --max_key $max_key --reopen 5"
printf '%-10s %-16s %-7s %10s %8s  %s\n' memtable mode checks operations seconds result
printf '%s\n' "${rows[@]}"
((failed == 0)) || { echo "rocksdb_stress: $failed run(s) failed"; exit 1; }
rm -rf "$work"
echo "rocksdb_stress: all $total runs passed"
