// The SQLite side of SqlConnection (libsqlite3). Statements are prepared
// once and kept: an import of a year of runs repeats the same few INSERTs
// hundreds of thousands of times.
#include <fmt/format.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <cctype>
#include <map>

#include "analysis/model/busy_error.h"
#include "analysis/store/db/sql_connection.h"

namespace kvmbench::db {

namespace {

// How long a statement waits for another connection's lock.
constexpr int kBusyTimeoutMs = 10000;

// A path as a "file:" URI, for the parameters only a URI takes.
std::string file_uri(const std::string& path) {
  std::string out = "file:";
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '/' || c == '.' || c == '-' || c == '_' || c == '~') out += static_cast<char>(c);
    else out += fmt::format("%{:02X}", c);
  }
  return out;
}

class SqliteConnection final : public SqlConnection {
 public:
  SqliteConnection(const std::string& path, Access access) : name_(fmt::format("SQLite database {}", path)) {
    struct stat st {};
    if (access != Access::create && ::stat(path.c_str(), &st) != 0)
      throw DbError(fmt::format("{}: no such file (import runs first: kvmbench db import RUN_DIR...)", name_));
    if (access == Access::read) {
      open_reading(path);
      return;
    }
    open(path, SQLITE_OPEN_READWRITE | (access == Access::create ? SQLITE_OPEN_CREATE : 0));
    try {
      exec("PRAGMA foreign_keys = ON");
      // WAL: a commit is one append (no fsync of the database per run); a
      // crash loses at most the last commits, never half of one. A file
      // that is not a database shows here, at its first read.
      exec("PRAGMA journal_mode = WAL");
      exec("PRAGMA synchronous = NORMAL");
    } catch (...) {
      close();
      throw;
    }
  }
  ~SqliteConnection() override { close(); }

  Backend backend() const override { return Backend::sqlite; }
  const std::string& name() const override { return name_; }

