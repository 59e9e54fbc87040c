// Where the results database is: `--db`, else $KVMBENCH_DB, else
// results/kvmbench.db (a SQLite file beside results/runs/). A
// postgresql:// (or postgres://) URL names a PostgreSQL database, anything
// else a SQLite file (an explicit "sqlite:" prefix is allowed).
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "analysis/sql_connection.h"

namespace kvmbench::db {

inline constexpr const char* kDefaultDatabase = "results/kvmbench.db";

struct DbLocation {
  Backend backend = Backend::sqlite;
  std::string target;   // the file path, or the URL as given
  std::string display;  // for messages: the path, or the URL without its password
};

// Throws DbError for an empty location, an unknown URL scheme
// ("mysql://..."), or a PostgreSQL URL that is not one.
DbLocation parse_db_location(const std::string& text);

// --db (when given), else the environment's KVMBENCH_DB (when set and not
// empty), else the default.
DbLocation resolve_db_location(const std::optional<std::string>& flag, const char* env_value);

// Opens the connection; `create` allows a new SQLite file (PostgreSQL
// databases are made by their administrator).
std::unique_ptr<SqlConnection> connect(const DbLocation& where, bool create);

}  // namespace kvmbench::db
