// Scatter instance overrides (edit.hpp): copy-on-write chunks of overrides keyed by instance id,
// the operations that make them (remove, state, move, add, restore), timers, undo and redo.
#include <algorithm>
#include <bit>
#include <cmath>
#include <iterator>
#include <string>

#include "terrane/edit.hpp"
#include "terrane/schema.hpp"

namespace terrane {
namespace {

constexpr const char* kChangeNames[] = {"removed", "state", "added"};
constexpr double kMaxTimer = 1e12;
constexpr double kMaxScale = 1e4;

void check_side(double side_m) {
  check_range("instance edits: chunk_size_m", side_m, Range::open_lo(0.0, 1e8));
}

// The chunk index k of coordinate v: k * side <= v < (k + 1) * side as those products round
// (the scatter's own ownership test is x0 <= x < x1 with x0 = cx * side).
std::int64_t chunk_index(double v, double side) {
  auto k = std::int64_t(std::floor(v / side));
  if (v < double(k) * side) {
    --k;
  } else if (v >= double(k + 1) * side) {
    ++k;
  }
  return k;
}

void check_override(const InstanceOverride& o, const std::string& where) {
  const Range coordinate = Range::closed(-kMaxEditCoordinate, kMaxEditCoordinate);
  check_range(where + ".x_m", o.x_m, coordinate);
  check_range(where + ".z_m", o.z_m, coordinate);
  check_range(where + ".timer_s", o.timer_s, Range::closed(0.0, kMaxTimer));
  if (std::size_t(o.change) >= std::size(kChangeNames)) {
    throw Error(ErrorCategory::invalid_argument,
                where + ".change = " + std::to_string(int(o.change)) + " is not a change kind");
  }
  if (o.change == InstanceChange::added) {
    check_range(where + ".yaw_deg", double(o.yaw_deg), Range::any());
    check_range(where + ".scale_xz", double(o.scale_xz), Range::open_lo(0.0, kMaxScale));
    check_range(where + ".scale_y", double(o.scale_y), Range::open_lo(0.0, kMaxScale));
    check_range(where + ".species", std::int64_t(o.species), 0, 65535);
  }
}

// A chunk's entries are ordered by (id, added): the scatter's instance moved within its chunk has
// both a removed entry (its old place) and an added one (its new place) there.
struct Slot {
  std::uint64_t id = 0;
  bool added = false;
};

bool is_added(const InstanceOverride& o) {
  return o.change == InstanceChange::added;
}

bool before(const InstanceOverride& a, Slot s) {
  return a.id != s.id ? a.id < s.id : int(is_added(a)) < int(s.added);
}

bool at_slot(const InstanceOverride& a, Slot s) {
  return a.id == s.id && is_added(a) == s.added;
}

}  // namespace

const char* to_string(InstanceChange change) {
  const auto k = std::size_t(change);
  return k < std::size(kChangeNames) ? kChangeNames[k] : "?";
}

// ---- InstanceEditSnapshot

InstanceEditSnapshot::InstanceEditSnapshot(double chunk_size_m, ChunkMap chunks)
    : side_(chunk_size_m), chunks_(std::move(chunks)) {
  check_side(chunk_size_m);
  for (const auto& [key, chunk] : chunks_) {
    const std::string where =
        "instance edits: chunk (" + std::to_string(key.cx) + ", " + std::to_string(key.cz) + ")";
    if (!chunk || chunk->empty()) {
      throw Error(ErrorCategory::invalid_argument,
                  where + (chunk ? " holds no override" : " is missing"));
    }
    for (std::size_t k = 0; k < chunk->size(); ++k) {
      const InstanceOverride& o = (*chunk)[k];
      const std::string at = where + " override " + std::to_string(k);
      check_override(o, at);
      if (k > 0 && !before((*chunk)[k - 1], Slot{o.id, is_added(o)})) {
        throw Error(ErrorCategory::invalid_argument,
                    at + ": (id, added) must increase (id " + std::to_string(o.id) + ")");
      }
      if (!(key_at(o.x_m, o.z_m) == key)) {
        throw Error(ErrorCategory::invalid_argument, at + ": position lies outside the chunk");
      }
    }
  }
}

InstanceEditKey InstanceEditSnapshot::key_at(double x_m, double z_m) const {
  return {chunk_index(x_m, side_), chunk_index(z_m, side_)};
}

const InstanceEditSnapshot::Chunk* InstanceEditSnapshot::chunk(const InstanceEditKey& key) const {
  const auto it = chunks_.find(key);
  return it == chunks_.end() ? nullptr : it->second.get();
}

const InstanceOverride* InstanceEditSnapshot::find(std::uint64_t id, double x_m, double z_m) const {
  const Chunk* c = chunk(key_at(x_m, z_m));
  if (c == nullptr) return nullptr;
  // At most two entries of the id (removed and added), told apart by position; added first.
  const InstanceOverride* found = nullptr;
  for (auto it = std::lower_bound(c->begin(), c->end(), Slot{id, false}, before);
       it != c->end() && it->id == id; ++it) {
    if (it->x_m == x_m && it->z_m == z_m) found = &*it;
  }
  return found;
}

std::size_t InstanceEditSnapshot::override_count() const {
  std::size_t n = 0;
  for (const auto& entry : chunks_) n += entry.second->size();
  return n;
}

std::size_t InstanceEditSnapshot::count(InstanceChange change) const {
  std::size_t n = 0;
  for (const auto& entry : chunks_) {
    n += std::size_t(std::count_if(entry.second->begin(), entry.second->end(),
                                   [&](const InstanceOverride& o) { return o.change == change; }));
  }
  return n;
}

int InstanceEditSnapshot::max_species() const {
  int m = -1;
  for (const auto& entry : chunks_) {
    for (const InstanceOverride& o : *entry.second) {
      if (o.change == InstanceChange::added) m = std::max(m, int(o.species));
    }
  }
  return m;
}

std::size_t InstanceEditSnapshot::bytes() const {
  std::size_t n = sizeof(*this);
  for (const auto& [key, chunk] : chunks_) {
    n += sizeof(key) + sizeof(chunk) + 48 + chunk->capacity() * sizeof(InstanceOverride);
  }
  return n;
}

std::uint64_t InstanceEditSnapshot::content_hash() const {
  std::uint64_t h = hash_bytes(nullptr, 0);
  for (const auto& [key, chunk] : chunks_) {
    const std::int64_t k[2] = {key.cx, key.cz};
    h = hash_bytes(k, sizeof k, h);
    for (const InstanceOverride& o : *chunk) {
      const std::uint64_t u[3] = {o.id, std::uint64_t(o.change), o.state};
      const double d[3] = {o.timer_s, o.x_m, o.z_m};
      const float f[3] = {o.yaw_deg, o.scale_xz, o.scale_y};
      h = hash_bytes(u, sizeof u, h);
      h = hash_bytes(d, sizeof d, h);
      h = hash_bytes(f, sizeof f, h);
      h = hash_bytes(&o.species, sizeof o.species, h);
    }
  }
  return h;
}

std::size_t InstanceEditSnapshot::apply_to(double x0_m, double z0_m, double x1_m, double z1_m,
                                           std::vector<ScatterInstance>& instances) const {
  if (chunks_.empty() || !(x0_m < x1_m && z0_m < z1_m)) return 0;
  const auto inside = [&](double x, double z) {
    return x >= x0_m && x < x1_m && z >= z0_m && z < z1_m;
  };
  const InstanceEditKey lo = key_at(x0_m, z0_m), hi = key_at(x1_m, z1_m);
  // The overrides of the rectangle, in (chunk, id) order.
  std::vector<const InstanceOverride*> found;
  for (std::int64_t cx = lo.cx; cx <= hi.cx; ++cx) {
    auto it = chunks_.lower_bound({cx, lo.cz});
    for (; it != chunks_.end() && it->first.cx == cx && it->first.cz <= hi.cz; ++it) {
      for (const InstanceOverride& o : *it->second) {
        if (inside(o.x_m, o.z_m)) found.push_back(&o);
      }
    }
  }
  if (found.empty()) return 0;
  // Removed and state overrides, by id (an instance's override is in the chunk of its position,
  // which is inside the rectangle when the instance is).
  std::vector<const InstanceOverride*> by_id_list;
  for (const InstanceOverride* o : found) {
    if (o->change != InstanceChange::added) by_id_list.push_back(o);
  }
  std::sort(by_id_list.begin(), by_id_list.end(),
            [](const InstanceOverride* a, const InstanceOverride* b) { return a->id < b->id; });
  if (!by_id_list.empty()) {
    std::size_t kept = 0;
    for (std::size_t k = 0; k < instances.size(); ++k) {
      ScatterInstance& p = instances[k];
      const auto it =
          std::lower_bound(by_id_list.begin(), by_id_list.end(), p.id,
                           [](const InstanceOverride* o, std::uint64_t id) { return o->id < id; });
      if (it != by_id_list.end() && (*it)->id == p.id && (*it)->x_m == p.x_m &&
          (*it)->z_m == p.z_m) {
        if ((*it)->change == InstanceChange::removed) continue;
        p.state = (*it)->state;
      }
      if (kept != k) instances[kept] = p;
      ++kept;
    }
    instances.resize(kept);
  }
  std::size_t added = 0;
  for (const InstanceOverride* o : found) {
    if (o->change != InstanceChange::added) continue;
    ScatterInstance p;
    p.x_m = o->x_m;
    p.z_m = o->z_m;
    p.yaw_deg = o->yaw_deg;
    p.scale_xz = o->scale_xz;
    p.scale_y = o->scale_y;
    p.species = o->species;
    p.id = o->id;
    p.state = o->state;
    instances.push_back(p);
    ++added;
  }
  return added;
}

// ---- InstanceEdits

// The chunks one operation changes: copies made on first write, committed as one step.
class InstanceEdits::Builder {
 public:
  explicit Builder(const InstanceEditSnapshot& now) : now_(now) {}

