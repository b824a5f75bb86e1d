#!/usr/bin/env bash
# Renders every built-in preset in perspective (docs/images/<name>.png, 960x540) and prints its
# statistics line (full preset, and graph only) as Markdown table rows for README.md and
# docs/REALISM.md. Usage: scripts/preset_gallery.sh [build dir, default build/release]
set -euo pipefail
cd "$(dirname "$0")/.."
terrane="${1:-build/release}/bin/terrane"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p docs/images
row() {  # name, stats JSON
  /usr/bin/python3 - "$1" "$2" <<'PY'
import json, sys
n, d = sys.argv[1], json.loads(sys.argv[2])
f = lambda k, p=1: '–' if d.get(k) is None else f"{d[k]:.{p}f}"
print(f"| {n} | {d['cell_size_m']:g} m | {f('slope_p10_deg')} / {f('slope_p50_deg')} / {f('slope_p90_deg')} "
      f"| {f('slope_gt45', 3)} | {f('local_relief_1km_m', 0)} | {f('hypsometric_integral', 2)} | {f('beta', 2)} "
      f"| {f('drainage_density_km_per_km2', 2)} | {f('hack_h', 2)} | {f('depression_share_gt1m', 3)} |")
PY
}
echo "| preset | cell | slope p10 / p50 / p90 ° | > 45° | relief 1 km m | HI | β | Dd km/km² | Hack h | pits > 1 m |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for name in $("$terrane" presets | awk '{print $1}'); do
  "$terrane" generate "$name" --formats perspective --perspective-size 960x540 -q -o "$tmp/$name" >/dev/null
  cp "$tmp/$name/${name}_perspective.png" "docs/images/$name.png"
  row "$name" "$("$terrane" stats "$name" --json)"
  row "$name (graph only)" "$("$terrane" stats "$name" --json --graph-only)"
done
