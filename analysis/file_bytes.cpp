#include "analysis/file_bytes.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <linux/fs.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <utility>

namespace kvmbench {

namespace {

constexpr std::size_t kMappedFrom = 8u << 20;  // smaller files: a std::string

// The SIGBUS guard: the mapped files, each with the message its fault
// prints. The handler reads the slots without a lock (atomics only); a slot
// is filled before its range is published and cleared before it is reused.
struct GuardSlot {
  std::atomic<std::uintptr_t> begin{0}, end{0};
  char message[512] = {};
  std::size_t message_len = 0;
};
std::array<GuardSlot, 64> guard_slots;
std::mutex guard_mutex;

void on_sigbus(int sig, siginfo_t* info, void*) {
  const auto addr = reinterpret_cast<std::uintptr_t>(info->si_addr);
  for (auto& slot : guard_slots) {
    const std::uintptr_t b = slot.begin.load(std::memory_order_acquire);
    if (b != 0 && addr >= b && addr < slot.end.load(std::memory_order_acquire)) {
      [[maybe_unused]] auto n = ::write(STDERR_FILENO, slot.message, slot.message_len);
      ::_exit(2);  // bad input, as any other unreadable file
    }
  }
  // Not one of ours: the default action, as if no handler were installed.
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

void guard(const char* begin, std::size_t len, const std::string& path) {
  static const bool installed = [] {
    struct sigaction sa {};
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    return ::sigaction(SIGBUS, &sa, nullptr) == 0;
  }();
  if (!installed) return;
  std::lock_guard lock(guard_mutex);
  for (auto& slot : guard_slots) {
    if (slot.begin.load() != 0) continue;
    const std::string msg = fmt::format("kvmbench: {}: the file shrank while it was read (truncated or rotated?)\n",
                                        path.substr(0, 400));
    std::memcpy(slot.message, msg.data(), msg.size());
    slot.message_len = msg.size();
    slot.end.store(reinterpret_cast<std::uintptr_t>(begin + len), std::memory_order_release);
    slot.begin.store(reinterpret_cast<std::uintptr_t>(begin), std::memory_order_release);
    return;
  }
  // More than 64 large files mapped at once: this one goes unguarded.
}

void unguard(const char* begin) {
  std::lock_guard lock(guard_mutex);
  for (auto& slot : guard_slots)
    if (slot.begin.load() == reinterpret_cast<std::uintptr_t>(begin)) {
      slot.begin.store(0, std::memory_order_release);
      slot.end.store(0, std::memory_order_release);
    }
}

// The rest of `fd` into a string (pipes, /proc, small files), from the
// descriptor already open: a pipe (`ingest <(journalctl -k)`) cannot be
// opened a second time.
std::string read_rest(int fd, const std::filesystem::path& path) {
  std::string out;
  std::size_t used = 0;
  out.resize(64 * 1024);
  while (true) {
    if (used == out.size()) out.resize(out.size() * 2);
    const ssize_t n = ::read(fd, out.data() + used, out.size() - used);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw std::runtime_error(fmt::format("{}: read error: {}", path.string(), std::strerror(errno)));
    if (n == 0) break;
    used += static_cast<std::size_t>(n);
  }
  out.resize(used);
  return out;
}

void write_all(int fd, const char* p, std::size_t n, const std::string& path) {
  while (n > 0) {
    const ssize_t k = ::write(fd, p, n);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0) throw std::runtime_error(fmt::format("{}: cannot copy: {}", path, std::strerror(errno)));
    p += k;
    n -= static_cast<std::size_t>(k);
  }
}

}  // namespace

FileBytes FileBytes::read(const std::filesystem::path& path) {
  int fd;
  do  // a FIFO's open waits for its writer; a signal (Ctrl-C, noticed later) must not fail it
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  while (fd < 0 && errno == EINTR);
  if (fd < 0) throw std::runtime_error(fmt::format("{}: cannot open: {}", path.string(), std::strerror(errno)));
  struct stat st {};
  FileBytes out;
  out.path_ = path.string();
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && static_cast<std::size_t>(st.st_size) >= kMappedFrom) {
    const std::size_t size = static_cast<std::size_t>(st.st_size);
    void* p = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    if (p != MAP_FAILED) {
      ::madvise(p, size, MADV_SEQUENTIAL);  // a hint: read-ahead for what is not cached yet
      out.mapped_ = static_cast<char*>(p);
      out.size_ = size;
      out.fd_ = fd;
      guard(out.mapped_, size, out.path_);
      return out;
    }
  }
  try {
    out.small_ = read_rest(fd, path);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::close(fd);
  return out;
}

void FileBytes::copy_to(int fd) const {
  if (!mapped_) return write_all(fd, small_.data(), small_.size(), path_);
  const off_t start = ::lseek(fd, 0, SEEK_CUR);
  // A clone shares the extents: no bytes move. Only where the filesystem
  // has it, and only for a range it accepts (the whole file, or
  // block-aligned).
  if (start == 0) {
    struct file_clone_range r {};
    r.src_fd = fd_;
    r.src_offset = 0;
    r.src_length = size_;
    r.dest_offset = 0;
    if (::ioctl(fd, FICLONERANGE, &r) == 0 && ::lseek(fd, static_cast<off_t>(size_), SEEK_SET) >= 0) return;
  }
  // Direct I/O from the mapping: the bytes go from the page cache of the
  // input to the disk without being copied through the CPU (a copy into
  // new page cache took a tenth of the ingest's CPU on two cores). Block
  // aligned bulk only, in 16 MiB writes; not where the filesystem has no
  // direct I/O (tmpfs) or refuses it, and only while the disk keeps up
  // (1 GB/s: a slow disk or a network filesystem would make the ingest wait
  // for it): the rest is copied the ways below.
  const std::size_t bulk = size_ & ~std::size_t{4095};
  const int flags = ::fcntl(fd, F_GETFL);
  std::size_t done = 0;
  if (start == 0 && bulk >= (16u << 20) && flags >= 0 && ::fcntl(fd, F_SETFL, flags | O_DIRECT) == 0) {
    const auto t0 = std::chrono::steady_clock::now();
    while (done < bulk) {
      const ssize_t k = ::write(fd, mapped_ + done, std::min<std::size_t>(bulk - done, 16u << 20));
      if (k < 0 && errno == EINTR) continue;
      if (k <= 0 || static_cast<std::size_t>(k) % 4096 != 0) break;  // refused or short: the rest below
      done += static_cast<std::size_t>(k);
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      if (static_cast<double>(done) < 1e9 * s) break;  // slower than 1 GB/s
    }
    ::fcntl(fd, F_SETFL, flags);
    if (done > 0 && ::lseek(fd, static_cast<off_t>(done), SEEK_SET) < 0)
      throw std::runtime_error(fmt::format("{}: cannot copy: {}", path_, std::strerror(errno)));
  }
  auto from = static_cast<off_t>(done);
  std::size_t left = size_ - done;
  while (left > 0) {
    const ssize_t k = ::copy_file_range(fd_, &from, fd, nullptr, left, 0);
    if (k < 0 && errno == EINTR) continue;
    if (k < 0 && static_cast<std::size_t>(from) == done &&
        (errno == EXDEV || errno == ENOSYS || errno == EOPNOTSUPP || errno == EINVAL))
      return write_all(fd, mapped_ + done, size_ - done, path_);  // no in-kernel copy between these two
    if (k < 0) throw std::runtime_error(fmt::format("{}: cannot copy: {}", path_, std::strerror(errno)));
    if (k == 0) throw std::runtime_error(fmt::format("{}: the file shrank while it was copied", path_));
    left -= static_cast<std::size_t>(k);
  }
}

void FileBytes::release() {
  if (mapped_) {
    unguard(mapped_);
    ::munmap(mapped_, size_);
    mapped_ = nullptr;
  }
  if (fd_ >= 0) ::close(std::exchange(fd_, -1));
}

FileBytes::FileBytes(FileBytes&& o) noexcept
    : mapped_(std::exchange(o.mapped_, nullptr)),
      size_(std::exchange(o.size_, 0)),
      fd_(std::exchange(o.fd_, -1)),
      path_(std::move(o.path_)),
      small_(std::move(o.small_)) {}

FileBytes& FileBytes::operator=(FileBytes&& o) noexcept {
  if (this != &o) {
    release();
    mapped_ = std::exchange(o.mapped_, nullptr);
    size_ = std::exchange(o.size_, 0);
    fd_ = std::exchange(o.fd_, -1);
    path_ = std::move(o.path_);
    small_ = std::move(o.small_);
  }
  return *this;
}

FileBytes::~FileBytes() { release(); }

}  // namespace kvmbench
