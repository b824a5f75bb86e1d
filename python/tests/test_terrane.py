"""Tests of the Python bindings (python/README.md). Run from a build tree:

    PYTHONPATH=build/release/python /usr/bin/python3 -m pytest -q python/tests

TERRANE_REFERENCE_DIR: the directory where the C reference program of tests/capi wrote
heights_default.f32, heights_alpine.f32 and chunks.txt (the comparisons skip without it).
"""

import json
import os
import time

import numpy as np
import pytest

import terrane

REFERENCE_DIR = os.environ.get("TERRANE_REFERENCE_DIR")
needs_reference = pytest.mark.skipif(
    not REFERENCE_DIR,
    reason="TERRANE_REFERENCE_DIR is not set: the C reference files (tests/capi fixture) are "
    "needed to compare bytes with the C API",
)


@pytest.fixture(scope="module")
def default():
    return terrane.load_preset("default")


def bits(a):
    """The array's bytes as integers: equality of these is equality bit for bit (NaN too)."""
    return np.ascontiguousarray(a).view(np.uint32)


def stream_until_complete(streamer, viewers, max_polls=200000):
    """update/poll (no chunk limit, 50 ms) until the view is complete, as the C reference does.
    Waits a little between polls that delivered nothing (poll never waits for the workers). The
    tests' streamers run their workers at normal priority: background workers would wait for
    idle cores, which the other tests running beside them may never leave."""
    streamer.set_viewers(viewers)
    for _ in range(max_polls):
        streamer.update()
        delivered = streamer.poll(0, 50.0)
        if streamer.stats()["view_complete"]:
            return
        if delivered == 0:
            time.sleep(0.002)
    pytest.fail("the view did not complete within %d polls: %r" % (max_polls, streamer.stats()))


# ---- presets ---------------------------------------------------------------------------------


def test_version_and_builtins():
    assert terrane.version() == terrane.__version__
    assert terrane.version().count(".") == 2
    names = terrane.builtin_presets()
    assert "default" in names and "alpine" in names


def test_preset_properties(default):
    assert default.name == "default"
    assert isinstance(default.seed, int) and isinstance(default.hash, int)
    assert default.cell_size_m > 0 and default.size > 0
    assert default.height_min_m < default.height_max_m
    assert isinstance(default.splat_layers, list) and isinstance(default.species, list)
    assert isinstance(json.loads(default.json), dict)
    assert "default" in repr(default)


def test_seed_is_an_override():
    a = terrane.load_preset("alpine", seed=7)
    b = terrane.load_preset("alpine", overrides=["seed=7"])
    c = terrane.load_preset("alpine", seed=8)
    assert a.seed == 7 and c.seed == 8
    assert a.hash == b.hash and a == b and hash(a) == hash(b)
    assert a.hash != c.hash and a != c


def test_parse_round_trip(default):
    again = terrane.parse_preset(default.json, source="round trip")
    assert again.hash == default.hash and again.json == default.json


def test_load_by_path(tmp_path, default):
    path = tmp_path / "mine.json"
    path.write_text(default.json)
    assert terrane.load_preset(path).hash == default.hash  # os.PathLike
    assert terrane.load_preset(str(path), seed=3).seed == 3


# ---- heights ---------------------------------------------------------------------------------


def test_heights_shape_dtype_and_ownership(default):
    h = terrane.heights(default, 0.0, 0.0, 33, 17)
    assert h.shape == (17, 33) and h.dtype == np.float32
    assert h.flags.c_contiguous and h.flags.owndata and h.base is None  # terrane wrote into it
    assert np.all(np.isfinite(h))
    out = np.full((17, 33), np.nan, dtype=np.float32)
    result = terrane.heights(default, 0.0, 0.0, 33, 17, out=out)
    assert result is out  # filled in place, no copy
    assert np.array_equal(bits(out), bits(h))


