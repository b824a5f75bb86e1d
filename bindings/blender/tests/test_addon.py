# The terrane Blender add-on, headless: the operator's mesh against terrane.heights bit for bit
# (after Blender's float32 storage), its extent and its scatter (per species an object of
# points with a Geometry Nodes instancing modifier) against terrane.scatter, point by point and
# instance by instance in the evaluated depsgraph, and the CLI fallback against the module.
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


def species_children(obj):
    """The terrain's scatter objects: one per species, a point per instance."""
    return [c for c in obj.children if "terrane_species" in c]


def mesh_points(obj):
    """A species object's points: local positions (n, 3), the named attributes, and the ids
    rebuilt from id_lo and id_hi (uint64)."""
    mesh = obj.data
    n = len(mesh.vertices)
    co = np.empty(n * 3, dtype=np.float32)
    mesh.vertices.foreach_get("co", co)
    out = {"co": co.reshape(-1, 3)}
    for name, width, key in (("rotation", 3, "vector"), ("scale", 3, "vector"),
                             ("yaw_deg", 1, "value"), ("id_lo", 1, "value"),
                             ("id_hi", 1, "value")):
        attr = mesh.attributes.get(name)
        if attr is None or attr.domain != "POINT":
            out[name] = None
            continue
        a = np.empty(n * width, dtype=np.int32 if attr.data_type == "INT" else np.float32)
        attr.data.foreach_get(key, a)
        out[name] = a.reshape(-1, 3) if width == 3 else a
    if out["id_lo"] is not None and out["id_hi"] is not None:
        out["id"] = ((out["id_hi"].view(np.uint32).astype(np.uint64) << np.uint64(32)) |
                     out["id_lo"].view(np.uint32).astype(np.uint64))
    else:
        out["id"] = None
    return out


def scatter_points(obj):
    """All the terrain's scatter points, by id: {id: (species object, local position)}."""
    got = {}
    for c in species_children(obj):
        pts = mesh_points(c)
        if pts["id"] is None:
            continue
        for k in range(len(pts["id"])):
            got[int(pts["id"][k])] = (c, pts["co"][k])
    return got


def expected_rotation(yaw_deg, normal):
    """The rotation the linked duplicates had: yaw about Blender +Z, then +Z tilted onto the
    normal (terrane (nx, ny, nz) -> Blender (nx, -nz, ny))."""
    import math
    from mathutils import Quaternion, Vector
    yaw = Quaternion((0.0, 0.0, 1.0), math.radians(float(yaw_deg)))
    n = Vector((float(normal[0]), -float(normal[2]), float(normal[1])))
    if n.length == 0.0 or (n.x == 0.0 and n.y == 0.0):
        return yaw.to_matrix()
    return (Vector((0.0, 0.0, 1.0)).rotation_difference(n.normalized()) @ yaw).to_matrix()


