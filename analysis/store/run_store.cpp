#include "analysis/store/run_store.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <sys/stat.h>

#include "analysis/model/printable.h"
#include "analysis/model/json_input.h"
#include "analysis/model/sample_jsonl.h"
#include "analysis/store/run_meta_check.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <memory>
#include <cerrno>
#include <cstring>
#include <chrono>
#include <ctime>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace kvmbench {

namespace fs = std::filesystem;

namespace {

// Large writes go past the page cache (direct I/O): a lab log's raw copy and
// its samples are hundreds of MB that nobody reads back soon, and on a
// machine whose free memory goes back to its hypervisor each freshly
// allocated page-cache page is a fault there (the commit that wrote this has
// the figures).
constexpr std::size_t kBlock = 4096, kDirectMin = std::size_t{1} << 20;

// Writes text[off..] to fd from off on; false (errno set) on a write error.
bool write_from(int fd, std::string_view text, std::size_t& off) {
  while (off < text.size()) {
    const ssize_t n = ::write(fd, text.data() + off, text.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    off += static_cast<std::size_t>(n);
  }
  return true;
}

// Writes the leading whole blocks of text[off..] with direct I/O (O_DIRECT,
// through an aligned buffer), the file's offset being block-aligned, and
// returns the offset it reached: the caller writes the rest as usual. It
// reaches no further than `off` where the file system refuses direct I/O.
std::size_t write_direct(int fd, std::string_view text, std::size_t off) {
  constexpr std::size_t kChunk = std::size_t{4} << 20;
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_DIRECT) != 0) return off;
  struct Aligned {
    void operator()(char* p) const { std::free(p); }
  };
  std::unique_ptr<char, Aligned> buf(static_cast<char*>(std::aligned_alloc(kBlock, kChunk)));
  while (buf && text.size() - off >= kBlock) {
    const std::size_t n = std::min(kChunk, (text.size() - off) / kBlock * kBlock);
    std::memcpy(buf.get(), text.data() + off, n);
    const ssize_t w = ::write(fd, buf.get(), n);
    if (w < 0 && errno == EINTR) continue;
    // A refused or short write leaves the file's offset where it was or
    // where it reached; the plain writes go on from there.
    if (w > 0) off += static_cast<std::size_t>(w);
    if (w <= 0 || static_cast<std::size_t>(w) % kBlock != 0) break;
  }
  ::fcntl(fd, F_SETFL, flags);
  return off;
}

// Appends `text` at the end of the file open at fd (whose offset is its
// end), large texts mostly with direct I/O: first up to the next block
// boundary, then whole blocks, then the rest. False (errno set) on a write
// error.
bool append_text(int fd, std::string_view text) {
  std::size_t off = 0;
  if (text.size() >= kDirectMin) {
    const off_t end = ::lseek(fd, 0, SEEK_END);
    std::string_view head = text.substr(0, end < 0 ? text.size() : (kBlock - end % kBlock) % kBlock);
    if (!write_from(fd, head, off)) return false;
    off = write_direct(fd, text, off);
  }
  return write_from(fd, text, off);
}

}  // namespace

namespace {

// Writes `path` through a temporary file in the same directory and
// rename(2): `body` writes the temporary file's content (false, errno set,
// on a write error).
template <typename Body>
void write_atomic(const fs::path& path, bool durable, Body body) {
  fs::path tmp = path;
  tmp += fmt::format(".tmp.{}", ::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0)
    throw std::runtime_error(
        fmt::format("cannot write {} (creating {}): {}", path.string(), tmp.filename().string(), std::strerror(errno)));
  if (!body(fd)) {
    const int e = errno;
    ::close(fd);
    ::unlink(tmp.c_str());
    throw std::runtime_error(fmt::format("cannot write {}: {}", path.string(), std::strerror(e)));
  }
  if (durable) ::fsync(fd);
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int e = errno;
    ::unlink(tmp.c_str());
    throw std::runtime_error(fmt::format("cannot rename {} to {}: {}", tmp.string(), path.string(), std::strerror(e)));
  }
}

