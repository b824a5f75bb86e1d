#include "world_file.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>

namespace terrane::view {
namespace {

namespace fs = std::filesystem;

std::string hex(std::uint64_t v) {
  char text[24];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(v));
  return text;
}

}  // namespace

WorldFile::WorldFile(std::string path, WorldStore store)
    : path_(std::move(path)), store_(std::move(store)) {}

std::unique_ptr<WorldFile> WorldFile::open(const std::string& path) {
  return std::unique_ptr<WorldFile>(new WorldFile(path, WorldStore::open(path)));
}

std::unique_ptr<WorldFile> WorldFile::create(const std::string& path, const Preset& preset,
                                             int tile_cells) {
  WorldCreateOptions options;
  options.tile_cells = tile_cells;
  return std::unique_ptr<WorldFile>(new WorldFile(path, WorldStore::create(path, preset, options)));
}

std::unique_ptr<BrushTool> WorldFile::make_tool() const {
  const HeightEditSnapshot& stored = store_.height_edits();
  if (stored.empty()) {
    return std::make_unique<BrushTool>(preset().world.cell_size_m, info().tile_cells);
  }
  return std::make_unique<BrushTool>(stored);
}

std::shared_ptr<const InstanceEditSnapshot> WorldFile::instance_edits() const {
  return store_.instance_snapshot();
}

std::shared_ptr<const SplatPaintSnapshot> WorldFile::paint() const {
  std::shared_ptr<const SplatPaintSnapshot> paint = store_.paint();
  return paint != nullptr && !paint->empty() ? paint : nullptr;
}

std::shared_ptr<const BlockEditSnapshot> WorldFile::block_edits() const {
  return std::make_shared<const BlockEditSnapshot>(store_.block_edits());
}

std::string WorldFile::save(BrushTool& tool) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::size_t strokes = tool.strokes_since_save();
  const std::string description =
      "terrane-view: " + std::to_string(strokes) + (strokes == 1 ? " stroke" : " strokes");
  // The shared snapshot: the store keeps it rather than copying its map of tiles.
  const WorldCommit c = store_.commit(tool.snapshot(), description);
  tool.mark_saved();
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  char text[256];
  std::snprintf(text, sizeof text, "%zu chunks written, %zu deleted, %.1f KiB in %.1f ms",
                c.tiles_written, c.tiles_deleted, double(c.bytes_written) / 1024.0, ms);
  return "saved commit #" + std::to_string(c.seq) + " to " + path_ + ": " + text;
}

OpenedWorld open_world(Options& o, const PresetSource& source) {
  OpenedWorld w;
  try {
    if (is_world_file(o.preset)) {
      if (!o.overrides.empty() || o.seed) {
        fail(o.preset +
             " is a world file: its preset and seed are stored with its edits (which sit on "
             "their terrain), so --set and --seed cannot change them");
      }
      if (!o.world_file.empty() && fs::path(o.world_file) != fs::path(o.preset)) {
        fail("--world " + o.world_file + " with the world file " + o.preset +
             ": give one world file");
      }
      o.world_file = o.preset;
      w.file = WorldFile::open(o.preset);
      w.preset = w.file->preset();
      return w;
    }
    w.preset = source.load();
    if (o.world_file.empty()) return w;
    if (!fs::exists(o.world_file)) {
      w.file = WorldFile::create(o.world_file, w.preset);
      std::fprintf(stderr, "terrane-view: created %s for preset '%s' (seed %llu)\n",
                   o.world_file.c_str(), w.preset.name.c_str(),
                   static_cast<unsigned long long>(w.preset.seed));
      return w;
    }
    if (!is_world_file(o.world_file)) {
      fail("--world " + o.world_file + " exists and is not a world file (not replaced)");
    }
    w.file = WorldFile::open(o.world_file);
    if (o.preset_given && w.file->preset().hash != w.preset.hash) {
      fail("--world " + o.world_file + " holds preset '" + w.file->preset().name + "' (hash " +
           hex(w.file->preset().hash) + "), not the one given ('" + w.preset.name + "', hash " +
           hex(w.preset.hash) + "): open it as `terrane-view " + o.world_file +
           "`, or choose another file");
    }
    w.preset = w.file->preset();
  } catch (const std::exception& e) {
    fail(e.what());
  }
  return w;
}

std::unique_ptr<BrushTool> make_unsaved_tool(const Preset& preset) {
  return std::make_unique<BrushTool>(preset.world.cell_size_m, WorldCreateOptions{}.tile_cells);
}

std::string unsaved_warning(const BrushTool& tool, const WorldFile* file) {
  if (!tool.unsaved()) return {};
  const std::string what = "the edits of " + std::to_string(tool.strokes_since_save()) +
                           " strokes (" + std::to_string(tool.current().tile_count()) +
                           " edited tiles) are not saved";
  return file != nullptr ? what + " to " + file->path() + " (Ctrl+S saves)"
                         : what + " (start with --world FILE, or Save in the panel, to keep them)";
}

}  // namespace terrane::view
