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
  ToolLayers layers = empty_layers(preset(), info().tile_cells);
  if (!store_.height_edits().empty()) layers.heights = store_.height_edits();
  layers.blocks = store_.block_edits();
  layers.instances = store_.instance_edits();
  if (const auto paint = store_.paint(); paint != nullptr) layers.paint = *paint;
  return std::make_unique<BrushTool>(layers);
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
  // Every layer in one transaction; the shared snapshots, which the store keeps rather than
  // copying their maps of tiles.
  WorldEdits edits;
  edits.heights = tool.snapshot();
  edits.blocks = tool.block_snapshot();
  edits.instances = tool.instance_snapshot();
  edits.paint = tool.paint_snapshot();
  const WorldCommit c = store_.commit(edits, description);
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
  return std::make_unique<BrushTool>(empty_layers(preset, WorldCreateOptions{}.tile_cells));
}

std::string unsaved_warning(const BrushTool& tool, const WorldFile* file) {
  if (!tool.unsaved()) return {};
  // Every layer's count (a fell leaves the height tiles at 0).
  std::string what = "the edits of " + std::to_string(tool.strokes_since_save()) + " strokes (" +
                     std::to_string(tool.current().tile_count()) + " edited tiles, " +
                     std::to_string(tool.blocks().override_count()) + " block overrides, " +
                     std::to_string(tool.instances().override_count()) + " instance overrides, " +
                     std::to_string(tool.paint().tile_count()) + " paint tiles) are not saved";
  return file != nullptr ? what + " to " + file->path() + " (Ctrl+S saves)"
                         : what + " (start with --world FILE, or Save in the panel, to keep them)";
}

}  // namespace terrane::view
