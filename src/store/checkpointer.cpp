// Background WAL checkpoints (checkpointer.hpp).
#include "store/checkpointer.hpp"

#include <sqlite3.h>

namespace terrane::store_detail {

Checkpointer::Checkpointer(std::string path) : path_(std::move(path)) {
  thread_ = std::thread([this] { run(); });
}

Checkpointer::~Checkpointer() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  cv_.notify_one();
  thread_.join();
}

void Checkpointer::request() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    pending_ = true;
  }
  cv_.notify_one();
}

void Checkpointer::run() {
  sqlite3* db = nullptr;
  for (;;) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      cv_.wait(lock, [&] { return pending_ || stop_; });
      if (stop_) break;
      pending_ = false;
    }
    // A connection learns that the file is in WAL mode from its header, on its first read:
    // before that a checkpoint does nothing and says so only by setting its counts to -1.
    if (db == nullptr &&
        (sqlite3_open_v2(path_.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK ||
         sqlite3_exec(db, "SELECT count(*) FROM sqlite_master", nullptr, nullptr, nullptr) !=
             SQLITE_OK)) {
      sqlite3_close(db);
      db = nullptr;
      continue;  // the writer's own connection checkpoints when it closes
    }
    // PASSIVE: copies what no reader needs and never waits for the writer. A failure (a busy
    // file) only leaves the WAL longer until the next request or the close.
    sqlite3_wal_checkpoint_v2(db, nullptr, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
  }
  sqlite3_close(db);
}

}  // namespace terrane::store_detail