  // The entry (id, added) of the chunk holding (x, z), or nullptr.
  const InstanceOverride* find(std::uint64_t id, bool added, double x, double z) {
    const InstanceEditSnapshot::Chunk* c = view(now_.key_at(x, z));
    if (c == nullptr) return nullptr;
    const auto it = std::lower_bound(c->begin(), c->end(), Slot{id, added}, before);
    return it != c->end() && at_slot(*it, {id, added}) ? &*it : nullptr;
  }
  // Sets the entry (o.id, added or not) in the chunk of its position (replacing any there).
  void put(const InstanceOverride& o) {
    InstanceEditSnapshot::Chunk& c = edit(now_.key_at(o.x_m, o.z_m));
    const Slot slot{o.id, is_added(o)};
    const auto it = std::lower_bound(c.begin(), c.end(), slot, before);
    if (it != c.end() && at_slot(*it, slot)) {
      if (*it == o) return;
      *it = o;
    } else {
      c.insert(it, o);
    }
    changes.at.push_back({o.x_m, o.z_m});
  }
  // Drops the entry (id, added) of the chunk holding (x, z), if any.
  void erase(std::uint64_t id, bool added, double x, double z) {
    if (find(id, added, x, z) == nullptr) return;
    InstanceEditSnapshot::Chunk& c = edit(now_.key_at(x, z));
    const auto it = std::lower_bound(c.begin(), c.end(), Slot{id, added}, before);
    changes.at.push_back({it->x_m, it->z_m});
    c.erase(it);
  }
  // Every chunk as the operation leaves it.
  const InstanceEditSnapshot::Chunk* view(const InstanceEditKey& key) const {
    const auto it = copies_.find(key);
    return it != copies_.end() ? it->second.get() : now_.chunk(key);
  }

