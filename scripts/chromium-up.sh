#!/usr/bin/env bash
# Installs Chromium from Debian's packages when missing (the browser tests drive it headless) and
# prints the path of its binary. Idempotent.
set -euo pipefail
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" != 0 ]; then
    echo "Chromium is missing and installing it needs root: sudo apt-get install chromium (the browser tests drive it)" >&2
    exit 1
  fi
  echo "installing chromium" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >&2
  apt-get install -y -qq --no-install-recommends chromium >&2
fi
command -v chromium
