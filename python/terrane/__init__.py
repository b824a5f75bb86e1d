"""terrane: procedural terrain for Python, over terrane's C API (libterrane.so).

A world is a pure function of (preset, seed, coordinates) plus stored edits: the same calls give
the same bytes on every machine, thread count and SIMD target. Units are metres, seconds and
degrees; Y is up and the ground spans x and z.

    import terrane
    preset = terrane.load_preset("alpine", seed=7)
    h = terrane.heights(preset, x0=0, z0=0, width=512, height=512)   # float32 (512, 512)
    q = terrane.Query(preset)
    q.height(100.0, 250.0)

Presets      version(), builtin_presets(), load_preset(), parse_preset(), Preset
Grids        heights(): a NumPy float32 array filled in place by terrane, without the GIL
Objects      scatter(): a structured array of dtype instance_dtype
Bakes        bake(): what `terrane generate` writes
Queries      Query: height, normal, raycast (RayHit)
Streaming    Streamer: chunks with LOD around viewers, meshes, events, visible set
Navigation   nav_path(): a walking path
Worlds       World: a world file with persistent edits (brushes, undo, commit)
Errors       every failure of terrane raises Error (category, status; message = terrane's):
             InvalidArgumentError (also ValueError), ParseError (also ValueError),
             IoError (also OSError), LimitError, InternalError (also RuntimeError),
             CancelledError. Wrong Python types raise TypeError.
"""

from ._terrane import (
    CancelledError,
    Error,
    InternalError,
    InvalidArgumentError,
    IoError,
    LimitError,
    ParseError,
    Preset,
    Query,
    RayHit,
    Streamer,
    World,
    bake,
    builtin_presets,
    heights,
    instance_dtype,
    load_preset,
    nav_path,
    parse_preset,
    scatter,
    version,
)

__version__ = version()

#: The NumPy dtype of scatter() and Streamer.chunk_instances(): terrane_instance's exact layout
#: (64 bytes): x, z (float64), y, yaw_deg, scale_xz, scale_y (float32), normal (3 float32),
#: species (int32), id, state (uint64).
instance_dtype = instance_dtype

__all__ = [
    "CancelledError",
    "Error",
    "InternalError",
    "InvalidArgumentError",
    "IoError",
    "LimitError",
    "ParseError",
    "Preset",
    "Query",
    "RayHit",
    "Streamer",
    "World",
    "bake",
    "builtin_presets",
    "heights",
    "instance_dtype",
    "load_preset",
    "nav_path",
    "parse_preset",
    "scatter",
    "version",
]

for _name in __all__:
    _obj = globals()[_name]
    if getattr(_obj, "__module__", None) == "terrane._terrane":
        try:
            _obj.__module__ = "terrane"  # help() and reprs name the public package
        except (AttributeError, TypeError):
            pass
del _name, _obj
