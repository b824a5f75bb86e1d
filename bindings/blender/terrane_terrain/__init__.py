# terrane terrain for Blender: adds a terrane world's height grid as a mesh object, and its
# scatter instances (trees, rocks) as geometry-nodes instances of one placeholder object per
# species: per species one object whose mesh has a vertex per instance.
#
# Heights come from the Python module `terrane` (bindings over the C API) when it can be
# imported -- from sys.path, the add-on preferences' "Module folder", or the environment
# variable TERRANE_PYTHONPATH -- or else from the CLI (`terrane generate ... --formats
# exr,scatter`, found through the preferences' "CLI", TERRANE_CLI or PATH). Both give the
# world's surface: the heights streamed chunks, queries and scatter use (the preset's post
# operations, which only bakes apply, are left out: the CLI is run with --set post=[]).
#
# Axes: terrane is Y-up (the ground spans x and z); Blender is Z-up. A terrane point (x, y, z)
# becomes the Blender point (x, -z, y): a +90 degree rotation about X (a proper rotation, so
# both stay right-handed; the glTF importer maps Y-up the same way). Yaw about terrane's +y is
# the same angle about Blender's +Z.
#
# Placement: the terrain object sits at the grid's first sample, Blender (x0, -z0, 0), and its
# vertices are relative to it (floats stay exact far from the origin); sample (i, j) of the grid
# (terrane x0 + i * cell, z0 + j * cell) is vertex j * size + i at local (i * cell, -j * cell, h).
# The scatter's species objects are children of the terrain object, their points placed
# relative to it the same way: instance (x, y, z) is point (x - x0, -(z - z0), y). The module
# gives the world's scatter (terrane.scatter); the CLI gives the bake's (NAME_scatter.csv,
# judged on the baked map), which shares most instances but not all, and has no normals.

bl_info = {
    "name": "terrane terrain",
    "author": "terrane",
    "version": (0, 1, 0),
    "blender": (3, 4, 0),
    "location": "View3D > Add > Mesh > terrane terrain; View3D > Sidebar > terrane",
    "description": "Procedural terrain from terrane presets: height mesh and scatter "
                   "instances",
    "category": "Add Mesh",
}

import csv
import glob
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile

import bpy
import numpy as np
from mathutils import Euler, Quaternion, Vector

ADDON_NAME = __name__

# The builtin presets shipped with terrane (presets/*.json); the module's list is used when the
# module is loaded, but an EnumProperty needs fixed items.
BUILTIN_PRESETS = ("default", "alpine", "canyons", "dunes", "islands", "ranges")

SPECIES_COLLECTION = "terrane species"


class TerraneAddonError(Exception):
    """A failure with a message for the user."""


# ------------------------------------------------------------------------------------------
# Finding terrane


def _preferences():
    addon = bpy.context.preferences.addons.get(ADDON_NAME)
    return addon.preferences if addon is not None else None


def import_module():
    """The `terrane` module, or None when it cannot be imported. Adds the preferences' module
    folder and TERRANE_PYTHONPATH (os.pathsep-separated) to sys.path first."""
    folders = []
    prefs = _preferences()
    if prefs is not None and prefs.module_path:
        folders.append(bpy.path.abspath(prefs.module_path))
    folders += [p for p in os.environ.get("TERRANE_PYTHONPATH", "").split(os.pathsep) if p]
    for folder in reversed(folders):
        if folder not in sys.path:
            sys.path.insert(0, folder)
    try:
        import terrane
    except ImportError:
        return None
    return terrane


def find_cli():
    """The terrane executable: the preferences' CLI, TERRANE_CLI, or `terrane` on PATH."""
    prefs = _preferences()
    candidates = []
    if prefs is not None and prefs.cli_path:
        candidates.append(bpy.path.abspath(prefs.cli_path))
    if os.environ.get("TERRANE_CLI"):
        candidates.append(os.environ["TERRANE_CLI"])
    for c in candidates:
        if os.path.isfile(c) and os.access(c, os.X_OK):
            return c
    found = shutil.which("terrane")
    if found:
        return found
    raise TerraneAddonError(
        "terrane CLI not found: set it in the add-on preferences or TERRANE_CLI"
        + (" (tried %s)" % ", ".join(candidates) if candidates else ""))


