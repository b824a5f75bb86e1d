// Crash safety of world files (store.hpp), in the manner of SQLite's own crash tests: a writer
// process commits random strokes and dies, 100 times. 60 times it is killed from outside with
// SIGKILL at a random moment; 40 times it kills itself at a chosen point that a kill from outside
// hits only by chance: inside a commit (before or after its K-th write to the WAL), inside a
// checkpoint (its K-th write to the database file), or between a commit's return and its
// acknowledgement. After each death the world must open, pass PRAGMA integrity_check, hold every
// commit that returned and none half-applied: its edits are exactly the state of the newest
// commit that returned, or of the one in flight, bit for bit.
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <random>
#include <sstream>
#include <vector>

#include "store/store_support.hpp"
#include "terrane/store.hpp"

#ifndef TERRANE_CRASH_WRITER
#error "TERRANE_CRASH_WRITER must name the crash_writer executable (tests/store/CMakeLists.txt)"
#endif

namespace terrane {
namespace {

namespace fs = std::filesystem;

struct WriterRun {
  std::string out;  // everything the writer printed before it died
  int status = 0;
  bool killed = false;  // by the test (rather than by its own hand)
};

// How a writer dies: killed from outside `ms` milliseconds after its first commit, or by its own
// hand at a point (`point`, `k`: crash_writer.cpp).
struct Death {
  int ms = 0;
  std::string point;  // empty: killed from outside
  int k = 0;
};

// Starts the writer and reads what it prints until it dies. Killed from outside, it is killed
// `ms` milliseconds after it announced its first commit ("C ..."): every such run thus commits
// at least once, however slow the build (sanitizers) or the machine.
WriterRun run_and_kill(const fs::path& world, std::uint64_t seed, const Death& death) {
  int fds[2];
  if (pipe(fds) != 0) return {};
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    close(fds[1]);
    const std::string s = std::to_string(seed), k = std::to_string(death.k);
    if (death.point.empty()) {
      execl(TERRANE_CRASH_WRITER, TERRANE_CRASH_WRITER, world.c_str(), s.c_str(), nullptr);
    } else {
      execl(TERRANE_CRASH_WRITER, TERRANE_CRASH_WRITER, world.c_str(), s.c_str(),
            death.point.c_str(), k.c_str(), nullptr);
    }
    _exit(127);
  }
  close(fds[1]);
  WriterRun r;
  char buf[4096];
  using clock = std::chrono::steady_clock;
  std::optional<clock::time_point> deadline;
  const auto give_up = clock::now() + std::chrono::seconds(60);
  for (;;) {
    pollfd p{fds[0], POLLIN, 0};
    const int timeout =
        deadline
            ? int(std::max<std::int64_t>(
                  0, std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - clock::now())
                         .count()))
            : 100;
    if (poll(&p, 1, timeout) > 0) {
      const ssize_t n = read(fds[0], buf, sizeof buf);
      if (n <= 0) break;  // the writer died by its own hand, or ended (an error: the caller's)
      r.out.append(buf, std::size_t(n));
      if (death.point.empty() && !deadline && r.out.find("\nC ") != std::string::npos) {
        deadline = clock::now() + std::chrono::milliseconds(death.ms);
      }
    }
    if ((deadline && clock::now() >= *deadline) || clock::now() > give_up) {
      kill(pid, SIGKILL);
      r.killed = true;
      break;
    }
  }
  // What it wrote before it died is still in the pipe.
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0) r.out.append(buf, std::size_t(n));
  close(fds[0]);
  waitpid(pid, &r.status, 0);
  return r;
}

