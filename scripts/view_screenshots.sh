#!/usr/bin/env bash
# Renders the README's pictures of terrane-view: each built-in preset from the default camera,
# and the overlays over `default` (docs/images/view_*.png). Needs a built terrane-view
# (build/release) and xvfb-run (scripts/bootstrap.sh installs it).
set -euo pipefail
cd "$(dirname "$0")/.."
view=build/release/bin/terrane-view
run() { xvfb-run -a -s '-screen 0 1280x1024x24' "$view" "$@" --offscreen --size 960x540 > /dev/null; }
for p in default alpine islands dunes canyons ranges; do
  run "$p" --look 35,-22 --screenshot "docs/images/view_$p.png"
done
for overlay in lod borders slope layers biomes; do
  run default --cells 32 --view 8000 --camera 0,0,0 --above-ground 600 --look 35,-25 \
    --overlay "$overlay" --hide scatter --screenshot "docs/images/view_overlay_$overlay.png"
done
run default --camera 0,0,0 --above-ground 600 --look 35,-25 --grow 0.5 \
  --screenshot docs/images/view_grow.png
# The window with its panel (interactive mode, closed after 240 frames).
xvfb-run -a -s '-screen 0 1280x1024x24' "$view" alpine --size 1280x720 --frames 240 \
  --screenshot docs/images/view_panel.png > /dev/null 2>&1
echo "wrote docs/images/view_*.png" >&2