# ------------------------------------------------------------------------------------------
# Terrain data from either source: a dict with
#   heights: float32 (size, size), [j, i] at terrane (x0 + i * cell, z0 + j * cell)
#   cell: the spacing used [m]
#   species: list of names
#   instances: dict of arrays x, z (float64), y, yaw_deg, scale_xz, scale_y (float32),
#              normal (n, 3) float32, species (int32), id (uint64); or None


def terrain_from_module(terrane, preset_name, size, cell, seed, x0, z0, scatter):
    try:
        preset = terrane.load_preset(preset_name, seed=seed)
        cell_m = cell if cell > 0 else preset.cell_size_m
        if cell_m != preset.cell_size_m:
            # The world's lattice at the mesh's spacing (as `terrane generate --cell` does), so
            # the scatter stands on the triangles of this mesh's cells; heights do not depend on
            # the cell size, the scatter does.
            preset = terrane.load_preset(preset_name, overrides=["world.cell_size_m=%r" % cell_m],
                                         seed=seed)
        heights = terrane.heights(preset, x0, z0, size, size, cell_m)
        instances = None
        if scatter:
            extent = (size - 1) * cell_m
            a = terrane.scatter(preset, x0, z0, x0 + extent, z0 + extent)
            instances = {k: np.asarray(a[k]) for k in
                         ("x", "z", "y", "yaw_deg", "scale_xz", "scale_y", "normal", "species",
                          "id")}
        return {"heights": np.asarray(heights, dtype=np.float32), "cell": cell_m,
                "species": list(preset.species), "instances": instances}
    except terrane.Error as e:
        raise TerraneAddonError(str(e))


def _read_exr_heights(path, size):
    """Channel R of a float EXR as (rows, columns) float32, row 0 the file's first (top) row.
    Blender keeps float images in float32 and, with the Non-Color space, unconverted."""
    image = bpy.data.images.load(path, check_existing=False)
    try:
        image.colorspace_settings.name = "Non-Color"
        w, h = image.size
        if (w, h) != (size, size) or not image.is_float:
            raise TerraneAddonError("%s: expected a %d x %d float image, got %d x %d%s" % (
                path, size, size, w, h, "" if image.is_float else " (not float)"))
        pixels = np.empty(w * h * 4, dtype=np.float32)
        image.pixels.foreach_get(pixels)
    finally:
        bpy.data.images.remove(image)
    # Blender's rows run bottom-up: flip them back to the file's order (j = 0 first).
    return np.ascontiguousarray(pixels.reshape(h, w, 4)[::-1, :, 0])


def _read_scatter_csv(csv_path, json_path):
    with open(json_path, encoding="utf-8") as f:
        manifest = json.load(f)
    species = {int(s["id"]): s["name"] for s in manifest.get("species", [])}
    names = [species.get(i, "species_%d" % i) for i in range(max(species, default=-1) + 1)]
    cols = {k: [] for k in ("x", "y", "z", "yaw", "scale_xz", "scale_y", "species", "id")}
    with open(csv_path, newline="", encoding="utf-8") as f:
        for row in csv.DictReader(f):
            for k in cols:
                cols[k].append(row[k])
    n = len(cols["x"])
    up = np.zeros((n, 3), dtype=np.float32)
    up[:, 1] = 1.0  # the CSV has no normals: upright
    instances = {
        "x": np.array(cols["x"], dtype=np.float64),
        "z": np.array(cols["z"], dtype=np.float64),
        "y": np.array(cols["y"], dtype=np.float32),
        "yaw_deg": np.array(cols["yaw"], dtype=np.float32),
        "scale_xz": np.array(cols["scale_xz"], dtype=np.float32),
        "scale_y": np.array(cols["scale_y"], dtype=np.float32),
        "normal": up,
        "species": np.array(cols["species"], dtype=np.int32),
        "id": np.array([int(v, 16) for v in cols["id"]], dtype=np.uint64),
    }
    return names, instances


