#!/usr/bin/env bash
# Installs a CLI an end-to-end test runs, pinned in its own folder under test/e2e/ (its own
# package.json and lock file keep its per-platform binary packages out of the project's lock
# file), when it is missing or of another version. Idempotent and quick when present.
#   bash scripts/pinned-cli-up.sh <folder under test/e2e> <npm package> <bin>
set -euo pipefail
folder=$1 package=$2 bin=$3
cd "$(dirname "$0")/../test/e2e/$folder"
want=$(node -p "require('./package.json').dependencies['$package']")
have=$(node -p "try { require('./node_modules/$package/package.json').version } catch { '' }")
if [ "$have" != "$want" ] || [ ! -x "node_modules/.bin/$bin" ]; then
  echo "installing $package $want for test/e2e ($folder)" >&2
  npm ci --no-audit --no-fund --loglevel=error >&2
fi
