#include "suites/engine/ab_outputs.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "analysis/store/db/connection_string.h"
#include "analysis/store/db/db_location.h"
#include "analysis/store/run_store.h"
#include "suites/framework/errors.h"

namespace kvmbench::engine {

namespace fs = std::filesystem;

namespace {

// Why a file could not be made at `path` (absolute), or "": the nearest
// existing ancestor must be a directory this process may write into, and
// the path itself, where it exists, not a directory. access(2) answers as
// the kernel would for the write (root included: EROFS).
std::string why_unwritable(const fs::path& path, bool is_dir) {
  std::error_code ec;
  if (fs::exists(path, ec)) {
    if (is_dir != fs::is_directory(path, ec)) return is_dir ? "it is not a directory" : "it is a directory";
    if (::access(path.c_str(), W_OK) != 0) return std::strerror(errno);
    return "";
  }
  fs::path up = path.parent_path();
  while (!up.empty() && !fs::exists(up, ec) && up != up.parent_path()) up = up.parent_path();
  if (!fs::is_directory(up, ec)) return fmt::format("{} is not a directory", up.string());
  if (::access(up.c_str(), W_OK | X_OK) != 0) return fmt::format("{}: {}", up.string(), std::strerror(errno));
  return "";
}

std::string settled_path(const std::string& option, const std::string& given, bool is_dir) {
  if (given.empty()) return "";
  std::error_code ec;
  const fs::path p = fs::absolute(given, ec);
  if (ec) usage_error(fmt::format("{} {}: {}", option, given, ec.message()));
  if (const std::string why = why_unwritable(p, is_dir); !why.empty())
    usage_error(fmt::format("{} {}: cannot be written ({}), and the experiment would find it only at its end",
                            option, given, why));
  return p.string();
}

}  // namespace

AbOutputs settle_ab_outputs(const std::string& out_dir, const std::string& junit, const std::string& markdown,
                            const std::string& db) {
  AbOutputs o;
  o.out_dir = settled_path("--out", out_dir, true);
  o.junit = settled_path("--junit", junit, false);
  o.markdown = settled_path("--markdown", markdown, false);
  if (db.empty()) return o;
  db::DbLocation where;
  try {
    where = db::parse_db_location(db);
  } catch (const std::exception& ex) {
    usage_error(fmt::format("--db: {}", ex.what()));
  }
  if (where.backend == db::Backend::sqlite) {
    const std::string file = settled_path("--db", where.target, false);
    // A file named like a connection string keeps its prefix.
    o.db = db.starts_with("sqlite:") ? "sqlite:" + file : file;
    return o;
  }
  if (db::read_connection_string(where.target).secrets.empty()) {
    o.db = where.target;
  } else {
    o.db = where.display;
    o.db_secret = where.target;
  }
  return o;
}

fs::path db_secret_file(const fs::path& state_dir) { return state_dir / "db-location.secret"; }

void keep_db_secret(const fs::path& state_dir, const std::string& secret) {
  const fs::path file = db_secret_file(state_dir);
  std::error_code ec;
  if (secret.empty()) {
    fs::remove(file, ec);
    return;
  }
  // Made 0600 from the start (write_file_atomic's files are 0644 for a
  // moment), then renamed over any older one.
  const fs::path tmp = file.string() + ".tmp";
  fs::remove(tmp, ec);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) throw std::runtime_error(fmt::format("{}: {}", tmp.string(), std::strerror(errno)));
  const bool ok = ::write(fd, secret.data(), secret.size()) == static_cast<ssize_t>(secret.size()) && ::fsync(fd) == 0;
  ::close(fd);
  if (!ok || ::rename(tmp.c_str(), file.c_str()) != 0) {
    fs::remove(tmp, ec);
    throw std::runtime_error(fmt::format("{}: cannot be written", file.string()));
  }
}

std::string db_to_import_into(const fs::path& state_dir, const std::string& db) {
  std::error_code ec;
  if (fs::exists(db_secret_file(state_dir), ec)) return read_file(db_secret_file(state_dir));
  return db;
}

}  // namespace kvmbench::engine
