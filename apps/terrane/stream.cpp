// terrane stream: a headless flight through the infinite world. Drives a Streamer frame by frame
// at 60 Hz (paced in real time unless --fast) and reports the owner thread's per-frame cost of
// update + poll, generation throughput, queue, residency, the time until the view is first
// complete, and every frame whose visible set had a hole or a crack (check_seams).
#include <sys/resource.h>
#include <time.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "terrane/io.hpp"
#include "terrane/preset.hpp"
#include "terrane/schema.hpp"
#include "terrane/world.hpp"

namespace terrane::cli {

namespace {

constexpr double kFrame = 1.0 / 60.0;
constexpr double kPi = 3.14159265358979323846;

struct Pose {
  double x, z, vx, vz;
};

// The viewer's path: deterministic in time (random: a seeded smooth wander).
class Path {
 public:
  Path(const std::string& kind, double speed, double view, std::uint64_t seed)
      : kind_(kind), speed_(speed), radius_(std::max(2.0 * view, 1000.0)), seed_(seed) {}

  Pose at(double t) {
    if (kind_ == "line") return {speed_ * t, 0.0, speed_, 0.0};
    if (kind_ == "circle") {
      const double w = speed_ / radius_;
      const double a = w * t;
      return with_speed({radius_ * std::cos(a), radius_ * std::sin(a), -std::sin(a), std::cos(a)});
    }
    // random: the heading turns at a rate that changes every 2 s (hash of the seed and segment).
    while (t_ + 1e-12 < t) {
      const double step = std::min(kFrame, t - t_);
      const std::uint64_t seg = std::uint64_t(t_ / 2.0);
      const double turn =
          (double(unit_float(hash_combine(seed_, seg))) * 2.0 - 1.0) * 0.6;  // rad/s
      heading_ += turn * step;
      x_ += speed_ * std::cos(heading_) * step;
      z_ += speed_ * std::sin(heading_) * step;
      t_ += step;
    }
    return with_speed({x_, z_, std::cos(heading_), std::sin(heading_)});
  }

 private:
  // The pose with its unit direction scaled to the path's speed, never above it: at
  // --speed kMaxViewerSpeed, speed * (cos, sin) can round to a length a hair above the
  // streamer's limit (issue 12, defect 13: the flight failed mid-way).
  Pose with_speed(Pose p) const {
    double vx = speed_ * p.vx, vz = speed_ * p.vz;
    while (std::sqrt(vx * vx + vz * vz) > speed_) {
      vx = std::nextafter(vx, 0.0);
      vz = std::nextafter(vz, 0.0);
    }
    p.vx = vx;
    p.vz = vz;
    return p;
  }

  std::string kind_;
  double speed_, radius_;
  std::uint64_t seed_;
  double t_ = 0.0, x_ = 0.0, z_ = 0.0, heading_ = 0.0;
};

// CPU time of the calling thread (excludes time the OS ran something else) [Units: us].
double thread_cpu_us() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) * 1.0e6 + double(ts.tv_nsec) * 1.0e-3;
}

// Involuntary context switches of the calling thread so far (the OS preempted it).
long involuntary_switches() {
  rusage u{};
  getrusage(RUSAGE_THREAD, &u);
  return u.ru_nivcsw;
}

// Throws Error(io) naming `file` unless `dir` (empty = the current directory) exists and a file
// can be created in it.
void check_writable_dir(const std::filesystem::path& dir_in, const std::string& file) {
  const std::filesystem::path dir = dir_in.empty() ? std::filesystem::path(".") : dir_in;
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) {
    throw Error(ErrorCategory::invalid_argument, file + ": is a directory; give a file name");
  }
  if (!std::filesystem::exists(dir, ec)) {
    throw Error(ErrorCategory::io, file + ": directory '" + dir.string() + "' does not exist");
  }
  if (!std::filesystem::is_directory(dir, ec)) {
    throw Error(ErrorCategory::io, file + ": '" + dir.string() + "' is not a directory");
  }
  probe_writable(dir, file + ": directory '" + dir.string() + "' is not writable");
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t k =
      std::min(v.size() - 1, std::size_t(std::ceil(p * double(v.size()))) - (p > 0 ? 1 : 0));
  return v[k];
}

}  // namespace

