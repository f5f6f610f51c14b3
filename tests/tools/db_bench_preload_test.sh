#!/usr/bin/env bash
# libteksdb.so loads into Debian's stock /usr/bin/db_bench through
# LD_PRELOAD, registers "teks" in RocksDB's ObjectRegistry, and is really
# the memtable db_bench uses (an unknown name must fail, not fall back to the
# skip list).
#
# Usage: tests/tools/db_bench_preload_test.sh PATH/TO/libteksdb.so
set -euo pipefail

lib=${1:?usage: $0 PATH/TO/libteksdb.so}
lib=$(realpath "$lib")
db_bench=${DB_BENCH:-/usr/bin/db_bench}
[[ -f "$lib" ]] || { echo "FAIL: no such library: $lib"; exit 1; }
[[ -x "$db_bench" ]] || { echo "FAIL: no $db_bench (apt-get install rocksdb-tools)"; exit 1; }

source "$(dirname "$0")/../support/script_checks.sh" db_bench_preload

# run NAME MEMTABLEREP BENCHMARKS: runs db_bench in a fresh DB, stdout and
# stderr (progress, errors) into $tmp/NAME.out; sets $rc.
run() {
  local name=$1 rep=$2 benchmarks=$3
  echo "--- db_bench --memtablerep='$rep' --benchmarks=$benchmarks"
  set +e
  LD_PRELOAD=$lib "$db_bench" --db="$tmp/$name.db" --wal_dir="$tmp/$name.db" \
    --memtablerep="$rep" --benchmarks="$benchmarks" --num=20000 \
    --key_size=16 --value_size=100 --seek_nexts=10 --threads=1 \
    --write_buffer_size=$((256 << 20)) --disable_auto_compactions \
    --compression_type=none --statistics=0 --histogram=0 \
    >"$tmp/$name.out" 2>&1 </dev/null
  rc=$?
  set -e
  tr '\r' '\n' <"$tmp/$name.out" | grep -v -e '^\.\.\. finished' -e '^ *$' >"$tmp/$name.log" || true
}
show() { sed 's/^/    /' "$tmp/$1.log"; }

# 1. Plain "teks": runs, is TeksTable, and finds keys.
run teks teks fillrandom,readrandom,seekrandom,readseq
if ((rc == 0)); then pass "teks: db_bench exit 0"; else fail "teks: db_bench exit $rc"; show teks; fi
if grep -q '^Memtablerep: TeksTableFactory$' "$tmp/teks.log"; then
  pass "teks: output says 'Memtablerep: TeksTableFactory'"
else
  fail "teks: no 'Memtablerep: TeksTableFactory' line (got: $(grep '^Memtablerep:' "$tmp/teks.log" || echo none))"
fi
for b in fillrandom readrandom seekrandom readseq; do
  if grep -qE "^$b +: +[0-9.]+ micros/op" "$tmp/teks.log"; then
    pass "teks: $b reported"
  else
    fail "teks: no result line for $b"
  fi
done
found=$(sed -nE 's/^readrandom .*\(([0-9]+) of ([0-9]+) found\).*/\1/p' "$tmp/teks.log")
if [[ -n "$found" ]] && ((found > 0)); then
  pass "teks: readrandom found $found keys"
else
  fail "teks: readrandom found ${found:-no} keys"
fi

# 2. An unknown variant must fail loudly rather than fall back to the skip list.
run nonsense teks-nonsense fillrandom
if ((rc != 0)); then pass "teks-nonsense: db_bench exit $rc"; else fail "teks-nonsense: db_bench exit 0"; fi
if grep -qiE 'invalid argument|could not|not supported|unknown' "$tmp/nonsense.log"; then
  pass "teks-nonsense: error message: $(grep -iE -m1 'invalid argument|could not|not supported|unknown' "$tmp/nonsense.log")"
else
  fail "teks-nonsense: no error message"; show nonsense
fi
if grep -q '^Memtablerep:' "$tmp/nonsense.log"; then
  fail "teks-nonsense: db_bench went on with $(grep '^Memtablerep:' "$tmp/nonsense.log")"
fi

# 3. Options by name.
run byname 'id=teks;async=false' fillrandom,readrandom
if ((rc == 0)); then pass "id=teks;async=false: db_bench exit 0"; else fail "id=teks;async=false: db_bench exit $rc"; show byname; fi
if grep -q '^Memtablerep: TeksTableFactory$' "$tmp/byname.log"; then
  pass "id=teks;async=false: output says 'Memtablerep: TeksTableFactory'"
else
  fail "id=teks;async=false: no 'Memtablerep: TeksTableFactory' line"
fi

echo "($lib, $db_bench)"
finish
