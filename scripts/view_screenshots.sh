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
run default --blocks --camera 60,0,250 --above-ground 40 --look 60,-30 \
  --screenshot docs/images/view_blocks_lake.png
# The navmesh overlay (--nav): a path, a crowd after 2 s of walking; a second agent's navmesh.
nav=(default --nav --camera -390,0,-260 --above-ground 110 --look 20,-45
  --nav-path -440,-200,-320,-170 --hide scatter)
run "${nav[@]}" --nav-crowd 12 --preload --frames 60 --screenshot docs/images/view_nav.png
run "${nav[@]}" --nav-agent name=walker --nav-agent name=cart,radius=1,slope=30 --nav-show 1 \
  --screenshot docs/images/view_nav_cart.png
# The window with its panel (interactive mode, closed after 240 frames).
xvfb-run -a -s '-screen 0 1280x1024x24' "$view" alpine --size 1280x720 --frames 240 \
  --screenshot docs/images/view_panel.png > /dev/null 2>&1
echo "wrote docs/images/view_*.png" >&2