  void exec(const std::string& sql) override {
    char* err = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
      std::string why = err ? err : sqlite3_errmsg(db_);
      sqlite3_free(err);
      throw_busy_if_locked();
      throw DbError(fmt::format("{}: {}", name_, why));
    }
  }

  std::vector<SqlRow> query(const std::string& sql, const std::vector<SqlValue>& params) override {
    sqlite3_stmt* stmt = prepared(sql);
    bind(stmt, params, sql);
    std::vector<SqlRow> rows;
    while (true) {
      const int rc = sqlite3_step(stmt);
      if (rc == SQLITE_DONE) break;
      if (rc != SQLITE_ROW) fail(stmt, sql);
      SqlRow row;
      const int n = sqlite3_column_count(stmt);
      row.cells.reserve(static_cast<std::size_t>(n));
      for (int c = 0; c < n; ++c) {
        switch (sqlite3_column_type(stmt, c)) {
          case SQLITE_INTEGER: row.cells.emplace_back(static_cast<std::int64_t>(sqlite3_column_int64(stmt, c))); break;
          case SQLITE_FLOAT: row.cells.emplace_back(sqlite3_column_double(stmt, c)); break;
          case SQLITE_NULL: row.cells.emplace_back(nullptr); break;
          default: {
            const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(stmt, c));
            row.cells.emplace_back(std::string(p ? p : "", static_cast<std::size_t>(sqlite3_column_bytes(stmt, c))));
          }
        }
      }
      rows.push_back(std::move(row));
    }
    sqlite3_reset(stmt);
    return rows;
  }

  void insert_rows(const std::string& table, const std::vector<std::string>& columns,
                   const std::vector<std::vector<SqlValue>>& rows) override {
    std::string sql = fmt::format("INSERT INTO {} (", table), values;
    for (std::size_t i = 0; i < columns.size(); ++i) {
      sql += (i ? ", " : "") + columns[i];
      values += fmt::format("{}${}", i ? ", " : "", i + 1);
    }
    sql += ") VALUES (" + values + ")";
    sqlite3_stmt* stmt = prepared(sql);
    for (const auto& row : rows) {
      bind(stmt, row, sql);
      if (sqlite3_step(stmt) != SQLITE_DONE) fail(stmt, sql);
      sqlite3_reset(stmt);
    }
  }

 private:
  void open(const std::string& path_or_uri, int flags) {
    if (sqlite3_open_v2(path_or_uri.c_str(), &db_, flags | SQLITE_OPEN_NOMUTEX, nullptr) != SQLITE_OK) {
      const std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
      close();
      throw DbError(fmt::format("{}: cannot open: {}", name_, why));
    }
    sqlite3_busy_timeout(db_, kBusyTimeoutMs);  // another import holding the write lock
    sqlite3_extended_result_codes(db_, 1);
  }

  void close() {
    for (auto& [sql, stmt] : statements_) sqlite3_finalize(stmt);
    statements_.clear();
    sqlite3_close(db_);
    db_ = nullptr;
  }

  // Read-only, in the journal mode the file has. Its first read shows a
  // file that is not a database, and a WAL database whose -shm file cannot
  // be made here: that one is read as immutable (no -shm, no lock: nothing
  // else may write it meanwhile), which would not see commits still in its
  // -wal file, so one whose -wal holds any is refused instead.
  void open_reading(const std::string& path) {
    open(path, SQLITE_OPEN_READONLY);
    int code = SQLITE_OK;
    std::string why;
    if (first_read(code, why)) return;
    try {
      throw_busy_if_locked();
    } catch (...) {
      close();
      throw;
    }
    close();
    const int primary = code & 0xff;
    if (primary != SQLITE_CANTOPEN && primary != SQLITE_READONLY) throw DbError(fmt::format("{}: {}", name_, why));
    struct stat wal {};
    if (::stat((path + "-wal").c_str(), &wal) == 0 && wal.st_size > 0)
      throw DbError(fmt::format("{}: cannot be read here: its write-ahead log {}-wal holds commits, which need "
                                "{}-shm, and that cannot be made ({}); read it where it can be, or open it once "
                                "with a command that writes (db import) so that the log is written back",
                                name_, path, path, why));
    open(file_uri(path) + "?immutable=1", SQLITE_OPEN_READONLY | SQLITE_OPEN_URI);
    if (!first_read(code, why)) {
      close();
      throw DbError(fmt::format("{}: {}", name_, why));
    }
  }

  bool first_read(int& code, std::string& why) {
    char* err = nullptr;
    code = sqlite3_exec(db_, "PRAGMA foreign_keys = ON; SELECT count(*) FROM sqlite_master", nullptr, nullptr, &err);
    if (code == SQLITE_OK) return true;
    code = sqlite3_extended_errcode(db_);
    why = err ? err : sqlite3_errmsg(db_);
    sqlite3_free(err);
    return false;
  }

  sqlite3_stmt* prepared(const std::string& sql) {
    auto it = statements_.find(sql);
    if (it != statements_.end()) return it->second;
    sqlite3_stmt* stmt = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), static_cast<int>(sql.size()), &stmt, nullptr) != SQLITE_OK)
      throw DbError(fmt::format("{}: {} (in: {})", name_, sqlite3_errmsg(db_), sql));
    statements_.emplace(sql, stmt);
    return stmt;
  }

  void bind(sqlite3_stmt* stmt, const std::vector<SqlValue>& params, const std::string& sql) {
    sqlite3_clear_bindings(stmt);
    for (std::size_t i = 0; i < params.size(); ++i) {
      // $n by its name: SQLite numbers parameters in the order they first
      // appear, which need not be n.
      const int at = sqlite3_bind_parameter_index(stmt, fmt::format("${}", i + 1).c_str());
      if (at == 0) continue;  // a parameter this statement does not use
      int rc = SQLITE_OK;
      const SqlValue& v = params[i];
      if (auto* x = std::get_if<std::int64_t>(&v)) rc = sqlite3_bind_int64(stmt, at, *x);
      else if (auto* d = std::get_if<double>(&v)) rc = sqlite3_bind_double(stmt, at, *d);
      else if (auto* s = std::get_if<std::string>(&v))
        rc = sqlite3_bind_text(stmt, at, s->data(), static_cast<int>(s->size()), SQLITE_STATIC);
      else rc = sqlite3_bind_null(stmt, at);
      if (rc != SQLITE_OK) throw DbError(fmt::format("{}: cannot bind ${}: {} (in: {})", name_, i + 1, sqlite3_errmsg(db_), sql));
    }
  }

  [[noreturn]] void fail(sqlite3_stmt* stmt, const std::string& sql) {
    const std::string why = sqlite3_errmsg(db_);
    throw_busy_if_locked();
    sqlite3_reset(stmt);
    throw DbError(fmt::format("{}: {} (in: {})", name_, why, sql.substr(0, 200)));
  }

  // The last error, when it is another connection's lock held past the busy
  // timeout: busy, as the run lock is, not bad input.
  void throw_busy_if_locked() {
    const int primary = sqlite3_extended_errcode(db_) & 0xff;
    if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED)
      throw BusyError(fmt::format("{}: locked by another process for more than {} s (an import?); try again when it "
                                  "has finished",
                                  name_, kBusyTimeoutMs / 1000));
  }

  std::string name_;
  sqlite3* db_ = nullptr;
  std::map<std::string, sqlite3_stmt*> statements_;
};

}  // namespace

std::unique_ptr<SqlConnection> open_sqlite(const std::string& path, Access access) {
  return std::make_unique<SqliteConnection>(path, access);
}

}  // namespace kvmbench::db
