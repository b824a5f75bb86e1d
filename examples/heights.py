"""Heights of a region as a NumPy array, and a query (python/README.md).

Run from a build tree:  PYTHONPATH=build/release/python /usr/bin/python3 examples/heights.py
"""

import terrane

preset = terrane.load_preset("alpine", seed=7)
print(f"terrane {terrane.version()}: preset {preset.name!r}, seed {preset.seed}, "
      f"cell {preset.cell_size_m} m")

# 256 x 128 samples from (x, z) = (-512, 0) at 2 m: a float32 array of shape (128, 256),
# written in place by terrane (row j is z = 0 + 2 j, column i is x = -512 + 2 i).
h = terrane.heights(preset, x0=-512.0, z0=0.0, width=256, height=128, cell=2.0)
print(f"heights {h.shape} {h.dtype}: min {h.min():.2f} m, max {h.max():.2f} m, "
      f"mean {h.mean():.2f} m")

# A query answers on the level-0 surface: the triangles of the world's lattice (cell_size_m),
# so between lattice points it differs a little from the 2 m grid above.
query = terrane.Query(preset)
x, z = -256.0, 64.0
print(f"height at ({x}, {z}): {query.height(x, z):.2f} m (2 m grid: {h[32, 128]:.2f} m), "
      f"normal {tuple(round(c, 3) for c in query.normal(x, z))}")
hit = query.raycast(origin=(x, 5000.0, z), direction=(0.0, -1.0, 0.0), max_distance=10000.0)
print(f"a ray straight down from 5000 m hits at y = {hit.point[1]:.2f} m" if hit else "no hit")
