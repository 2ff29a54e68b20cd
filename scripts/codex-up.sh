#!/usr/bin/env bash
# Installs the pinned Codex CLI for test/e2e/codex.test.ts into test/e2e/codex when it is missing or
# of another version; `npm test` runs it first (pretest).
exec bash "$(dirname "$0")/pinned-cli-up.sh" codex @openai/codex codex
