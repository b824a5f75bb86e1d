// Depression routing over the graph of D8 basins.
//
// Cordonnier, Bovy & Braun 2019, "A versatile, linear complexity algorithm for flow routing in
// topographies with depressions", Earth Surface Dynamics 7; the filled levels are those of
// Priority-Flood (Barnes, Lehman & Mulla 2014), computed on basins instead of cells.
// Every cell's D8 path ends at an outlet (the "ocean", basin 0) or at a pit (basin 1..P). Inside
// a basin, any two cells x, y are joined through the pit by a path whose highest cell is
// max(h(x), h(y)), so the lowest level at which water from a pit can leave the map (its spill
// level) is a bottleneck path over the basins, where two adjacent basins are joined at the
// lowest max(h(a), h(b)) over their adjacent cell pairs (a, b). A minimax Dijkstra (Prim order)
// from the ocean over those links gives every basin its spill level and the link through which
// it is reached; filled(c) = max(h(c), spill(basin of c)), bit-exact with a cell Priority-Flood.
// Routing ("carving"): the path from the basin's exit cell down to its pit is reversed and the
// exit drains across the link into the basin reached before it, so the graph stays a tree.
// The order's parts: each basin joins the outlet group of the basin it drains into, and is laid
// out after that group's drained cells (flow_routing.cpp).
// Cost: O(n) in parallel passes (over rows, over outlet groups, over basins) plus serial work
// on the links and the basins only.
#include <algorithm>
#include <atomic>
#include <bit>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "core/huge_pages.hpp"
#include "erosion/erosion_internal.hpp"

namespace terrane::erosion_detail {
namespace {

inline std::uint32_t order_key(float v) {  // a < b <=> key(a) < key(b) (not NaN)
  const std::uint32_t u = std::bit_cast<std::uint32_t>(v);
  return (u & 0x80000000u) != 0 ? ~u : (u | 0x80000000u);
}

// The lowest pass between basins lo < hi: pass = max(h(cell_lo), h(cell_hi)); ties go to the
// lower (cell_lo, cell_hi), so the result does not depend on the scan order.
// No member initialisers: the map-sized array of them is not written before it is filled.
struct Link {
  std::uint32_t lo, hi;
  std::uint32_t pass_key;  // order_key of the pass level
  std::uint32_t cell_lo, cell_hi;
};

inline bool better(const Link& a, const Link& b) {
  if (a.pass_key != b.pass_key) return a.pass_key < b.pass_key;
  if (a.cell_lo != b.cell_lo) return a.cell_lo < b.cell_lo;
  return a.cell_hi < b.cell_hi;
}

// Open-addressing map (lo, hi) -> best Link.
class LinkMap {
 public:
  void offer(const Link& l) {
    if (2 * (size_ + 1) > slots_.size()) grow();
    const std::uint64_t key = (std::uint64_t(l.lo) << 32) | l.hi;
    std::size_t s = slot_of(key);
    while (true) {
      Link& e = slots_[s];
      if (e.lo == kEmpty) {
        e = l;
        ++size_;
        return;
      }
      if (e.lo == l.lo && e.hi == l.hi) {
        if (better(l, e)) e = l;
        return;
      }
      s = (s + 1) & (slots_.size() - 1);
    }
  }
  std::size_t size() const { return size_; }
  template <class F>
  void for_each(F&& f) const {
    for (const Link& l : slots_) {
      if (l.lo != kEmpty) f(l);
    }
  }

 private:
  static constexpr std::uint32_t kEmpty = 0xFFFFFFFFu;
  std::size_t slot_of(std::uint64_t key) const {
    return std::size_t((key * 0x9E3779B97F4A7C15ull) >> (64 - std::countr_zero(slots_.size())));
  }
  void grow() {
    std::vector<Link> old = std::move(slots_);
    slots_.assign(std::max<std::size_t>(256, old.size() * 2), Link{kEmpty, 0, 0, 0, 0});
    size_ = 0;
    for (const Link& l : old) {
      if (l.lo != kEmpty) offer(l);
    }
  }
  std::vector<Link> slots_;
  std::size_t size_ = 0;
};

// A binary heap of basins by key (level key << 32 | basin), each basin in it at most once: a
// basin offered a lower level moves up in place. Its pops are those of a heap of every offer
// whose stale entries are skipped (the keys are unique, and a basin's entry is its lowest
// offer), but it holds one entry per basin instead of one per offer: millions fewer on a map
// of many pits.
class BasinHeap {
 public:
  explicit BasinHeap(std::uint32_t basins) : at_(basins, kNone) {}
  bool empty() const { return keys_.empty(); }
  // Adds the basin of `key`, or lowers its key (never raises it).
  void offer(std::uint64_t key) {
    const auto b = std::uint32_t(key);
    std::uint32_t i = at_[b];
    if (i == kNone) {
      i = std::uint32_t(keys_.size());
      keys_.push_back(key);
    }
    up(i, key);
  }
  std::uint64_t pop() {
    const std::uint64_t top = keys_.front();
    at_[std::uint32_t(top)] = kNone;
    const std::uint64_t last = keys_.back();
    keys_.pop_back();
    if (!keys_.empty()) down(0, last);
    return top;
  }