  InstanceChanges changes;
  std::map<InstanceEditKey, std::shared_ptr<InstanceEditSnapshot::Chunk>> copies_;

 private:
  InstanceEditSnapshot::Chunk& edit(const InstanceEditKey& key) {
    auto& copy = copies_[key];
    if (!copy) {
      const InstanceEditSnapshot::Chunk* old = now_.chunk(key);
      copy = old != nullptr ? std::make_shared<InstanceEditSnapshot::Chunk>(*old)
                            : std::make_shared<InstanceEditSnapshot::Chunk>();
    }
    return *copy;
  }

  const InstanceEditSnapshot& now_;
};

InstanceEdits::InstanceEdits(double chunk_size_m) : now_(chunk_size_m, {}) {}

InstanceEdits::InstanceEdits(const InstanceEditSnapshot& start) : now_(start) {}

InstanceChanges InstanceEdits::commit(Builder& b) {
  Step step;
  for (auto& [key, copy] : b.copies_) {
    const InstanceEditSnapshot::Chunk* old = now_.chunk(key);
    if (old != nullptr ? *old == *copy : copy->empty()) continue;
    std::shared_ptr<const InstanceEditSnapshot::Chunk> after;
    if (!copy->empty()) after = std::move(copy);
    step.chunks.push_back({key, {old != nullptr ? now_.chunks_.at(key) : nullptr, after}});
  }
  if (step.chunks.empty()) return {};
  step.changes = std::move(b.changes);
  set_chunks(step, true);
  undo_.push_back(step);
  redo_.clear();
  return step.changes;
}

void InstanceEdits::set_chunks(const Step& step, bool after) {
  for (const auto& [key, pair] : step.chunks) {
    const auto& chunk = after ? pair.second : pair.first;
    if (chunk) {
      now_.chunks_[key] = chunk;
    } else {
      now_.chunks_.erase(key);
    }
  }
}

namespace {

void check_instance(const ScatterInstance& p, const char* what) {
  const Range coordinate = Range::closed(-kMaxEditCoordinate, kMaxEditCoordinate);
  check_range(std::string(what) + ".x_m", p.x_m, coordinate);
  check_range(std::string(what) + ".z_m", p.z_m, coordinate);
}

void check_timer(const char* what, double t) {
  check_range(what, t, Range::closed(0.0, kMaxTimer));
}

}  // namespace

InstanceChanges InstanceEdits::remove(std::span<const ScatterInstance> instances, double regrow_s) {
  check_timer("instance remove: regrow_s", regrow_s);
  for (const ScatterInstance& p : instances) check_instance(p, "instance remove: instance");
  Builder b(now_);
  for (const ScatterInstance& p : instances) {
    if (b.find(p.id, true, p.x_m, p.z_m) != nullptr) {
      b.erase(p.id, true, p.x_m, p.z_m);
      continue;
    }
    InstanceOverride r;
    r.id = p.id;
    r.change = InstanceChange::removed;
    r.timer_s = regrow_s;
    r.x_m = p.x_m;
    r.z_m = p.z_m;
    b.put(r);
  }
  return commit(b);
}

InstanceChanges InstanceEdits::set_state(std::span<const ScatterInstance> instances,
                                         std::uint64_t state, double timer_s) {
  check_timer("instance state: timer_s", timer_s);
  for (const ScatterInstance& p : instances) check_instance(p, "instance state: instance");
  Builder b(now_);
  for (const ScatterInstance& p : instances) {
    if (const InstanceOverride* o = b.find(p.id, true, p.x_m, p.z_m)) {
      InstanceOverride a = *o;
      a.state = state;
      a.timer_s = timer_s;
      b.put(a);
    } else if (state == 0 && timer_s == 0.0) {
      b.erase(p.id, false, p.x_m, p.z_m);
    } else {
      InstanceOverride s;
      s.id = p.id;
      s.change = InstanceChange::state;
      s.state = state;
      s.timer_s = timer_s;
      s.x_m = p.x_m;
      s.z_m = p.z_m;
      b.put(s);
    }
  }
  return commit(b);
}

InstanceChanges InstanceEdits::move(const ScatterInstance& instance, double x_m, double z_m,
                                    float yaw_deg) {
  check_instance(instance, "instance move: instance");
  check_range("instance move: x_m", x_m, Range::closed(-kMaxEditCoordinate, kMaxEditCoordinate));
  check_range("instance move: z_m", z_m, Range::closed(-kMaxEditCoordinate, kMaxEditCoordinate));
  check_range("instance move: yaw_deg", double(yaw_deg), Range::any());
  Builder b(now_);
  const InstanceOverride* o = b.find(instance.id, true, instance.x_m, instance.z_m);
  InstanceOverride a;
  a.id = instance.id;
  a.change = InstanceChange::added;
  a.state = instance.state;
  a.scale_xz = instance.scale_xz;
  a.scale_y = instance.scale_y;
  a.species = instance.species;
  if (o != nullptr) {
    a.timer_s = o->timer_s;
    b.erase(instance.id, true, instance.x_m, instance.z_m);
  } else {
    InstanceOverride r;
    r.id = instance.id;
    r.change = InstanceChange::removed;
    r.x_m = instance.x_m;
    r.z_m = instance.z_m;
    b.put(r);
  }
  a.x_m = x_m;
  a.z_m = z_m;
  a.yaw_deg = yaw_deg;
  check_override(a, "instance move");
  b.put(a);
  return commit(b);
}

InstanceChanges InstanceEdits::add(const ScatterInstance& placed, double timer_s,
                                   std::uint64_t* id) {
  InstanceOverride a;
  a.change = InstanceChange::added;
  a.state = placed.state;
  a.timer_s = timer_s;
  a.x_m = placed.x_m;
  a.z_m = placed.z_m;
  a.yaw_deg = placed.yaw_deg;
  a.scale_xz = placed.scale_xz;
  a.scale_y = placed.scale_y;
  a.species = placed.species;
  check_override(a, "instance add");
  // A hash of (position bits, species, counter); the counter moves on past any id the chunk
  // holds, so ids in one chunk never collide (across chunks and with the scatter's ids, as
  // rarely as 64-bit hashes do).
  const std::uint64_t base = hash_combine(
      hash_combine(std::bit_cast<std::uint64_t>(a.x_m), std::bit_cast<std::uint64_t>(a.z_m)),
      hash_combine(std::uint64_t(a.species), 0x41444445ull));  // "ADDE"
  Builder b(now_);
  for (std::uint64_t n = 0;; ++n) {
    a.id = hash_combine(base, n);
    if (b.find(a.id, true, a.x_m, a.z_m) == nullptr && b.find(a.id, false, a.x_m, a.z_m) == nullptr)
      break;
  }
  b.put(a);
  if (id != nullptr) *id = a.id;
  return commit(b);
}

InstanceChanges InstanceEdits::restore(std::span<const std::uint64_t> ids) {
  std::vector<std::uint64_t> sorted(ids.begin(), ids.end());
  std::sort(sorted.begin(), sorted.end());
  Builder b(now_);
  for (const auto& [key, chunk] : now_.chunks_) {
    for (const InstanceOverride& o : *chunk) {
      if (std::binary_search(sorted.begin(), sorted.end(), o.id)) {
        b.erase(o.id, is_added(o), o.x_m, o.z_m);
      }
    }
  }
  return commit(b);
}

InstanceChanges InstanceEdits::advance(double seconds) {
  check_range("instance advance: seconds", seconds, Range::closed(0.0, kMaxTimer));
  InstanceChanges changes;
  if (seconds == 0.0) return changes;
  for (auto it = now_.chunks_.begin(); it != now_.chunks_.end();) {
    bool timed = false;
    for (const InstanceOverride& o : *it->second) timed = timed || o.timer_s > 0.0;
    if (!timed) {
      ++it;
      continue;
    }
    auto next = std::make_shared<InstanceEditSnapshot::Chunk>();
    next->reserve(it->second->size());
    for (InstanceOverride o : *it->second) {
      if (o.timer_s > 0.0) {
        o.timer_s -= seconds;
        if (o.timer_s <= 0.0) {
          changes.at.push_back({o.x_m, o.z_m});
          continue;  // lapsed
        }
      }
      next->push_back(o);
    }
    if (next->empty()) {
      it = now_.chunks_.erase(it);
    } else {
      it->second = std::move(next);
      ++it;
    }
  }
  if (!changes.empty()) {
    undo_.clear();
    redo_.clear();
  }
  return changes;
}

InstanceChanges InstanceEdits::undo() {
  if (undo_.empty()) return {};
  set_chunks(undo_.back(), false);
  redo_.push_back(std::move(undo_.back()));
  undo_.pop_back();
  return redo_.back().changes;
}

InstanceChanges InstanceEdits::redo() {
  if (redo_.empty()) return {};
  set_chunks(redo_.back(), true);
  undo_.push_back(std::move(redo_.back()));
  redo_.pop_back();
  return undo_.back().changes;
}

}  // namespace terrane
