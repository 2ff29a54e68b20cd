#!/usr/bin/env bash
# The image as CI builds and runs it (no Docker daemon here: podman, with stand-in base images made
# by ../shared/scripts/container-up.sh from Debian's packages and the npm registry's node binary).
# Builds the Dockerfile, runs the image against PostgreSQL (DATABASE_URL, on the host network) with
# the sandbox on, and checks what a container user relies on: readiness, a sandbox call with the
# demo key, the admin CLI inside the container, a non-root user, and `podman stop` (SIGTERM)
# draining to exit code 0. Usage: scripts/ci-container.sh DATABASE_URL
set -euo pipefail
database_url=${1:?usage: scripts/ci-container.sh DATABASE_URL}
repo=$(cd "$(dirname "$0")/.." && pwd)
cd "$repo"
step() { echo "-- container: $*"; }
started=$(date +%s)
image=ai-gateway:ci
name=ai-gateway-ci-$$

container_up=${CONTAINER_UP:-$repo/../shared/scripts/container-up.sh}
[ -f "$container_up" ] || { echo "container: $container_up not found (shared/ beside the repository)" >&2; exit 1; }
step "podman and the stand-in base image (node 22)"
bash "$container_up" --node-tag 22 >&2

step "podman build --format docker"
# The machine's CA bundle during the build, so npm inside it reaches the registry the way the
# machine does (the stand-in base image has no ca-certificates package to hold it).
podman build --format docker --network host --volume /etc/ssl/certs:/etc/ssl/certs:ro -t "$image" . >&2

cleanup() { podman rm -f "$name" >/dev/null 2>&1 || true; }
trap cleanup EXIT
port=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
token=adm_ci_container_token
step "podman run against PostgreSQL on :$port"
podman run -d --name "$name" --network host --init \
  -e PORT="$port" -e HOST=127.0.0.1 -e DATABASE_URL="$database_url" -e ADMIN_TOKEN="$token" -e SANDBOX=true -e VIDEO_POLLER=false \
  "$image" >/dev/null
url=http://127.0.0.1:$port
for _ in $(seq 1 120); do
  curl -fsS "$url/readyz" >/dev/null 2>&1 && break
  [ "$(podman inspect -f '{{.State.Running}}' "$name")" = true ] || { podman logs "$name" >&2; echo "the container exited before it was ready" >&2; exit 1; }
  sleep 0.5
done
curl -fsS "$url/readyz"; echo

step "the image serves the web console"
page=$(curl -fsS "$url/console/")
grep -q 'assets/console-' <<<"$page" || { echo "the image does not serve the console" >&2; exit 1; }

step "the process runs as the image's non-root user"
user=$(podman exec "$name" id -un)
[ "$user" = node ] || { echo "the gateway runs as $user, not node" >&2; exit 1; }

step "a sandbox call with a key made by the admin CLI inside the container"
customer=$(podman exec -e ADMIN_TOKEN="$token" -e PORT="$port" -e HOST=127.0.0.1 "$name" npm run -s admin -- customers create --name "CI container")
customer_id=$(node -e 'console.log(JSON.parse(process.argv[1]).id)' "$customer")
podman exec -e ADMIN_TOKEN="$token" -e PORT="$port" -e HOST=127.0.0.1 "$name" npm run -s admin -- credits add "$customer_id" --amount 1.00 --reference ci >/dev/null
created=$(podman exec -e ADMIN_TOKEN="$token" -e PORT="$port" -e HOST=127.0.0.1 "$name" npm run -s admin -- keys create "$customer_id")
key=$(node -e 'console.log(JSON.parse(process.argv[1]).key)' "$created")
answer=$(curl -fsS "$url/v1/messages" -H "x-api-key: $key" -H 'content-type: application/json' \
  -d '{"model":"sandbox/claude-haiku","max_tokens":32,"messages":[{"role":"user","content":"Hello"}]}')
grep -q '"type":"message"' <<<"$answer" || { podman logs "$name" >&2; echo "the sandbox call failed: $answer" >&2; exit 1; }

step "podman stop: SIGTERM drains, exit 0"
podman stop -t 40 "$name" >/dev/null
code=$(podman inspect -f '{{.State.ExitCode}}' "$name")
[ "$code" = 0 ] || { podman logs "$name" >&2; echo "the container exited with $code after podman stop" >&2; exit 1; }
podman logs "$name" 2>&1 | grep -q '"msg":"gateway stopped"' || { podman logs "$name" >&2; echo "no clean stop in the log" >&2; exit 1; }
step "ok in $(($(date +%s) - started)) s"
