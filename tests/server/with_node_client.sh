#!/usr/bin/env bash
# Runs a Node.js test with the npm packages of tests/server/node_client/package.json
# (ioredis), installed on first use into DIR (a build directory's, outside
# the source tree). Fails, saying so, when npm's registry cannot be reached.
# Usage: tests/server/with_node_client.sh DIR SCRIPT [ARGS...]
set -euo pipefail
dir=$1
shift
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
command -v node >/dev/null || { echo "with_node_client.sh: node not found (scripts/setup.sh installs it)" >&2; exit 1; }
if [[ ! -d $dir/node_modules/ioredis ]] || ! cmp -s "$here/node_client/package.json" "$dir/package.json"; then
  mkdir -p "$dir"
  cp "$here/node_client/package.json" "$dir/package.json"
  echo "[with_node_client] npm install (ioredis) into $dir" >&2
  (cd "$dir" && npm install --no-audit --no-fund --loglevel=error >&2) ||
    { echo "with_node_client.sh: npm install failed (no network?)" >&2; exit 1; }
fi
NODE_PATH="$dir/node_modules" exec node "$@"
