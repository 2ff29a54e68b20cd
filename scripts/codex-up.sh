#!/usr/bin/env bash
# Installs the pinned Codex CLI for test/e2e/codex.test.ts into test/e2e/codex/node_modules when it
# is missing or of another version (its own lock file keeps its per-platform binary out of the
# project's). Idempotent and quick when present; `npm test` runs it first (pretest).
set -euo pipefail
cd "$(dirname "$0")/../test/e2e/codex"
want=$(node -p "require('./package.json').dependencies['@openai/codex'] ?? require('./package.json').devDependencies['@openai/codex']")
have=$(node -p "try { require('./node_modules/@openai/codex/package.json').version } catch { '' }")
if [ "$have" != "$want" ] || [ ! -x node_modules/.bin/codex ]; then
  echo "installing @openai/codex $want for the Codex end-to-end test" >&2
  npm ci --no-audit --no-fund --loglevel=error >&2
fi
