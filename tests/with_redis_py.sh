#!/usr/bin/env bash
# Runs a Python test with redis-py (PyPI's `redis`) available: a venv at
# VENV is made on first use and reused after.
# Usage: tests/with_redis_py.sh VENV SCRIPT [ARGS...]
set -euo pipefail
venv=$1
shift
if ! "$venv/bin/python" -c 'import redis' 2>/dev/null; then
  echo "with_redis_py.sh: installing redis-py (PyPI) into $venv" >&2
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q 'redis>=4.5' ||
    { echo "with_redis_py.sh: could not install redis-py into $venv (no network?)" >&2; exit 1; }
fi
exec "$venv/bin/python" "$@"