def terrain_from_cli(cli, preset_name, size, cell, seed, x0, z0, scatter):
    with tempfile.TemporaryDirectory(prefix="terrane_blender_") as out:
        formats = "exr,scatter" if scatter else "exr"
        cmd = [cli, "generate", preset_name, "--formats", formats, "--size", str(size),
               "--origin", "%r,%r" % (float(x0), float(z0)), "--set", "post=[]", "-o", out, "-q"]
        if cell > 0:
            cmd += ["--cell", repr(float(cell))]
        if seed is not None:
            cmd += ["--seed", str(seed)]
        try:
            run = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        except (OSError, subprocess.TimeoutExpired) as e:
            raise TerraneAddonError("%s: %s" % (cli, e))
        if run.returncode != 0:
            message = (run.stderr.strip() or run.stdout.strip()).splitlines()
            last = message[-1] if message else "%s exited with %d" % (" ".join(cmd),
                                                                    run.returncode)
            raise TerraneAddonError(last[len("error: "):] if last.startswith("error: ") else last)
        sidecars = [p for p in glob.glob(os.path.join(out, "*.json"))
                    if not p.endswith("_scatter.json")]
        exrs = glob.glob(os.path.join(out, "*.exr"))
        if len(exrs) != 1 or len(sidecars) != 1:
            raise TerraneAddonError("%s wrote %s; expected one .exr and its sidecar" % (
                " ".join(cmd), ", ".join(sorted(os.listdir(out)))))
        with open(sidecars[0], encoding="utf-8") as f:
            sidecar = json.load(f)
        heights = _read_exr_heights(exrs[0], size)
        names, instances = [], None
        if scatter:
            csvs = glob.glob(os.path.join(out, "*_scatter.csv"))
            if len(csvs) != 1:
                raise TerraneAddonError("%s wrote no scatter CSV" % " ".join(cmd))
            names, instances = _read_scatter_csv(csvs[0], csvs[0][:-4] + ".json")
        return {"heights": heights, "cell": float(sidecar["spacing_m"]), "species": names,
                "instances": instances}


def generate(preset_name, size, cell=0.0, seed=None, x0=0.0, z0=0.0, scatter=False,
             backend="AUTO"):
    """Terrain data (see above) from the module (backend MODULE), the CLI (CLI), or the module
    when it imports and else the CLI (AUTO)."""
    terrane = import_module() if backend in ("AUTO", "MODULE") else None
    if backend == "MODULE" and terrane is None:
        raise TerraneAddonError("the terrane Python module cannot be imported: set its folder "
                                "in the add-on preferences or TERRANE_PYTHONPATH")
    if terrane is not None:
        data = terrain_from_module(terrane, preset_name, size, cell, seed, x0, z0, scatter)
        data["backend"] = "module"
    else:
        data = terrain_from_cli(find_cli(), preset_name, size, cell, seed, x0, z0, scatter)
        data["backend"] = "cli"
    return data


# ------------------------------------------------------------------------------------------
# Blender data


