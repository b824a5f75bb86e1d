// The C API's world files (terrane.h): a WorldStore with the owner's edit layers (heights,
// blocks, paint) that strokes go to until they are committed together.
#include <algorithm>
#include <cmath>
#include <string>

#include "capi_internal.hpp"

using namespace terrane;
using terrane::capi::guarded;
using terrane::capi::require;

namespace terrane::capi {
namespace {

enum Layer { kHeights = 0, kBlocks = 1, kPaint = 2, kInstances = 3 };

// The index of `name` in `names` (what = "block", "splat layer"), or Error listing them.
template <class List, class Name>
int index_of(const List& list, Name name_of, const char* name, const char* what) {
  if (name == nullptr || *name == '\0') {
    throw Error(ErrorCategory::invalid_argument, std::string("the brush needs a ") + what);
  }
  std::string names;
  for (std::size_t k = 0; k < list.size(); ++k) {
    if (name_of(list[k]) == name) return int(k);
    names += (k ? ", " : "") + name_of(list[k]);
  }
  throw Error(ErrorCategory::invalid_argument,
              std::string(what) + " '" + name + "' is not one of the world's (" + names + ")");
}

void add_rect(LatticeRect& into, const LatticeRect& r) {
  if (r.empty()) return;
  if (into.empty()) {
    into = r;
    return;
  }
  into.i0 = std::min(into.i0, r.i0);
  into.j0 = std::min(into.j0, r.j0);
  into.i1 = std::max(into.i1, r.i1);
  into.j1 = std::max(into.j1, r.j1);
}

void add_changes(InstanceChanges& into, const InstanceChanges& c) {
  into.at.insert(into.at.end(), c.at.begin(), c.at.end());
}

// An instance brush (fell, plant, regrow) on the world's instance layer, as `terrane world
// edit` applies it; returns what it changed.
InstanceChanges apply_instance_brush(terrane_world& w, const terrane_brush& b) {
  const Preset& preset = w.store->preset();
  if (preset.surface.species.empty()) {
    throw Error(ErrorCategory::invalid_argument,
                "the preset '" + preset.name + "' scatters no species: no instance to change");
  }
  if (b.kind == TERRANE_BRUSH_PLANT) {
    ScatterInstance p;
    p.x_m = b.x_m;
    p.z_m = b.z_m;
    p.yaw_deg = float(b.yaw_deg);
    p.species = index_of(
        preset.surface.species, [](const Species& sp) { return sp.name; }, b.species, "species");
    return w.instances.add(p);
  }
  if (!w.surface_generator) {
    // Which instances a disc holds (ids, positions) does not depend on the chunk size: the
    // default chunks serve any world.
    ChunkSettings cs;
    cs.surface = true;
    w.surface_generator = std::make_unique<ChunkGenerator>(preset, cs);
  }
  if (b.kind == TERRANE_BRUSH_FELL) {
    if (!(b.regrow_s >= 0.0 && b.regrow_s <= 1e12)) {
      throw Error(ErrorCategory::invalid_argument, "regrow_s = " + format_number(b.regrow_s) +
                                                       " is outside the allowed range 0..1e12");
    }
    const std::vector<ScatterInstance> near = w.surface_generator->instances_near(
        b.x_m, b.z_m, b.radius_m, &w.heights.current(), &w.instances.current());
    return w.instances.remove(near, b.regrow_s);
  }
  // regrow: every override whose position lies within the radius.
  if (!(b.radius_m > 0.0 && b.radius_m <= 1e4) || !std::isfinite(b.x_m) || !std::isfinite(b.z_m)) {
    throw Error(ErrorCategory::invalid_argument,
                "regrow at (" + format_number(b.x_m) + ", " + format_number(b.z_m) + ") radius " +
                    format_number(b.radius_m) + ": a finite centre and a radius in (0, 1e4]");
  }
  std::vector<std::uint64_t> ids;
  for (const auto& entry : w.instances.current().chunks()) {
    for (const InstanceOverride& o : *entry.second) {
      if (std::hypot(o.x_m - b.x_m, o.z_m - b.z_m) <= b.radius_m) ids.push_back(o.id);
    }
  }
  return w.instances.restore(ids);
}

terrane_world* make_world(WorldStore store, bool read_only) {
  auto graph = std::make_shared<const CompiledGraph>(compile(store.preset()));
  auto stored = std::make_unique<WorldStore>(std::move(store));
  HeightEdits heights(stored->height_edits());
  BlockEdits blocks(stored->block_edits());
  SplatPaint paint(*stored->paint());
  InstanceEdits instances(stored->instance_edits());
  auto* w = new terrane_world{std::move(stored), std::move(graph), std::move(heights),
                              std::move(blocks), std::move(paint), std::move(instances)};
  w->read_only = read_only;
  return w;
}

template <class Body>
terrane_status on_world(const terrane_world* w, Body&& body) noexcept {
  return on_handle(w, "world", std::forward<Body>(body));
}

}  // namespace
}  // namespace terrane::capi

