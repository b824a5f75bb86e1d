// A thin RAII layer over SQLite's C API for the store: a connection, prepared statements, and
// every failure turned into a terrane::Error that names the world file (module `store`,
// internal).
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

#include "terrane/core.hpp"

namespace terrane::store_detail {

class Db {
 public:
  // flags: SQLITE_OPEN_* (no SQLITE_OPEN_URI). Throws Error(io) naming `path`.
  Db(const std::string& path, int flags);
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;
  ~Db();

  sqlite3* get() const { return db_; }
  const std::string& path() const { return path_; }
  // Runs one or more statements without results; throws Error(io) with `what` and SQLite's
  // message.
  void exec(const char* sql, std::string_view what) const;
  // Error(io): "world FILE: WHAT: <SQLite's message>".
  [[noreturn]] void fail(std::string_view what, int rc) const;

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
};

class Stmt {
 public:
  Stmt(const Db& db, const char* sql);
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;
  ~Stmt();

  void bind(int i, std::int64_t v);
  void bind(int i, double v);
  void bind(int i, std::string_view v);
  void bind_blob(int i, std::span<const std::uint8_t> v);
  // Steps once: true while a row is ready, false when done. Throws Error(io) naming `what`.
  bool step(std::string_view what);
  void reset();

  std::int64_t int64(int col) const { return sqlite3_column_int64(s_, col); }
  double real(int col) const { return sqlite3_column_double(s_, col); }
  std::string text(int col) const;
  std::span<const std::uint8_t> blob(int col) const;

 private:
  const Db& db_;
  sqlite3_stmt* s_ = nullptr;
};

}  // namespace terrane::store_detail
