#include "suites/engine/ingest_input.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

#include "analysis/parse/input_reader.h"
#include "hostlib/os/interrupt.h"
#include "suites/framework/errors.h"

namespace kvmbench::engine {

namespace fs = std::filesystem;

namespace {

// Pieces of this size are read and parsed one after another: all of the
// input that is in memory at once, beside what the parse keeps.
constexpr std::size_t kPiece = std::size_t{8} << 20;

// An unlinked file under $TMPDIR for what a pipe gives.
host::UniqueFd make_spool(const fs::path& input) {
  std::error_code ec;
  const fs::path dir = fs::temp_directory_path(ec);
  const std::string where = ec ? std::string("/tmp") : dir.string();
  int fd = ::open(where.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd < 0) {  // a file system without O_TMPFILE
    std::string tmpl = where + "/kvmbench-ingest-XXXXXX";
    fd = ::mkostemp(tmpl.data(), O_CLOEXEC);
    if (fd >= 0) ::unlink(tmpl.c_str());
  }
  if (fd < 0)
    usage_error(fmt::format("{}: cannot keep a copy of what is read from it (for the run's raw copy) under {}: {}",
                            input.string(), where, std::strerror(errno)));
  return host::UniqueFd(fd);
}

void write_all(int fd, std::string_view data, const fs::path& input) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0)
      usage_error(fmt::format("{}: cannot keep a copy of what is read from it (for the run's raw copy): {}",
                              input.string(), std::strerror(errno)));
    data.remove_prefix(static_cast<std::size_t>(n));
  }
}

}  // namespace

void read_ingest_input(const fs::path& path, IngestInput& in) {
  in.path = path;
  std::error_code ec;
  int raw_fd;
  if (path == "-") {
    // '-' is stdin, as for summarize: read once and spooled, as a pipe is.
    raw_fd = ::fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0);
    if (raw_fd < 0) usage_error(fmt::format("-: cannot read stdin: {}", std::strerror(errno)));
  } else {
    if (!fs::exists(path, ec)) usage_error(fmt::format("{}: no such file", path.string()));
    if (fs::is_directory(path, ec)) usage_error(fmt::format("{}: is a directory, not a file", path.string()));
    do  // a FIFO's open waits for its writer; a signal (Ctrl-C, noticed later) must not fail it
      raw_fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    while (raw_fd < 0 && errno == EINTR);
    if (raw_fd < 0) usage_error(fmt::format("{}: cannot open: {}", path.string(), std::strerror(errno)));
  }
  const host::UniqueFd fd(raw_fd);
  struct stat st {};
  // A file of /proc or /sys says size 0: read once, as a pipe is.
  const bool regular = path != "-" && ::fstat(fd.get(), &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
  if (regular) {
    in.device = st.st_dev;
    in.inode = st.st_ino;
    ::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_SEQUENTIAL);
  } else {
    in.spool = make_spool(path);
  }
  parsers::InputReader reader(parsers::Provenance::by_record, regular ? static_cast<std::size_t>(st.st_size) : 0);
  const std::unique_ptr<char[]> piece(new char[kPiece]);
  try {
    while (true) {
      const ssize_t n = ::read(fd.get(), piece.get(), kPiece);
      if (n < 0 && errno == EINTR) {
        if (host::interrupted()) break;
        continue;
      }
      if (n < 0) usage_error(fmt::format("{}: read error: {}", path.string(), std::strerror(errno)));
      if (n == 0) break;
      const std::string_view got(piece.get(), static_cast<std::size_t>(n));
      if (in.spool) write_all(in.spool.get(), got, path);
      reader.feed(got);
      if (host::interrupted()) break;
    }
    if (host::interrupted()) throw ExitError(kExitInterrupted, "interrupted; nothing stored");
    in.bytes = reader.bytes();
    in.parsed = reader.finish();
  } catch (const parsers::ParseError& e) {
    usage_error(e.line ? fmt::format("{}:{}: {}", path.string(), e.line, e.what())
                       : fmt::format("{}: {}", path.string(), e.what()));
  } catch (...) {
    // What else the file's text can cause (a malformed document), named
    // after the file; a bug in the reader is one, and says so.
    rethrow_naming_bad_input(std::current_exception(), path.string() + ": ");
  }
}

void IngestInput::store_raw(const RunWriter& w) const {
  if (spool) {
    w.copy_raw(raw_name, spool.get(), bytes, /*durable=*/false);
    return;
  }
  const host::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  struct stat st {};
  if (!fd || ::fstat(fd.get(), &st) != 0)
    throw std::runtime_error(fmt::format("{}: cannot open it again for the raw copy: {}", path.string(),
                                         std::strerror(errno)));
  if (st.st_dev != device || st.st_ino != inode)
    throw std::runtime_error(
        fmt::format("{}: replaced by another file while it was ingested (no raw copy of what was read)",
                    path.string()));
  w.copy_raw(raw_name, fd.get(), bytes, /*durable=*/false);
}

}  // namespace kvmbench::engine
