# Sourced by the shell tests: a scratch directory and counted checks.
#
#   source "$(dirname "$0")/script_checks.sh" NAME
#   pass "what held"; fail "what did not"; expect_eq "what" ACTUAL EXPECTED
#   finish   # prints the count, exits non-zero if a check failed
#
# Sets $tmp to a fresh directory (removed on exit) named after NAME.
tmp=$(mktemp -d "${TMPDIR:-/tmp}/teksdb-$1.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
script_name=$1
failures=0
checks=0
pass() { checks=$((checks + 1)); echo "ok: $*"; }
fail() { checks=$((checks + 1)); failures=$((failures + 1)); echo "FAIL: $*"; }
expect_eq() { if [[ "$2" == "$3" ]]; then pass "$1 ($2)"; else fail "$1: '$2' != '$3'"; fi; }
finish() {
  echo "$script_name: $((checks - failures)) of $checks checks passed"
  ((failures == 0))
}
