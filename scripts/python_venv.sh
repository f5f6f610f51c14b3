#!/usr/bin/env bash
# Prints the python of a venv at VENV in which MODULE imports, making the
# venv and installing SPEC (a pip requirement, from PyPI) on first use.
# Used for matplotlib (the benchmark plots) and redis-py (a client test).
# Fails, saying so, when PyPI cannot be reached.
# Usage: scripts/python_venv.sh VENV MODULE SPEC
set -euo pipefail
venv=$1 module=$2 spec=$3
ready() { "$venv/bin/python" -c "import $module" 2>/dev/null; }
if ! ready; then
  # Tests run at once may ask for the same venv: one makes it, under a
  # lock on the folder it goes in, and the others then find it made.
  parent=$(dirname "$venv")
  mkdir -p "$parent"
  exec 9<"$parent"
  flock 9
  if ! ready; then
    echo "[python_venv] installing $spec (PyPI) into $venv" >&2
    python3 -m venv "$venv" >&2
    "$venv/bin/pip" install -q "$spec" >&2 ||
      { echo "python_venv.sh: could not install $spec into $venv (no network?)" >&2; exit 1; }
  fi
  exec 9<&-
fi
echo "$venv/bin/python"
