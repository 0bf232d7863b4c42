#!/usr/bin/env bash
# Rebuilds three.min.js and LICENSE from the npm registry. Run it by hand to update three.js;
# the build and CI never run it (the result is committed).
#
# three.js no longer ships a minified single-file build (three.module.js imports three.core.js),
# so esbuild bundles the package into one minified script that defines a global `THREE`: one
# classic <script> the viewer page can inline and that works when opened straight from a file.
set -euo pipefail
THREE_VERSION=0.187.0
ESBUILD_VERSION=0.28.2

here="$(cd "$(dirname "$0")" && pwd)"
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
cd "$scratch"
npm init -y >/dev/null
npm install --no-audit --no-fund --save-exact "three@$THREE_VERSION" "esbuild@$ESBUILD_VERSION" >/dev/null
echo "export * from 'three';" >entry.js
./node_modules/.bin/esbuild entry.js --bundle --minify --format=iife --global-name=THREE \
    --legal-comments=eof --target=es2020 --outfile=three.min.js
cp three.min.js "$here/three.min.js"
cp node_modules/three/LICENSE "$here/LICENSE"
echo "three.js $THREE_VERSION bundled into $here/three.min.js ($(wc -c <three.min.js) bytes)"
