// Quadtree LOD selection (CDLOD-style distance bands, F. Strugar, JGT 2009): roots of level
// root_level cover every view disc; a level-L node is split when a viewer is closer than
// lod0 * 2^(L-1) to its square, and, once split, stays split until every viewer is (1 +
// hysteresis) times that distance away. Children that do not touch a view disc are left out, so
// the leaves tile the union of the discs (plus the parts of border nodes outside it) exactly once.
// The leaves are then balanced into a restricted quadtree (H. Samet, "The Design and Analysis of
// Spatial Data Structures", 1990, sec. 1.4: a leaf more than max_stitch levels coarser than a
// neighbouring leaf is split until none is), so every pair of neighbouring leaves is one the
// chunk stitching bridges, whatever the cell count, view distance or band. The distance bands
// alone keep neighbours within about 3 levels; the balancing makes it a guarantee.
// Also the fixed-capacity key map used for every per-frame set.
#include <algorithm>
#include <cmath>
#include <string>

#include "world/world_internal.hpp"

namespace terrane::world_detail {

void KeyMap::init(std::size_t min_capacity) {
  std::size_t cap = 16;
  while (cap < 2 * min_capacity) cap *= 2;
  entries_.assign(cap, Entry{});
  mask_ = cap - 1;
  size_ = 0;
  stamp_ = 1;
}

void KeyMap::clear() {
  if (size_ == 0) return;
  size_ = 0;
  if (++stamp_ == 0) {  // wrapped: forget every old stamp
    for (Entry& e : entries_) e.stamp = 0;
    stamp_ = 1;
  }
}

const int* KeyMap::find(const ChunkKey& key) const {
  if (entries_.empty()) return nullptr;
  for (std::size_t i = home(key);; i = (i + 1) & mask_) {
    const Entry& e = entries_[i];
    if (e.stamp != stamp_) return nullptr;
    if (e.key == key) return &e.value;
  }
}

int* KeyMap::find(const ChunkKey& key) {
  return const_cast<int*>(static_cast<const KeyMap*>(this)->find(key));
}

void KeyMap::put(const ChunkKey& key, int value) {
  if (2 * (size_ + 1) > entries_.size()) {
    throw Error(ErrorCategory::internal,
                "world: key map full (" + std::to_string(size_) + " entries)");
  }
  for (std::size_t i = home(key);; i = (i + 1) & mask_) {
    Entry& e = entries_[i];
    if (e.stamp != stamp_) {
      e = Entry{key, value, stamp_};
      ++size_;
      return;
    }
    if (e.key == key) {
      e.value = value;
      return;
    }
  }
}

bool KeyMap::erase(const ChunkKey& key) {
  if (entries_.empty()) return false;
  std::size_t i = home(key);
  for (;; i = (i + 1) & mask_) {
    if (!used(i)) return false;
    if (entries_[i].key == key) break;
  }
  // Backward-shift deletion: move later entries of the probe run into the gap when their home
  // slot does not lie cyclically in (gap, j].
  std::size_t j = i;
  for (;;) {
    j = (j + 1) & mask_;
    if (!used(j)) break;
    const std::size_t k = home(entries_[j].key);
    const bool k_in_gap_to_j = (i <= j) ? (i < k && k <= j) : (i < k || k <= j);
    if (!k_in_gap_to_j) {
      entries_[i] = entries_[j];
      i = j;
    }
  }
  entries_[i].stamp = 0;
  --size_;
  return true;
}

void Selection::init(std::size_t max_nodes) {
  nodes.reserve(max_nodes);
  roots.reserve(max_nodes);
  prefetch.reserve(max_nodes);
  leaves.reserve(max_nodes);
  index.init(max_nodes);
  split.init(max_nodes);
}

double LodGeometry::node_size(int level) const {
  return std::ldexp(chunk_m, level);
}

double LodGeometry::split_distance(int level) const {
  return std::ldexp(lod0_m, level - 1);
}

double node_distance(const LodGeometry& g, const ChunkKey& key, double px, double pz) {
  const double size = g.node_size(key.level);
  const double x0 = double(key.cx) * size;
  const double z0 = double(key.cz) * size;
  const double dx = std::max({x0 - px, 0.0, px - (x0 + size)});
  const double dz = std::max({z0 - pz, 0.0, pz - (z0 + size)});
  return std::sqrt(dx * dx + dz * dz);
}

namespace {

struct Selector {
  const LodGeometry& g;
  std::span<const Viewer> viewers;
  const KeyMap& previous_split;
  Selection& out;

  double distance(const ChunkKey& key) const {
    double d = INFINITY;
    for (const Viewer& v : viewers) d = std::min(d, node_distance(g, key, v.x_m, v.z_m));
    return d;
  }

  int add(const ChunkKey& key, double dist, bool in_view) {
    if (out.nodes.size() == out.nodes.capacity()) {
      throw Error(
          ErrorCategory::limit,
          "world: the LOD selection needs more than " + std::to_string(out.nodes.capacity()) +
              " chunks (too many viewers or a view distance too large for the level-0 band)");
    }
    SelNode n;
    n.key = key;
    n.dist_m = dist;
    n.in_view = in_view;
    out.nodes.push_back(n);
    const int id = int(out.nodes.size() - 1);
    out.index.put(key, id);
    return id;
  }

