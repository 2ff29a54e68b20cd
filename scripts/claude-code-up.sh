#!/usr/bin/env bash
# Installs the older Claude Code release that test/e2e/claude-code.test.ts runs beside the project's
# pinned one (a devDependency) into test/e2e/claude-code-older/node_modules when it is missing or
# of another version (its own lock file keeps its per-platform binary out of the project's).
# Idempotent and quick when present; `npm test` runs it first (pretest), as .ci/run does.
set -euo pipefail
cd "$(dirname "$0")/../test/e2e/claude-code-older"
want=$(node -p "require('./package.json').dependencies['@anthropic-ai/claude-code']")
have=$(node -p "try { require('./node_modules/@anthropic-ai/claude-code/package.json').version } catch { '' }")
if [ "$have" != "$want" ] || [ ! -x node_modules/.bin/claude ]; then
  echo "installing @anthropic-ai/claude-code $want for the Claude Code end-to-end test" >&2
  npm ci --no-audit --no-fund --loglevel=error >&2
fi
