#!/usr/bin/env bash
# Prism mocks of the bundled contracts for QA: public API on MOCK_PORT (4010), admin on MOCK_ADMIN_PORT (4011).
set -euo pipefail
cd "$(dirname "$0")/.."
npx --no-install prism mock generated/admin.json -h 127.0.0.1 -p "${MOCK_ADMIN_PORT:-4011}" &
admin=$!
trap 'kill $admin 2>/dev/null || true' EXIT
npx --no-install prism mock generated/openapi.json -h 127.0.0.1 -p "${MOCK_PORT:-4010}"
