#!/usr/bin/env bash
# Fails when generated/ is not what openapi/ produces now.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
OUT_DIR="$tmp" bash scripts/generate.sh
if ! diff -r -q "$tmp" generated >/dev/null; then
  diff -r -u generated "$tmp" | head -40 >&2 || true
  echo "generated/ is stale: run 'npm run generate' and commit the result." >&2
  exit 1
fi
echo "generated/ is up to date."