// Copies the first `bytes` bytes of the file open at `from` to the end of
// the file open at `to`: in the kernel (copy_file_range) where the two
// file systems allow it, else through a buffer. False (errno set) on an
// error, and with errno ENODATA when `from` ends before `bytes`.
bool copy_bytes(int from, int to, std::uint64_t bytes) {
  off_t in = 0;
  bool in_kernel = true;
  std::unique_ptr<char[]> buf;
  constexpr std::size_t kBuf = std::size_t{4} << 20;
  while (static_cast<std::uint64_t>(in) < bytes) {
    const std::size_t want =
        static_cast<std::size_t>(std::min<std::uint64_t>(bytes - static_cast<std::uint64_t>(in), kBuf));
    ssize_t n;
    if (in_kernel) {
      n = ::copy_file_range(from, &in, to, nullptr, want, 0);
      if (n < 0 && (errno == EXDEV || errno == EINVAL || errno == ENOSYS || errno == EOPNOTSUPP)) {
        in_kernel = false;
        continue;
      }
    } else {
      if (!buf) buf.reset(new char[kBuf]);
      n = ::pread(from, buf.get(), want, in);
      if (n > 0) {
        std::size_t off = 0;
        if (!write_from(to, std::string_view(buf.get(), static_cast<std::size_t>(n)), off)) return false;
        in += n;
      }
    }
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return false;
    if (n == 0) {
      errno = ENODATA;
      return false;
    }
  }
  return true;
}

}  // namespace

void write_file_atomic(const fs::path& path, std::string_view text, bool durable) {
  write_atomic(path, durable, [&](int fd) {
    // A durable file is synced at once: through the page cache, as usual.
    std::size_t off = 0;
    return durable ? write_from(fd, text, off) : append_text(fd, text);
  });
}

// One read(2) into a buffer of the file's size where the size is known,
// then more reads for files that grow or report no size (/proc, pipes).
// The file is opened once: a pipe (`ingest <(journalctl -k)`) cannot be
// opened again.
std::string read_file(const fs::path& path) {
  int fd;
  do  // a FIFO's open waits for its writer; a signal (Ctrl-C, noticed later) must not fail it
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  while (fd < 0 && errno == EINTR);
  if (fd < 0) throw std::runtime_error(fmt::format("{}: cannot open: {}", path.string(), std::strerror(errno)));
  struct stat st {};
  std::string out;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0)
    out.resize(static_cast<std::size_t>(st.st_size) + 1);  // +1: a read that returns 0 proves the end
  else
    out.resize(64 * 1024);
  std::size_t used = 0;
  while (true) {
    if (used == out.size()) out.resize(out.size() * 2);
    const ssize_t n = ::read(fd, out.data() + used, out.size() - used);
    if (n < 0) {
      if (errno == EINTR) continue;
      const int e = errno;
      ::close(fd);
      throw std::runtime_error(fmt::format("{}: read error: {}", path.string(), std::strerror(e)));
    }
    if (n == 0) break;
    used += static_cast<std::size_t>(n);
  }
  ::close(fd);
  out.resize(used);
  return out;
}

static std::string utc_format(const char* f) {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, f, &tm);
  return buf;
}

std::string utc_timestamp_compact() { return utc_format("%Y%m%dT%H%M%SZ"); }

std::string utc_timestamp_compact_us() {
  timespec now{};
  ::clock_gettime(CLOCK_REALTIME, &now);
  std::tm tm{};
  gmtime_r(&now.tv_sec, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, "%Y%m%dT%H%M%S", &tm);
  return fmt::format("{}.{:06}Z", buf, now.tv_nsec / 1000);
}
std::string utc_timestamp_iso() { return utc_format("%Y-%m-%dT%H:%M:%SZ"); }

static void check_meta(const nlohmann::json& meta) {
  if (!meta.is_object() || !meta.contains("suite") || !meta["suite"].is_string())
    throw std::invalid_argument("run meta needs a string 'suite'");
  if (!meta.contains("source") || !meta["source"].is_string() ||
      !parse_source(meta["source"].get<std::string>()))
    throw std::invalid_argument("run meta needs 'source' (hardware|replay|emulated|model)");
  // What an input put in it (a host file, a benchmark's context) can nest
  // it deeper than any reader of meta.json takes: refused before it is stored.
  if (const std::size_t depth = json_depth(meta); depth > kMaxJsonDepth)
    throw std::invalid_argument(fmt::format("run meta would nest {} levels deep, more than the {} that meta.json's "
                                            "readers take (an input nested too deep?)",
                                            depth, kMaxJsonDepth));
}

// Room kept for meta.json while the run is written (kReserveName, a file
// of this size, at least kReserveTimesMeta times meta.json's first size),
// given back before meta.json is written for the last time: a disk that
// fills with the samples still takes the run's end, its status and the
// reason.
constexpr std::size_t kReserveMin = std::size_t{64} << 10, kReserveTimesMeta = 4;
constexpr const char* kReserveName = ".meta.json.reserve";

