#!/usr/bin/env bash
# Exports sample GLBs with the CLI (whole map; 2 x 2 simplified tiles at lod 1; a map large enough
# for 32-bit indices; a block world from --mode voxel) and checks them with the Khronos glTF
# validator: zero errors and zero warnings. The validator's version is pinned by
# scripts/gltf-validator/package-lock.json and
# installed there (git-ignored node_modules), not globally.
# Usage: scripts/validate_gltf.sh [BUILD_DIR]   (default build/release)
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build/release}"
terrane="$build/bin/terrane"
[ -x "$terrane" ] || { echo "validate_gltf: $terrane not built" >&2; exit 2; }

validator_dir=scripts/gltf-validator
if [ ! -d "$validator_dir/node_modules/gltf-validator" ]; then
  (cd "$validator_dir" && npm ci --no-audit --no-fund --loglevel=error)
fi

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
"$terrane" generate default --size 129 --formats glb -o "$out/whole" -q >/dev/null
"$terrane" generate default --size 257 --formats glb --lod 1 --tiles 2 --simplify-error 1 \
  -o "$out/tiles" -q >/dev/null
"$terrane" generate default --size 300 --formats glb -o "$out/wide" -q >/dev/null
# A block world (--mode voxel): greedy block meshes with AO vertex colours, an opaque node and a
# translucent (water, leaves) node with an alpha-blended material.
"$terrane" generate default --mode voxel --size 96 --formats glb -o "$out/blocks" -q >/dev/null
node "$validator_dir/validate.js" "$out"/whole/*.glb "$out"/tiles/*.glb "$out"/wide/*.glb \
  "$out"/blocks/*.glb
