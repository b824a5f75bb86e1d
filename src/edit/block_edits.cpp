// Block overrides (edit.hpp): copy-on-write chunks of override values, sphere brushes, undo and
// redo.
#include <algorithm>
#include <bit>
#include <cmath>
#include <iterator>
#include <string>

#include "terrane/edit.hpp"
#include "terrane/schema.hpp"

namespace terrane {
namespace {

constexpr const char* kKindNames[] = {"dig", "fill", "restore"};

// Chunk sizes are 8, 16 or 32: a chunk index is the block index shifted right (C++20's >> of a
// negative value is the floor).
int chunk_shift(int size) {
  return std::countr_zero(unsigned(size));
}

void check_layer(double block_size_m, int chunk_size, int block_types) {
  check_range("block edits: block_size_m", block_size_m, Range::open_lo(0.0, 100.0));
  if (chunk_size != 8 && chunk_size != 16 && chunk_size != 32) {
    throw Error(ErrorCategory::invalid_argument,
                "block edits: chunk_size = " + std::to_string(chunk_size) +
                    " must be 8, 16 or 32 (the block world's voxel.chunk_size)");
  }
  check_range("block edits: block_types", std::int64_t(block_types), 1, kDugBlock);
}

}  // namespace

const char* to_string(BlockBrushKind kind) {
  const auto k = std::size_t(kind);
  return k < std::size(kKindNames) ? kKindNames[k] : "?";
}

std::optional<BlockBrushKind> parse_block_brush_kind(std::string_view name) {
  for (std::size_t k = 0; k < std::size(kKindNames); ++k) {
    if (name == kKindNames[k]) return BlockBrushKind(k);
  }
  return std::nullopt;
}

void BlockBrush::validate(double block_size_m, int block_types) const {
  const Range coordinate = Range::closed(-kMaxBlockEditCoordinate, kMaxBlockEditCoordinate);
  check_range("block brush.x_m", x_m, coordinate);
  check_range("block brush.y_m", y_m, coordinate);
  check_range("block brush.z_m", z_m, coordinate);
  check_range("block brush.radius_m", radius_m,
              Range::open_lo(0.0, kMaxBlockBrushBlocks * block_size_m));
  if (kind == BlockBrushKind::fill && int(block) >= block_types) {
    throw Error(ErrorCategory::invalid_argument, "block brush.block = " + std::to_string(block) +
                                                     " is not a block of the palette (ids 0.." +
                                                     std::to_string(block_types - 1) + ")");
  }
}

BlockEditSnapshot::BlockEditSnapshot(double block_size_m, int chunk_size, int block_types,
                                     ChunkMap chunks)
    : block_m_(block_size_m), size_(chunk_size), types_(block_types), chunks_(std::move(chunks)) {
  check_layer(block_size_m, chunk_size, block_types);
  const std::size_t n = std::size_t(chunk_size) * std::size_t(chunk_size) * std::size_t(chunk_size);
  const double limit = kMaxBlockEditCoordinate / (block_size_m * double(chunk_size));
  for (const auto& [key, chunk] : chunks_) {
    const std::string where = "block edits: chunk (" + std::to_string(key.cx) + ", " +
                              std::to_string(key.cy) + ", " + std::to_string(key.cz) + ")";
    for (const std::int64_t c : {key.cx, key.cy, key.cz}) {
      if (!(std::fabs(double(c)) <= limit)) {
        throw Error(ErrorCategory::invalid_argument,
                    where + " lies beyond the block world's limit of 1e9 m");
      }
    }
    if (!chunk || chunk->size() != n) {
      throw Error(ErrorCategory::invalid_argument,
                  where + (chunk ? " has " + std::to_string(chunk->size()) + " values, not " +
                                       std::to_string(n)
                                 : std::string(" is missing")));
    }
    bool any = false;
    for (const std::uint16_t v : *chunk) {
      if (v == kKeepBlock) continue;
      any = true;
      if (v != kDugBlock && int(v) >= block_types) {
        throw Error(ErrorCategory::invalid_argument, where + " holds block " + std::to_string(v) +
                                                         ", beyond the palette's " +
                                                         std::to_string(block_types) + " types");
      }
    }
    if (!any) throw Error(ErrorCategory::invalid_argument, where + " holds no override");
  }
}

std::uint16_t BlockEditSnapshot::at(std::int64_t bx, std::int64_t by, std::int64_t bz) const {
  const int sh = chunk_shift(size_);
  const Chunk* c = chunk({bx >> sh, by >> sh, bz >> sh});
  if (c == nullptr) return kKeepBlock;
  const std::int64_t mask = size_ - 1;
  return (*c)[(std::size_t(by & mask) * std::size_t(size_) + std::size_t(bz & mask)) *
                  std::size_t(size_) +
              std::size_t(bx & mask)];
}

const BlockEditSnapshot::Chunk* BlockEditSnapshot::chunk(const BlockEditKey& key) const {
  const auto it = chunks_.find(key);
  return it == chunks_.end() ? nullptr : it->second.get();
}

std::size_t BlockEditSnapshot::bytes() const {
  std::size_t n = sizeof(*this);
  for (const auto& [key, chunk] : chunks_) {
    n += sizeof(key) + sizeof(chunk) + 48 + chunk->capacity() * sizeof(std::uint16_t);
  }
  return n;
}

std::size_t BlockEditSnapshot::override_count() const {
  std::size_t n = 0;
  for (const auto& entry : chunks_) {
    n += std::size_t(std::count_if(entry.second->begin(), entry.second->end(),
                                   [](std::uint16_t v) { return v != kKeepBlock; }));
  }
  return n;
}

std::uint64_t BlockEditSnapshot::content_hash() const {
  std::uint64_t h = hash_bytes(nullptr, 0);
  for (const auto& [key, chunk] : chunks_) {
    const std::int64_t k[3] = {key.cx, key.cy, key.cz};
    h = hash_bytes(k, sizeof k, h);
    h = hash_bytes(chunk->data(), chunk->size() * sizeof(std::uint16_t), h);
  }
  return h;
}

BlockEdits::BlockEdits(double block_size_m, int chunk_size, int block_types)
    : now_(block_size_m, chunk_size, block_types, {}) {}

BlockEdits::BlockEdits(const BlockEditSnapshot& start) : now_(start) {}

BlockBox BlockEdits::apply(const BlockBrush& brush) {
  const double bs = now_.block_m_;
  brush.validate(bs, now_.types_);
  // The blocks whose centre (b + 0.5) * bs can lie within the radius.
  const auto lo = [&](double c) {
    return std::int64_t(std::ceil((c - brush.radius_m) / bs - 0.5));
  };
  const auto hi = [&](double c) {
    return std::int64_t(std::floor((c + brush.radius_m) / bs - 0.5));
  };
  const BlockBox reach{lo(brush.x_m), lo(brush.y_m), lo(brush.z_m),
                       hi(brush.x_m), hi(brush.y_m), hi(brush.z_m)};
  if (reach.empty()) return BlockBox{};
  const std::uint16_t value = brush.kind == BlockBrushKind::dig    ? kDugBlock
                              : brush.kind == BlockBrushKind::fill ? brush.block
                                                                   : kKeepBlock;
  const int S = now_.size_, sh = chunk_shift(S);
  const std::int64_t mask = S - 1;
  const std::size_t n = std::size_t(S) * std::size_t(S) * std::size_t(S);
  const double r2 = brush.radius_m * brush.radius_m;
  Step step;
  BlockBox changed{INT64_MAX, INT64_MAX, INT64_MAX, INT64_MIN, INT64_MIN, INT64_MIN};
  // Chunk by chunk (in key order), each copied once when the brush changes a value in it.
  for (std::int64_t cx = reach.x0 >> sh; cx <= reach.x1 >> sh; ++cx) {
    for (std::int64_t cz = reach.z0 >> sh; cz <= reach.z1 >> sh; ++cz) {
      for (std::int64_t cy = reach.y0 >> sh; cy <= reach.y1 >> sh; ++cy) {
        const BlockEditKey key{cx, cy, cz};
        const BlockEditSnapshot::Chunk* old = now_.chunk(key);
        if (old == nullptr && value == kKeepBlock) continue;
        std::shared_ptr<BlockEditSnapshot::Chunk> copy;
        const std::int64_t bx0 = std::max(reach.x0, cx * S),
                           bx1 = std::min(reach.x1, cx * S + mask);
        const std::int64_t by0 = std::max(reach.y0, cy * S),
                           by1 = std::min(reach.y1, cy * S + mask);
        const std::int64_t bz0 = std::max(reach.z0, cz * S),
                           bz1 = std::min(reach.z1, cz * S + mask);
        for (std::int64_t by = by0; by <= by1; ++by) {
          const double dy = (double(by) + 0.5) * bs - brush.y_m;
          for (std::int64_t bz = bz0; bz <= bz1; ++bz) {
            const double dz = (double(bz) + 0.5) * bs - brush.z_m;
            for (std::int64_t bx = bx0; bx <= bx1; ++bx) {
              const double dx = (double(bx) + 0.5) * bs - brush.x_m;
              if (dx * dx + dy * dy + dz * dz > r2) continue;
              const std::size_t k =
                  (std::size_t(by & mask) * std::size_t(S) + std::size_t(bz & mask)) *
                      std::size_t(S) +
                  std::size_t(bx & mask);
              const std::uint16_t before = old != nullptr ? (*old)[k] : kKeepBlock;
              if (before == value) continue;
              if (!copy) {
                copy = old != nullptr ? std::make_shared<BlockEditSnapshot::Chunk>(*old)
                                      : std::make_shared<BlockEditSnapshot::Chunk>(n, kKeepBlock);
              }
              (*copy)[k] = value;
              changed.x0 = std::min(changed.x0, bx), changed.x1 = std::max(changed.x1, bx);
              changed.y0 = std::min(changed.y0, by), changed.y1 = std::max(changed.y1, by);
              changed.z0 = std::min(changed.z0, bz), changed.z1 = std::max(changed.z1, bz);
            }
          }
        }
        if (!copy) continue;
        std::shared_ptr<const BlockEditSnapshot::Chunk> after;
        if (std::any_of(copy->begin(), copy->end(),
                        [](std::uint16_t v) { return v != kKeepBlock; })) {
          after = std::move(copy);
        }
        step.chunks.push_back({key, {old != nullptr ? now_.chunks_.at(key) : nullptr, after}});
      }
    }
  }
  if (step.chunks.empty()) return BlockBox{};
  step.box = changed;
  set_chunks(step, true);
  undo_.push_back(std::move(step));
  redo_.clear();
  return changed;
}

void BlockEdits::set_chunks(const Step& step, bool after) {
  for (const auto& [key, pair] : step.chunks) {
    const std::shared_ptr<const BlockEditSnapshot::Chunk>& chunk = after ? pair.second : pair.first;
    if (chunk) {
      now_.chunks_[key] = chunk;
    } else {
      now_.chunks_.erase(key);
    }
  }
}

BlockBox BlockEdits::undo() {
  if (undo_.empty()) return BlockBox{};
  set_chunks(undo_.back(), false);
  redo_.push_back(std::move(undo_.back()));
  undo_.pop_back();
  return redo_.back().box;
}

BlockBox BlockEdits::redo() {
  if (redo_.empty()) return BlockBox{};
  set_chunks(redo_.back(), true);
  undo_.push_back(std::move(redo_.back()));
  redo_.pop_back();
  return undo_.back().box;
}

}  // namespace terrane
