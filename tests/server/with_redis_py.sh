#!/usr/bin/env bash
# Runs a Python test with redis-py (PyPI's `redis`) available, from a venv
# at VENV made on first use (scripts/python_venv.sh).
# Usage: tests/server/with_redis_py.sh VENV SCRIPT [ARGS...]
set -euo pipefail
venv=$1
shift
python=$(bash "$(dirname "${BASH_SOURCE[0]}")/../../scripts/python_venv.sh" "$venv" redis 'redis>=4.5')
exec "$python" "$@"