def build_grid_mesh(name, heights, cell):
    """A mesh of rows x columns vertices: vertex j * columns + i at (i * cell, -j * cell,
    heights[j, i]) with quads facing +Z."""
    rows, cols = heights.shape
    ii, jj = np.meshgrid(np.arange(cols, dtype=np.float64), np.arange(rows, dtype=np.float64))
    co = np.empty((rows * cols, 3), dtype=np.float32)
    co[:, 0] = (ii * cell).ravel()
    co[:, 1] = (-(jj * cell)).ravel()
    co[:, 2] = heights.ravel()
    mesh = bpy.data.meshes.new(name)
    mesh.vertices.add(rows * cols)
    mesh.vertices.foreach_set("co", co.ravel())
    if rows > 1 and cols > 1:
        a = (np.arange(rows - 1)[:, None] * cols + np.arange(cols - 1)[None, :]).ravel()
        # (i, j), (i, j+1), (i+1, j+1), (i+1, j): counter-clockwise seen from +Z (j runs to -Y).
        quads = np.stack([a, a + cols, a + cols + 1, a + 1], axis=1).astype(np.int32)
        n = len(quads)
        mesh.loops.add(4 * n)
        mesh.loops.foreach_set("vertex_index", quads.ravel())
        mesh.polygons.add(n)
        mesh.polygons.foreach_set("loop_start", np.arange(0, 4 * n, 4, dtype=np.int32))
        mesh.polygons.foreach_set("loop_total", np.full(n, 4, dtype=np.int32))
    mesh.update(calc_edges=True)
    mesh.validate()
    return mesh


def _placeholder_mesh(species_name):
    """A small stand-in mesh for a species, its base at z = 0: a cone for trees and bushes, an
    icosphere for rocks, a cube otherwise."""
    import bmesh
    key = species_name.lower()
    bm = bmesh.new()
    if any(w in key for w in ("tree", "pine", "fir", "spruce", "palm", "bush", "shrub",
                              "cactus", "grass", "plant")):
        bmesh.ops.create_cone(bm, cap_ends=True, segments=8, radius1=1.5, radius2=0.0, depth=6.0)
        bmesh.ops.translate(bm, verts=bm.verts, vec=(0.0, 0.0, 3.0))
    elif any(w in key for w in ("rock", "stone", "boulder")):
        bmesh.ops.create_icosphere(bm, subdivisions=1, radius=0.8)
        bmesh.ops.translate(bm, verts=bm.verts, vec=(0.0, 0.0, 0.4))
    else:
        bmesh.ops.create_cube(bm, size=1.0)
        bmesh.ops.translate(bm, verts=bm.verts, vec=(0.0, 0.0, 0.5))
    mesh = bpy.data.meshes.new("terrane_" + species_name)
    bm.to_mesh(mesh)
    bm.free()
    return mesh


def species_objects(names, context):
    """One placeholder object per species (reused across runs), each in a hidden collection so
    that the data is easy to find and replace; the species objects' modifiers instance them."""
    coll = bpy.data.collections.get(SPECIES_COLLECTION)
    if coll is None:
        coll = bpy.data.collections.new(SPECIES_COLLECTION)
        context.scene.collection.children.link(coll)
        coll.hide_viewport = True
        coll.hide_render = True
    objects = []
    for name in names:
        obj = coll.objects.get("terrane_" + name)
        if obj is None:
            obj = bpy.data.objects.new("terrane_" + name, _placeholder_mesh(name))
            coll.objects.link(obj)
        objects.append(obj)
    return objects


def species_meshes(names, context):
    """The placeholder meshes of species_objects."""
    return [o.data for o in species_objects(names, context)]


def instance_rotation(yaw_deg, normal):
    """Euler rotation of an instance: yaw about +Z, then the up axis tilted onto the normal
    (terrane normal (nx, ny, nz) is Blender (nx, -nz, ny)). One instance, with mathutils; the
    reference for instance_rotations."""
    yaw = Quaternion((0.0, 0.0, 1.0), math.radians(float(yaw_deg)))
    n = Vector((float(normal[0]), -float(normal[2]), float(normal[1])))
    if n.length == 0.0 or (n.x == 0.0 and n.y == 0.0):
        return Euler((0.0, 0.0, math.radians(float(yaw_deg))), "XYZ")
    tilt = Vector((0.0, 0.0, 1.0)).rotation_difference(n.normalized())
    return (tilt @ yaw).to_euler("XYZ")


