#!/usr/bin/env bash
# Crash test: for each variant, rounds of start teks_stress, let it run for a
# random time, SIGKILL it, and let the next round's start verify the
# reopened DB against the oracle (tools/teks_stress; what is checked is in
# docs/RELIABILITY.md). Options are drawn again every round: memtable
# variant (rotating through all six), threads, write buffer size,
# compression, WAL mode (sync, plain, manual_wal_flush except under
# write_prepared, disabled), and in the
# plain and layer variants, now and then the other of the two (the same DB
# reopened with and without the layer). The last round of each variant ends
# with a clean close and a final verification.
#
# Usage: scripts/crash_test.sh [options]
#   --binary PATH        teks_stress (default: build/tools/teks_stress)
#   --variant V          plain, layer, write_committed, write_prepared or all (default all)
#   --duration S         seconds in all, shared by the variants (default 120)
#   --kill-min S         shortest run before a kill, seconds (default 1)
#   --kill-max S         longest run before a kill (default: a sixth of a variant's time, 3-30)
#   --keys N             keys per column family (default 4000)
#   --seed N             seed of the option draws (default: random); printed
#   --dir DIR            where the DBs go (default: a fresh temporary directory)
#   --keep               keep the DBs after a pass (a failure always keeps them)
#   --control            the control run: RocksDB's SkipList memtable and RocksDB's own
#                        DB or TransactionDB (no TeksTable, no layer), same draws
#                        otherwise, to tell a TeksDB bug from a RocksDB or tool bug
# Prints a line per round, a table per variant and the totals (operations,
# crashes survived, keys verified). A failure prints the tool's error, its
# reproduce line, the DB kept for a post-mortem, and the command that
# reproduces this crash test; exit status 1. Bad usage: exit status 2.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
binary=$root/build/tools/teks_stress
variant=all
duration=120
kill_min=1
kill_max=
keys=4000
seed=
dir=
keep=0
control=0
args=("$@")

usage() { sed -n '2,/^set -euo/p' "$0" | sed -n 's/^# \{0,1\}//p'; exit 0; }
die() { echo "crash_test: $*" >&2; exit 2; }
while (($#)); do
  case $1 in
    --binary) binary=${2:?}; shift 2 ;;
    --variant) variant=${2:?}; shift 2 ;;
    --duration) duration=${2:?}; shift 2 ;;
    --kill-min) kill_min=${2:?}; shift 2 ;;
    --kill-max) kill_max=${2:?}; shift 2 ;;
    --keys) keys=${2:?}; shift 2 ;;
    --seed) seed=${2:?}; shift 2 ;;
    --dir) dir=${2:?}; shift 2 ;;
    --keep) keep=1; shift ;;
    --control) control=1; shift ;;
    -h|--help) usage ;;
    *) die "unknown argument '$1' (see --help)" ;;
  esac
done
case $variant in
  all) variants=(plain layer write_committed write_prepared) ;;
  plain|layer|write_committed|write_prepared) variants=("$variant") ;;
  *) die "unknown --variant '$variant' (plain, layer, write_committed, write_prepared, all)" ;;
esac
for n in "$duration" "$kill_min" "$keys" ${kill_max:+"$kill_max"} ${seed:+"$seed"}; do
  [[ $n =~ ^[0-9]+$ ]] || die "'$n' is not a whole number"