def test_heights_out_is_checked(default):
    with pytest.raises(ValueError):
        terrane.heights(default, 0.0, 0.0, 33, 17, out=np.zeros((17, 32), np.float32))
    with pytest.raises(TypeError):
        terrane.heights(default, 0.0, 0.0, 33, 17, out=np.zeros((17, 33), np.float64))
    with pytest.raises(ValueError):
        terrane.heights(default, 0.0, 0.0, 33, 17, out=np.zeros((33, 17), np.float32).T)


def test_heights_seamless_split(default):
    cell = default.cell_size_m
    x0, z0 = -64 * cell, 96 * cell
    whole = terrane.heights(default, x0, z0, 80, 50)
    left = terrane.heights(default, x0, z0, 30, 50)
    right = terrane.heights(default, x0 + 30 * cell, z0, 50, 50)
    top = terrane.heights(default, x0, z0, 80, 21)
    bottom = terrane.heights(default, x0, z0 + 21 * cell, 80, 29)
    assert np.array_equal(bits(np.hstack([left, right])), bits(whole))
    assert np.array_equal(bits(np.vstack([top, bottom])), bits(whole))


def test_heights_do_not_depend_on_threads(default):
    one = terrane.heights(default, 1000.0, -2000.0, 200, 150, threads=1)
    two = terrane.heights(default, 1000.0, -2000.0, 200, 150, threads=2)
    assert np.array_equal(bits(one), bits(two))


def test_heights_from_python_threads(default):
    # heights runs without the GIL: concurrent calls on one preset give the same bytes.
    from concurrent.futures import ThreadPoolExecutor

    one = terrane.heights(default, 300.0, 600.0, 96, 64, threads=1)
    with ThreadPoolExecutor(4) as pool:
        grids = list(pool.map(lambda k: terrane.heights(default, 300.0, 600.0, 96, 64, 0.0, 1),
                              range(8)))
    for grid in grids:
        assert np.array_equal(bits(grid), bits(one))


@needs_reference
def test_heights_equal_c_reference():
    default = terrane.load_preset("default")
    h = terrane.heights(default, 1000.0, -2000.0, 300, 200, 0.0, 0)
    ref = np.fromfile(os.path.join(REFERENCE_DIR, "heights_default.f32"), dtype="<f4")
    assert ref.size == 300 * 200
    assert np.array_equal(bits(h.ravel()), bits(ref))

    alpine = terrane.load_preset("alpine", seed=7)
    h = terrane.heights(alpine, 0.0, 0.0, 128, 128, 2.0, 0)
    ref = np.fromfile(os.path.join(REFERENCE_DIR, "heights_alpine.f32"), dtype="<f4")
    assert ref.size == 128 * 128
    assert np.array_equal(bits(h.ravel()), bits(ref))


@needs_reference
def test_streamed_chunks_equal_c_reference():
    expected = {}
    with open(os.path.join(REFERENCE_DIR, "chunks.txt")) as f:
        for line in f:
            if line.strip():
                cx, cz, level, digest = line.split()
                expected[(int(cx), int(cz), int(level))] = digest
    assert expected
    preset = terrane.load_preset("default")
    with terrane.Streamer(preset, chunk_cells=16, view_distance=3000, threads=0,
                          worker_priority=2) as streamer:
        stream_until_complete(streamer, [(100.0, 0.0, 100.0)])
        got = {}
        for key, _stitch in streamer.visible():
            got[key] = "%016x" % streamer.chunk_info(key)["content_hash"]
    assert set(got) == set(expected)
    assert got == expected


# ---- scatter, queries, bakes, paths ----------------------------------------------------------

