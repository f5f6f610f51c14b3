#!/usr/bin/env bash
# tools/teks_db_bench speaks db_bench's flags and result lines, sees the same
# data with and without the TeksDB layer (also with many versions per key,
# which the layer drops), reads only the newest writes in readrecent, reads
# beside a writer (rate-limited, too), and refuses bad input by name.
#
# Usage: tests/tools/teks_db_bench_test.sh PATH/TO/teks_db_bench
set -euo pipefail

bench=${1:?usage: $0 PATH/TO/teks_db_bench}
source "$(dirname "$0")/../support/script_checks.sh" teks_db_bench_tool

# run NAME FLAGS...: runs the tool in a fresh DB; output in $tmp/NAME.out.
run() {
  local name=$1
  shift
  "$bench" --db="$tmp/$name.db" --compression_type=none --seed=7 "$@" \
    >"$tmp/$name.out" 2>"$tmp/$name.err"
}
result() { grep -E "^$2 +: +[0-9.]+ micros/op [0-9]+ ops/sec [0-9.]+ seconds [0-9]+ operations;" "$tmp/$1.out"; }
operations() { result "$1" "$2" | sed -E 's/.* ([0-9]+) operations;.*/\1/'; }
found() { result "$1" "$2" | sed -nE 's/.*\(([0-9]+) of ([0-9]+) found\).*/\1 of \2/p'; }
property() { sed -n "s/^rocksdb\.$2: //p" "$tmp/$1.out"; }

all=fillrandom,memstats,readrandom,readseq,seekrandom
common=(--num=2000 --value_size=64 --seek_nexts=10 --threads=2 --benchmarks=$all)

# --- db_bench's lines, same data with and without the layer ----------------------
if run layer "${common[@]}" && run plain "${common[@]}" --teksdb_layer=false; then
  pass "both runs exit 0"
  expect_eq "layer: Memtablerep line" "$(sed -n 's/^Memtablerep: //p' "$tmp/layer.out")" TeksTableFactory
  expect_eq "layer: layer line" "$(sed -n 's/^TeksDB layer: //p' "$tmp/layer.out")" on
  expect_eq "plain: layer line" "$(sed -n 's/^TeksDB layer: //p' "$tmp/plain.out")" off
  expect_eq "a DB path line per benchmark" "$(grep -c '^DB path: \[' "$tmp/layer.out")" 4
  for b in fillrandom readrandom seekrandom; do
    expect_eq "layer: $b operations (2 threads x 2000)" "$(operations layer $b)" 4000
  done
  # Each of the 2 threads scans every key.
  keys=$(($(operations plain readseq) / 2))
  if ((keys > 1000 && keys <= 2000)); then pass "readseq sees $keys distinct keys"; else fail "readseq saw '$keys' keys"; fi
  expect_eq "readseq: same keys with the layer" "$(operations layer readseq)" "$((2 * keys))"
  expect_eq "readrandom: same hits with the layer" "$(found layer readrandom)" "$(found plain readrandom)"
  expect_eq "seekrandom: same hits with the layer" "$(found layer seekrandom)" "$(found plain seekrandom)"
  expect_eq "memstats: entries without the layer" "$(property plain num-entries-active-mem-table)" 4000
  bytes=$(property layer cur-size-all-mem-tables)
  if [[ $bytes =~ ^[0-9]+$ ]] && ((bytes > 0)); then pass "memstats: memtable bytes ($bytes)"; else fail "memtable bytes '$bytes'"; fi
else
  fail "a run failed: $(cat "$tmp"/layer.err "$tmp"/plain.err 2>/dev/null | tr '\r' '\n' | tail -n 5)"
fi

# --- versions: the layer drops what no reader needs, the plain factory keeps all ---
versions=(--num=100 --writes=5000 --value_size=16 --threads=1 --benchmarks=fillrandom,readrandom,readseq)
if run versions_layer "${versions[@]}" && run versions_plain "${versions[@]}" --teksdb_layer=false; then
  expect_eq "versions: readseq keys (layer = plain)" \
    "$(operations versions_layer readseq)" "$(operations versions_plain readseq)"
  expect_eq "versions: readrandom hits (layer = plain)" \
    "$(found versions_layer readrandom)" "$(found versions_plain readrandom)"
