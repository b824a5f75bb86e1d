// SQLite connection and statements for the store (sqlite_db.hpp).
#include "store/sqlite_db.hpp"

namespace terrane::store_detail {

Db::Db(const std::string& path, int flags) : path_(path) {
  const int rc = sqlite3_open_v2(path.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    const std::string msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close(db_);
    db_ = nullptr;
    throw Error(ErrorCategory::io, "world " + path + ": cannot open: " + msg);
  }
  sqlite3_extended_result_codes(db_, 1);
  // A busy file (another process holding the write lock) waits a little instead of failing.
  sqlite3_busy_timeout(db_, 2000);
}

Db::~Db() {
  sqlite3_close(db_);
}

void Db::fail(std::string_view what, int rc) const {
  std::string msg = sqlite3_errmsg(db_);
  const int primary = rc & 0xff;
  if (primary == SQLITE_NOTADB) {
    msg = "not a world file (not an SQLite database, or its header is damaged)";
  } else if (primary == SQLITE_CORRUPT) {
    msg = "the file is damaged (" + msg + ")";
  } else if (primary == SQLITE_FULL) {
    msg = "the disk is full (" + msg + ")";
  } else if (primary == SQLITE_READONLY) {
    msg = "the file cannot be written (" + msg + ")";
  }
  throw Error(ErrorCategory::io, "world " + path_ + ": " + std::string(what) + ": " + msg);
}

void Db::exec(const char* sql, std::string_view what) const {
  const int rc = sqlite3_exec(db_, sql, nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) fail(what, rc);
}

Stmt::Stmt(const Db& db, const char* sql) : db_(db) {
  const int rc = sqlite3_prepare_v2(db.get(), sql, -1, &s_, nullptr);
  if (rc != SQLITE_OK) db.fail("reading the schema", rc);
}

Stmt::~Stmt() {
  sqlite3_finalize(s_);
}

void Stmt::bind(int i, std::int64_t v) {
  sqlite3_bind_int64(s_, i, v);
}
void Stmt::bind(int i, double v) {
  sqlite3_bind_double(s_, i, v);
}
void Stmt::bind(int i, std::string_view v) {
  sqlite3_bind_text(s_, i, v.data(), int(v.size()), SQLITE_TRANSIENT);
}
void Stmt::bind_blob(int i, std::span<const std::uint8_t> v) {
  // SQLITE_STATIC: the caller keeps the bytes alive until the step.
  sqlite3_bind_blob(s_, i, v.data(), int(v.size()), SQLITE_STATIC);
}

bool Stmt::step(std::string_view what) {
  const int rc = sqlite3_step(s_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  db_.fail(what, rc);
}

void Stmt::reset() {
  sqlite3_reset(s_);
  sqlite3_clear_bindings(s_);
}

std::string Stmt::text(int col) const {
  const auto* p = sqlite3_column_text(s_, col);
  return p ? std::string(reinterpret_cast<const char*>(p),
                         std::size_t(sqlite3_column_bytes(s_, col)))
           : std::string();
}

std::span<const std::uint8_t> Stmt::blob(int col) const {
  const auto* p = static_cast<const std::uint8_t*>(sqlite3_column_blob(s_, col));
  return {p, std::size_t(sqlite3_column_bytes(s_, col))};
}

}  // namespace terrane::store_detail