  // Splits leaf `id` (in view) into its children that touch a view disc, each expanded by the
  // distance rule. The caller records a distance split for hysteresis; a forced split (balance)
  // is not recorded.
  void split_into_children(int id) {
    const ChunkKey key = out.nodes[std::size_t(id)].key;
    out.nodes[std::size_t(id)].leaf = false;
    for (int q = 0; q < 4; ++q) {
      const ChunkKey c = key.child(q);
      const double cd = distance(c);
      if (!(cd < g.view_m)) continue;
      const int cid = add(c, cd, true);
      out.nodes[std::size_t(id)].child[q] = cid;
      expand(cid);
    }
  }

  // The in-view leaf that contains the same-level neighbour of `key` across edge e when it is
  // more than max_stitch levels coarser than `key`; -1 otherwise.
  int too_coarse_neighbour(const ChunkKey& key, Edge e) const {
    const ChunkKey nb = neighbour(key, e);
    for (int up = 0; key.level + up <= g.root_level; ++up) {
      const int* id = out.index.find(nb.ancestor(up));
      if (id == nullptr) continue;
      const SelNode& n = out.nodes[std::size_t(*id)];
      return (n.in_view && n.leaf && up > g.max_stitch) ? *id : -1;
    }
    return -1;
  }

  // Splits leaves until no in-view leaf has a neighbouring leaf more than max_stitch levels
  // coarser. Returns whether anything was split. Terminates: every split makes leaves finer and
  // no leaf is split below the level of the leaf that forced it.
  bool balance() {
    bool any = false;
    for (bool changed = true; changed;) {
      changed = false;
      for (std::size_t i = 0; i < out.nodes.size(); ++i) {
        if (!out.nodes[i].leaf || !out.nodes[i].in_view) continue;
        const ChunkKey key = out.nodes[i].key;
        for (int e = 0; e < 4; ++e) {
          for (int id; (id = too_coarse_neighbour(key, Edge(e))) >= 0;) {
            split_into_children(id);
            changed = any = true;
          }
        }
      }
    }
    return any;
  }

  // Appends the leaves under node `id` in depth-first child order (the order expand() visits).
  void collect_leaves(int id) {
    const SelNode& n = out.nodes[std::size_t(id)];
    if (n.leaf) {
      out.leaves.push_back(n.key);
      return;
    }
    for (int q = 0; q < 4; ++q) {
      if (n.child[q] >= 0) collect_leaves(n.child[q]);
    }
  }

  // Expands node `id` (in view) into its subtree.
  void expand(int id) {
    const ChunkKey key = out.nodes[std::size_t(id)].key;
    const double dist = out.nodes[std::size_t(id)].dist_m;
    bool split = false;
    if (key.level > 0) {
      const double d = g.split_distance(key.level);
      split = dist < (previous_split.contains(key) ? d * (1.0 + g.hysteresis) : d);
    }
    if (!split) {
      out.leaves.push_back(key);
      return;
    }
    out.split.put(key, id);
    split_into_children(id);
  }
};

}  // namespace

void select_lod(const LodGeometry& g, std::span<const Viewer> viewers, const KeyMap& previous_split,
                Selection& out) {
  out.nodes.clear();
  out.roots.clear();
  out.prefetch.clear();
  out.leaves.clear();
  out.index.clear();
  out.split.clear();
  Selector sel{g, viewers, previous_split, out};
  const double root = g.node_size(g.root_level);
  // Roots touching a view disc, then roots touching the disc around each viewer's predicted
  // positions over the lookahead (sampled at most every quarter root along the path).
  for (const Viewer& v : viewers) {
    const double ax = v.vx_m_s * g.lookahead_s;
    const double az = v.vz_m_s * g.lookahead_s;
    const double path = std::sqrt(ax * ax + az * az);
    const int samples = std::min(64, 1 + int(std::ceil(path / (0.25 * root))));
    for (int s = 0; s < samples; ++s) {
      const double t = samples == 1 ? 0.0 : double(s) / double(samples - 1);
      const double px = v.x_m + ax * t;
      const double pz = v.z_m + az * t;
      const std::int64_t x0 = std::int64_t(std::floor((px - g.view_m) / root));
      const std::int64_t x1 = std::int64_t(std::floor((px + g.view_m) / root));
      const std::int64_t z0 = std::int64_t(std::floor((pz - g.view_m) / root));
      const std::int64_t z1 = std::int64_t(std::floor((pz + g.view_m) / root));
      for (std::int64_t cz = z0; cz <= z1; ++cz) {
        for (std::int64_t cx = x0; cx <= x1; ++cx) {
          const ChunkKey key{cx, cz, g.root_level};
          if (out.index.contains(key)) continue;
          if (!(node_distance(g, key, px, pz) < g.view_m)) continue;
          const double d = sel.distance(key);
          const bool in_view = d < g.view_m;
          const int id = sel.add(key, d, in_view);
          (in_view ? out.roots : out.prefetch).push_back(id);
        }
      }
    }
  }
  // Expand after collecting (roots first keeps their indices small and the order stable).
  for (std::size_t r = 0; r < out.roots.size(); ++r) sel.expand(out.roots[r]);
  if (sel.balance()) {
    out.leaves.clear();
    for (int r : out.roots) sel.collect_leaves(r);
  }
}

}  // namespace terrane::world_detail
