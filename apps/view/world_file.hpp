// terrane-view's world files (issue 16): `terrane-view FILE` opens a world file's preset and
// edits, `--world FILE` creates one for the preset (or opens it when it exists) to save the
// brush's edits into; Ctrl+S, the panel's Save and offscreen --save commit them
// (WorldStore::commit, one transaction and one log line each).
#pragma once

#include <memory>
#include <string>

#include "brush_tool.hpp"
#include "options.hpp"
#include "panel.hpp"
#include "terrane/store.hpp"

namespace terrane::view {

class WorldFile {
 public:
  // Throws Error as WorldStore::open / create do (naming the file).
  static std::unique_ptr<WorldFile> open(const std::string& path);
  // tile_cells: the height layer's tile side (the edits' HeightEditSnapshot::tile_cells()).
  static std::unique_ptr<WorldFile> create(const std::string& path, const Preset& preset,
                                           int tile_cells = WorldCreateOptions{}.tile_cells);

  const std::string& path() const { return path_; }
  const Preset& preset() const { return store_.preset(); }
  const WorldInfo& info() const { return store_.info(); }

  // The stored block overrides (a copy the block world shares).
  std::shared_ptr<const BlockEditSnapshot> block_edits() const;
  // The stored scatter instance overrides (felled, placed instances).
  std::shared_ptr<const InstanceEditSnapshot> instance_edits() const;
  // The stored splat paint (null when the file has none).
  std::shared_ptr<const SplatPaintSnapshot> paint() const;
  // A brush tool on the stored edits of every layer (saved), of the stored tile size.
  std::unique_ptr<BrushTool> make_tool() const;
  // Commits the tool's edits of every layer in one commit and marks them saved. Returns the status
  // line ("saved commit #3 to world.terrane: 2 chunks written, 0 deleted, 14.2 KiB in 3.1 ms").
  // Throws Error: the file then keeps its newest commit and the tool stays unsaved.
  std::string save(BrushTool& tool);

 private:
  WorldFile(std::string path, WorldStore store);
  std::string path_;
  WorldStore store_;
};

// The world a run views: the preset argument when it is a world file (its preset, no --set,
// --seed or --world with it), else the preset loaded from `source` and, with --world FILE, that
// file opened (its preset must be the one given, if one was) or created. Fatal errors go through
// fail(). `file` is null without a world file.
struct OpenedWorld {
  Preset preset;
  std::unique_ptr<WorldFile> file;
};
OpenedWorld open_world(Options& o, const PresetSource& source);

// A tool without a world file: the preset's cell and the tile size a world file stores by
// default (WorldCreateOptions::tile_cells).
std::unique_ptr<BrushTool> make_unsaved_tool(const Preset& preset);

// The warning printed on exit when edits are not saved (empty when there is nothing to say).
std::string unsaved_warning(const BrushTool& tool, const WorldFile* file);

}  // namespace terrane::view
