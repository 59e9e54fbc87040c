#include "analysis/store/db/db_location.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <string_view>

namespace kvmbench::db {

namespace {

bool starts_with(const std::string& s, std::string_view p) { return s.compare(0, p.size(), p) == 0; }

// postgresql://user:secret@host/db -> postgresql://user:***@host/db, and
// every password=VALUE (a URL's query, or a key=value connection string,
// quoted or not) -> password=***: messages show where, never the secret.
std::string without_password(const std::string& url) {
  std::string out = url;
  const auto scheme_end = out.find("://");
  if (scheme_end != std::string::npos) {
    const auto at = out.find('@', scheme_end + 3);
    const auto colon = out.find(':', scheme_end + 3);
    const auto slash = out.find('/', scheme_end + 3);
    if (at != std::string::npos && colon != std::string::npos && colon < at && (slash == std::string::npos || at < slash))
      out = out.substr(0, colon + 1) + "***" + out.substr(at);
  }
  constexpr std::string_view key = "password=";
  for (auto p = out.find(key); p != std::string::npos; p = out.find(key, p + 1)) {
    if (p > 0 && out[p - 1] != '?' && out[p - 1] != '&' && out[p - 1] != ' ' && out[p - 1] != '\t') continue;
    const auto value = p + key.size();
    auto end = value;
    if (end < out.size() && out[end] == '\'') {  // 'it''s' and 'a\'b' as libpq reads them
      for (++end; end < out.size() && out[end] != '\''; ++end)
        if (out[end] == '\\') ++end;
      if (end < out.size()) ++end;
    } else {
      while (end < out.size() && out[end] != '&' && out[end] != ' ' && out[end] != '\t') ++end;
    }
    out.replace(value, std::min(end, out.size()) - value, "***");
  }
  return out;
}

// Whether `text` is a libpq key=value connection string: it starts with one
// of libpq's connection keywords and '=' ("host=db1 dbname=kvmbench").
bool is_conninfo(const std::string& text) {
  static constexpr std::string_view keywords[] = {
      "host", "hostaddr", "port", "dbname", "user", "password", "passfile", "service", "connect_timeout",
      "options", "application_name", "sslmode", "sslcert", "sslkey", "sslrootcert", "target_session_attrs"};
  const std::size_t start = text.find_first_not_of(" \t");
  if (start == std::string::npos) return false;
  const std::size_t eq = text.find('=', start);
  if (eq == std::string::npos) return false;
  std::string_view key = std::string_view(text).substr(start, eq - start);
  while (!key.empty() && (key.back() == ' ' || key.back() == '\t')) key.remove_suffix(1);
  return std::find(std::begin(keywords), std::end(keywords), key) != std::end(keywords);
}

}  // namespace

DbLocation parse_db_location(const std::string& text) {
  if (text.empty()) throw DbError("the database location is empty (a SQLite file or a postgresql:// URL)");
  DbLocation l;
  if (starts_with(text, "postgresql://") || starts_with(text, "postgres://") || is_conninfo(text)) {
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
  l.display = without_password(l.target);
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