def test_scatter_layout_and_determinism(default):
    assert default.species  # built-in presets get the built-in species (tree, bush, boulder)
    assert terrane.instance_dtype.itemsize == 64
    # A rectangle across the chunk border x = 0, and its two halves (each call scatters whole
    # chunks: a few seconds each).
    a = terrane.scatter(default, -40.0, 10.0, 40.0, 70.0)
    assert a.dtype == terrane.instance_dtype
    assert len(a) > 0
    assert np.all((a["x"] >= -40) & (a["x"] < 40) & (a["z"] >= 10) & (a["z"] < 70))
    assert np.all((a["species"] >= 0) & (a["species"] < len(default.species)))
    assert a["normal"].shape == (len(a), 3)
    assert np.allclose(np.linalg.norm(a["normal"], axis=1), 1.0, atol=1e-5)
    assert len(np.unique(a["id"])) == len(a)
    left = terrane.scatter(default, -40.0, 10.0, 0.0, 70.0)
    right = terrane.scatter(default, 0.0, 10.0, 40.0, 70.0)
    both = np.concatenate([left, right])
    assert np.array_equal(np.sort(both, order="id"), np.sort(a, order="id"))  # every byte
    # y is the surface height under each instance.
    query = terrane.Query(default)
    for inst in a[:5]:
        assert inst["y"] == pytest.approx(query.height(inst["x"], inst["z"]), abs=1e-2)


def test_scatter_of_a_custom_surface():
    surface = (
        'surface={"layers":[{"name":"rock"},{"name":"grass"}],'
        '"biomes":[{"name":"all","splat":{"grass":1}}],'
        '"species":[{"name":"pine","density_per_m2":0.01,"min_distance_m":3}]}'
    )
    preset = terrane.load_preset("default", overrides=[surface])
    assert preset.species == ["pine"] and preset.splat_layers == ["rock", "grass"]
    # Species grow only in biomes whose scatter names them.
    assert len(terrane.scatter(preset, 0.0, 0.0, 200.0, 200.0)) == 0


def test_query(default):
    cell = default.cell_size_m
    grid = terrane.heights(default, 0.0, 0.0, 4, 4)
    query = terrane.Query(default)
    assert query.height(2 * cell, 3 * cell) == pytest.approx(float(grid[3, 2]), abs=1e-3)
    n = query.normal(10.5, 20.25)
    assert len(n) == 3 and n[1] > 0 and sum(c * c for c in n) == pytest.approx(1.0, abs=1e-5)
    top = query.height(5.0, 5.0) + 500.0
    hit = query.raycast((5.0, top, 5.0), (0.0, -2.0, 0.0), 1000.0)
    assert isinstance(hit, terrane.RayHit)
    assert hit.distance_m == pytest.approx(500.0, abs=1e-2)
    assert hit.point[1] == pytest.approx(top - 500.0, abs=1e-2)
    assert query.raycast((5.0, top, 5.0), (0.0, 1.0, 0.0), 1000.0) is None


def test_bake(tmp_path, default):
    result = terrane.bake(default, tmp_path / "out", formats=["png16"], size=65, threads=1)
    assert result["files"] >= 2 and result["bytes"] > 0
    assert (result["width"], result["height"]) == (65, 65)
    written = [p for p in (tmp_path / "out").rglob("*") if p.is_file()]
    assert len(written) == result["files"]
    assert sum(p.stat().st_size for p in written) == result["bytes"]


def test_nav_path(default):
    path = terrane.nav_path(default, (0.0, 0.0), (20.0, 10.0), agent={"radius": 0.4}, threads=1)
    assert path["status"] in ("ok", "partial", "no_start", "no_target", "failed")
    points = path["points"]
    assert points.dtype == np.float64 and points.ndim == 2 and points.shape[1] == 3
    if path["status"] == "ok":
        assert len(points) >= 2 and path["length_m"] > 0 and path["polygons"] > 0
        assert points[-1][0] == pytest.approx(20.0, abs=1.0)
    with pytest.raises(ValueError):
        terrane.nav_path(default, (0.0, 0.0), (1.0, 1.0), agent={"wingspan": 2})


# ---- the streamer ----------------------------------------------------------------------------


