#!/usr/bin/env bash
# Prism mocks of the bundled contracts for QA: the public API on MOCK_PORT (default 4010) and the
# admin API on MOCK_ADMIN_PORT (default 4011; MOCK_ADMIN_PORT=off skips it). Prism answers with the
# first example of the first 2xx response; `Prefer: code=404` or `Prefer: example=<name>` picks
# another. The admin mock runs in the background in the same process group as the public one, so
# Ctrl-C (or killing the group) stops both.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${MOCK_ADMIN_PORT:-4011}" != off ]; then
  npx --no-install prism mock generated/admin.json -h 127.0.0.1 -p "${MOCK_ADMIN_PORT:-4011}" &
fi
exec npx --no-install prism mock generated/openapi.json -h 127.0.0.1 -p "${MOCK_PORT:-4010}"