def instance_rotations(yaw_deg, normal):
    """instance_rotation for arrays: (n, 3) XYZ Euler angles (float64). Upright instances (a
    normal along terrane +y, or none) get exactly (0, 0, radians(yaw)); the others the same
    rotation as instance_rotation (tilt @ yaw), to rounding."""
    yaw = np.radians(np.asarray(yaw_deg, dtype=np.float64))
    nt = np.asarray(normal, dtype=np.float64).reshape(-1, 3)
    n = np.stack([nt[:, 0], -nt[:, 2], nt[:, 1]], axis=1)  # Blender axes
    length = np.linalg.norm(n, axis=1)
    euler = np.zeros((len(yaw), 3), dtype=np.float64)
    euler[:, 2] = yaw
    tilted = (length > 0.0) & ((n[:, 0] != 0.0) | (n[:, 1] != 0.0))
    if np.any(tilted):
        u = n[tilted] / length[tilted, None]
        # The shortest rotation taking +Z onto u: the quaternion (1 + u.z, -u.y, u.x, 0),
        # normalised (w, x, y, z); u.z > -1 for a terrain normal (otherwise: upright).
        ok = u[:, 2] > -1.0 + 1e-9
        tw, tx, ty = 1.0 + u[:, 2], -u[:, 1], u[:, 0]
        norm = np.sqrt(tw * tw + tx * tx + ty * ty)
        tw, tx, ty = tw / norm, tx / norm, ty / norm
        h = yaw[tilted] / 2.0
        yw, yz = np.cos(h), np.sin(h)
        # q = tilt @ yaw (tilt's z and yaw's x, y are 0)
        w = tw * yw
        x = tx * yw + ty * yz
        y = ty * yw - tx * yz
        z = tw * yz
        # Rotation matrix m[row, column] and its XYZ Euler angles (as Blender's
        # mat3_normalized_to_eul: rotation = Rz @ Ry @ Rx).
        m00 = 1.0 - 2.0 * (y * y + z * z)
        m10 = 2.0 * (x * y + w * z)
        m20 = 2.0 * (x * z - w * y)
        m21 = 2.0 * (y * z + w * x)
        m22 = 1.0 - 2.0 * (x * x + y * y)
        m11 = 1.0 - 2.0 * (x * x + z * z)
        m12 = 2.0 * (y * z - w * x)
        cy = np.hypot(m00, m10)
        regular = cy > 16.0 * np.finfo(np.float32).eps
        e = np.empty((len(w), 3), dtype=np.float64)
        e[:, 0] = np.where(regular, np.arctan2(m21, m22), np.arctan2(-m12, m11))
        e[:, 1] = np.arctan2(-m20, cy)
        e[:, 2] = np.where(regular, np.arctan2(m10, m00), 0.0)
        e[~ok] = np.stack([np.zeros(np.sum(~ok)), np.zeros(np.sum(~ok)), yaw[tilted][~ok]], 1)
        euler[tilted] = e
    return euler


NODE_GROUP = "terrane scatter instances"


