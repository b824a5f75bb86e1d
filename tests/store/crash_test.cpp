// Crash safety of world files (store.hpp), in the manner of SQLite's own crash tests: a writer
// process commits random strokes and is killed with SIGKILL at random moments, 60 times. After
// each kill the world must open, pass PRAGMA integrity_check, hold every commit that returned
// and none half-applied: its edits are exactly the state of the newest commit that returned, or
// of the one in flight, bit for bit.
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>
#include <random>
#include <sstream>

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
};

// Starts the writer, waits until it has announced its first commit ("C ..."), lets it run `ms`
// milliseconds more, kills it with SIGKILL and reads what it printed. Every run thus commits at
// least once, however slow the build (sanitizers) or the machine.
WriterRun run_and_kill(const fs::path& world, std::uint64_t seed, int ms) {
  int fds[2];
  if (pipe(fds) != 0) return {};
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], 1);
    close(fds[0]);
    close(fds[1]);
    const std::string s = std::to_string(seed);
    execl(TERRANE_CRASH_WRITER, TERRANE_CRASH_WRITER, world.c_str(), s.c_str(), nullptr);
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
      if (n <= 0) break;  // the writer ended by itself (an error: reported by the caller)
      r.out.append(buf, std::size_t(n));
      if (!deadline && r.out.find("\nC ") != std::string::npos) {
        deadline = clock::now() + std::chrono::milliseconds(ms);
      }
    }
    if ((deadline && clock::now() >= *deadline) || clock::now() > give_up) {
      kill(pid, SIGKILL);
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

  std::mt19937_64 rng(11);
  std::uint64_t committed = 0;  // commits the file must hold at least
  int kills = 0, in_flight_kept = 0, in_flight_lost = 0;
  for (int k = 0; k < 60; ++k) {
    const WriterRun r = run_and_kill(world, 1000 + std::uint64_t(k), int(rng() % 80));
    ASSERT_TRUE(WIFSIGNALED(r.status) && WTERMSIG(r.status) == SIGKILL)
        << "the writer ended by itself (status " << r.status << "): " << r.out;
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
    if (n == last_done + 1) {
      ++in_flight_kept;
    } else if (pending.count(last_done + 1) != 0) {
      ++in_flight_lost;
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
  EXPECT_GE(kills, 50);
  EXPECT_GE(committed, std::uint64_t(kills));  // each writer committed before its kill
  EXPECT_GT(in_flight_kept + in_flight_lost, 0);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace terrane
