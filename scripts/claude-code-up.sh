#!/usr/bin/env bash
# Installs the older Claude Code release that test/e2e/claude-code.test.ts runs beside the project's
# pinned one (a devDependency) into test/e2e/claude-code-older; `npm test` runs it first (pretest).
exec bash "$(dirname "$0")/pinned-cli-up.sh" claude-code-older @anthropic-ai/claude-code claude
