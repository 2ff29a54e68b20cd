#!/usr/bin/env bash
# Installs the pinned Gemini CLI for test/e2e/gemini-cli.test.ts into test/e2e/gemini-cli/node_modules
# when it is missing or of another version (its own lock file keeps its optional native packages
# out of the project's). Idempotent and quick when present; `npm test` runs it first (pretest).
set -euo pipefail
cd "$(dirname "$0")/../test/e2e/gemini-cli"
want=$(node -p "require('./package.json').dependencies['@google/gemini-cli']")
have=$(node -p "try { require('./node_modules/@google/gemini-cli/package.json').version } catch { '' }")
if [ "$have" != "$want" ] || [ ! -e node_modules/.bin/gemini ]; then
  echo "installing @google/gemini-cli $want for the Gemini CLI end-to-end test" >&2
  npm ci --no-audit --no-fund --loglevel=error >&2
fi