def test_streamer_meshes_and_events(default):
    with terrane.Streamer(default, chunk_cells=32, view_distance=150, threads=2,
                          worker_priority=2) as streamer:
        stream_until_complete(streamer, [(0.0, 10.0, 0.0, 1.0, 0.0, 0.0)])
        visible = streamer.visible()
        assert visible
        for kind, key in streamer.events():
            assert kind in ("ready", "evicted", "updated") and len(key) == 3
        key, stitch = visible[0]
        info = streamer.chunk_info(key)
        assert info["vertices"] == 33 * 33
        mesh = streamer.chunk_mesh(key)
        assert mesh["positions"].shape == (33 * 33, 3) and mesh["positions"].dtype == np.float32
        assert mesh["normals"].shape == (33 * 33, 3) and mesh["uvs"].shape == (33 * 33, 2)
        assert mesh["morph_y"].shape == (33 * 33,)
        y = mesh["positions"][:, 1]
        assert y.min() == pytest.approx(info["height_min_m"]) and y.max() == pytest.approx(
            info["height_max_m"]
        )
        indices = streamer.indices(stitch)
        assert indices.dtype == np.uint32 and len(indices) % 3 == 0 and indices.max() < 33 * 33
        stats = streamer.stats()
        assert stats["view_complete"] and stats["visible"] == len(visible)
        q = streamer.query()
        assert q.height(1.0, 2.0) == terrane.Query(default).height(1.0, 2.0)
    with pytest.raises(terrane.Error):
        streamer.update()  # closed
    assert q.height(1.0, 2.0) == terrane.Query(default).height(1.0, 2.0)  # outlives it


def test_streamer_non_resident_chunk_raises(default):
    with terrane.Streamer(default, chunk_cells=32, view_distance=100, threads=1,
                          worker_priority=2) as streamer:
        with pytest.raises(terrane.Error) as e:
            streamer.chunk_info((10**9, 10**9, 0))
        assert e.value.category == "invalid_argument"


# ---- errors ----------------------------------------------------------------------------------


def expect(category, call, *args, **kwargs):
    with pytest.raises(terrane.Error) as e:
        call(*args, **kwargs)
    assert e.value.category == category, str(e.value)
    assert e.value.status == {"invalid_argument": 1, "parse": 2, "io": 3, "limit": 4}[category]
    assert str(e.value)  # terrane's message
    return e.value


def test_error_categories(tmp_path, default):
    # A name that is no builtin is tried as a file: the library (load_preset, as the CLI) says io.
    err = expect("io", terrane.load_preset, "no_such_preset_name")
    assert "not a builtin preset" in str(err)
    err = expect("invalid_argument", terrane.load_preset, "default", overrides=["seed=-1"])
    assert isinstance(err, terrane.InvalidArgumentError) and isinstance(err, ValueError)
    err = expect("parse", terrane.parse_preset, '{"world": ', source="broken.json")
    assert isinstance(err, terrane.ParseError)
    err = expect("io", terrane.load_preset, str(tmp_path / "missing.json"))
    assert isinstance(err, terrane.IoError) and isinstance(err, OSError)
    expect("invalid_argument", terrane.heights, default, 0.0, 0.0, 0, 10)
    expect("invalid_argument", terrane.heights, default, 0.0, 0.0, 10, 10, cell=-1.0)
    with pytest.raises(terrane.Error) as e:  # refused before any allocation
        terrane.heights(default, 0.0, 0.0, 10**6, 10**6)
    assert e.value.category in ("invalid_argument", "limit")
    expect("invalid_argument", terrane.load_preset, "default", overrides=["world.no_such_key=1"])
    expect("invalid_argument", terrane.Streamer, default, chunk_cells=100)


def test_wrong_python_types_raise_type_error(default):
    with pytest.raises(TypeError):
        terrane.heights(default, "zero", 0.0, 10, 10)
    with pytest.raises(TypeError):
        terrane.heights("default", 0.0, 0.0, 10, 10)
    with pytest.raises(TypeError):
        terrane.load_preset("default", overrides="seed=1")  # a str is not a list of overrides
    with pytest.raises(TypeError):
        terrane.load_preset("default", seed=1.5)


