#!/usr/bin/env bash
# Installs the pinned Gemini CLI for test/e2e/gemini-cli.test.ts into test/e2e/gemini-cli when it is
# missing or of another version; `npm test` runs it first (pretest).
exec bash "$(dirname "$0")/pinned-cli-up.sh" gemini-cli @google/gemini-cli gemini
