// One connection to a results database, SQLite or PostgreSQL, behind the
// few operations the results database needs: statements with $1, $2, ...
// parameters (both engines read that spelling), their rows as typed cells,
// and many rows into one table at once (COPY on PostgreSQL, one prepared
// INSERT on SQLite). The SQL itself is written once (results_db.cpp,
// db_schema.cpp); only the column types of the schema differ by dialect.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

namespace kvmbench::db {

enum class Backend { sqlite, postgresql };

// Anything the database refused or could not do, worded for the user
// (which database, what failed, what the server said).
struct DbError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A parameter or a cell: NULL, an integer, a double or a text.
using SqlValue = std::variant<std::nullptr_t, std::int64_t, double, std::string>;

struct SqlRow {
  std::vector<SqlValue> cells;
  bool is_null(std::size_t i) const { return std::holds_alternative<std::nullptr_t>(cells.at(i)); }
  // Throw DbError when the cell holds another type (an integer reads as a
  // double; NULL reads as "" for text).
  std::int64_t integer(std::size_t i) const;
  double real(std::size_t i) const;
  std::string text(std::size_t i) const;
};

class SqlConnection {
 public:
  virtual ~SqlConnection() = default;
  virtual Backend backend() const = 0;
  // "SQLite database results/kvmbench.db", "PostgreSQL database
  // postgresql://lab@db/kvmbench" (no password).
  virtual const std::string& name() const = 0;
  // Statements without parameters or rows (DDL, BEGIN, COMMIT), several
  // separated by ';' allowed.
  virtual void exec(const std::string& sql) = 0;
  // One statement with parameters $1..$n; its rows.
  virtual std::vector<SqlRow> query(const std::string& sql, const std::vector<SqlValue>& params = {}) = 0;
  // Rows into `table` (columns in that order) inside the caller's
  // transaction.
  virtual void insert_rows(const std::string& table, const std::vector<std::string>& columns,
                           const std::vector<std::vector<SqlValue>>& rows) = 0;
};

// How a command uses the database: it only reads (opened read-only, so a
// file without write permission or on a read-only share is read as it is),
// it writes, or it writes and may create a new SQLite file (else a missing
// file is a DbError saying so).
enum class Access { read, write, create };

// Opens a SQLite file. To read, it is opened read-only and left in the
// journal mode it has; a database in WAL mode whose -shm file cannot be
// made (a read-only directory) is read as immutable, unless its -wal file
// holds commits (then a DbError says so). To write, WAL mode is set.
std::unique_ptr<SqlConnection> open_sqlite(const std::string& path, Access access);
// Connects to PostgreSQL by URL (postgresql://...); `display` names it in
// messages.
std::unique_ptr<SqlConnection> connect_postgresql(const std::string& url, const std::string& display);

}  // namespace kvmbench::db
