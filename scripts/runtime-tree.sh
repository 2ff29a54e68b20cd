#!/usr/bin/env sh
# Copies what the built gateway needs at run time, and nothing else, into DEST: package.json (the
# gateway finds its root by it), the lockfile, node_modules (run `npm prune --omit=dev` first),
# dist/ (with the web console in dist/console), the two bundled contracts and the sample catalogue. The Dockerfile's runtime stage is
# exactly this tree, and CI (scripts/ci-production.sh) serves from it, so a file missing here
# fails CI before it fails an image.
set -eu
dest=${1:?usage: scripts/runtime-tree.sh DEST}
cd "$(dirname "$0")/.."
[ -f dist/src/main.js ] || { echo "runtime-tree: no dist/src/main.js; run npm run build first" >&2; exit 1; }
[ -f dist/console/index.html ] || { echo "runtime-tree: no dist/console/index.html (the web console); run npm run build first" >&2; exit 1; }
if [ -d node_modules/typescript ]; then
  echo "runtime-tree: node_modules still has dev dependencies; run npm prune --omit=dev first" >&2
  exit 1
fi
mkdir -p "$dest/generated" "$dest/scripts"
cp package.json package-lock.json catalogue.sample.yaml "$dest/"
cp scripts/admin.js "$dest/scripts/" # npm run admin runs the built CLI where tsx is not installed
cp generated/openapi.json generated/admin.json "$dest/generated/"
cp -R dist node_modules "$dest/"
rm -f "$dest/dist/.tsbuildinfo"
