// WAL checkpoints off the committing thread (module `store`, internal). SQLite's automatic
// checkpoint runs inside the commit that crosses its threshold, which then takes tens of
// milliseconds (it copies the WAL into the database and syncs it); a game would see that as a
// hitch every hundred strokes. The store turns it off and asks this thread instead, which runs
// a PASSIVE checkpoint on its own connection: it never blocks the writer
// (https://www.sqlite.org/wal.html#application_initiated_checkpoints).
#pragma once

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace terrane::store_detail {

class Checkpointer {
 public:
  explicit Checkpointer(std::string path);
  Checkpointer(const Checkpointer&) = delete;
  Checkpointer& operator=(const Checkpointer&) = delete;
  // Finishes a checkpoint under way, then stops.
  ~Checkpointer();
  // Asks for a checkpoint soon (cheap; from the committing thread).
  void request();

 private:
  void run();

  std::string path_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool pending_ = false, stop_ = false;
  std::thread thread_;
};

}  // namespace terrane::store_detail
