#!/usr/bin/env bash
# On a deliberately broken build (CMake TEKSDB_FAULT_INJECTION=ON: the drop
# horizon ignores readers, snapshots included), tools/teks_stress must fail
# in every mode that drops versions (the TeksDB layer, TeksTransactionDB
# WriteCommitted and WritePrepared), naming the read that went wrong and
# printing the command that reproduces it; TeksTable as a plain factory,
# which never drops, must still pass. Label "fault"; scripts/test.sh's fault
# phase builds that variant and runs it.
#
# Usage: tests/tools/teks_stress_fault_test.sh PATH/TO/teks_stress-of-a-fault-build [SECONDS]
set -euo pipefail

stress=${1:?usage: $0 PATH/TO/teks_stress [SECONDS]}
seconds=${2:-20}
source "$(dirname "$0")/../support/script_checks.sh" teks_stress_fault

for mode in layer write_committed write_prepared; do
  rc=0
  "$stress" --db="$tmp/$mode/db" --mode=$mode --keys=1000 --duration="$seconds" --seed=11 \
    >"$tmp/$mode.out" 2>&1 || rc=$?
  if ((rc == 1)) && grep -q 'teks_stress: FAILED: ' "$tmp/$mode.out"; then
    pass "$mode: caught: $(sed -n 's/^teks_stress: FAILED: //p' "$tmp/$mode.out")"
  else
    fail "$mode: the broken build was not caught (exit $rc): $(tail -n 3 "$tmp/$mode.out")"
  fi
  grep -q -- "--seed=11" "$tmp/$mode.out" && pass "$mode: the reproduce line has the seed" ||
    fail "$mode: no reproduce line with the seed"
done

if "$stress" --db="$tmp/plain/db" --mode=plain --keys=1000 --duration=3 --seed=11 \
  >"$tmp/plain.out" 2>&1; then
  pass "plain factory (no drops): passes on the broken build"
else
  fail "plain factory failed on the broken build: $(tail -n 3 "$tmp/plain.out")"
fi

finish
