#include "analysis/store/db/db_location.h"

#include "analysis/model/printable.h"
#include "analysis/store/db/connection_string.h"

#include <fmt/format.h>

#include <filesystem>
#include <string_view>

namespace kvmbench::db {

namespace {

bool starts_with(const std::string& s, std::string_view p) { return s.compare(0, p.size(), p) == 0; }

}  // namespace

DbLocation parse_db_location(const std::string& text) {
  if (text.empty()) throw DbError("the database location is empty (a SQLite file or a postgresql:// URL)");
  DbLocation l;
  if (starts_with(text, "sqlite:")) {
    l.target = text.substr(7);
    if (l.target.empty()) throw DbError("'sqlite:' names no file");
    l.display = l.target;
    return l;
  }
  if (starts_with(text, "postgresql://") || starts_with(text, "postgres://") || looks_like_keyword_string(text)) {
    // Nothing connects with a string libpq cannot read (its message would
    // quote the part it stumbled on, a password's perhaps).
    const ConnectionString c = read_connection_string(text);
    if (!c.readable)
      throw DbError(fmt::format("the results database (--db or $KVMBENCH_DB) is {}{}", c.shown,
                                text.find("://") == std::string::npos
                                    ? "; a SQLite file named so is given as sqlite:NAME"
                                    : ""));
    l.backend = Backend::postgresql;
    l.target = text;
    l.display = c.shown;
    return l;
  }
  if (const auto p = text.find("://"); p != std::string::npos) {
    const std::string scheme = text.substr(0, p);
    if (scheme.find('/') == std::string::npos)
      throw DbError(fmt::format("'{0}://…': unknown database URL scheme '{0}' (a SQLite file, or postgresql://...)",
                                printable(scheme)));
  }
  l.backend = Backend::sqlite;
  l.target = text;
  l.display = text;
  return l;
}

DbLocation resolve_db_location(const std::optional<std::string>& flag, const char* env_value) {
  if (flag) return parse_db_location(*flag);
  if (env_value && *env_value) return parse_db_location(env_value);
  return parse_db_location(kDefaultDatabase);
}

std::unique_ptr<SqlConnection> connect(const DbLocation& where, Access access) {
  if (where.backend == Backend::postgresql) return connect_postgresql(where.target, where.display);
  if (access == Access::create) {
    // results/ may not exist yet on a machine that has only imported.
    std::error_code ec;
    const auto parent = std::filesystem::path(where.target).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  }
  return open_sqlite(where.target, access);
}

}  // namespace kvmbench::db