def check_scatter(obj, instances, species, label):
    import math
    from mathutils import Euler, Matrix
    kids = species_children(obj)
    total = sum(len(c.data.vertices) for c in kids)
    n = len(instances["x"])
    check(total == n and n > 0 and len(kids) <= len(species),
          "%s: %d species objects, their points sum to %d == terrane.scatter's %d instances "
          "(%s)" % (label, len(kids), total, n, ", ".join(
              "%s %d" % (c["terrane_species_name"], len(c.data.vertices)) for c in kids)))
    group = None
    for c in kids:
        mods = [m for m in c.modifiers if m.type == "NODES"]
        g = mods[0].node_group if len(mods) == 1 else None
        group = g if group is None else group
        holder = None
        if g is not None and "Instance" in g.inputs:
            holder = mods[0][g.inputs["Instance"].identifier]
        name = "terrane_" + species[c["terrane_species"]]
        coll = bpy.data.collections.get("terrane species")
        check(g is not None and g == group and holder is not None and holder.name == name and
              coll is not None and holder.name in coll.objects and coll.hide_render and
              coll.hide_viewport and len(c.data.polygons) == 0 and
              any(nd.bl_idname == "GeometryNodeInstanceOnPoints" for nd in g.nodes) and
              not any(nd.bl_idname == "GeometryNodeRealizeInstances" for nd in g.nodes),
              "%s: %s: points only, a Geometry Nodes modifier (group %r, shared) instancing "
              "the hidden placeholder %s, not realized" % (
                  label, c.name, g.name if g else None, holder.name if holder else None))

    # Every point against terrane.scatter: same ids, positions (x - x0, -(z - z0), y) in
    # float32, yaw_deg and scales exactly, rotations those of the old linked duplicates.
    where = {int(instances["id"][k]): k for k in range(n)}
    dg = bpy.context.evaluated_depsgraph_get()
    by_parent = {}
    for inst in dg.object_instances:
        if inst.is_instance and inst.parent is not None:
            by_parent.setdefault(inst.parent.original.name, []).append(
                (inst.object.original.name, inst.matrix_world.copy()))
    for c in kids:
        pts = mesh_points(c)
        s = c["terrane_species"]
        ok_attrs = all(pts[a] is not None for a in ("rotation", "scale", "yaw_deg", "id"))
        ks = np.array([where.get(int(i), -1) for i in pts["id"]]) if ok_attrs else None
        ok_ids = (ok_attrs and bool(np.all(ks >= 0)) and len(set(ks.tolist())) == len(ks) and
                  bool(np.all(np.asarray(instances["species"])[ks] == s)) and
                  len(ks) == int(np.sum(np.asarray(instances["species"]) == s)))
        check(ok_ids, "%s: %s: every point's id (id_lo, id_hi) is a terrane.scatter id of "
              "species %d, all of them" % (label, c.name, s))
        if not ok_ids:
            continue
        want_co = np.stack([(instances["x"][ks] - X0).astype(np.float32),
                            (-(instances["z"][ks] - Z0)).astype(np.float32),
                            instances["y"][ks].astype(np.float32)], axis=1)
        sxz = instances["scale_xz"][ks].astype(np.float32)
        sy = instances["scale_y"][ks].astype(np.float32)
        check(np.array_equal(pts["co"], want_co),
              "%s: %s: every point at terrane (x - x0, -(z - z0), y) (float32)" % (label, c.name))
        check(np.array_equal(pts["yaw_deg"], instances["yaw_deg"][ks].astype(np.float32)) and
              np.array_equal(pts["scale"][:, 0], sxz) and
              np.array_equal(pts["scale"][:, 1], sxz) and np.array_equal(pts["scale"][:, 2], sy),
              "%s: %s: yaw_deg and scale (xz, xz, y) equal terrane.scatter's" % (label, c.name))
        normals = np.asarray(instances["normal"])[ks]
        upright = (normals[:, 0] == 0) & (normals[:, 2] == 0)
        yaw_rad = np.array([math.radians(float(v)) for v in instances["yaw_deg"][ks]],
                           dtype=np.float32)
        worst = 0.0
        for k in np.flatnonzero(~upright):
            m = Euler(tuple(float(v) for v in pts["rotation"][k]), "XYZ").to_matrix()
            want = expected_rotation(instances["yaw_deg"][ks[k]], normals[k])
            worst = max(worst, max(abs(m[r][q] - want[r][q]) for r in range(3)
                                   for q in range(3)))
        check(np.array_equal(pts["rotation"][upright][:, :2], np.zeros((int(upright.sum()), 2),
                                                                      np.float32)) and
              np.array_equal(pts["rotation"][upright][:, 2], yaw_rad[upright]) and worst < 1e-5,
              "%s: %s: rotation = (0, 0, radians(yaw)) for the %d upright, yaw then tilt onto "
              "the normal for the %d tilted (max matrix difference %.2g)" % (
                  label, c.name, int(upright.sum()), int((~upright).sum()), worst))

        # The evaluated object: one instance of the placeholder per point, where the old
        # linked duplicate stood (terrain matrix @ translation @ rotation @ scale).
        ev = c.evaluated_get(dg)
        got = by_parent.get(c.name, [])
        holder = "terrane_" + species[s]
        ok = ev is not None and len(got) == len(ks) and all(o == holder for o, _ in got)
        worst_t = worst_r = 0.0
        if ok:
            base = obj.matrix_world
            for k, (_, m) in enumerate(got):
                want = (base @ Matrix.Translation(tuple(float(v) for v in want_co[k])) @
                        expected_rotation(instances["yaw_deg"][ks[k]], normals[k]).to_4x4() @
                        Matrix.Diagonal((float(sxz[k]), float(sxz[k]), float(sy[k]), 1.0)))
                worst_t = max(worst_t, max(abs(m[r][3] - want[r][3]) for r in range(3)))
                worst_r = max(worst_r, max(abs(m[r][q] - want[r][q]) for r in range(3)
                                           for q in range(3)))
            ok = worst_t < 1e-3 and worst_r < 1e-5
        check(ok, "%s: %s: evaluated depsgraph has %d instances of %s (points %d); matrices "
              "match the linked duplicates' (max difference %.2g m, %.2g)" % (
                  label, c.name, len(got), holder, len(ks), worst_t, worst_r))


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
        preset = terrane.load_preset(PRESET, seed=SEED,
                                     overrides=["world.cell_size_m=%r" % float(CELL)])
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
                kids = scatter_points(obj)
                where = {int(inst["id"][k]): k for k in range(len(inst["id"]))}
                common = [i for i in kids if i in where]
                same = all(
                    tuple(kids[i][1][:2]) ==
                    (np.float32(inst["x"][where[i]] - X0), np.float32(-(inst["z"][where[i]] - Z0)))
                    for i in common)
                check(len(kids) > 0 and len(common) > len(where) // 2 and same,
                      "cli: %d scatter points (the bake's); the %d ids shared with "
                      "terrane.scatter's %d lie at the same x, z" % (len(kids), len(common),
                                                                      len(where)))
                dg = bpy.context.evaluated_depsgraph_get()
                counts = {}
                for d in dg.object_instances:
                    if d.is_instance and d.parent is not None:
                        counts[d.parent.original.name] = counts.get(d.parent.original.name,
                                                                    0) + 1
                cli_kids = species_children(obj)
                check(len(cli_kids) > 0 and all(
                    c.evaluated_get(dg) is not None and
                    counts.get(c.name, 0) == len(c.data.vertices) for c in cli_kids),
                      "cli: each species object's evaluated instances == its points (%s)" %
                      ", ".join("%s %d/%d" % (c["terrane_species_name"], counts.get(c.name, 0),
                                              len(c.data.vertices)) for c in cli_kids))
            else:
                check(len(local) == SIZE * SIZE and np.all(np.isfinite(local)),
                      "cli: %d finite vertices" % len(local))
                check(len(scatter_points(obj)) > 0, "cli: scatter points")
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
