// Checks of a visible set: no node contains another, every edge's stitch mask names the level
// of the coarser neighbour across it (within the stitching's range), and the vertices two
// neighbours share have bit-identical heights. Shared vertices are found through integer
// level-0 world indices: vertex (i, j) of node (cx, cz, L) is level-0 sample
// ((cx * N + i) * 2^L, (cz * N + j) * 2^L).
#include <unordered_map>

#include "world/world_internal.hpp"

namespace terrane {

namespace {

struct KeyHash {
  std::size_t operator()(const ChunkKey& k) const { return std::size_t(hash(k)); }
};

// Border vertex t (0..N) of edge e, as (i, j).
void edge_vertex(int n, int e, int t, int& i, int& j) {
  switch (Edge(e)) {
    case Edge::west: i = 0; j = t; break;
    case Edge::east: i = n; j = t; break;
    case Edge::north: i = t; j = 0; break;
    case Edge::south: i = t; j = n; break;
  }
}

// Whether vertex (i, j) of a (level-0 world index (wx, wz)) is a vertex of node b; if so its
// heights must agree. Returns false on a mismatch.
bool shared_vertex_matches(const ChunkData& a, int i, int j, const ChunkData& b, int n) {
  const ChunkKey& ka = a.key;
  const ChunkKey& kb = b.key;
  const std::int64_t wx = (ka.cx * n + i) * (std::int64_t{1} << ka.level);
  const std::int64_t wz = (ka.cz * n + j) * (std::int64_t{1} << ka.level);
  const std::int64_t step = std::int64_t{1} << kb.level;
  if (wx % step != 0 || wz % step != 0) return true;  // not a vertex of b
  const std::int64_t ib = wx / step - kb.cx * n;
  const std::int64_t jb = wz / step - kb.cz * n;
  if (ib < 0 || ib > n || jb < 0 || jb > n) return true;
  return a.heights.at(i + 1, j + 1) == b.heights.at(int(ib) + 1, int(jb) + 1);
}

}  // namespace

SeamReport check_seams(std::span<const VisibleChunk> visible, const ChunkGenerator& generator) {
  const int n = generator.settings().cells;
  const int max_stitch = chunk_levels(n);
  std::unordered_map<ChunkKey, std::size_t, KeyHash> index;
  SeamReport r;
  for (std::size_t k = 0; k < visible.size(); ++k) {
    if (!index.emplace(visible[k].key, k).second) ++r.overlaps;  // duplicate
  }
  for (const VisibleChunk& v : visible) {
    for (int up = 1; v.key.level + up <= kMaxChunkLevel; ++up) {
      if (index.count(v.key.ancestor(up)) != 0) ++r.overlaps;
    }
    for (int e = 0; e < 4; ++e) {
      const ChunkKey nb = world_detail::neighbour(v.key, Edge(e));
      const VisibleChunk* other = nullptr;
      int d = 0;
      for (int up = 0; v.key.level + up <= kMaxChunkLevel; ++up) {
        auto it = index.find(nb.ancestor(up));
        if (it != index.end()) {
          other = &visible[it->second];
          d = up;
          break;
        }
      }
      if (other == nullptr) {
        // Finer neighbours (they stitch to us) or none: this side must not be stitched. Finer
        // neighbours' vertices are checked from their side.
        if (v.stitch[std::size_t(e)] != 0) ++r.cracks;
        continue;
      }
      ++r.edges_checked;
      if (v.stitch[std::size_t(e)] != d || d > max_stitch) {
        ++r.cracks;
        continue;
      }
      if (v.data == nullptr || other->data == nullptr) continue;
      bool ok = true;
      for (int t = 0; t <= n && ok; ++t) {
        int i = 0, j = 0;
        edge_vertex(n, e, t, i, j);
        ok = shared_vertex_matches(*v.data, i, j, *other->data, n);
      }
      if (!ok) ++r.cracks;
    }
  }
  return r;
}

}  // namespace terrane