RunWriter::RunWriter(fs::path dir, nlohmann::json meta) : dir_(std::move(dir)), meta_(std::move(meta)) {
  meta_["status"] = "running";
  if (!meta_.contains("start_time")) meta_["start_time"] = utc_timestamp_iso();
  fs::create_directories(dir_ / "raw");
  write_meta();
  samples_ = ::open((dir_ / "samples.jsonl").c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (samples_ < 0)
    throw std::runtime_error(fmt::format("cannot create {}: {}", (dir_ / "samples.jsonl").string(), std::strerror(errno)));
  const fs::path reserve = dir_ / kReserveName;
  const int fd = ::open(reserve.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  std::error_code ec;
  const auto meta_size = static_cast<off_t>(fs::file_size(dir_ / "meta.json", ec));
  const int err = fd < 0 ? errno : ::posix_fallocate(fd, 0, std::max<off_t>(kReserveMin, kReserveTimesMeta * meta_size));
  if (fd >= 0) ::close(fd);
  if (err != 0) {
    ::unlink(reserve.c_str());
    ::close(samples_);
    samples_ = -1;
    throw std::runtime_error(
        fmt::format("cannot keep room for {} in {}: {}", (dir_ / "meta.json").string(), dir_.string(), std::strerror(err)));
  }
  reserve_ = reserve;
}

void RunWriter::release_reserve() {
  if (reserve_.empty()) return;
  ::unlink(reserve_.c_str());
  reserve_.clear();
}

namespace {

// The directories that making `dir` (with its parents) would create, the
// deepest first.
std::vector<fs::path> missing_directories(const fs::path& dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  fs::path p = fs::absolute(dir, ec).lexically_normal();
  if (p.filename().empty()) p = p.parent_path();  // "runs/" -> "runs"
  for (; !p.empty() && p != p.parent_path() && !fs::exists(p, ec); p = p.parent_path()) out.push_back(p);
  return out;
}

// Those of `made` that are empty, removed: rmdir(2) takes nothing else.
void remove_if_empty(const std::vector<fs::path>& made) {
  for (const auto& d : made) ::rmdir(d.c_str());
}

}  // namespace

// A directory just made whose meta.json or samples file cannot be written
// (a full disk) is removed, and the --out folders made for it: no empty
// run, and no empty folder, is left behind.
RunWriter RunWriter::writer_in_new_dir(const fs::path& dir, const nlohmann::json& meta, std::vector<fs::path> made) {
  try {
    RunWriter w(dir, meta);
    w.made_roots_ = std::move(made);
    return w;
  } catch (...) {
    std::error_code ec;
    fs::remove_all(dir, ec);
    remove_if_empty(made);
    throw;
  }
}

RunWriter RunWriter::create_at(const fs::path& dir, const nlohmann::json& meta) {
  check_meta(meta);
  if (fs::exists(dir)) throw std::runtime_error(fmt::format("{} already exists", dir.string()));
  const fs::path parent = dir.parent_path().empty() ? fs::path(".") : dir.parent_path();
  std::vector<fs::path> made = missing_directories(parent);
  fs::create_directories(parent);
  if (::mkdir(dir.c_str(), 0755) != 0) {
    const int e = errno;
    remove_if_empty(made);
    throw std::runtime_error(fmt::format("cannot create {}: {}", dir.string(), std::strerror(e)));
  }
  return writer_in_new_dir(dir, meta, std::move(made));
}

RunWriter RunWriter::create_in(const fs::path& out_root, const nlohmann::json& meta) {
  check_meta(meta);
  std::string host = meta.contains("hostname") && meta["hostname"].is_string()
                         ? meta["hostname"].get<std::string>()
                         : std::string("localhost");
  // "(none)" is what the kernel reports when nothing set a host name (a
  // bare initramfs): no name, and no parentheses in a directory name.
  if (host.empty() || host == "(none)") host = "localhost";
  for (char& c : host)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != '_') c = '_';
  std::vector<fs::path> made = missing_directories(out_root);
  try {
    fs::create_directories(out_root);
  } catch (...) {
    remove_if_empty(made);
    throw;
  }
  // To the microsecond: the name is a run's identity in the results
  // database, and two runs of one machine begun in the same second (ingests
  // into other --out directories) would share it; the suffix below keeps
  // the rarer meeting in one directory apart.
  std::string base = fmt::format("{}-{}-{}", meta["suite"].get<std::string>(), utc_timestamp_compact_us(), host);
  for (int i = 0; i < 1000; ++i) {
    fs::path dir = out_root / (i == 0 ? base : fmt::format("{}.{}", base, i));
    if (::mkdir(dir.c_str(), 0755) == 0) return writer_in_new_dir(dir, meta, std::move(made));
    if (errno != EEXIST) {
      const int e = errno;
      remove_if_empty(made);
      throw std::runtime_error(fmt::format("cannot create {}: {}", dir.string(), std::strerror(e)));
    }
  }
  remove_if_empty(made);
  throw std::runtime_error("cannot find a free run directory name under " + out_root.string());
}

RunWriter::RunWriter(RunWriter&& o) noexcept
    : dir_(std::move(o.dir_)),
      meta_(std::move(o.meta_)),
      samples_(o.samples_),
      n_samples_(o.n_samples_),
      samples_bytes_(o.samples_bytes_),
      reserve_(std::move(o.reserve_)),
      made_roots_(std::move(o.made_roots_)) {
  o.samples_ = -1;
  o.reserve_.clear();
  o.made_roots_.clear();
}

RunWriter& RunWriter::operator=(RunWriter&& o) noexcept {
  if (this != &o) {
    if (samples_ >= 0) ::close(samples_);
    release_reserve();
    dir_ = std::move(o.dir_);
    meta_ = std::move(o.meta_);
    samples_ = o.samples_;
    n_samples_ = o.n_samples_;
    samples_bytes_ = o.samples_bytes_;
    reserve_ = std::move(o.reserve_);
    made_roots_ = std::move(o.made_roots_);
    o.samples_ = -1;
    o.reserve_.clear();
    o.made_roots_.clear();
  }
  return *this;
}

RunWriter::~RunWriter() {
  if (samples_ >= 0) ::close(samples_);
  release_reserve();
  // A run its caller took back (removed its directory: input refused after
  // the writer was made) leaves no empty --out folder made for it either.
  std::error_code ec;
  if (!dir_.empty() && !made_roots_.empty() && !fs::exists(dir_, ec)) remove_if_empty(made_roots_);
}

void RunWriter::append(const Sample& s) {
  std::string line;
  append_sample_line(line, s);
  append_lines(line, 1);
}

void RunWriter::append_lines(std::string_view lines, std::size_t n) {
  if (samples_ < 0) throw std::logic_error("RunWriter::append after finish");
  if (!lines.empty() && lines.back() != '\n')
    throw std::logic_error("RunWriter::append_lines: the text must end in a newline");
  if (!append_text(samples_, lines)) {
    // What reached the file of these lines goes again: it ends with the
    // last whole sample.
    const int e = errno;
    const bool cut = ::ftruncate(samples_, static_cast<off_t>(samples_bytes_)) == 0;
    throw std::runtime_error(fmt::format("cannot append to {}: {}{}", (dir_ / "samples.jsonl").string(),
                                         std::strerror(e), cut ? "" : " (and a part of a line is left at its end)"));
  }
  n_samples_ += n;
  samples_bytes_ += lines.size();
}

void RunWriter::write_raw(const std::string& name, std::string_view text, bool durable) const {
  if (name.empty() || name.find('/') != std::string::npos || name[0] == '.')
    throw std::invalid_argument("raw file name must be a plain file name: '" + name + "'");
  write_file_atomic(dir_ / "raw" / name, text, durable);
}

void RunWriter::copy_raw(const std::string& name, int from, std::uint64_t bytes, bool durable) const {
  if (name.empty() || name.find('/') != std::string::npos || name[0] == '.')
    throw std::invalid_argument("raw file name must be a plain file name: '" + name + "'");
  const fs::path path = dir_ / "raw" / name;
  bool source_short = false;
  try {
    write_atomic(path, durable, [&](int fd) {
      const bool ok = copy_bytes(from, fd, bytes);
      source_short = !ok && errno == ENODATA;
      return ok;
    });
  } catch (const std::runtime_error&) {
    if (!source_short) throw;
    throw std::runtime_error(fmt::format("cannot write {}: its source is shorter than the {} bytes that were read "
                                         "from it (changed since?)",
                                         path.string(), bytes));
  }
}

void RunWriter::update_meta(const nlohmann::json& patch) {
  for (auto& [k, v] : patch.items()) meta_[k] = v;
  write_meta();
}

void RunWriter::finish(std::string_view status) {
  if (samples_ >= 0) {
    ::fsync(samples_);
    ::close(samples_);
    samples_ = -1;
  }
  meta_["status"] = std::string(status);
  meta_["end_time"] = utc_timestamp_iso();
  meta_["n_samples"] = n_samples_;
  release_reserve();
  write_meta();
}

// Text from a raw input (a guest console's case names, a warning quoting a
// line) may hold bytes that are not UTF-8: stored as U+FFFD, as in
// samples.jsonl; the raw copy keeps the bytes. Where the disk is full the
// room kept for it is given back and it is written again.
void RunWriter::write_meta() {
  const std::string text = meta_.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  try {
    write_file_atomic(dir_ / "meta.json", text);
  } catch (const std::runtime_error&) {
    if (reserve_.empty()) throw;
    release_reserve();
    write_file_atomic(dir_ / "meta.json", text);
  }
}

Source Run::source() const {
  auto s = parse_source(meta.value("source", std::string()));
  return s ? *s : Source::replay;
}
std::string Run::suite() const { return meta.value("suite", std::string()); }
std::string Run::status() const { return meta.value("status", std::string()); }

Run run_from_text(const fs::path& dir, std::string_view meta_text, std::optional<std::string_view> samples_text,
                  SampleProvenance provenance) {
  const bool keep = provenance == SampleProvenance::keep;
  Run run;
  run.dir = dir;
  const fs::path meta_path = dir / "meta.json";
  try {
    run.meta = parse_json_input(meta_text);
  } catch (const JsonInputError& e) {
    throw std::runtime_error(json_input_message(e, meta_path.string()));
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(fmt::format("{}: malformed JSON: {}", meta_path.string(), e.what()));
  }
  if (const auto problem = run_meta_problem(run.meta))
    throw std::runtime_error(fmt::format("{}: {}", meta_path.string(), *problem));
  if (!samples_text) return run;
  const fs::path samples_path = dir / "samples.jsonl";
  const std::string_view text = *samples_text;
  std::size_t pos = 0, line_no = 0;
  while (pos < text.size()) {
    ++line_no;
    const std::size_t nl = text.find('\n', pos);
    if (nl == std::string::npos)
      throw std::runtime_error(
          fmt::format("{}:{}: truncated last line (run killed while writing?)", samples_path.string(), line_no));
    const std::string_view line = text.substr(pos, nl - pos);
    pos = nl + 1;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    try {
      run.samples.push_back(parse_sample_line(line, keep));
    } catch (const std::exception& e) {
      // nlohmann quotes the bytes it read
      throw std::runtime_error(fmt::format("{}:{}: {}", samples_path.string(), line_no, printable(e.what())));
    }
  }
  return run;
}

Run load_run(const fs::path& dir, SampleProvenance provenance) {
  if (!fs::is_directory(dir)) throw std::runtime_error(fmt::format("{}: not a run directory", dir.string()));
  const fs::path meta_path = dir / "meta.json";
  if (!fs::exists(meta_path)) throw std::runtime_error(fmt::format("{}: missing (not a kvmbench run?)", meta_path.string()));
  const std::string meta = read_file(meta_path);
  const fs::path samples_path = dir / "samples.jsonl";
  if (!fs::exists(samples_path)) return run_from_text(dir, meta, std::nullopt, provenance);
  return run_from_text(dir, meta, read_file(samples_path), provenance);
}

std::vector<std::string> check_raw_copies(const Run& run) {
  std::vector<std::string> out;
  if (!run.meta.contains("inputs") || !run.meta["inputs"].is_array()) return out;
  for (const auto& in : run.meta["inputs"]) {
    if (!in.is_object() || !in.contains("raw") || !in["raw"].is_string() || !in.contains("raw_bytes") ||
        !in["raw_bytes"].is_number_unsigned())
      continue;
    const fs::path p = run.dir / in["raw"].get<std::string>();
    const auto want = in["raw_bytes"].get<std::uintmax_t>();
    std::error_code ec;
    const auto have = fs::file_size(p, ec);
    if (ec)
      out.push_back(fmt::format("{}: missing ({}); the samples do not depend on it", p.string(), ec.message()));
    else if (have != want)
      out.push_back(fmt::format("{}: {} bytes, {} were stored (cut short by a crash?); the samples do not depend "
                                "on it",
                                p.string(), have, want));
  }
  return out;
}

std::optional<std::string> check_sample_count(const Run& run) {
  if (!run.meta.contains("n_samples") || !run.meta["n_samples"].is_number_unsigned()) return std::nullopt;
  const auto want = run.meta["n_samples"].get<std::uintmax_t>();
  if (want == run.samples.size()) return std::nullopt;
  return fmt::format("{}: {} samples, meta.json says {} were stored (edited, or lost with the disk?); the tables "
                     "show the samples that are there",
                     (run.dir / "samples.jsonl").string(), run.samples.size(), want);
}

}  // namespace kvmbench
