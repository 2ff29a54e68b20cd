#!/usr/bin/env bash
# The production path on a fresh copy of the repository (what is committed or about to be, without
# node_modules, dist or data): npm ci, build, `npm prune --omit=dev`, then the runtime tree the
# Docker image holds (scripts/runtime-tree.sh), served with `npm run serve` on a free port with the
# sandbox and the embedded database. /healthz, /readyz, /metrics and a first request must answer;
# SIGTERM to npm must drain and exit 0 with the port released.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
server=
cleanup() {
  if [ -n "$server" ] && kill -0 "$server" 2>/dev/null; then kill -KILL "$server" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
step() { echo "-- production path: $*"; }

step "copy of the repository in $work/app"
mkdir -p "$work/app"
(cd "$repo" && git ls-files -z --cached --others --exclude-standard | tar --null -T - -cf -) | tar -xf - -C "$work/app"
cd "$work/app"

step "npm ci, build, prune to production dependencies"
npm ci --no-audit --no-fund --loglevel=error
npm run -s build
npm prune --omit=dev --no-audit --no-fund --loglevel=error
sh scripts/runtime-tree.sh "$work/runtime"
for dev in typescript tsx mocha; do
  if [ -e "$work/runtime/node_modules/$dev" ]; then echo "the runtime tree holds the dev dependency $dev" >&2; exit 1; fi
done

step "npm run serve from the runtime tree"
cd "$work/runtime"
port=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
token=adm_ci_production_token
PORT=$port HOST=127.0.0.1 SANDBOX=true DATA_DIR="$work/data" ADMIN_TOKEN=$token LOG_LEVEL=info VIDEO_POLLER=false \
  npm run -s serve >"$work/serve.log" 2>&1 &
server=$!
url=http://127.0.0.1:$port
for _ in $(seq 1 120); do
  curl -fsS "$url/healthz" >/dev/null 2>&1 && break
  if ! kill -0 "$server" 2>/dev/null; then cat "$work/serve.log" >&2; echo "the gateway exited before answering" >&2; exit 1; fi
  sleep 0.5
done
curl -fsS "$url/healthz"; echo
curl -fsS "$url/readyz"; echo
# Read whole before matching: `curl | grep -q` fails under pipefail when grep stops reading first.
metrics=$(curl -fsS -H "authorization: Bearer $token" "$url/metrics")
grep -q '^gateway_build_info{' <<<"$metrics" || { echo "/metrics did not answer" >&2; exit 1; }
# The web console's built files are in the runtime tree: the page and the script it names answer.
page=$(curl -fsS "$url/console/")
script=$(grep -o -m 1 'assets/console-[A-Za-z0-9]*\.js' <<<"$page")
[ -n "$script" ] && curl -fsS -o /dev/null "$url/console/$script" || { echo "the console is not served from the runtime tree" >&2; exit 1; }
grep -q "^Console: $url/console/" "$work/serve.log" || { cat "$work/serve.log" >&2; echo "the banner does not name the console" >&2; exit 1; }
key=$(grep -o 'sk-gw-[A-Za-z0-9]*' "$work/serve.log" | head -n 1)
answer=$(curl -fsS "$url/v1/messages" -H "x-api-key: $key" -H 'content-type: application/json' \
  -d '{"model":"sandbox/claude-haiku","max_tokens":32,"messages":[{"role":"user","content":"Hello"}]}') || answer=
grep -q '"type":"message"' <<<"$answer" || { cat "$work/serve.log" >&2; echo "the first request failed" >&2; exit 1; }

step "npm run admin from the runtime tree (the built CLI; no tsx), finding the gateway by PORT and HOST"
reconciled=$(PORT=$port HOST=0.0.0.0 ADMIN_TOKEN=$token npm run -s admin -- ledger reconcile) || { echo "npm run admin failed" >&2; exit 1; }
grep -q '"ok": true' <<<"$reconciled" || { echo "npm run admin: $reconciled" >&2; exit 1; }

step "SIGTERM to npm: drain, exit 0, port released"
kill -TERM "$server"
code=0
wait "$server" || code=$?
server=
if [ "$code" != 0 ]; then cat "$work/serve.log" >&2; echo "npm run serve exited with $code after SIGTERM" >&2; exit 1; fi
grep -q '"msg":"gateway stopped"' "$work/serve.log" || { cat "$work/serve.log" >&2; echo "no clean stop in the log" >&2; exit 1; }
if curl -fsS "$url/healthz" >/dev/null 2>&1; then echo "something still answers on port $port" >&2; exit 1; fi
step "ok"