def scatter_node_group():
    """The geometry-nodes group every species object uses (built once, reused): Instance on
    Points of the input's points with the object of the group input "Instance" (Object Info,
    as an instance, original transform), rotated by the point attribute "rotation" (XYZ Euler)
    and scaled by "scale". The instances stay instances (nothing is realized)."""
    ng = bpy.data.node_groups.get(NODE_GROUP)
    if (ng is not None and ng.bl_idname == "GeometryNodeTree" and
            [s.name for s in ng.inputs] == ["Geometry", "Instance"] and
            any(n.bl_idname == "GeometryNodeInstanceOnPoints" for n in ng.nodes)):
        return ng
    ng = bpy.data.node_groups.new(NODE_GROUP, "GeometryNodeTree")
    ng.inputs.new("NodeSocketGeometry", "Geometry")
    ng.inputs.new("NodeSocketObject", "Instance")
    ng.outputs.new("NodeSocketGeometry", "Geometry")
    nodes, links = ng.nodes, ng.links
    group_in = nodes.new("NodeGroupInput")
    group_in.location = (-600, 0)
    group_out = nodes.new("NodeGroupOutput")
    group_out.location = (300, 0)
    info = nodes.new("GeometryNodeObjectInfo")
    info.location = (-300, -100)
    info.transform_space = "ORIGINAL"
    info.inputs["As Instance"].default_value = True
    rotation = nodes.new("GeometryNodeInputNamedAttribute")
    rotation.location = (-300, -300)
    rotation.data_type = "FLOAT_VECTOR"
    rotation.inputs["Name"].default_value = "rotation"
    scale = nodes.new("GeometryNodeInputNamedAttribute")
    scale.location = (-300, -450)
    scale.data_type = "FLOAT_VECTOR"
    scale.inputs["Name"].default_value = "scale"
    iop = nodes.new("GeometryNodeInstanceOnPoints")
    iop.location = (0, 0)
    links.new(group_in.outputs["Geometry"], iop.inputs["Points"])
    links.new(group_in.outputs["Instance"], info.inputs["Object"])
    links.new(info.outputs["Geometry"], iop.inputs["Instance"])
    links.new(rotation.outputs["Attribute"], iop.inputs["Rotation"])
    links.new(scale.outputs["Attribute"], iop.inputs["Scale"])
    links.new(iop.outputs["Instances"], group_out.inputs["Geometry"])
    return ng


def _split_ids(ids):
    """uint64 ids as two int32 arrays (low and high 32 bits, two's complement)."""
    ids = np.asarray(ids, dtype=np.uint64)
    lo = (ids & np.uint64(0xFFFFFFFF)).astype(np.uint32).view(np.int32)
    hi = (ids >> np.uint64(32)).astype(np.uint32).view(np.int32)
    return lo, hi


def instance_ids(mesh):
    """The terrane ids (uint64) of a species mesh's points, from its id_lo and id_hi."""
    n = len(mesh.vertices)
    lo = np.empty(n, dtype=np.int32)
    hi = np.empty(n, dtype=np.int32)
    mesh.attributes["id_lo"].data.foreach_get("value", lo)
    mesh.attributes["id_hi"].data.foreach_get("value", hi)
    return ((hi.view(np.uint32).astype(np.uint64) << np.uint64(32)) |
            lo.view(np.uint32).astype(np.uint64))


def _point_attribute(mesh, name, kind, values):
    attr = mesh.attributes.new(name, kind, "POINT")
    attr.data.foreach_set("vector" if kind == "FLOAT_VECTOR" else "value",
                          np.ascontiguousarray(values).ravel())


