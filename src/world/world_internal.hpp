// Internal pieces of the world module: a fixed-capacity hash map of chunk keys (no allocation
// after init) and the quadtree LOD selection.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "terrane/world.hpp"

namespace terrane::world_detail {

// Open addressing with linear probing and backward-shift deletion; capacity fixed at init().
class KeyMap {
 public:
  void init(std::size_t min_capacity);
  void clear();
  std::size_t size() const { return size_; }
  std::size_t capacity() const { return entries_.size(); }
  const int* find(const ChunkKey& key) const;
  int* find(const ChunkKey& key);
  bool contains(const ChunkKey& key) const { return find(key) != nullptr; }
  // Inserts or overwrites. Throws Error(internal) when full (callers size the map from limits).
  void put(const ChunkKey& key, int value);
  bool erase(const ChunkKey& key);

 private:
  // An entry is in use when its stamp equals stamp_; clear() moves stamp_ on (O(1)).
  struct Entry {
    ChunkKey key;
    int value = 0;
    std::uint32_t stamp = 0;
  };
  std::size_t home(const ChunkKey& key) const { return std::size_t(hash(key)) & mask_; }
  bool used(std::size_t i) const { return entries_[i].stamp == stamp_; }
  std::vector<Entry> entries_;
  std::uint32_t stamp_ = 1;
  std::size_t mask_ = 0;
  std::size_t size_ = 0;
};

// The node of the same level across edge e.
inline ChunkKey neighbour(const ChunkKey& k, Edge e) {
  ChunkKey n = k;
  switch (e) {
    case Edge::west: n.cx -= 1; break;
    case Edge::east: n.cx += 1; break;
    case Edge::north: n.cz -= 1; break;
    case Edge::south: n.cz += 1; break;
  }
  return n;
}

// The fixed geometry of a streamer's quadtree.
struct LodGeometry {
  double chunk_m = 0.0;      // level-0 node side
  double lod0_m = 0.0;       // level-0 band
  double view_m = 0.0;       // view disc radius
  double hysteresis = 0.0;
  double lookahead_s = 0.0;
  int root_level = 0;
  int max_stitch = 0;        // log2 N

  double node_size(int level) const;
  // Split distance of a level-L node (L > 0): lod0_m * 2^(L-1).
  double split_distance(int level) const;
};

struct SelNode {
  ChunkKey key;
  double dist_m = 0.0;  // smallest XZ distance from a viewer to the node's square
  int child[4] = {-1, -1, -1, -1};
  bool leaf = true;
  bool in_view = false;  // intersects some viewer's view disc (else a prefetched root)
};

// The nodes wanted this frame: a forest of in-view roots (each a quadtree down to its leaves)
// plus out-of-view roots prefetched ahead of moving viewers.
struct Selection {
  std::vector<SelNode> nodes;     // all nodes; capacity fixed at init
  std::vector<int> roots;         // in-view roots
  std::vector<int> prefetch;      // out-of-view roots
  std::vector<ChunkKey> leaves;   // in-view leaves
  KeyMap index;                   // key -> node
  KeyMap split;                   // keys of the nodes split this frame (hysteresis state)

  void init(std::size_t max_nodes);
};

// Smallest XZ distance from (px, pz) to the square of `key`.
double node_distance(const LodGeometry& g, const ChunkKey& key, double px, double pz);

// Fills `out` (cleared first) for the viewers; `previous_split` is the last frame's
// out.split (hysteresis). Throws Error(limit) when more than out.nodes.capacity() nodes would
// be selected. No allocation.
void select_lod(const LodGeometry& g, std::span<const Viewer> viewers, const KeyMap& previous_split,
                Selection& out);

// Throws Error(invalid_argument) for more than kMaxViewers, a non-finite or out-of-range
// position, a speed above kMaxViewerSpeed or an invalid frustum (Streamer::set_viewers).
void validate_viewers(std::span<const Viewer> viewers);
// Sets the calling worker thread's scheduling (Linux; failures keep the default).
void apply_worker_priority(WorkerPriority priority);

}  // namespace terrane::world_detail
