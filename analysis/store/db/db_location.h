// Where the results database is: `--db`, else $KVMBENCH_DB, else
// results/kvmbench.db (a SQLite file beside results/runs/). A
// postgresql:// (or postgres://) URL or a libpq key=value connection string
// ("host=db1 dbname=kvmbench": a first word followed by '=') names a
// PostgreSQL database, anything else a SQLite file (an explicit "sqlite:"
// prefix names a file named like a connection string). A connection string
// is shown as connection_string.h shows it: never a password.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "analysis/store/db/sql_connection.h"

namespace kvmbench::db {

inline constexpr const char* kDefaultDatabase = "results/kvmbench.db";

struct DbLocation {
  Backend backend = Backend::sqlite;
  std::string target;   // the file path, or the URL as given
  std::string display;  // for messages: the path, or shown_connection_string() of the URL or string
};

// Throws DbError for an empty location, an unknown URL scheme
// ("mysql://..."), or a connection string libpq cannot read (nothing of it
// shown but what is wrong).
DbLocation parse_db_location(const std::string& text);

// --db (when given), else the environment's KVMBENCH_DB (when set and not
// empty), else the default.
DbLocation resolve_db_location(const std::optional<std::string>& flag, const char* env_value);

// Opens the connection; Access::create allows a new SQLite file
// (PostgreSQL databases are made by their administrator).
std::unique_ptr<SqlConnection> connect(const DbLocation& where, Access access);

}  // namespace kvmbench::db