 private:
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;
  void put(std::uint32_t i, std::uint64_t key) {
    keys_[i] = key;
    at_[std::uint32_t(key)] = i;
  }
  void up(std::uint32_t i, std::uint64_t key) {
    while (i > 0) {
      const std::uint32_t parent = (i - 1) / 2;
      if (keys_[parent] <= key) break;
      put(i, keys_[parent]);
      i = parent;
    }
    put(i, key);
  }
  void down(std::uint32_t i, std::uint64_t key) {
    const auto n = std::uint32_t(keys_.size());
    for (;;) {
      std::uint32_t child = 2 * i + 1;
      if (child >= n) break;
      if (child + 1 < n && keys_[child + 1] < keys_[child]) ++child;
      if (keys_[child] >= key) break;
      put(i, keys_[child]);
      i = child;
    }
    put(i, key);
  }
  std::vector<std::uint64_t> keys_;
  std::vector<std::uint32_t> at_;  // where each basin's key is in keys_, or kNone
};

}  // namespace

void route_depressions(const float* heights, int width, int height, const std::uint32_t* label,
                       std::uint32_t pits, std::span<const std::uint32_t> count,
                       std::vector<std::size_t>& part_begin, std::vector<std::size_t>& at,
                       std::vector<std::uint32_t>& exit_cell, std::vector<std::uint32_t>& across,
                       std::vector<float>& spill, std::vector<std::uint32_t>* release_labels,
                       const ExecContext& ctx) {
  const std::size_t w = std::size_t(width);
  const std::uint32_t basins = pits + 1;
  // Basin 0 is the ocean: every drained cell, whatever its outlet group.
  const auto basin_of = [pits](std::uint32_t lb) { return lb > pits ? 0u : lb; };
  // 1. The lowest link between each pair of adjacent basins: fixed blocks of rows (so the
  //    blocks, not the threads, decide what each local map sees), each block's links sorted by
  //    (lo, hi), with where each of kMergeRanges ranges of `lo` starts in them.
  constexpr int kBlockRows = 32;
  constexpr std::int64_t kMergeRanges = 16;
  const auto range_bound = [basins](std::int64_t q) {
    return std::uint32_t(std::uint64_t(basins) * std::uint64_t(q) / kMergeRanges);
  };
  const auto by_pair = [](const Link& a, const Link& b) {
    return a.lo != b.lo ? a.lo < b.lo : a.hi < b.hi;
  };
  const int blocks = (height + kBlockRows - 1) / kBlockRows;
  // block_links[blk]: block blk's links; those whose lo is in range q are
  // [range_at[blk * (kMergeRanges + 1) + q], range_at[blk * (kMergeRanges + 1) + q + 1]).
  std::vector<std::vector<Link>> block_links(static_cast<std::size_t>(blocks));
  std::vector<std::size_t> range_at(static_cast<std::size_t>(blocks) * (kMergeRanges + 1));
  // The workers take the blocks in ascending order. Where the labels are to be released, the
  // rows above the lowest block not yet read go as the blocks are read: the labels and the links
  // are not held whole at the same time (a map that breaching has left with many flats has
  // links of more than the labels' size).
  std::atomic<int> next_block{0};
  std::mutex frontier_mutex;
  std::vector<std::uint8_t> block_read(release_labels != nullptr ? std::size_t(blocks) : 0);
  int frontier = 0;  // every block before it has been read
  // Where the labels released so far end (a page boundary, after the first release).
  auto* released =
      reinterpret_cast<std::byte*>(release_labels != nullptr ? release_labels->data() : nullptr);
  const auto mark_read = [&](int blk) {
    if (release_labels == nullptr) return;
    const std::lock_guard<std::mutex> lock(frontier_mutex);
    const int before = frontier;
    block_read[std::size_t(blk)] = 1;
    while (frontier < blocks && block_read[std::size_t(frontier)] != 0) ++frontier;
    if (frontier == before) return;
    // Block b reads rows [b * kBlockRows, (b + 1) * kBlockRows]: the rows above the frontier's
    // first are read by no block still to come.
    const std::size_t rows = std::min(std::size_t(frontier) * kBlockRows, std::size_t(height));
    auto* to = reinterpret_cast<std::byte*>(release_labels->data() + rows * w);
    core_detail::release_pages(released, std::size_t(to - released));
    released = to - reinterpret_cast<std::uintptr_t>(to) % 4096;
  };
  parallel_for(ctx, worker_count(ctx), 1, [&](std::int64_t, std::int64_t) {
    for (int blk = next_block++; blk < blocks; blk = next_block++) {
      throw_if_cancelled(ctx);
      LinkMap map;
      const int j0 = int(blk) * kBlockRows, j1 = std::min(height, j0 + kBlockRows);
      const auto offer = [&](std::size_t c, std::size_t nc) {
        const std::uint32_t la = basin_of(label[c]), lb = basin_of(label[nc]);
        if (la == lb) return;
        const std::uint32_t pass = std::max(order_key(heights[c]), order_key(heights[nc]));
        if (la < lb) {
          map.offer({la, lb, pass, std::uint32_t(c), std::uint32_t(nc)});
        } else {
          map.offer({lb, la, pass, std::uint32_t(nc), std::uint32_t(c)});
        }
      };
      for (int j = j0; j < j1; ++j) {
        const std::size_t row = std::size_t(j) * w;
        const bool last = j + 1 == height;
        for (std::size_t i = 0; i < w; ++i) {
          const std::size_t c = row + i;
          if (i + 1 < w) offer(c, c + 1);
          if (last) continue;
          if (i > 0) offer(c, c + w - 1);
          offer(c, c + w);
          if (i + 1 < w) offer(c, c + w + 1);
        }
      }
      std::vector<Link>& sorted = block_links[std::size_t(blk)];
      sorted.reserve(map.size());
      map.for_each([&](const Link& l) { sorted.push_back(l); });
      std::sort(sorted.begin(), sorted.end(), by_pair);
      std::size_t* at_q = range_at.data() + std::size_t(blk) * (kMergeRanges + 1);
      for (std::int64_t q = 0; q <= kMergeRanges; ++q) {
        at_q[q] = std::size_t(
            std::lower_bound(sorted.begin(), sorted.end(), range_bound(q),
                             [](const Link& l, std::uint32_t lo) { return l.lo < lo; }) -
            sorted.begin());
      }
      at_q[kMergeRanges] = sorted.size();
      mark_read(blk);
    }
  });
  // The links are all the rest reads of the labels when the order's parts are not laid out.
  if (release_labels != nullptr) {
    std::vector<std::uint32_t>().swap(*release_labels);
    label = nullptr;
  }
  // The blocks' links gathered into one array, range by range (range q's from every block,
  // in block order), each block's given back to the kernel once copied; then each range sorted
  // by (lo, hi) and, among the links of one pair of basins, by `better`, keeping the first (the
  // best) of each pair, in parallel; then the ranges moved together in their order. The links
  // are held once, plus one block's: a map that breaching has left with many flats has
  // millions of them.
  std::vector<std::size_t> slot(static_cast<std::size_t>(blocks) * kMergeRanges + 1, 0);
  for (std::int64_t q = 0; q < kMergeRanges; ++q) {
    for (int blk = 0; blk < blocks; ++blk) {
      const std::size_t* at_q = range_at.data() + std::size_t(blk) * (kMergeRanges + 1);
      const std::size_t k = std::size_t(q) * std::size_t(blocks) + std::size_t(blk);
      slot[k + 1] = slot[k] + (at_q[q + 1] - at_q[q]);
    }
  }
  // Left uninitialised: its pages are touched as the blocks' links come in, while the blocks'
  // own go.
  const std::unique_ptr<Link[]> link_store(new Link[std::max<std::size_t>(slot.back(), 1)]);
  core_detail::advise_huge_pages(link_store.get(), slot.back() * sizeof(Link));
  std::span<Link> links(link_store.get(), slot.back());
  parallel_for(ctx, blocks, 1, [&](std::int64_t blk0, std::int64_t blk1) {
    for (std::int64_t blk = blk0; blk < blk1; ++blk) {
      std::vector<Link>& bl = block_links[std::size_t(blk)];
      const std::size_t* at_q = range_at.data() + std::size_t(blk) * (kMergeRanges + 1);
      for (std::int64_t q = 0; q < kMergeRanges; ++q) {
        std::copy(
            bl.begin() + std::ptrdiff_t(at_q[q]), bl.begin() + std::ptrdiff_t(at_q[q + 1]),
            links.begin() +
                std::ptrdiff_t(slot[std::size_t(q) * std::size_t(blocks) + std::size_t(blk)]));
      }
      // Freed small blocks stay in the C library's heaps, resident: their pages go first.
      core_detail::release_pages(bl.data(), bl.size() * sizeof(Link));
      std::vector<Link>().swap(bl);
    }
  });
  std::vector<std::vector<Link>>().swap(block_links);
  std::vector<std::size_t> kept(static_cast<std::size_t>(kMergeRanges), 0);
  parallel_for(ctx, kMergeRanges, 1, [&](std::int64_t q0, std::int64_t q1) {
    for (std::int64_t q = q0; q < q1; ++q) {
      const auto b = links.begin() + std::ptrdiff_t(slot[std::size_t(q) * std::size_t(blocks)]);
      const auto e = links.begin() + std::ptrdiff_t(slot[std::size_t(q + 1) * std::size_t(blocks)]);
      std::sort(b, e, [&](const Link& x, const Link& y) {
        return by_pair(x, y) || (!by_pair(y, x) && better(x, y));
      });
      const auto last = std::unique(
          b, e, [](const Link& x, const Link& y) { return x.lo == y.lo && x.hi == y.hi; });
      kept[std::size_t(q)] = std::size_t(last - b);
    }
  });
  {
    std::size_t to = 0;
    for (std::int64_t q = 0; q < kMergeRanges; ++q) {
      const std::size_t from = slot[std::size_t(q) * std::size_t(blocks)];
      if (from != to) {
        std::copy(links.begin() + std::ptrdiff_t(from),
                  links.begin() + std::ptrdiff_t(from + kept[std::size_t(q)]),
                  links.begin() + std::ptrdiff_t(to));
      }
      to += kept[std::size_t(q)];
    }
    links = links.first(to);
  }
  // Links per basin: those where it is `lo` are links[first_lo[b], first_lo[b + 1]) (sorted by
  // lo); those where it is `hi`, by_hi[first_hi[b], first_hi[b + 1]) (their indices). A
  // basin's links are relaxed in any order: a pair has one link, so each neighbour is offered
  // one level by it, and the heap's keys are unique.
  if (links.size() >= std::size_t(0xFFFFFFFFu)) {
    throw Error(ErrorCategory::limit, "flow routing: more than 2^32 - 1 links between basins");
  }
  std::vector<std::uint32_t> first_lo(std::size_t(basins) + 1, 0),
      first_hi(std::size_t(basins) + 1, 0), by_hi(links.size());
  for (const Link& l : links) ++first_lo[l.lo + 1], ++first_hi[l.hi + 1];
  for (std::uint32_t b = 0; b < basins; ++b) {
    first_lo[b + 1] += first_lo[b];
    first_hi[b + 1] += first_hi[b];
  }
  {
    std::vector<std::uint32_t> fill(first_hi.begin(), first_hi.end() - 1);
    for (std::uint32_t k = 0; k < links.size(); ++k) by_hi[fill[links[k].hi]++] = k;
  }
  // 2. Minimax Dijkstra from the ocean. Heap keys (level key, basin) are unique.
  constexpr std::uint32_t kUnreached = 0xFFFFFFFFu;
  std::vector<std::uint32_t> level(basins, kUnreached), via(basins, kUnreached);
  std::vector<std::uint8_t> done(basins, 0);
  std::vector<std::uint32_t> pop_order;
  pop_order.reserve(basins);
  BasinHeap heap(basins);
  level[0] = 0;
  heap.offer(0);
  while (!heap.empty()) {
    const std::uint64_t key = heap.pop();
    const std::uint32_t u = std::uint32_t(key & 0xFFFFFFFFu);
    if (done[u] != 0) continue;
    done[u] = 1;
    pop_order.push_back(u);
    const auto relax = [&](std::uint32_t k, std::uint32_t v) {
      if (done[v] != 0) return;
      const std::uint32_t cand = std::max(level[u], links[k].pass_key);
      if (cand < level[v]) {
        level[v] = cand;
        via[v] = k;
        heap.offer((std::uint64_t(cand) << 32) | v);
      }
    };
    for (std::uint32_t k = first_lo[u]; k < first_lo[u + 1]; ++k) relax(k, links[k].hi);
    for (std::uint32_t k = first_hi[u]; k < first_hi[u + 1]; ++k)
      relax(by_hi[k], links[by_hi[k]].lo);
  }
  // The spill levels, from their keys; then the search's working memory goes (the links and
  // the Dijkstra order are still read below).
  spill.assign(basins, 0.0f);
  for (std::uint32_t b = 1; b < basins; ++b) {
    const std::uint32_t u = level[b];
    spill[b] = std::bit_cast<float>((u & 0x80000000u) != 0 ? (u & 0x7FFFFFFFu) : ~u);
  }
  std::vector<std::uint32_t>().swap(level);
  std::vector<std::uint32_t>().swap(first_lo);
  std::vector<std::uint32_t>().swap(first_hi);
  std::vector<std::uint32_t>().swap(by_hi);
  std::vector<std::uint8_t>().swap(done);
  heap = BasinHeap(0);
  // 3. The parts of the order. Each basin drains across its link into a basin reached before
  //    it, so it joins the outlet group of the cell across (for a drained cell, its label
  //    says which). Part p: the drained cells of group p, then the basins that joined p in the
  //    Dijkstra order (each laid out by the walks of flow_routing.cpp as its exit-to-pit path,
  //    then its other cells in their breadth-first order from the pit). Restricted to the cells
  //    that drain to one outlet, this is the order of a single breadth-first walk from all the
  //    outlets followed by the basins in the Dijkstra order, whatever the grouping.
  exit_cell.assign(basins, 0);
  across.assign(basins, 0);
  if (label == nullptr) {  // the spill links alone
    part_begin.clear();
    at.clear();
    for (std::uint32_t b = 1; b < basins; ++b) {
      const Link& l = links[via[b]];
      const bool b_is_lo = l.lo == b;
      exit_cell[b] = b_is_lo ? l.cell_lo : l.cell_hi;
      across[b] = b_is_lo ? l.cell_hi : l.cell_lo;
    }
    return;
  }
  const std::size_t parts = count.size() - basins;
  std::vector<std::uint32_t> part_of(basins, 0);
  std::vector<std::size_t> cursor(parts);
  part_begin.assign(parts + 1, 0);
  for (std::size_t p = 0; p < parts; ++p) part_begin[p + 1] = count[basins + p];
  for (std::uint32_t b : pop_order) {
    if (b == 0) continue;
    const Link& l = links[via[b]];
    const bool b_is_lo = l.lo == b;
    exit_cell[b] = b_is_lo ? l.cell_lo : l.cell_hi;
    across[b] = b_is_lo ? l.cell_hi : l.cell_lo;
    const std::uint32_t across_label = label[across[b]];
    part_of[b] = across_label > pits ? across_label - pits - 1 : part_of[across_label];
    part_begin[part_of[b] + 1] += count[b];
  }
  for (std::size_t p = 0; p < parts; ++p) {
    part_begin[p + 1] += part_begin[p];
    cursor[p] = part_begin[p] + count[basins + p];
  }
  at.assign(basins, 0);
  for (std::uint32_t b : pop_order) {
    if (b == 0) continue;
    at[b] = cursor[part_of[b]];
    cursor[part_of[b]] += count[b];
  }
}

void fill_levels(const float* heights, int width, int height, const std::uint32_t* label,
                 std::uint32_t pits, std::span<const float> spill, std::vector<float>& filled,
                 const ExecContext& ctx) {
  const std::size_t w = std::size_t(width);
  core_detail::resize_huge(filled, w * std::size_t(height), &ctx);
  const std::int64_t grain = std::max<std::int64_t>(1, 16384 / std::max(1, width));
  parallel_for(ctx, height, grain, [&](std::int64_t b, std::int64_t e) {
    for (std::size_t c = std::size_t(b) * w; c < std::size_t(e) * w; ++c) {
      const std::uint32_t lb = label[c];
      filled[c] = lb > pits ? heights[c] : std::max(heights[c], spill[lb]);
    }
  });
}

}  // namespace terrane::erosion_detail
