#include "analysis/db_location.h"

#include <fmt/format.h>

#include <filesystem>

namespace kvmbench::db {

namespace {

bool starts_with(const std::string& s, std::string_view p) { return s.compare(0, p.size(), p) == 0; }

// postgresql://user:secret@host/db -> postgresql://user:***@host/db
std::string without_password(const std::string& url) {
  const auto scheme_end = url.find("://");
  const auto at = url.find('@', scheme_end + 3);
  if (scheme_end == std::string::npos || at == std::string::npos) return url;
  const auto colon = url.find(':', scheme_end + 3);
  if (colon == std::string::npos || colon > at) return url;
  return url.substr(0, colon + 1) + "***" + url.substr(at);
}

}  // namespace

DbLocation parse_db_location(const std::string& text) {
  if (text.empty()) throw DbError("the database location is empty (a SQLite file or a postgresql:// URL)");
  DbLocation l;
  if (starts_with(text, "postgresql://") || starts_with(text, "postgres://")) {
    l.backend = Backend::postgresql;
    l.target = text;
    l.display = without_password(text);
    return l;
  }
  if (const auto p = text.find("://"); p != std::string::npos) {
    const std::string scheme = text.substr(0, p);
    if (scheme.find('/') == std::string::npos)
      throw DbError(fmt::format("'{}': unknown database URL scheme '{}' (a SQLite file, or postgresql://...)",
                                without_password(text), scheme));
  }
  l.backend = Backend::sqlite;
  l.target = starts_with(text, "sqlite:") ? text.substr(7) : text;
  if (l.target.empty()) throw DbError("'sqlite:' names no file");
  l.display = l.target;
  return l;
}

DbLocation resolve_db_location(const std::optional<std::string>& flag, const char* env_value) {
  if (flag) return parse_db_location(*flag);
  if (env_value && *env_value) return parse_db_location(env_value);
  return parse_db_location(kDefaultDatabase);
}

std::unique_ptr<SqlConnection> connect(const DbLocation& where, bool create) {
  if (where.backend == Backend::postgresql) return connect_postgresql(where.target, where.display);
  if (create) {
    // results/ may not exist yet on a machine that has only imported.
    std::error_code ec;
    const auto parent = std::filesystem::path(where.target).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  }
  return open_sqlite(where.target, create);
}

}  // namespace kvmbench::db
