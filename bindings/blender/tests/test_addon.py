# The terrane Blender add-on, headless: the operator's mesh against terrane.heights bit for bit
# (after Blender's float32 storage), its extent and scatter objects against terrane.scatter,
# and the CLI fallback against the module.
#
#   PATH=/usr/bin:/bin blender -b --factory-startup --python-exit-code 1 \
#       --python bindings/blender/tests/test_addon.py -- \
#       [--module-path DIR] [--cli PATH] [--require-module]
#
# --module-path (or TERRANE_PYTHONPATH): the folder of the `terrane` module (Blender ignores
# PYTHONPATH unless started with --python-use-system-env). --cli (or TERRANE_CLI): the terrane
# executable. Without the module only the CLI path is checked (--require-module makes that a
# failure). Prints one line per check; exits 1 when any failed.
import argparse
import os
import sys
import time
import traceback

import bpy
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ADDON_DIR = os.path.dirname(HERE)  # bindings/blender, the folder holding terrane_terrain/

PRESET, SIZE, CELL, SEED, X0, Z0 = "default", 65, 4.0, 3, 200.0, -300.0

failures = []


def check(ok, what):
    print(("ok - " if ok else "FAIL - ") + what, flush=True)
    if not ok:
        failures.append(what)


def parse_args():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    p = argparse.ArgumentParser(prog="test_addon.py")
    p.add_argument("--module-path", default=os.environ.get("TERRANE_PYTHONPATH", ""))
    p.add_argument("--cli", default=os.environ.get("TERRANE_CLI", ""))
    p.add_argument("--require-module", action="store_true")
    return p.parse_args(argv)


def enable_addon():
    import addon_utils
    if ADDON_DIR not in sys.path:
        sys.path.insert(0, ADDON_DIR)
    mod = addon_utils.enable("terrane_terrain", default_set=True, handle_error=None)
    check(mod is not None and hasattr(bpy.ops.mesh, "terrane_terrain_add"),
          "add-on enabled from %s; operator mesh.terrane_terrain_add registered" % ADDON_DIR)
    return mod


def add_terrain(backend, scatter=True):
    for o in list(bpy.context.scene.objects):
        o.select_set(False)
    t = time.perf_counter()
    result = bpy.ops.mesh.terrane_terrain_add(
        preset=PRESET, size=SIZE, cell=CELL, use_seed=True, seed=SEED, origin_x=X0,
        origin_z=Z0, scatter=scatter, backend=backend)
    ms = (time.perf_counter() - t) * 1000
    obj = bpy.context.view_layer.objects.active
    check(result == {"FINISHED"} and obj is not None and obj.get("terrane_backend") ==
          backend.lower(), "operator (%s backend) finished in %.0f ms: %s" % (
              backend, ms, obj.name if obj else None))
    return obj


def world_vertices(obj):
    mesh = obj.data
    co = np.empty(len(mesh.vertices) * 3, dtype=np.float32)
    mesh.vertices.foreach_get("co", co)
    co = co.reshape(-1, 3)
    loc = np.array(obj.location, dtype=np.float32)
    return co, co + loc  # local, world (the object has no rotation or scale)


def check_mesh(obj, expected_heights, label):
    n = SIZE * SIZE
    check(len(obj.data.vertices) == n, "%s: %d vertices == %d^2" % (label, len(obj.data.vertices),
                                                                    SIZE))
    check(len(obj.data.polygons) == (SIZE - 1) ** 2, "%s: %d quads" % (label,
                                                                      len(obj.data.polygons)))
    local, world = world_vertices(obj)
    ext = (SIZE - 1) * CELL
    lo, hi = world.min(axis=0), world.max(axis=0)
    # terrane (x, y, z) -> Blender (x, -z, y)
    check(lo[0] == X0 and hi[0] == X0 + ext and lo[1] == -(Z0 + ext) and hi[1] == -Z0,
          "%s: x spans %g .. %g, y spans %g .. %g (terrane x %g .. %g, z %g .. %g)" % (
              label, lo[0], hi[0], lo[1], hi[1], X0, X0 + ext, Z0, Z0 + ext))
    i = np.tile(np.arange(SIZE), SIZE)
    j = np.repeat(np.arange(SIZE), SIZE)
    check(np.array_equal(local[:, 0], (i * CELL).astype(np.float32)) and
          np.array_equal(local[:, 1], (-j * CELL).astype(np.float32)),
          "%s: vertex j * size + i at local (i * cell, -j * cell)" % label)
    z = local[:, 2]
    same = np.array_equal(z, expected_heights.ravel())
    diff = "" if same else ", max |difference| %g" % float(
        np.max(np.abs(z - expected_heights.ravel())))
    check(same, "%s: every vertex height equals terrane.heights exactly (%g .. %g m%s)" % (
        label, float(z.min()), float(z.max()), diff))
    up = np.empty(len(obj.data.polygons) * 3, dtype=np.float32)
    obj.data.polygons.foreach_get("normal", up)
    check(bool(np.all(up.reshape(-1, 3)[:, 2] > 0)), "%s: every face faces +Z" % label)


def scatter_children(obj):
    return [c for c in obj.children if "terrane_id" in c]


