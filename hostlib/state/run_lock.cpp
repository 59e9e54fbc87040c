#include "hostlib/state/run_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "hostlib/os/interrupt.h"

namespace kvmbench::host {

namespace {

std::string read_fd(int fd) {
  std::string s(512, '\0');
  ssize_t n = ::pread(fd, s.data(), s.size(), 0);
  s.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  while (!s.empty() && (s.back() == '\n' || s.back() == '\0')) s.pop_back();
  return s;
}

}  // namespace

std::filesystem::path default_run_lock_path() {
  if (const char* d = std::getenv("KVMBENCH_STATE_DIR"); d && *d) return std::filesystem::path(d) / "run.lock";
  if (::access("/run/lock", W_OK) == 0) return "/run/lock/kvmbench.lock";
  return std::filesystem::temp_directory_path() / "kvmbench.lock";
}

int open_lock_file(const std::filesystem::path& path) {
  const auto unusable = [&](const std::string& why) {
    return RunLockUnusable(fmt::format("cannot open run lock {}: {} (kvmbench keeps its lock file there: give it a "
                                       "directory it can write, --state or KVMBENCH_STATE_DIR)",
                                       path.string(), why),
                           path);
  };
  std::error_code ec;
  if (path.has_parent_path()) {
    std::filesystem::create_directories(path.parent_path(), ec);
    if (ec) throw unusable(fmt::format("cannot make its directory: {}", ec.message()));
  }
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) throw unusable(std::strerror(errno));
  return fd;
}

RunLock::RunLock(std::chrono::milliseconds wait, const std::string& what, std::filesystem::path path)
    : path_(std::move(path)) {
  fd_ = open_lock_file(path_);
  // kWaitForever would overflow the clock: no deadline then.
  const bool forever = wait == kWaitForever;
  const auto deadline = forever ? std::chrono::steady_clock::time_point::max() : std::chrono::steady_clock::now() + wait;
  bool told = false;
  for (;;) {
    if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) break;
    if (errno != EWOULDBLOCK && errno != EINTR) {
      int e = errno;
      ::close(fd_);
      throw RunLockUnusable(fmt::format("cannot lock {}: {}", path_.string(), std::strerror(e)), path_);
    }
    std::string who = read_fd(fd_);
    if (who.empty()) who = "unknown pid";
    if ((!forever && std::chrono::steady_clock::now() >= deadline) || interrupted()) {
      ::close(fd_);
      fd_ = -1;
      throw RunLockBusy(fmt::format("another kvmbench run ({}) holds {}; two runs would measure each other", who,
                                    path_.string()),
                        who, path_);
    }
    if (!told) {
      fmt::print(stderr, "kvmbench: waiting for another run ({}) to finish\n", who);
      told = true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  auto me = fmt::format("pid {}{}{}\n", ::getpid(), what.empty() ? "" : ": ", what);
  if (::ftruncate(fd_, 0) == 0) {
    ssize_t ignored = ::pwrite(fd_, me.data(), me.size(), 0);
    (void)ignored;
  }
}

RunLock::~RunLock() {
  if (fd_ < 0) return;
  // Empty the file before unlocking so the next reader never sees our pid.
  if (::ftruncate(fd_, 0) != 0) {
  }
  ::flock(fd_, LOCK_UN);
  ::close(fd_);
}

std::string RunLock::holder(const std::filesystem::path& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  std::string who;
  if (::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK) who = read_fd(fd);
  else ::flock(fd, LOCK_UN);
  ::close(fd);
  if (who.empty()) return "";
  return who;
}

}  // namespace kvmbench::host
