#!/usr/bin/env bash
# Fails when generated/ (the working-tree files, committed or not) is not what openapi/ produces now.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
OUT_DIR="$tmp" bash scripts/generate.sh
stale=0
for f in openapi.json admin.json openapi.ts admin.ts; do
  if [ ! -f "generated/$f" ]; then
    echo "generated/$f is missing." >&2; stale=1
  elif ! cmp -s "$tmp/$f" "generated/$f"; then
    echo "generated/$f differs from what openapi/ produces:" >&2
    diff -u "generated/$f" "$tmp/$f" | head -n 30 >&2 || true
    stale=1
  fi
done
if [ "$stale" = 1 ]; then
  echo "generated/ is stale: run 'npm run generate' and commit the result." >&2
  exit 1
fi
echo "generated/ is up to date."
