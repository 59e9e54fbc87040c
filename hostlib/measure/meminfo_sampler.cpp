#include "hostlib/measure/meminfo_sampler.h"

#include <fcntl.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "analysis/parse/meminfo.h"

namespace kvmbench::host {

namespace {

std::int64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

}  // namespace

MeminfoSampler::MeminfoSampler(MeminfoSamplerOptions options) : opt_(std::move(options)) {}

MeminfoSampler::~MeminfoSampler() {
  stop();
  if (fd_ >= 0) ::close(fd_);
}

void MeminfoSampler::start() {
  if (thread_.joinable()) throw std::logic_error("MeminfoSampler already started");
  if (opt_.period.count() <= 0) throw std::runtime_error("meminfo sampler: period must be positive");
  if (fd_ < 0) {
    fd_ = ::open(opt_.path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw std::runtime_error("cannot read " + opt_.path + ": " + std::strerror(errno));
    t0_ns_ = monotonic_ns();
  }
  {
    std::lock_guard lk(mu_);
    stop_ = false;
  }
  if (!take_sample()) throw std::runtime_error("cannot read " + opt_.path);
  thread_ = std::thread([this] { loop(); });
}

void MeminfoSampler::stop() {
  {
    std::lock_guard lk(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void MeminfoSampler::sample_now() {
  if (fd_ < 0) {
    fd_ = ::open(opt_.path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0) throw std::runtime_error("cannot read " + opt_.path + ": " + std::strerror(errno));
    t0_ns_ = monotonic_ns();
  }
  take_sample();
}

bool MeminfoSampler::take_sample() {
  // /proc/meminfo is regenerated on every read from offset 0; pread keeps
  // the file open (no open/close per sample at high rates).
  char buf[16384];
  std::size_t len = 0;
  for (;;) {
    ssize_t n = ::pread(fd_, buf + len, sizeof buf - len, static_cast<off_t>(len));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      ++errors_;
      return false;
    }
    if (n == 0 || len + static_cast<std::size_t>(n) >= sizeof buf) {
      len += static_cast<std::size_t>(n);
      break;
    }
    len += static_cast<std::size_t>(n);
  }
  MeminfoPoint p;
  p.monotonic_ns = monotonic_ns();
  p.t_s = static_cast<double>(p.monotonic_ns - t0_ns_) * 1e-9;
  std::string_view text(buf, len);
  p.values.reserve(opt_.fields.size());
  for (auto& f : opt_.fields) p.values.push_back(meminfo_field(text, f));
  std::lock_guard lk(mu_);
  points_.push_back(std::move(p));
  return true;
}

void MeminfoSampler::loop() {
  auto due = std::chrono::steady_clock::now() + opt_.period;
  std::unique_lock lk(mu_);
  while (!stop_) {
    if (cv_.wait_until(lk, due, [this] { return stop_; })) break;
    lk.unlock();
    auto now = std::chrono::steady_clock::now();
    if (now - due > opt_.period) ++late_;
    take_sample();
    // Keep the grid (no drift); when far behind, restart it from now
    // instead of sampling in a burst.
    due += opt_.period;
    if (due < now) due = now + opt_.period;
    lk.lock();
  }
}

std::vector<MeminfoPoint> MeminfoSampler::points() const {
  std::lock_guard lk(mu_);
  return points_;
}

void MeminfoSampler::series(const std::string& field, std::vector<double>& t_s,
                            std::vector<double>& value) const {
  std::size_t idx = 0;
  while (idx < opt_.fields.size() && opt_.fields[idx] != field) ++idx;
  if (idx == opt_.fields.size()) throw std::invalid_argument("meminfo field not sampled: " + field);
  t_s.clear();
  value.clear();
  std::lock_guard lk(mu_);
  for (auto& p : points_) {
    if (!p.values[idx]) continue;
    t_s.push_back(p.t_s);
    value.push_back(static_cast<double>(*p.values[idx]));
  }
}

}  // namespace kvmbench::host
