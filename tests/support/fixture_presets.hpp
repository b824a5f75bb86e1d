// Presets the mechanism tests generate from. They are copies of builtins as they were when the
// tests were written (`hills_4m` is the `default` preset before the realism retune: 4 m cells,
// graph only), so that retuning a builtin preset for its landscape never changes what a streamer,
// allocation or CLI mechanism test exercises.
#pragma once

namespace terrane::test {

inline constexpr const char* kHills4mPreset = R"json(
{
  "name": "hills_4m",
  "description": "Continents and rolling hills: broad low-frequency landmasses with coasts, hills where the land rises.",
  "seed": 1337,
  "world": {
    "cell_size_m": 4.0,
    "height_min_m": -600.0,
    "height_max_m": 1400.0,
    "sea_level_m": 0.0,
    "size": 1025
  },
  "graph": {
    "output": "terrain",
    "nodes": {
      "continents": {
        "type": "fbm", "noise": "opensimplex2", "frequency": 0.0004, "octaves": 5,
        "comment": "landmass shape, 2.5 km features"
      },
      "continent_shape": {
        "type": "curve", "input": "continents",
        "points": [[-1.0, -1.0], [-0.3, -0.55], [0.0, -0.35], [0.15, -0.2], [0.5, 0.1], [1.0, 0.4]],
        "comment": "deep seas, a shelf near the coast, gently rising inland"
      },
      "hills": {
        "type": "fbm", "noise": "opensimplex2s", "frequency": 0.003, "octaves": 5, "gain": 0.5
      },
      "hill_mask": {
        "type": "remap", "input": "continents", "from": [0.0, 0.45], "to": [0.0, 1.0], "clamp": true
      },
      "hill_height": { "type": "mul", "inputs": ["hills", "hill_mask", 0.45] },
      "terrain": { "type": "add", "a": "continent_shape", "b": "hill_height" }
    }
  }
}
)json";

}  // namespace terrane::test
