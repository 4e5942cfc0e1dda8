#!/usr/bin/env bash
# The named .wasm (function names kept) of one cargo output, for bench/fn-sizes.mjs: the same
# wasm-bindgen and wasm-opt steps as scripts/build, with -g instead of --strip-debug. scripts/build
# leaves the cargo outputs of both modules in target/glue/ (context_compaction.wasm, and
# context_compaction_plan.wasm for the plan-only one).
#   bench/named-wasm.sh <cargo output .wasm> <out .wasm>
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
glue=$(mktemp -d)
name=$(basename "$1" .wasm)
cp "$1" "$glue/$name.wasm"
wasm-bindgen --target bundler --no-typescript --out-dir "$glue/out" "$glue/$name.wasm"
(cd "$root" && node scripts/short-imports.mjs "$glue/out/${name}_bg.wasm" "$glue/out/${name}_bg.js")
"$root/node_modules/.bin/wasm-opt" -Oz --converge -ocimfs 20 -g --strip-producers --strip-target-features \
  --enable-simd --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
  --enable-reference-types --enable-multivalue --enable-mutable-globals --flatten --rereloop -Oz -Oz \
  "$glue/out/${name}_bg.wasm" -o "$2"
rm -rf "$glue"