done
((duration >= 4 * ${#variants[@]})) || die "--duration must give each variant at least 4 s"
per_variant=$((duration / ${#variants[@]}))
if [[ -z $kill_max ]]; then
  kill_max=$((per_variant / 6))
  ((kill_max < 3)) && kill_max=3
  ((kill_max > 30)) && kill_max=30
fi
((kill_max >= kill_min)) || die "--kill-max must be >= --kill-min"
# Arguments checked: build the tool if this checkout has none yet.
if [[ ! -x $binary && $binary == "$root/build/tools/teks_stress" ]]; then
  echo "crash_test: building teks_stress (release preset, build/)" >&2
  bash "$root/scripts/setup.sh"
  { [[ -f $root/build/CMakeCache.txt ]] || cmake --preset release -S "$root" -B "$root/build"; } >&2
  cmake --build "$root/build" --target teks_stress >&2
fi
[[ -x $binary ]] || die "no teks_stress at $binary"
[[ -n $seed ]] || seed=$(( (RANDOM << 15 | RANDOM) ))
RANDOM=$seed
if [[ -z $dir ]]; then
  dir=$(mktemp -d "${TMPDIR:-/tmp}/teks-crash.XXXXXX")
  owns_dir=1
else
  mkdir -p "$dir"
  owns_dir=0
fi
reproduce="scripts/crash_test.sh --seed $seed --variant $variant --duration $duration --kill-min $kill_min --kill-max $kill_max --keys $keys"
((control)) && reproduce+=" --control"
[[ $binary == "$root/build/tools/teks_stress" ]] || reproduce+=" --binary $binary"
echo "crash_test: seed $seed, variants ${variants[*]}, ${per_variant} s each, kills after ${kill_min}-${kill_max} s, in $dir"

memtables=(teks teks-s teks-a teks-ac teks-acsp teks-acsp-in)
compressions=(none snappy lz4 zstd zlib)
pid=
trap '[[ -n $pid ]] && kill -9 "$pid" 2>/dev/null; true' EXIT

fail() {
  local log=$1 what=$2
  echo "crash_test: FAILED ($what)" >&2
  echo "--- teks_stress output (last 30 lines) ---" >&2
  tail -n 30 "$log" >&2
  echo "--- the DB and its oracle are kept in $dir ---" >&2
  echo "crash_test: reproduce with: $reproduce" >&2
  exit 1
}

# draw_options VARIANT ROUND: sets `opts` and `describe`.
draw_options() {
  local v=$1 round=$2 mode=$1
  if [[ $v == plain || $v == layer ]] && ((RANDOM % 4 == 0)); then
    [[ $v == plain ]] && mode=layer || mode=plain
  fi
  local memtable=${memtables[$(( (rotation + round) % ${#memtables[@]} ))]}
  local threads=$((2 + RANDOM % 7))
  local wbs=$(( (64 << (RANDOM % 6)) << 10 ))
  local compression=${compressions[$((RANDOM % ${#compressions[@]}))]}
  local wal r=$((RANDOM % 100))
  if ((r < 20)); then wal=sync
  elif ((r < 40)); then wal=manual
  elif ((r < 55)) && [[ $mode == plain || $mode == layer ]]; then wal=off
  else wal=on; fi
  # TeksTransactionDB refuses WRITE_PREPARED with manual_wal_flush: RocksDB
  # itself can then lose an acknowledged write at a crash (docs/RELIABILITY.md,
  # "What the crash test found"). The control keeps it, to show that.
  if [[ $mode == write_prepared && $wal == manual ]] && ((!control)); then wal=on; fi
  opts=(--mode=$mode --memtable=$memtable --threads=$threads --write_buffer_size=$wbs
        --compression=$compression --keys=$keys --seed=$((RANDOM << 15 | RANDOM | 1)))
  case $wal in
    sync) opts+=(--sync) ;;
    manual) opts+=(--manual_wal_flush) ;;
    off) opts+=(--disable_wal) ;;
  esac
  if ((control)); then
    memtable=skip_list
    [[ $mode == layer ]] && mode=plain
    opts[0]=--mode=$mode
    opts[1]=--memtable=$memtable
    [[ $mode == write_* ]] && opts+=(--teks_layer=false)
  fi
  describe="$mode $memtable threads=$threads wbs=$((wbs >> 10))K $compression wal=$wal"
}

# A number from the tool's "totals over this oracle's runs" line.
total_of() { sed -nE "s/^totals over.* $2 ([0-9]+).*/\1/p" "$1" | tail -n 1; }

summary=()
all_ops=0 all_crashes=0 all_keys=0 all_prepared=0
for v in "${variants[@]}"; do
  db=$dir/$v/db
  rm -rf "$dir/$v"
  mkdir -p "$dir/$v"
  started=$SECONDS
  round=0 crashes=0 prepared=0 lost=0 rotation=$((RANDOM % ${#memtables[@]}))
  while ((SECONDS - started < per_variant)); do
    round=$((round + 1))
    draw_options "$v" "$round"
    log=$dir/$v/round$round.log
    : >"$log"
    "$binary" --db="$db" --duration=100000 --progress_interval=5 "${opts[@]}" >"$log" 2>&1 &
    pid=$!
    # Wait for the verification of the previous round's crash to finish.
    while ! grep -q '^phase: running' "$log"; do
      kill -0 "$pid" 2>/dev/null || { wait "$pid" || true; pid=; fail "$log" "$v round $round: exited before running"; }
      sleep 0.1
    done
    # What the verification found (the previous round's crash).
    if ((round > 1)); then
      crashes=$((crashes + 1))
      p=$(sed -nE 's/.*prepared txns: ([0-9]+) committed ([0-9]+) rolled back.*/\1 \2/p' "$log")
      prepared=$((prepared + ${p% *} + ${p#* }))
      l=$(sed -nE 's/.* ([0-9]+) unpromised writes lost.*/\1/p' "$log")
      lost=$((lost + l))
    fi
    # Random time before the kill, in tenths of a second.
    wait_tenths=$((kill_min * 10 + RANDOM % ((kill_max - kill_min) * 10 + 1)))
    sleep "$((wait_tenths / 10)).$((wait_tenths % 10))"
    kill -0 "$pid" 2>/dev/null || { wait "$pid" || true; pid=; fail "$log" "$v round $round: teks_stress died on its own"; }
    kill -9 "$pid"
    wait "$pid" 2>/dev/null || true
    pid=
    printf '[crash_test] %-15s round %3d  %-62s killed after %4.1f s (%3d s left)\n' \
      "$v" "$round" "$describe" "$((wait_tenths / 10)).$((wait_tenths % 10))" \
      "$((per_variant - (SECONDS - started) > 0 ? per_variant - (SECONDS - started) : 0))"
  done
  # The last crash verified, a short clean run, then a final verification.
  log=$dir/$v/final.log
  draw_options "$v" $((round + 1))
  "$binary" --db="$db" --duration=2 --progress_interval=5 "${opts[@]}" >"$log" 2>&1 ||
    fail "$log" "$v: verification after the last kill, or the clean run"
  crashes=$((crashes + 1))
  p=$(sed -nE 's/.*prepared txns: ([0-9]+) committed ([0-9]+) rolled back.*/\1 \2/p' "$log" | head -n 1)
  prepared=$((prepared + ${p% *} + ${p#* }))
  l=$(sed -nE 's/.* ([0-9]+) unpromised writes lost.*/\1/p' "$log" | head -n 1)
  lost=$((lost + l))
  "$binary" --db="$db" --duration=0 "${opts[@]}" >"$log.verify" 2>&1 ||
    fail "$log.verify" "$v: verification after a clean close"
  ops=$(total_of "$log.verify" operations)
  verified=$(total_of "$log.verify" "keys verified")
  summary+=("$(printf '%-15s %6d %10d %14d %16d %12d %8d' "$v" "$round" "$crashes" "$ops" \
    "$verified" "$prepared" "$lost")")
  all_ops=$((all_ops + ops))
  all_crashes=$((all_crashes + crashes))
  all_keys=$((all_keys + verified))
  all_prepared=$((all_prepared + prepared))
done

echo
printf '%-15s %6s %10s %14s %16s %12s %8s\n' variant rounds "crashes" operations \
  "keys verified" "prepared" "lost*"
printf '%s\n' "${summary[@]}"
printf '%-15s %6s %10d %14d %16d %12d\n' total "" "$all_crashes" "$all_ops" "$all_keys" "$all_prepared"
echo "(crashes: SIGKILLs survived and verified; prepared: transactions found prepared after a"
echo " kill and resolved; lost*: acknowledged writes lost where the options allowed it)"
echo "crash_test: PASSED (seed $seed)"
if ((owns_dir && !keep)); then rm -rf "$dir"; fi
