// Runs a shell command and collects its standard output and exit code (for the tests that drive
// the `terrane` CLI), plus the small preset those tests share.
#pragma once

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace terrane::test {

struct CommandResult {
  int code = -1;    // exit status; -1 when the command could not run or was killed
  std::string out;  // what it wrote to standard output
};

inline CommandResult run_command(const std::string& shell_command) {
  CommandResult r;
  FILE* p = popen(shell_command.c_str(), "r");
  if (p == nullptr) return r;
  std::array<char, 4096> buf{};
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// What run_and_interrupt saw: whether the child was signalled, and its wait status.
struct Interrupted {
  bool signalled = false;  // false: the child ended before `ready` said so
  int status = 0;
};

// Runs `args` (args[0] the program's path) as a child process, polls `ready` every 0.5 ms until it
// returns true, waits `delay_us` more, sends `sig` and waits for the child.
inline Interrupted run_and_interrupt(const std::vector<std::string>& args,
                                     const std::function<bool()>& ready, int sig,
                                     useconds_t delay_us = 0) {
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  Interrupted r;
  const pid_t pid = ::fork();
  if (pid < 0) return r;
  if (pid == 0) {
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  while (::waitpid(pid, &r.status, WNOHANG) == 0) {
    if (ready()) {
      if (delay_us > 0) ::usleep(delay_us);
      ::kill(pid, sig);
      ::waitpid(pid, &r.status, 0);
      r.signalled = true;
      break;
    }
    ::usleep(500);
  }
  return r;
}

// A 65 x 65 map at 2 m of one fBm node: quick to generate in every format.
inline constexpr const char* kSmallPreset = R"({
  "name": "small",
  "seed": 5,
  "world": { "cell_size_m": 2.0, "height_min_m": -50, "height_max_m": 250, "size": 65 },
  "graph": {
    "output": "h",
    "nodes": { "h": { "type": "opensimplex2", "fractal": "fbm", "octaves": 4, "frequency": 0.01 } }
  }
})";

}  // namespace terrane::test