else
  fail "a versions run failed: $(tr '\r' '\n' <"$tmp/versions_layer.err" | tail -n 5)"
fi

# --- readrecent: only keys the fill wrote last, so every get finds its key ----------
# (readrandom over the same 20000 key numbers finds only the ~2000 written.)
recent=(--num=20000 --writes=2000 --value_size=16 --threads=2 --recent_keys=500
        --benchmarks=fillrandom,readrecent,readrandom)
if run recent "${recent[@]}" --teksdb_layer=false; then
  expect_eq "readrecent: every key found" "$(found recent readrecent)" "20000 of 20000"
  hits=$(found recent readrandom | cut -d' ' -f1)
  if ((hits < 20000 / 2)); then pass "readrandom misses most keys ($hits of 20000 found)"
  else fail "readrandom found $hits of 20000: the check above proves nothing"; fi
else
  fail "the readrecent run failed: $(tr '\r' '\n' <"$tmp/recent.err" | tail -n 5)"
fi

# --- reads beside a writer, and the read-write mix ---------------------------------
# Two threads' fill of 3000 random keys each writes ~86% of the 3000 keys,
# so the readers beside the writer find most of the keys they look for.
beside=(--num=3000 --value_size=32 --seek_nexts=5 --threads=2 --readwritepercent=50
        --benchmarks=fillrandom,readrandom,readwhilewriting,seekrandomwhilewriting,readrandomwriterandom)
if run beside "${beside[@]}" && run beside_limited "${beside[@]}" --benchmark_write_rate_limit=1000000 \
  --disable_wal=true; then
  for b in readwhilewriting seekrandomwhilewriting readrandomwriterandom; do
    expect_eq "$b: operations (2 threads x 3000)" "$(operations beside $b)" 6000
    expect_eq "$b, writes limited: operations" "$(operations beside_limited $b)" 6000
  done
  for b in readwhilewriting seekrandomwhilewriting; do
    hits=$(found beside $b | cut -d' ' -f1)
    if ((hits > 1500)); then pass "$b finds most keys ($hits of 3000)"; else fail "$b found '$hits' of 3000"; fi
  done
  # 3000 x 32-byte fill writes at 1 MB/s take at least ~0.1 s.
  fill_seconds=$(result beside_limited fillrandom | sed -E 's/.* ([0-9.]+) seconds.*/\1/')
  if awk -v s="$fill_seconds" 'BEGIN { exit !(s >= 0.08) }'; then
    pass "the write rate limit holds the fill back (${fill_seconds} s)"
  else
    fail "a fill limited to 1 MB/s took ${fill_seconds} s"
  fi
else
  fail "a run beside a writer failed: $(cat "$tmp"/beside*.err | tr '\r' '\n' | tail -n 5)"
fi

# --- bad input: an error naming it, non-zero exit ---------------------------------
# refuse NAME WORD FLAGS...: the run must fail and say WORD.
refuse() {
  local name=$1 word=$2
  shift 2
  if run "$name" "$@"; then
    fail "$name: accepted"
  elif grep -q -- "$word" "$tmp/$name.err"; then
    pass "$name: refused, naming '$word'"
  else
    fail "$name: error does not name '$word': $(cat "$tmp/$name.err")"
  fi
}
refuse bad_benchmark nosuchbench --benchmarks=fillrandom,nosuchbench
refuse stock_rep_under_layer skip_list --memtablerep=skip_list
refuse unknown_rep nosuchrep --memtablerep=nosuchrep --teksdb_layer=false
refuse bad_compression lzma9 --compression_type=lzma9
refuse bad_num "num must be positive" --num=0
refuse stray_argument stray stray
refuse readrecent_without_fill "needs a fill" --benchmarks=readrecent
refuse no_recent_keys recent_keys --recent_keys=0 --benchmarks=fillrandom,readrecent
refuse bad_read_write_percent readwritepercent --readwritepercent=101
refuse bad_write_rate benchmark_write_rate_limit --benchmark_write_rate_limit=-1

finish