TEST(StoreCrash, KilledWritersLoseNoCommitAndLeaveNoneHalfApplied) {
  const fs::path dir =
      fs::temp_directory_path() / ("terrane_store_crash_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path world = dir / "crash.world";
  WorldStore::create(world, test::store_test_preset());

  // 60 kills from outside and 40 chosen deaths, in an order that mixes them.
  std::mt19937_64 rng(11);
  std::vector<Death> deaths;
  for (int i = 0; i < 60; ++i) deaths.push_back({int(rng() % 80), {}, 0});
  for (int i = 0; i < 16; ++i) {
    deaths.push_back({0, i % 2 == 0 ? "wal-before" : "wal-after", 1 + int(rng() % 40)});
  }
  for (int i = 0; i < 4; ++i) deaths.push_back({0, "wal-before", 1});  // before any write
  for (int i = 0; i < 6; ++i) {
    deaths.push_back({0, i % 2 == 0 ? "db-before" : "db-after", 1 + int(rng() % 60)});
  }
  for (int i = 0; i < 14; ++i) deaths.push_back({0, "ack", 1 + int(rng() % 3)});
  std::shuffle(deaths.begin(), deaths.end(), rng);

  std::uint64_t committed = 0;  // commits the file must hold at least
  int kills = 0, in_flight_kept = 0, in_flight_lost = 0;
  for (std::size_t k = 0; k < deaths.size(); ++k) {
    const Death& death = deaths[k];
    const WriterRun r = run_and_kill(world, 1000 + std::uint64_t(k), death);
    ASSERT_TRUE(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGKILL)
        << "the writer ended by itself (status " << r.status << ", death " << death.point << " "
        << death.k << "): " << r.out;
    ASSERT_EQ(r.killed, death.point.empty())
        << "the writer never reached its point of death " << death.point << " " << death.k;
    ++kills;
    // Complete lines only: a line cut by the kill says nothing.
    std::map<std::uint64_t, std::uint64_t> pending;  // seq -> hash of the state committed
    std::uint64_t last_done = committed;
    std::istringstream lines(r.out.substr(0, r.out.rfind('\n') + 1));
    std::string tag;
    while (lines >> tag) {
      std::uint64_t seq = 0;
      lines >> seq;
      if (tag == "P") {
        std::string hex;
        lines >> hex;
        pending[seq] = std::stoull(hex, nullptr, 16);
      } else {
        ASSERT_EQ(tag, "C");
        last_done = seq;
      }
    }
    const WorldStore w = WorldStore::open(world);
    ASSERT_EQ(w.check(), "ok") << "after kill " << k;
    const std::uint64_t n = w.info().commits;
    ASSERT_GE(n, last_done) << "a commit that returned is missing after kill " << k;
    ASSERT_LE(n, last_done + 1) << "after kill " << k;
    const bool in_flight = pending.count(last_done + 1) != 0;
    if (n == last_done + 1) {
      ++in_flight_kept;
    } else if (in_flight) {
      ++in_flight_lost;
    }
    // A chosen death inside a commit, or after its return, must have found one in flight; a
    // death after the return keeps it, one before the commit's first write loses it.
    if (death.point.rfind("wal-", 0) == 0 || death.point == "ack") {
      ASSERT_TRUE(in_flight) << death.point << " " << death.k << ": " << r.out;
    }
    if (death.point == "ack") {
      ASSERT_EQ(n, last_done + 1) << "a commit that returned is lost (kill " << k << ")";
    }
    if (death.point == "wal-before" && death.k == 1) {
      ASSERT_EQ(n, last_done) << "a commit that wrote nothing is in the file (kill " << k << ")";
    }
    if (n > 0 && n > committed) {
      ASSERT_EQ(pending.count(n), 1u) << "commit " << n << " was never announced";
      EXPECT_EQ(test::edits_hash(w.height_edits()), pending[n])
          << "the edits of commit " << n << " are not the state committed (kill " << k << ")";
    }
    committed = n;
  }
  std::printf(
      "%d kills, %llu commits in all; the commit in flight at the kill was kept %d times and "
      "rolled back %d times\n",
      kills, static_cast<unsigned long long>(committed), in_flight_kept, in_flight_lost);
  EXPECT_EQ(kills, 100);
  EXPECT_GE(committed, std::uint64_t(60));  // each writer killed from outside committed first
  EXPECT_GE(in_flight_kept, 14);            // the "ack" deaths
  EXPECT_GE(in_flight_lost, 4);             // the deaths before a commit's first write
  fs::remove_all(dir);
}

}  // namespace
}  // namespace terrane
