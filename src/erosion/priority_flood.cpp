// Priority-Flood depression filling.
//
// Barnes, Lehman & Mulla 2014, "Priority-flood: An optimal depression-filling and
// watershed-labeling algorithm", Computers & Geosciences 62, Algorithm 3 ("Improved
// Priority-Flood"): the flood grows inwards from the outlets through a min-priority queue of
// levels; a neighbour at or below the current level is inside a depression and is raised to that
// level and processed through a plain FIFO queue, which skips the heap for depression cells.
//
// terrane floods only the cells that do not already drain (see erosion_internal.hpp), seeded
// from the drained cells around them. The heap is a radix heap (below); the pit cells' plain
// queue is a vector read from the front.
// Determinism: heap keys are (level, cell index) packed into one 64-bit integer (levels mapped
// to order-preserving unsigned bits), so ties break by cell index; the result depends only on
// the heights.
#include <algorithm>
#include <bit>
#include <cstring>
#include <span>
#include <vector>

#include "erosion/erosion_internal.hpp"

namespace terrane::erosion_detail {
namespace {

// Monotone map of floats (not NaN) to unsigned integers: a < b <=> key(a) < key(b).
inline std::uint32_t order_key(float v) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(v);
  return (u & 0x80000000u) != 0 ? ~u : (u | 0x80000000u);
}
// Inverse of order_key on the key's upper half: the level of a heap entry.
inline float key_level(std::uint64_t key) {
  const std::uint32_t u = std::uint32_t(key >> 32);
  return std::bit_cast<float>((u & 0x80000000u) != 0 ? (u & 0x7FFFFFFFu) : ~u);
}
inline std::uint64_t heap_key(float level, std::uint32_t cell) {
  return (std::uint64_t(order_key(level)) << 32) | cell;
}

// Radix heap (Ahuja, Mehlhorn, Orlin & Tarjan 1990) over 64-bit keys: a monotone min-priority
// queue (no key pushed is below the last key popped), which the flood's heap is: a cell enters
// the heap only when it is strictly above the level being processed. Keys are unique (they
// contain the cell index), so it pops exactly the sequence a binary heap would, with O(1)
// amortised work per key instead of O(log n) cache-unfriendly sifts.
class RadixHeap {
 public:
  bool empty() const { return size_ == 0; }
  void push(std::uint64_t key) {
    place(key);
    ++size_;
  }
  std::uint64_t pop() {
    if (buckets_[0].empty()) {
      // Keys are unique, so bucket 0 holds at most the last key popped: nearly every pop
      // refills it from the lowest non-empty bucket, found through the occupancy bits.
      const int i = std::countr_zero(occupied_) + 1;
      occupied_ &= occupied_ - 1;
      std::vector<std::uint64_t>& b = buckets_[i];
      last_ = *std::min_element(b.begin(), b.end());
      for (std::uint64_t k : b) place(k);  // all into buckets below i
      b.clear();
    }
    --size_;
    const std::uint64_t k = buckets_[0].back();
    buckets_[0].pop_back();
    return k;
  }

 private:
  int bucket(std::uint64_t key) const {
    return key == last_ ? 0 : 64 - std::countl_zero(key ^ last_);
  }
  void place(std::uint64_t key) {
    const int i = bucket(key);
    buckets_[i].push_back(key);
    if (i > 0) occupied_ |= std::uint64_t{1} << (i - 1);
  }
  std::vector<std::uint64_t> buckets_[65];
  std::uint64_t occupied_ = 0;  // bit i - 1: bucket i (1..64) is not empty
  std::uint64_t last_ = 0;
  std::size_t size_ = 0;
};

}  // namespace

void priority_flood(const float* heights, int width, int height, const std::uint8_t* drained,
                    std::span<const std::uint32_t> seeds, std::vector<float>& filled,
                    std::vector<std::uint32_t>& parent, std::vector<std::uint32_t>& order) {
  const std::size_t n = std::size_t(width) * std::size_t(height);
  filled.assign(heights, heights + n);
  // The loop's scattered reads go to one array: per cell its height bits (low half) and its
  // flood parent (high half), kOpen until the flood reaches it, the cell itself when drained.
  // So a neighbour's closed test and its height share a cache line, and a popped cell's level
  // travels with it (in its heap key or its queue entry).
  constexpr std::uint32_t kOpen = 0xFFFFFFFFu;
  std::vector<std::uint64_t> cell(n);
  for (std::size_t c = 0; c < n; ++c) {
    const std::uint32_t p = drained[c] != 0 ? std::uint32_t(c) : kOpen;
    cell[c] = (std::uint64_t(p) << 32) | std::bit_cast<std::uint32_t>(heights[c]);
  }
  RadixHeap heap;
  struct PitCell {
    std::uint32_t cell;
    float level;
  };
  std::vector<PitCell> pit;  // FIFO: read index `pit_head`
  std::size_t pit_head = 0;
  for (std::uint32_t c : seeds) heap.push(heap_key(heights[c], c));
  const std::ptrdiff_t w = width;
  const std::ptrdiff_t offset[8] = {1, -1, w, -w, w + 1, w - 1, -w + 1, -w - 1};  // kDi/kDj order
  while (pit_head < pit.size() || !heap.empty()) {
    std::uint32_t c;
    float level;
    if (pit_head < pit.size()) {
      c = pit[pit_head].cell;
      level = pit[pit_head].level;
      if (++pit_head == pit.size()) {
        pit.clear();
        pit_head = 0;
      }
    } else {
      const std::uint64_t key = heap.pop();
      c = std::uint32_t(key & 0xFFFFFFFFu);
      level = key_level(key);
    }
    const auto visit = [&](std::uint32_t nc) {
      const std::uint64_t v = cell[nc];
      if ((v >> 32) != kOpen) return;
      cell[nc] = (std::uint64_t(c) << 32) | (v & 0xFFFFFFFFu);
      const float hn = std::bit_cast<float>(std::uint32_t(v));
      if (hn <= level) {
        filled[nc] = level;
        pit.push_back({nc, level});
      } else {
        heap.push(heap_key(hn, nc));
      }
    };
    if (std::uint32_t(cell[c] >> 32) != c) {
      // Undrained (its parent is a neighbour), so not on the border (border cells are outlets,
      // which are drained): all 8 neighbours exist.
      order.push_back(c);
      for (int k = 0; k < 8; ++k) visit(std::uint32_t(std::ptrdiff_t(c) + offset[k]));
      continue;
    }
    const int ci = int(c % std::uint32_t(width)), cj = int(c / std::uint32_t(width));
    for (int k = 0; k < 8; ++k) {
      const int ni = ci + kDi[k], nj = cj + kDj[k];
      if (ni < 0 || nj < 0 || ni >= width || nj >= height) continue;
      visit(std::uint32_t(nj) * std::uint32_t(width) + std::uint32_t(ni));
    }
  }
  parent.resize(n);
  for (std::size_t c = 0; c < n; ++c) parent[c] = std::uint32_t(cell[c] >> 32);
}

}  // namespace terrane::erosion_detail
