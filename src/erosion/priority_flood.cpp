// Priority-Flood depression filling.
//
// Barnes, Lehman & Mulla 2014, "Priority-flood: An optimal depression-filling and
// watershed-labeling algorithm", Computers & Geosciences 62, Algorithm 3 ("Improved
// Priority-Flood"): the flood grows inwards from the outlets through a min-priority queue of
// levels; a neighbour at or below the current level is inside a depression and is raised to that
// level and processed through a plain FIFO queue, which skips the heap for depression cells.
//
// The heap is a radix heap (below); the pit cells' plain queue is a vector read from the front.
// Determinism: heap keys are (level, cell index) packed into one 64-bit integer (levels mapped
// to order-preserving unsigned bits), so ties break by cell index; the result depends only on
// the heights.
#include <algorithm>
#include <bit>
#include <cstring>
#include <vector>

#include "erosion/erosion_internal.hpp"

namespace terrane::erosion_detail {
namespace {

// Monotone map of floats (not NaN) to unsigned integers: a < b <=> key(a) < key(b).
inline std::uint32_t order_key(float v) {
  const std::uint32_t u = std::bit_cast<std::uint32_t>(v);
  return (u & 0x80000000u) != 0 ? ~u : (u | 0x80000000u);
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
    buckets_[bucket(key)].push_back(key);
    ++size_;
  }
  std::uint64_t pop() {
    if (buckets_[0].empty()) {
      int i = 1;
      while (buckets_[i].empty()) ++i;
      std::vector<std::uint64_t>& b = buckets_[i];
      last_ = *std::min_element(b.begin(), b.end());
      for (std::uint64_t k : b) buckets_[bucket(k)].push_back(k);
      b.clear();
    }
    --size_;
    const std::uint64_t k = buckets_[0].back();
    buckets_[0].pop_back();
    return k;
  }

 private:
  int bucket(std::uint64_t key) const { return key == last_ ? 0 : 64 - std::countl_zero(key ^ last_); }
  std::vector<std::uint64_t> buckets_[65];
  std::uint64_t last_ = 0;
  std::size_t size_ = 0;
};

}  // namespace

void priority_flood(const float* heights, int width, int height, const std::uint8_t* outlet,
                    std::vector<float>& filled, std::vector<std::uint32_t>& parent,
                    std::vector<std::uint32_t>& order) {
  const std::size_t n = std::size_t(width) * std::size_t(height);
  filled.assign(heights, heights + n);
  parent.resize(n);
  order.clear();
  order.reserve(n);
  std::vector<std::uint8_t> closed(outlet, outlet + n);
  RadixHeap heap;
  std::vector<std::uint32_t> pit;  // FIFO: read index `pit_head`
  std::size_t pit_head = 0;
  for (std::size_t c = 0; c < n; ++c) {
    if (outlet[c] != 0) {
      parent[c] = std::uint32_t(c);
      heap.push(heap_key(heights[c], std::uint32_t(c)));
    }
  }
  while (pit_head < pit.size() || !heap.empty()) {
    std::uint32_t c;
    if (pit_head < pit.size()) {
      c = pit[pit_head++];
      if (pit_head == pit.size()) {
        pit.clear();
        pit_head = 0;
      }
    } else {
      c = std::uint32_t(heap.pop() & 0xFFFFFFFFu);
    }
    order.push_back(c);
    const int ci = int(c % std::uint32_t(width)), cj = int(c / std::uint32_t(width));
    const float level = filled[c];
    for (int k = 0; k < 8; ++k) {
      const int ni = ci + kDi[k], nj = cj + kDj[k];
      if (ni < 0 || nj < 0 || ni >= width || nj >= height) continue;
      const std::uint32_t nc = std::uint32_t(nj) * std::uint32_t(width) + std::uint32_t(ni);
      if (closed[nc] != 0) continue;
      closed[nc] = 1;
      parent[nc] = c;
      if (heights[nc] <= level) {
        filled[nc] = level;
        pit.push_back(nc);
      } else {
        heap.push(heap_key(heights[nc], nc));
      }
    }
  }
}

}  // namespace terrane::erosion_detail