def add_scatter_objects(context, terrain_obj, names, inst, x0, z0):
    """Children of terrain_obj in a collection "<terrain> scatter": per species with instances,
    one object "<terrain>_<species>" whose mesh has a vertex per instance at terrane
    (x - x0, -(z - z0), y), with point attributes rotation (XYZ Euler: yaw about +Z, tilted
    onto the normal), scale ((xz, xz, y)), yaw_deg, id_lo and id_hi (the id's 32-bit halves),
    and the geometry-nodes modifier of scatter_node_group instancing the species' placeholder
    object on its points."""
    species = np.asarray(inst["species"], dtype=np.int64)
    names = list(names)
    for s in np.unique(species):  # ids the manifest or preset does not name
        while int(s) >= len(names):
            names.append("species_%d" % len(names))
    placeholders = species_objects(names, context)
    group = scatter_node_group()
    coll = bpy.data.collections.new(terrain_obj.name + " scatter")
    context.scene.collection.children.link(coll)
    # Positions in float64 first, like the linked duplicates' locations were, then float32.
    co = np.stack([np.asarray(inst["x"], dtype=np.float64) - x0,
                   -(np.asarray(inst["z"], dtype=np.float64) - z0),
                   np.asarray(inst["y"], dtype=np.float64)], axis=1).astype(np.float32)
    rot = instance_rotations(inst["yaw_deg"], inst["normal"]).astype(np.float32)
    sxz = np.asarray(inst["scale_xz"], dtype=np.float32)
    sy = np.asarray(inst["scale_y"], dtype=np.float32)
    scale = np.stack([sxz, sxz, sy], axis=1)
    yaw = np.asarray(inst["yaw_deg"], dtype=np.float32)
    lo, hi = _split_ids(inst["id"])
    objects = []
    for s in np.unique(species):
        if s < 0:
            continue
        pick = np.flatnonzero(species == s)
        name = "%s_%s" % (terrain_obj.name, names[s])
        mesh = bpy.data.meshes.new(name)
        mesh.vertices.add(len(pick))
        mesh.vertices.foreach_set("co", co[pick].ravel())
        _point_attribute(mesh, "rotation", "FLOAT_VECTOR", rot[pick])
        _point_attribute(mesh, "scale", "FLOAT_VECTOR", scale[pick])
        _point_attribute(mesh, "yaw_deg", "FLOAT", yaw[pick])
        _point_attribute(mesh, "id_lo", "INT", lo[pick])
        _point_attribute(mesh, "id_hi", "INT", hi[pick])
        mesh.update()
        obj = bpy.data.objects.new(name, mesh)
        obj["terrane_species"] = int(s)
        obj["terrane_species_name"] = names[s]
        obj["terrane_instances"] = len(pick)
        mod = obj.modifiers.new("terrane instances", "NODES")
        mod.node_group = group
        mod[group.inputs["Instance"].identifier] = placeholders[s]
        obj.parent = terrain_obj
        coll.objects.link(obj)
        objects.append(obj)
    return coll, objects


# ------------------------------------------------------------------------------------------
# UI