# ---- worlds ----------------------------------------------------------------------------------


def test_world_edit_round_trip(tmp_path, default):
    path = tmp_path / "edit.world"
    cell = default.cell_size_m
    n = 41  # a grid centred on (0, 0), on the world's lattice
    x0 = -20 * cell
    before = terrane.heights(default, x0, x0, n, n)
    with terrane.World.create(path, default) as world:
        assert world.preset.hash == default.hash
        assert np.array_equal(bits(world.heights(x0, x0, n, n)), bits(before))
        assert world.apply("raise", 0.0, 0.0, radius=10.0, strength=5.0) is True
        assert world.info["pending_strokes"] == 1
        after = world.heights(x0, x0, n, n)
        assert after[20, 20] - before[20, 20] == pytest.approx(5.0, abs=1e-3)  # full weight
        assert np.array_equal(bits(after[0]), bits(before[0]))  # 20 cells away: untouched
        assert world.query().height(0.0, 0.0) == pytest.approx(float(after[20, 20]), abs=1e-3)
        seq = world.commit("raise the centre")
        assert isinstance(seq, int) and seq >= 1
        assert world.info["commits"] >= 1 and world.info["pending_strokes"] == 0
    with terrane.World.open(path, read_only=True) as world:
        assert world.read_only
        assert np.array_equal(bits(world.heights(x0, x0, n, n)), bits(after))
        err = expect("invalid_argument", world.commit)
        assert isinstance(err, terrane.InvalidArgumentError)
    with pytest.raises(terrane.Error):
        world.heights(x0, x0, n, n)  # closed


def test_world_undo_and_bad_brush(tmp_path, default):
    with terrane.World.create(tmp_path / "undo.world", default) as world:
        before = world.heights(0.0, 0.0, 8, 8)
        assert world.apply("lower", 0.0, 0.0, strength=2.0)
        assert world.undo() is True
        assert np.array_equal(bits(world.heights(0.0, 0.0, 8, 8)), bits(before))
        assert world.undo() is False
        expect("invalid_argument", world.apply, "explode", 0.0, 0.0)
    expect("io", terrane.World.open, tmp_path / "no_such_dir" / "x.world")


def test_world_scatter_brushes(tmp_path, default):
    with terrane.World.create(tmp_path / "plant.world", default) as world:
        assert world.apply("plant", 5.0, 7.0, species=default.species[0], yaw_deg=30.0) is True
        expect("invalid_argument", world.apply, "plant", 5.0, 7.0, species="no_such_species")
        world.commit("a tree")
        assert world.info["instance_overrides"] >= 1


def test_streamer_streams_world_edits(tmp_path, default):
    key = (0, 0, 0)  # level-0 chunk with cells [0, 32) (a 30 m cell: x, z in [0, 960) m)
    with terrane.World.create(tmp_path / "stream.world", default) as world, terrane.Streamer(
        default, chunk_cells=32, view_distance=150, threads=1, worker_priority=2
    ) as streamer:
        streamer.set_world(world)
        stream_until_complete(streamer, [(10.0, 0.0, 10.0)])
        assert key in [k for k, _ in streamer.visible()]
        before = streamer.chunk_info(key)["content_hash"]
        assert world.apply("raise", 15.0, 15.0, radius=40.0, strength=10.0)
        streamer.set_world(world)
        updated = []
        for _ in range(100000):
            streamer.update()
            streamer.poll(0, 50.0)
            updated += [k for kind, k in streamer.events() if kind == "updated"]
            if key in updated:
                break
            time.sleep(0.002)
        assert key in updated
        assert streamer.chunk_info(key)["content_hash"] != before
        assert streamer.query().height(0.0, 0.0) == pytest.approx(
            world.query().height(0.0, 0.0), abs=1e-4
        )
