#include "hostlib/facts/kmsg_reader.h"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <chrono>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

#include "hostlib/os/interrupt.h"

namespace kvmbench::host {

struct KmsgReader::State {
  int fd = -1;                     // live only
  std::string text;                // replay only
  std::size_t pos = 0;             // replay cursor
  bool replay = false;
  std::optional<std::uint64_t> last_seq;
  bool pending_epipe = false;
  std::vector<KmsgLoss> losses;
  std::size_t malformed = 0;

  ~State() {
    if (fd >= 0) ::close(fd);
  }

  // Sequence bookkeeping for every record delivered.
  void account(const KmsgRecord& r) {
    if (last_seq && r.seq > *last_seq + 1) {
      losses.push_back({*last_seq, r.seq - *last_seq - 1, false});
    } else if (pending_epipe && !last_seq) {
      losses.push_back({0, 0, true});
    }
    pending_epipe = false;
    last_seq = r.seq;
  }

  // Next record text of a replay: a header line plus its " KEY=value" lines.
  std::optional<std::string_view> next_replay_chunk() {
    std::string_view t = text;
    while (pos < t.size()) {
      auto eol = t.find('\n', pos);
      if (eol == std::string_view::npos) eol = t.size();
      auto line = t.substr(pos, eol - pos);
      std::size_t start = pos;
      pos = eol + 1;
      if (line.empty() || line[0] == ' ') continue;  // blank or stray dictionary line
      while (pos < t.size() && t[pos] == ' ') {
        auto e2 = t.find('\n', pos);
        pos = e2 == std::string_view::npos ? t.size() : e2 + 1;
      }
      return t.substr(start, std::min(pos, t.size()) - start);
    }
    return std::nullopt;
  }
};

KmsgReader::KmsgReader(std::unique_ptr<State> s) : s_(std::move(s)) {}
KmsgReader::KmsgReader(KmsgReader&&) noexcept = default;
KmsgReader& KmsgReader::operator=(KmsgReader&&) noexcept = default;
KmsgReader::~KmsgReader() = default;

KmsgReader KmsgReader::open_live(bool from_now, const std::string& device) {
  auto s = std::make_unique<State>();
  s->fd = ::open(device.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (s->fd < 0) throw std::system_error(errno, std::generic_category(), "open " + device);
  // SEEK_END on /dev/kmsg: the next read returns the first record printed
  // after this point. (A regular file used in tests also honours it.)
  if (from_now && ::lseek(s->fd, 0, SEEK_END) < 0)
    throw std::system_error(errno, std::generic_category(), "seek to end of " + device);
  return KmsgReader(std::move(s));
}

KmsgReader KmsgReader::open_replay(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read kernel log capture " + path);
  std::stringstream ss;
  ss << in.rdbuf();
  return from_text(ss.str());
}

KmsgReader KmsgReader::from_text(std::string text) {
  auto s = std::make_unique<State>();
  s->replay = true;
  s->text = std::move(text);
  return KmsgReader(std::move(s));
}

std::optional<KmsgRecord> KmsgReader::next(int timeout_ms) {
  if (s_->replay) {
    while (auto chunk = s_->next_replay_chunk()) {
      if (auto r = parse_kmsg_record(*chunk)) {
        s_->account(*r);
        return r;
      }
      ++s_->malformed;
    }
    return std::nullopt;
  }
  // /dev/kmsg returns exactly one record per read(); the buffer must hold
  // the largest record or read() fails with EINVAL.
  char buf[16384];
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    ssize_t n = ::read(s_->fd, buf, sizeof buf);
    if (n > 0) {
      if (auto r = parse_kmsg_record(std::string_view(buf, static_cast<std::size_t>(n)))) {
        s_->account(*r);
        return r;
      }
      ++s_->malformed;
      continue;
    }
    if (n == 0) return std::nullopt;  // a regular file at its end
    if (errno == EPIPE) {
      // The ring buffer overwrote records we had not read; the next read
      // returns the oldest one still there, and its seq tells how many.
      s_->pending_epipe = true;
      continue;
    }
    if (errno == EINTR) return std::nullopt;
    if (errno != EAGAIN) throw std::system_error(errno, std::generic_category(), "read /dev/kmsg");
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return std::nullopt;
    pollfd p{s_->fd, POLLIN, 0};
    int k = ::poll(&p, 1, static_cast<int>(left.count()));
    if (k < 0 && errno == EINTR) return std::nullopt;
    if (k <= 0) return std::nullopt;
  }
}

std::size_t KmsgReader::run(const std::function<void(const KmsgRecord&)>& on_record,
                            const std::atomic<bool>& stop, int poll_ms) {
  std::size_t n = 0;
  while (!stop.load() && !interrupted()) {
    auto r = next(poll_ms);
    if (r) {
      on_record(*r);
      ++n;
    } else if (at_end()) {
      break;
    }
  }
  return n;
}

bool KmsgReader::live() const { return !s_->replay; }
bool KmsgReader::at_end() const { return s_->replay && s_->pos >= s_->text.size(); }
const std::vector<KmsgLoss>& KmsgReader::losses() const { return s_->losses; }
std::uint64_t KmsgReader::lost_records() const {
  std::uint64_t n = 0;
  for (auto& l : s_->losses) n += l.count;
  return n;
}
bool KmsgReader::lost_unknown() const {
  for (auto& l : s_->losses)
    if (l.unknown_start) return true;
  return false;
}
std::size_t KmsgReader::malformed() const { return s_->malformed; }
std::optional<std::uint64_t> KmsgReader::last_seq() const { return s_->last_seq; }

KmsgCapture::KmsgCapture(std::function<bool(const KmsgRecord&)> keep) : keep_(std::move(keep)) {}

KmsgCapture::~KmsgCapture() {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
}

void KmsgCapture::start(const std::string& device) {
  if (thread_.joinable()) throw std::logic_error("KmsgCapture already started");
  reader_.emplace(KmsgReader::open_live(true, device));
  stop_ = false;
  thread_ = std::thread([this] {
    while (!stop_.load()) {
      auto r = reader_->next(50);
      if (!r) continue;
      if (keep_ && !keep_(*r)) continue;
      std::lock_guard lk(mu_);
      records_.push_back(std::move(*r));
    }
  });
}

std::vector<KmsgRecord> KmsgCapture::stop(int drain_ms) {
  stop_ = true;
  if (thread_.joinable()) thread_.join();
  if (reader_) {
    auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(drain_ms);
    while (std::chrono::steady_clock::now() < deadline) {
      auto r = reader_->next(0);
      if (!r) break;
      if (keep_ && !keep_(*r)) continue;
      std::lock_guard lk(mu_);
      records_.push_back(std::move(*r));
    }
    lost_ = reader_->lost_records();
    lost_unknown_ = reader_->lost_unknown();
  }
  std::lock_guard lk(mu_);
  return records_;
}

std::uint64_t KmsgCapture::lost_records() const { return lost_; }
bool KmsgCapture::lost_unknown() const { return lost_unknown_; }

std::vector<KmsgRecord> KmsgCapture::records() const {
  std::lock_guard lk(mu_);
  return records_;
}

std::string mark_kernel_log(const std::string& message, const std::string& device) {
  const int fd = ::open(device.c_str(), O_WRONLY | O_CLOEXEC);
  if (fd < 0) return fmt::format("cannot open {} for writing: {}", device, std::strerror(errno));
  // <5>: notice; one write is one record.
  const std::string record = "<5>" + message + "\n";
  const ssize_t n = ::write(fd, record.data(), record.size());
  const int err = errno;
  ::close(fd);
  if (n != static_cast<ssize_t>(record.size()))
    return fmt::format("writing to {}: {}", device, n < 0 ? std::strerror(err) : "short write");
  return "";
}

}  // namespace kvmbench::host