int run_stream(const StreamOptions& opt) {
  if (opt.path != "line" && opt.path != "circle" && opt.path != "random") {
    throw Error(ErrorCategory::invalid_argument,
                "--path '" + opt.path + "': expected line, circle or random");
  }
  if (!(std::isfinite(opt.speed) && opt.speed >= 0.0 && opt.speed <= kMaxViewerSpeed)) {
    throw Error(ErrorCategory::invalid_argument, "--speed " + format_number(opt.speed) +
                                                     " m/s must be in [0, " +
                                                     format_number(kMaxViewerSpeed) + "]");
  }
  if (!(std::isfinite(opt.seconds) && opt.seconds > 0.0 && opt.seconds <= 86400.0)) {
    throw Error(ErrorCategory::invalid_argument,
                "--seconds " + format_number(opt.seconds) + " must be in (0, 86400]");
  }
  const double budget_mb = opt.budget_mb == 0.0 ? 256.0 : opt.budget_mb;
  if (!(std::isfinite(budget_mb) && budget_mb > 0.0 && budget_mb <= 1048576.0)) {
    throw Error(ErrorCategory::invalid_argument,
                "--budget " + format_number(opt.budget_mb) + " MiB must be in (0, 1048576]");
  }
  if (!(std::isfinite(opt.poll_ms) && opt.poll_ms > 0.0 && opt.poll_ms <= 1000.0)) {
    throw Error(ErrorCategory::invalid_argument,
                "--poll-ms " + format_number(opt.poll_ms) + " must be in (0, 1000]");
  }
  WorkerPriority priority = WorkerPriority::background;
  if (opt.workers == "normal") {
    priority = WorkerPriority::normal;
  } else if (opt.workers == "low") {
    priority = WorkerPriority::low;
  } else if (opt.workers != "background") {
    throw Error(ErrorCategory::invalid_argument,
                "--workers '" + opt.workers + "': expected background, low or normal");
  }
  std::vector<std::string> overrides = opt.overrides;
  if (opt.has_seed) overrides.push_back("seed=" + std::to_string(opt.seed));
  const Preset preset = load_preset(opt.preset, overrides);

  StreamerParams params;
  params.chunk.cells = opt.cells;
  params.chunk.surface = opt.surface;
  params.view_distance_m = opt.view_m;
  params.budget_bytes = std::size_t(budget_mb * 1048576.0);
  params.threads = opt.threads;
  // Without --surface the default is 256 MiB; with it, automatic (StreamerParams::budget_bytes
  // = 0: 1.5 times the minimum, which includes every worker's chunk scratch, at least 256 MiB).
  if (opt.budget_mb == 0.0 && opt.surface) params.budget_bytes = 0;
  params.worker_priority = priority;
  Streamer streamer(preset, params);

  // The CSV is kept in memory and written atomically at the end (docs/DESIGN.md: a failed run
  // leaves no half-written file); its directory is checked before the flight.
  const bool want_csv = !opt.csv.empty();
  std::ostringstream csv;
  if (want_csv) {
    check_writable_dir(std::filesystem::path(opt.csv).parent_path(), opt.csv);
    csv << "frame,time_s,x_m,z_m,cost_us,queued,running,resident_chunks,resident_bytes,visible,"
           "holes,cracks,view_complete\n";
  }
  // Only once every input is accepted, so that a refused run prints its error alone.
  if (streamer.generator().post_ignored() && !opt.json) {
    std::fprintf(stderr,
                 "note: preset '%s' has post operations (erosion, breaching, blur): streaming "
                 "generates the graph only\n",
                 preset.name.c_str());
  }

  Path path(opt.path, opt.speed, opt.view_m, preset.seed);
  const int frames = int(std::ceil(opt.seconds / kFrame));
  std::vector<double> cost_us, cpu_us;
  cost_us.reserve(std::size_t(frames));
  cpu_us.reserve(std::size_t(frames));
  std::size_t peak_bytes = 0, peak_queue = 0, peak_resident = 0;
  double queue_sum = 0.0;
  int hole_frames = 0, crack_frames = 0, preempted_frames = 0;
  double time_to_complete = -1.0;
  const PollBudget budget{.max_chunks = SIZE_MAX, .max_ms = opt.poll_ms};
  using clock = std::chrono::steady_clock;
  const auto start = clock::now();
  for (int f = 0; f < frames; ++f) {
    const double t = f * kFrame;
    const Pose p = path.at(t);
    Viewer v;
    v.x_m = p.x;
    v.z_m = p.z;
    v.y_m = 0.0;
    v.vx_m_s = p.vx;
    v.vz_m_s = p.vz;
    if (p.vx != 0.0 || p.vz != 0.0) v.frustum = ViewFrustum{p.vx, p.vz, kPi / 3.0};

    const long sw0 = involuntary_switches();
    const double c0 = thread_cpu_us();
    const auto t0 = clock::now();
    streamer.set_viewers({&v, 1});
    streamer.update();
    streamer.poll(budget);
    const auto t1 = clock::now();
    cpu_us.push_back(thread_cpu_us() - c0);
    if (involuntary_switches() != sw0) ++preempted_frames;
    const double us = std::chrono::duration<double, std::micro>(t1 - t0).count();
    cost_us.push_back(us);

    const StreamerStats st = streamer.stats();
    const SeamReport seams = check_seams(streamer.visible(), streamer.generator());
    const std::size_t cracks = seams.cracks + seams.overlaps;
    if (time_to_complete < 0.0 && st.view_complete) {
      time_to_complete = std::chrono::duration<double>(clock::now() - start).count();
    }
    if (time_to_complete >= 0.0 && st.holes > 0) ++hole_frames;
    if (cracks > 0) ++crack_frames;
    peak_bytes = std::max(peak_bytes, st.resident_bytes);
    peak_queue = std::max(peak_queue, st.queued);
    peak_resident = std::max(peak_resident, st.resident_chunks);
    queue_sum += double(st.queued);
    if (want_csv) {
      csv << f << ',' << t << ',' << p.x << ',' << p.z << ',' << us << ',' << st.queued << ','
          << st.running << ',' << st.resident_chunks << ',' << st.resident_bytes << ','
          << st.visible << ',' << st.holes << ',' << cracks << ',' << (st.view_complete ? 1 : 0)
          << '\n';
    }
    if (!opt.fast)
      std::this_thread::sleep_until(start + std::chrono::duration_cast<clock::duration>(
                                                std::chrono::duration<double>((f + 1) * kFrame)));
  }
  const double wall = std::chrono::duration<double>(clock::now() - start).count();
  const StreamerStats st = streamer.stats();
  if (want_csv) {
    const std::string text = csv.str();
    write_file_atomic(opt.csv, std::as_bytes(std::span<const char>(text.data(), text.size())));
  }

  nlohmann::json j;
  j["preset"] = preset.name;
  j["path"] = opt.path;
  j["speed_m_s"] = opt.speed;
  j["view_m"] = opt.view_m;
  j["cells"] = opt.cells;
  j["surface"] = opt.surface;
  j["chunk_m"] = streamer.generator().chunk_size_m(0);
  j["root_level"] = streamer.root_level();
  j["lod0_m"] = streamer.lod0_distance_m();
  j["threads"] = opt.threads;
  j["workers"] = opt.workers;
  j["frames"] = frames;
  j["seconds"] = wall;
  j["p50_us"] = percentile(cost_us, 0.50);
  j["p99_us"] = percentile(cost_us, 0.99);
  j["max_us"] = *std::max_element(cost_us.begin(), cost_us.end());
  // The same on the thread's CPU clock: without the time the OS gave the core to others.
  j["p99_cpu_us"] = percentile(cpu_us, 0.99);
  j["max_cpu_us"] = *std::max_element(cpu_us.begin(), cpu_us.end());
  // Frames during whose update + poll the OS preempted the thread (another runnable thread
  // took the core): their wall time includes someone else's work.
  j["preempted_frames"] = preempted_frames;
  j["chunks_generated"] = st.generated;
  j["chunks_per_s"] = double(st.generated) / wall;
  j["queue_mean"] = queue_sum / double(frames);
  j["queue_peak"] = peak_queue;
  j["resident_chunks_peak"] = peak_resident;
  j["resident_chunks"] = st.resident_chunks;
  j["bytes_per_chunk"] = st.chunk_bytes;
  j["peak_resident_bytes"] = peak_bytes;
  j["budget_bytes"] = st.budget_bytes;
  j["minimum_budget_bytes"] = streamer.minimum_budget_bytes();
  j["cancelled"] = st.cancelled;
  j["dropped"] = st.dropped;
  j["evicted"] = st.evicted;
  j["holes"] = hole_frames;
  j["cracks"] = crack_frames;
  j["time_to_complete_view_s"] =
      time_to_complete >= 0.0 ? nlohmann::json(time_to_complete) : nlohmann::json(nullptr);
  if (!opt.json) {
    std::printf("stream %s: %s path at %.0f m/s, view %.0f m, %d frames in %.1f s (%s)\n",
                preset.name.c_str(), opt.path.c_str(), opt.speed, opt.view_m, frames, wall,
                opt.fast ? "as fast as possible" : "real time");
    std::printf(
        "  update+poll per frame: p50 %.1f us, p99 %.1f us, max %.1f us (thread CPU time: "
        "p99 %.1f us, max %.1f us; %d frames preempted by the OS)\n",
        j["p50_us"].get<double>(), j["p99_us"].get<double>(), j["max_us"].get<double>(),
        j["p99_cpu_us"].get<double>(), j["max_cpu_us"].get<double>(), preempted_frames);
    std::printf(
        "  chunks: %llu generated (%.0f /s), queue mean %.1f peak %zu, cancelled %llu, "
        "dropped %llu, evicted %llu\n",
        (unsigned long long)st.generated, j["chunks_per_s"].get<double>(),
        j["queue_mean"].get<double>(), peak_queue, (unsigned long long)st.cancelled,
        (unsigned long long)st.dropped, (unsigned long long)st.evicted);
    std::printf(
        "  memory: peak %.1f MiB of %.1f MiB budget, %.0f KiB per chunk, peak %zu resident\n",
        double(peak_bytes) / 1048576.0, double(st.budget_bytes) / 1048576.0,
        double(st.chunk_bytes) / 1024.0, peak_resident);
    if (time_to_complete >= 0.0) {
      std::printf("  view complete after %.3f s; frames with holes since: %d, with cracks: %d\n",
                  time_to_complete, hole_frames, crack_frames);
    } else {
      std::printf("  view never complete; frames with cracks: %d\n", crack_frames);
    }
  }
  std::printf("%s\n", j.dump().c_str());
  return (hole_frames == 0 && crack_frames == 0) ? 0 : 1;
}

}  // namespace terrane::cli
