#!/usr/bin/env bash
# A copy of a worktree's dist/ whose .wasm keeps its function names (the name section), for the
# profiles of bench/stages.mjs: the same cargo output scripts/build used, put through the same
# wasm-bindgen and wasm-opt steps with `-g` instead of `--strip-debug`. Run scripts/build in that
# worktree first. Knows the current package layout and the one before it (dist/node/, as at
# cd018f1).
#   bench/named-dist.sh <worktree> <out dir>
set -euo pipefail
tree=$(cd "$1" && pwd)
out=$2
name=context_compaction
# scripts/build keeps each module's cargo output in target/glue/ (the release .wasm is the
# plan-only module's, built last); trees from before the plan-only module have only that one.
wasm=$tree/target/glue/$name.wasm
[ -f "$wasm" ] || wasm=$tree/target/wasm32-unknown-unknown/release/$name.wasm
glue=$(mktemp -d)
features=(--enable-simd --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext
  --enable-reference-types --enable-multivalue --enable-mutable-globals)
rm -rf "$out"
cp -R "$tree/dist" "$out"
if [ -f "$tree/dist/node/${name}_bg.wasm" ]; then
  wasm-bindgen --target nodejs --no-typescript --out-dir "$glue" "$wasm"
  "$tree/node_modules/.bin/wasm-opt" -Oz --converge -g --strip-producers "${features[@]}" \
    "$glue/${name}_bg.wasm" -o "$out/node/${name}_bg.wasm"
else
  wasm-bindgen --target bundler --no-typescript --out-dir "$glue" "$wasm"
  (cd "$tree" && node scripts/short-imports.mjs "$glue/${name}_bg.wasm" "$glue/${name}_bg.js")
  "$tree/node_modules/.bin/esbuild" "$glue/${name}_bg.js" --minify --log-level=warning --outfile="$out/${name}_bg.js"
  "$tree/node_modules/.bin/wasm-opt" -Oz --converge -ocimfs 20 -g --strip-producers --strip-target-features \
    "${features[@]}" "$glue/${name}_bg.wasm" -o "$out/$name.wasm"
  (cd "$tree" && node scripts/inline-wasm.mjs "$out/$name.wasm" "$out/wasm-inline.js")
fi
rm -rf "$glue"