def check_scatter(obj, instances, species, label):
    kids = scatter_children(obj)
    check(len(kids) == len(instances["x"]) and len(kids) > 0,
          "%s: %d scatter objects == %d instances" % (label, len(kids), len(instances["x"])))
    by_id = {c["terrane_id"]: c for c in kids}
    k = 0
    c = by_id.get("%016x" % int(instances["id"][k]))
    ok = c is not None
    if ok:
        want = (np.float32(instances["x"][k] - X0), np.float32(-(instances["z"][k] - Z0)),
                np.float32(instances["y"][k]))
        got = tuple(np.float32(v) for v in c.location)
        s = instances["scale_xz"][k], instances["scale_y"][k]
        ok = (got == want and np.float32(c.scale[0]) == s[0] and np.float32(c.scale[2]) == s[1]
              and c.data.name == "terrane_" + species[int(instances["species"][k])])
    check(ok, "%s: instance %016x placed at terrane (x - x0, -(z - z0), y), scaled, linking "
          "its species mesh" % (label, int(instances["id"][0])))
    meshes = {c.data.name for c in kids}
    users = all(bpy.data.meshes[m].users >= 2 for m in meshes)
    check(len(meshes) <= len(species) and users,
          "%s: %d species meshes shared by linked duplicates (%s)" % (label, len(meshes),
                                                                     ", ".join(sorted(meshes))))


def main():
    args = parse_args()
    if args.module_path:
        os.environ["TERRANE_PYTHONPATH"] = args.module_path
    if args.cli:
        os.environ["TERRANE_CLI"] = args.cli
    enable_addon()
    import terrane_terrain as addon

    terrane = addon.import_module()
    if args.require_module:
        check(terrane is not None, "terrane module imports from %r" % args.module_path)
    module_heights = None
    if terrane is not None:
        preset = terrane.load_preset(PRESET, seed=SEED)
        module_heights = terrane.heights(preset, X0, Z0, SIZE, SIZE, CELL)
        ext = (SIZE - 1) * CELL
        instances = terrane.scatter(preset, X0, Z0, X0 + ext, Z0 + ext)
        inst = {k: instances[k] for k in instances.dtype.names}
        obj = add_terrain("MODULE")
        if obj is not None:
            check_mesh(obj, module_heights, "module")
            check_scatter(obj, inst, list(preset.species), "module")
        # A preset by file path, at the preset's own cell size.
        path = os.path.join(os.path.dirname(os.path.dirname(ADDON_DIR)), "presets", "alpine.json")
        r = bpy.ops.mesh.terrane_terrain_add(preset="FILE", preset_file=path, size=17,
                                             origin_x=-90.0, origin_z=60.0, backend="MODULE")
        obj = bpy.context.view_layer.objects.active
        p2 = terrane.load_preset(path)
        want = terrane.heights(p2, -90.0, 60.0, 17, 17, 0.0)
        local, _ = world_vertices(obj)
        check(r == {"FINISHED"} and obj["terrane_cell_m"] == p2.cell_size_m and
              np.array_equal(local[:, 2], want.ravel()) and
              local[16, 0] == np.float32(16 * p2.cell_size_m),
              "preset file %s at its %g m cell: heights equal" % (path, p2.cell_size_m))
    else:
        print("# terrane module not importable: checking the CLI path only")

    if args.cli or addon.shutil.which("terrane"):
        obj = add_terrain("CLI")
        if obj is not None:
            local, _ = world_vertices(obj)
            if module_heights is not None:
                check_mesh(obj, module_heights, "cli")
                # The CLI's scatter is the bake's: its rules see the baked map (here 4 m cells)
                # where terrane.scatter sees the world's lattice, so the sets differ a little;
                # the candidates they share lie at the same places.
                kids = {c["terrane_id"]: c for c in scatter_children(obj)}
                where = {"%016x" % int(inst["id"][k]): k for k in range(len(inst["id"]))}
                common = [i for i in kids if i in where]
                same = all(
                    tuple(np.float32(v) for v in kids[i].location[:2]) ==
                    (np.float32(inst["x"][where[i]] - X0), np.float32(-(inst["z"][where[i]] - Z0)))
                    for i in common)
                check(len(kids) > 0 and len(common) > len(where) // 2 and same,
                      "cli: %d scatter objects (the bake's); the %d ids shared with "
                      "terrane.scatter's %d lie at the same x, z" % (len(kids), len(common),
                                                                      len(where)))
            else:
                check(len(local) == SIZE * SIZE and np.all(np.isfinite(local)),
                      "cli: %d finite vertices" % len(local))
                check(len(scatter_children(obj)) > 0, "cli: scatter objects")
    else:
        check(False, "no CLI given (--cli or TERRANE_CLI) and none on PATH")

    # A bad preset file: the operator cancels with the message naming it.
    try:
        r = bpy.ops.mesh.terrane_terrain_add(preset="FILE", preset_file="/nonexistent/x.json",
                                             size=9)
        message = str(r)
    except RuntimeError as e:
        r, message = {"CANCELLED"}, str(e)
    check(r == {"CANCELLED"} and "x.json" in message,
          "a missing preset file cancels, naming it: %s" % message.strip())


if __name__ == "__main__":
    try:
        main()
    except Exception:
        traceback.print_exc()
        failures.append("exception")
    print("%s" % ("all checks passed" if not failures else "%d FAILED" % len(failures)),
          flush=True)
    sys.exit(1 if failures else 0)