extern "C" {

terrane_status terrane_world_create(const char* path, const terrane_preset* preset,
                                    int32_t overwrite, terrane_world** out) {
  return guarded([&] {
    require(out, "out");
    *out = nullptr;
    require(path, "path");
    require(preset, "preset");
    WorldCreateOptions options;
    options.overwrite = overwrite != 0;
    WorldStore::create(path, preset->preset, options);
    *out = capi::make_world(WorldStore::open(path), false);
    return TERRANE_OK;
  });
}

terrane_status terrane_world_open(const char* path, int32_t read_only, terrane_world** out) {
  return guarded([&] {
    require(out, "out");
    *out = nullptr;
    require(path, "path");
    WorldOpenOptions options;
    options.read_only = read_only != 0;
    *out = capi::make_world(WorldStore::open(path, options), read_only != 0);
    return TERRANE_OK;
  });
}

void terrane_world_free(terrane_world* world) {
  try {
    delete world;
  } catch (...) {
  }
}

const char* terrane_world_last_error(const terrane_world* world) {
  return world != nullptr ? world->last_error.c_str() : "world is NULL";
}

terrane_status terrane_world_preset(const terrane_world* world, terrane_preset** out) {
  return capi::on_world(world, [&] {
    require(out, "out");
    *out = nullptr;
    return terrane_preset_parse(world->store->preset().canonical_json.data(),
                                world->store->preset().canonical_json.size(),
                                world->store->preset().source.c_str(), nullptr, 0, out);
  });
}

void terrane_brush_init(terrane_brush* brush, int32_t kind) {
  if (brush == nullptr) return;
  *brush = terrane_brush{};
  brush->kind = kind;
  const bool block = kind >= TERRANE_BRUSH_DIG && kind <= TERRANE_BRUSH_RESTORE;
  brush->radius_m = block ? 3.0 : 10.0;
  brush->strength = 1.0;
  brush->falloff_start = 0.5;
}

terrane_status terrane_world_apply(terrane_world* world, const terrane_brush* brush,
                                   int32_t* changed) {
  return capi::on_world(world, [&] {
    require(brush, "brush");
    const Preset& preset = world->store->preset();
    const terrane_brush& b = *brush;
    bool did = false;
    int layer = capi::kHeights;
    auto steps = [](const terrane_world& w, int l) {
      return l == capi::kHeights  ? w.heights.undo_steps()
             : l == capi::kBlocks ? w.blocks.undo_steps()
             : l == capi::kPaint  ? w.paint.undo_steps()
                                  : w.instances.undo_steps();
    };
    const std::size_t steps_before[4] = {steps(*world, 0), steps(*world, 1), steps(*world, 2),
                                         steps(*world, 3)};
    switch (b.kind) {
      case TERRANE_BRUSH_RAISE:
      case TERRANE_BRUSH_LOWER:
      case TERRANE_BRUSH_SMOOTH:
      case TERRANE_BRUSH_FLATTEN:
      case TERRANE_BRUSH_NOISE: {
        HeightBrush h;
        h.kind = BrushKind(b.kind);
        h.x_m = b.x_m;
        h.z_m = b.z_m;
        h.radius_m = b.radius_m;
        h.strength_m = b.strength;
        h.falloff_start = b.falloff_start;
        h.target_m = b.target_m;
        const LatticeRect r = world->heights.apply(h, *world->graph);
        capi::add_rect(world->changed_heights, r);
        did = !r.empty();
        break;
      }
      case TERRANE_BRUSH_DIG:
      case TERRANE_BRUSH_FILL:
      case TERRANE_BRUSH_RESTORE: {
        layer = capi::kBlocks;
        BlockBrush k;
        k.kind = BlockBrushKind(b.kind - TERRANE_BRUSH_DIG);
        k.x_m = b.x_m;
        k.y_m = b.y_m;
        k.z_m = b.z_m;
        k.radius_m = b.radius_m;
        if (b.kind == TERRANE_BRUSH_FILL) {
          k.block = std::uint16_t(capi::index_of(
              preset.voxel.palette.types, [](const BlockType& t) { return t.name; }, b.block,
              "block"));
        }
        did = !world->blocks.apply(k).empty();
        break;
      }
      case TERRANE_BRUSH_PAINT:
      case TERRANE_BRUSH_UNPAINT: {
        layer = capi::kPaint;
        SplatBrush p;
        p.kind = b.kind == TERRANE_BRUSH_PAINT ? PaintKind::paint : PaintKind::unpaint;
        p.x_m = b.x_m;
        p.z_m = b.z_m;
        p.radius_m = b.radius_m;
        p.strength = b.strength;
        p.falloff_start = b.falloff_start;
        if (b.kind == TERRANE_BRUSH_PAINT) {
          p.layer = capi::index_of(
              preset.surface.layers, [](const SplatLayer& l) { return l.name; }, b.layer,
              "splat layer");
        }
        const LatticeRect r = world->paint.apply(p);
        capi::add_rect(world->changed_paint, r);
        did = !r.empty();
        break;
      }
      case TERRANE_BRUSH_FELL:
      case TERRANE_BRUSH_PLANT:
      case TERRANE_BRUSH_REGROW: {
        layer = capi::kInstances;
        const InstanceChanges c = capi::apply_instance_brush(*world, b);
        capi::add_changes(world->changed_instances, c);
        did = !c.empty();
        break;
      }
      default:
        throw Error(ErrorCategory::invalid_argument,
                    "brush kind " + std::to_string(b.kind) +
                        " is not one of terrane_brush_kind (0..4 heights, 10..12 blocks, 20..21 "
                        "paint, 30..32 instances)");
    }
    // A stroke that changed nothing may leave no undo step in its layer: only the steps there
    // go on the world's list, so undo always takes back the layer's own newest step.
    if (steps(*world, layer) > steps_before[layer]) world->strokes.push_back(layer);
    ++world->pending;
    if (changed != nullptr) *changed = did ? 1 : 0;
    return TERRANE_OK;
  });
}

terrane_status terrane_world_undo(terrane_world* world, int32_t* undone) {
  return capi::on_world(world, [&] {
    if (world->strokes.empty()) {
      if (undone != nullptr) *undone = 0;
      return TERRANE_OK;
    }
    const int layer = world->strokes.back();
    if (layer == capi::kHeights) capi::add_rect(world->changed_heights, world->heights.undo());
    if (layer == capi::kBlocks) world->blocks.undo();
    if (layer == capi::kPaint) capi::add_rect(world->changed_paint, world->paint.undo());
    if (layer == capi::kInstances) {
      capi::add_changes(world->changed_instances, world->instances.undo());
    }
    world->strokes.pop_back();
    if (world->pending > 0) --world->pending;
    if (undone != nullptr) *undone = 1;
    return TERRANE_OK;
  });
}

terrane_status terrane_world_commit(terrane_world* world, const char* description, uint64_t* seq) {
  return capi::on_world(world, [&] {
    if (world->read_only) {
      throw Error(ErrorCategory::invalid_argument,
                  "the world " + world->store->info().path + " was opened read-only");
    }
    const WorldCommit c =
        world->store->commit(WorldEdits{world->heights.snapshot(), world->blocks.snapshot(),
                                        world->instances.snapshot(), world->paint.snapshot()},
                             description != nullptr ? description : "C API");
    world->pending = 0;
    if (seq != nullptr) *seq = c.seq;
    return TERRANE_OK;
  });
}

terrane_status terrane_world_get_info(const terrane_world* world, terrane_world_info* out) {
  return capi::on_world(world, [&] {
    require(out, "out");
    const WorldInfo& i = world->store->info();
    terrane_world_info r{};
    r.seed = i.seed;
    r.preset_hash = i.preset_hash;
    r.commits = i.commits;
    r.cell_size_m = i.cell_size_m;
    r.height_tiles = i.height_tiles;
    r.block_overrides = i.block_overrides;
    r.painted_vertices = i.painted_vertices;
    r.instance_overrides = i.instance_overrides;
    r.pending_strokes = world->pending;
    *out = r;
    return TERRANE_OK;
  });
}

terrane_status terrane_world_heights(const terrane_world* world, double x0_m, double z0_m,
                                     int32_t width, int32_t height, double cell_m, int32_t threads,
                                     float* out, size_t capacity, size_t* count) {
  return capi::on_world(world, [&] {
    return capi::heights(*world->graph, &world->heights.current(),
                         world->store->preset().world.cell_size_m, x0_m, z0_m, width, height,
                         cell_m, threads, out, capacity, count);
  });
}

terrane_status terrane_world_query(const terrane_world* world, terrane_query** out) {
  return capi::on_world(world, [&] {
    require(out, "out");
    *out = nullptr;
    auto generator = std::make_shared<const ChunkGenerator>(world->store->preset());
    auto q = std::make_unique<terrane_query>();
    q->query = std::make_shared<const TerrainQuery>(generator, world->heights.snapshot());
    *out = q.release();
    return TERRANE_OK;
  });
}

terrane_status terrane_streamer_set_world(terrane_streamer* streamer, terrane_world* world) {
  return guarded(
      [&] {
        require(streamer, "streamer");
        require(world, "world");
        Streamer& s = *streamer->streamer;
        LatticeRect heights = world->changed_heights, paint = world->changed_paint;
        InstanceChanges instances = world->changed_instances;
        if (world->synced != streamer->serial) {
          // Another streamer (or none) saw the world last: every resident chunk may differ.
          constexpr std::int64_t kAll = std::int64_t{1} << 50;
          heights = paint = LatticeRect{-kAll, -kAll, kAll, kAll};
          instances.at.clear();
          for (const auto& entry : world->instances.current().chunks()) {
            for (const InstanceOverride& o : *entry.second) instances.at.push_back({o.x_m, o.z_m});
          }
        }
        s.set_edits(world->heights.snapshot(), heights);
        if (s.params().chunk.surface) {
          s.set_paint(world->paint.snapshot(), paint);
          s.set_instance_edits(world->instances.snapshot(), instances);
        }
        world->synced = streamer->serial;
        world->changed_heights = world->changed_paint = LatticeRect{};
        world->changed_instances.at.clear();
        return TERRANE_OK;
      },
      &streamer->last_error);
}

}  // extern "C"
