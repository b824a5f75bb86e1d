// Priority-Flood depression filling.
//
// Barnes, Lehman & Mulla 2014, "Priority-flood: An optimal depression-filling and
// watershed-labeling algorithm", Computers & Geosciences 62, Algorithm 3 ("Improved
// Priority-Flood"): the flood grows inwards from the outlets through a min-priority queue of
// levels; a neighbour at or below the current level is inside a depression and is raised to that
// level and processed through a plain FIFO queue, which skips the heap for depression cells.
//
// Determinism: heap keys are (level, cell index) packed into one 64-bit integer (levels mapped
// to order-preserving unsigned bits), so ties break by cell index; the result depends only on
// the heights.
#include <algorithm>
#include <bit>
#include <cstring>
#include <deque>
#include <functional>
#include <queue>

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
  std::vector<std::uint64_t> heap;
  std::vector<std::uint32_t> pit;  // FIFO: read index `pit_head`
  std::size_t pit_head = 0;
  for (std::size_t c = 0; c < n; ++c) {
    if (outlet[c] != 0) {
      parent[c] = std::uint32_t(c);
      heap.push_back(heap_key(heights[c], std::uint32_t(c)));
    }
  }
  std::make_heap(heap.begin(), heap.end(), std::greater<>());
  while (pit_head < pit.size() || !heap.empty()) {
    std::uint32_t c;
    if (pit_head < pit.size()) {
      c = pit[pit_head++];
      if (pit_head == pit.size()) {
        pit.clear();
        pit_head = 0;
      }
    } else {
      std::pop_heap(heap.begin(), heap.end(), std::greater<>());
      c = std::uint32_t(heap.back() & 0xFFFFFFFFu);
      heap.pop_back();
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
        heap.push_back(heap_key(heights[nc], nc));
        std::push_heap(heap.begin(), heap.end(), std::greater<>());
      }
    }
  }
}

}  // namespace terrane::erosion_detail