class TERRANE_OT_add_terrain(bpy.types.Operator):
    """Add a terrane terrain mesh (and its scatter instances)"""
    bl_idname = "mesh.terrane_terrain_add"
    bl_label = "Add terrane terrain"
    bl_options = {"REGISTER", "UNDO"}

    preset: bpy.props.EnumProperty(
        name="Preset", items=[(n, n, "builtin preset '%s'" % n) for n in BUILTIN_PRESETS] +
        [("FILE", "File...", "a preset JSON file (Preset file)")], default="default")
    preset_file: bpy.props.StringProperty(name="Preset file", subtype="FILE_PATH",
                                          description="preset JSON (with Preset: File...)")
    size: bpy.props.IntProperty(name="Size", description="samples per side", default=129,
                                min=2, max=8193, soft_max=2049)
    cell: bpy.props.FloatProperty(name="Cell", description="sample spacing in metres "
                                  "(0: the preset's world.cell_size_m)", default=0.0, min=0.0,
                                  max=10000.0, unit="LENGTH")
    use_seed: bpy.props.BoolProperty(name="Set seed", default=False,
                                     description="override the preset's seed")
    seed: bpy.props.IntProperty(name="Seed", default=1, min=0)
    origin_x: bpy.props.FloatProperty(name="Origin X", default=0.0,
                                      description="terrane x of the first sample [m]")
    origin_z: bpy.props.FloatProperty(name="Origin Z", default=0.0,
                                      description="terrane z of the first sample [m] "
                                      "(Blender y = -z)")
    scatter: bpy.props.BoolProperty(name="Scatter", default=False,
                                    description="add the preset's scatter instances")
    backend: bpy.props.EnumProperty(
        name="Backend", default="AUTO",
        items=[("AUTO", "Auto", "the Python module when it imports, else the CLI"),
               ("MODULE", "Module", "the terrane Python module"),
               ("CLI", "CLI", "the terrane command-line tool (terrane generate)")])

    def execute(self, context):
        if self.preset == "FILE":
            if not self.preset_file:
                self.report({"ERROR"}, "Preset: File... needs a preset file")
                return {"CANCELLED"}
            preset_name = bpy.path.abspath(self.preset_file)
        else:
            preset_name = self.preset
        seed = self.seed if self.use_seed else None
        try:
            data = generate(preset_name, self.size, self.cell, seed, self.origin_x,
                            self.origin_z, self.scatter, self.backend)
        except TerraneAddonError as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        name = "terrane_" + os.path.splitext(os.path.basename(preset_name))[0]
        mesh = build_grid_mesh(name, data["heights"], data["cell"])
        obj = bpy.data.objects.new(name, mesh)
        obj.location = (self.origin_x, -self.origin_z, 0.0)
        obj["terrane_preset"] = preset_name
        obj["terrane_cell_m"] = data["cell"]
        obj["terrane_origin"] = (self.origin_x, self.origin_z)
        obj["terrane_backend"] = data["backend"]
        context.collection.objects.link(obj)
        count, kinds = 0, 0
        if self.scatter and data["instances"] is not None:
            _, species_objs = add_scatter_objects(context, obj, data["species"],
                                                  data["instances"], self.origin_x,
                                                  self.origin_z)
            count, kinds = len(data["instances"]["x"]), len(species_objs)
        for o in context.view_layer.objects.selected:
            o.select_set(False)
        obj.select_set(True)
        context.view_layer.objects.active = obj
        self.report({"INFO"}, "%s: %d x %d samples at %g m (%s)%s" % (
            name, self.size, self.size, data["cell"], data["backend"],
            ", %d scatter instances on %d species objects" % (count, kinds)
            if self.scatter else ""))
        return {"FINISHED"}

    def draw(self, context):
        layout = self.layout
        layout.prop(self, "preset")
        if self.preset == "FILE":
            layout.prop(self, "preset_file")
        layout.prop(self, "size")
        layout.prop(self, "cell")
        row = layout.row()
        row.prop(self, "use_seed")
        sub = row.row()
        sub.enabled = self.use_seed
        sub.prop(self, "seed")
        layout.prop(self, "origin_x")
        layout.prop(self, "origin_z")
        layout.prop(self, "scatter")
        layout.prop(self, "backend")


class TERRANE_PT_sidebar(bpy.types.Panel):
    bl_label = "terrane"
    bl_space_type = "VIEW_3D"
    bl_region_type = "UI"
    bl_category = "terrane"

    def draw(self, context):
        layout = self.layout
        layout.operator(TERRANE_OT_add_terrain.bl_idname, icon="RNDCURVE")
        terrane = import_module()
        layout.label(text="module: %s" % ("terrane " + terrane.version() if terrane else
                                          "not found (CLI fallback)"))


class TerranePreferences(bpy.types.AddonPreferences):
    bl_idname = ADDON_NAME

    module_path: bpy.props.StringProperty(
        name="Module folder", subtype="DIR_PATH",
        description="folder holding the terrane Python module (build/release/python); "
        "TERRANE_PYTHONPATH works too")
    cli_path: bpy.props.StringProperty(
        name="CLI", subtype="FILE_PATH",
        description="the terrane executable, for the fallback without the module; "
        "TERRANE_CLI works too")

    def draw(self, context):
        self.layout.prop(self, "module_path")
        self.layout.prop(self, "cli_path")


def _menu(self, context):
    self.layout.operator(TERRANE_OT_add_terrain.bl_idname, text="terrane terrain",
                         icon="RNDCURVE")


_classes = (TerranePreferences, TERRANE_OT_add_terrain, TERRANE_PT_sidebar)


def register():
    for c in _classes:
        bpy.utils.register_class(c)
    bpy.types.VIEW3D_MT_mesh_add.append(_menu)


def unregister():
    bpy.types.VIEW3D_MT_mesh_add.remove(_menu)
    for c in reversed(_classes):
        bpy.utils.unregister_class(c)
