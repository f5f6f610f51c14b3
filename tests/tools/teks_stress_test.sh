#!/usr/bin/env bash
# tools/teks_stress runs clean in every mode (TeksTable as a plain factory,
# the TeksDB layer, TeksTransactionDB WriteCommitted and WritePrepared, and
# RocksDB's own TransactionDB as a control), prints progress and its summary
# table, verifies a DB it reopens (after a clean close and after SIGKILL),
# and refuses bad input by name. Runs under the sanitizers too (label
# concurrent).
#
# Usage: tests/tools/teks_stress_test.sh PATH/TO/teks_stress [SECONDS_PER_RUN]
set -euo pipefail

stress=${1:?usage: $0 PATH/TO/teks_stress [SECONDS_PER_RUN]}
seconds=${2:-3}
source "$(dirname "$0")/../support/script_checks.sh" teks_stress

# run NAME FLAGS...: output in $tmp/NAME.out (stdout and stderr).
run() {
  local name=$1
  shift
  "$stress" --keys=1000 --threads=4 --progress_interval=1 "$@" >"$tmp/$name.out" 2>&1
}
count() { sed -nE "s/^$2 +([0-9]+).*/\1/p" "$tmp/$1.out" | head -n 1; }

for mode in plain layer write_committed write_prepared; do
  db=(--db="$tmp/$mode/db")
  if run "$mode" "${db[@]}" --mode=$mode --duration="$seconds"; then
    pass "$mode: a ${seconds} s run passes"
    grep -q '^\[teks_stress\] .* ops/s' "$tmp/$mode.out" && pass "$mode: progress lines" ||
      fail "$mode: no progress line"
    ops=$(count "$mode" total)
    if [[ $ops =~ ^[0-9]+$ ]] && ((ops > 100)); then pass "$mode: $ops operations"; else fail "$mode: total '$ops'"; fi
    reads=$(count "$mode" 'latest reads \(exact\)')
    if [[ $reads =~ ^[0-9]+$ ]] && ((reads > 0)); then pass "$mode: $reads exact reads"; else fail "$mode: exact reads '$reads'"; fi
    if [[ $mode == write_* ]]; then
      commits=$(count "$mode" txn_commit)
      if [[ $commits =~ ^[0-9]+$ ]] && ((commits > 0)); then pass "$mode: $commits commits"; else fail "$mode: commits '$commits'"; fi
    fi
  else
    fail "$mode: the run failed: $(tail -n 5 "$tmp/$mode.out")"
  fi
  if run "$mode-verify" "${db[@]}" --mode=$mode --duration=0; then
    expect_eq "$mode: every key verified after a clean close" \
      "$(count "$mode-verify" 'keys verified at reopen')" 3000
  else
    fail "$mode: verification after a clean close failed: $(tail -n 5 "$tmp/$mode-verify.out")"
  fi
done

# The control: RocksDB's own TransactionDB, skip-list memtable.
run control --db="$tmp/control/db" --mode=write_prepared --teks_layer=false \
  --memtable=skip_list --duration=1 && pass "control run passes" ||
  fail "control run failed: $(tail -n 5 "$tmp/control.out")"

# A SIGKILL mid-run, then a verified reopen (scripts/crash_test.sh does many).
for mode in layer write_prepared; do
  "$stress" --db="$tmp/kill-$mode/db" --mode=$mode --keys=1000 --duration=1000 \
    --prepared_hold_ms=300 >"$tmp/kill-$mode.out" 2>&1 &
  pid=$!
  for _ in $(seq 100); do grep -q '^phase: running' "$tmp/kill-$mode.out" && break; sleep 0.1; done
  sleep 1.5
  if kill -9 "$pid" 2>/dev/null; then
    wait "$pid" 2>/dev/null || true
    if run "kill-$mode-verify" --db="$tmp/kill-$mode/db" --mode=$mode --duration=1; then
      pass "$mode: verified after SIGKILL: $(grep '^phase: verified' "$tmp/kill-$mode-verify.out")"
    else
      fail "$mode: after SIGKILL: $(tail -n 5 "$tmp/kill-$mode-verify.out")"
    fi
  else
    fail "$mode: teks_stress was gone before the kill: $(tail -n 5 "$tmp/kill-$mode.out")"
  fi
done

# Bad input: an error naming it, exit status 2.
# refuse NAME WORD FLAGS...
refuse() {
  local name=$1 word=$2 rc=0
  shift 2
  run "$name" "$@" || rc=$?
  if ((rc != 2)); then
    fail "$name: exit status $rc, not 2"
  elif grep -q -- "$word" "$tmp/$name.out"; then
    pass "$name: refused, naming '$word'"
  else
    fail "$name: error does not name '$word': $(cat "$tmp/$name.out")"
  fi
}
refuse no_db "db is required" --duration=0
refuse bad_mode nosuchmode --db="$tmp/bad/db" --mode=nosuchmode
refuse stray_argument stray --db="$tmp/bad/db" stray
refuse layer_needs_teks "needs a TeksTable" --db="$tmp/bad/db" --mode=layer --memtable=skip_list
refuse unknown_memtable nosuchrep --db="$tmp/bad/db" --mode=plain --memtable=nosuchrep
refuse txn_without_wal "two-phase commit" --db="$tmp/bad/db" --mode=write_committed --disable_wal
refuse write_prepared_manual_wal_flush "manual_wal_flush=true" --db="$tmp/bad/db" \
  --mode=write_prepared --manual_wal_flush --duration=0
refuse bad_threads threads --db="$tmp/bad/db" --threads=0
refuse bad_compression lzma9 --db="$tmp/bad/db" --compression=lzma9
refuse oracle_of_another_shape "same --column_families and --keys" --db="$tmp/layer/db" \
  --mode=layer --keys=2000 --duration=0

finish
