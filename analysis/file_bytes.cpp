#include "analysis/file_bytes.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <utility>


namespace kvmbench {

namespace {

constexpr std::size_t kHugePage = 2u << 20;
constexpr std::size_t kMappedFrom = 8u << 20;  // smaller files: a std::string

// Anonymous memory of at least `len` bytes starting on a huge-page boundary
// (so that THP can back all of it), or nullptr.
char* map_aligned(std::size_t len, std::size_t& map_len) {
  const std::size_t want = (len + kHugePage - 1) / kHugePage * kHugePage;
  void* p = ::mmap(nullptr, want + kHugePage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return nullptr;
  const auto base = reinterpret_cast<std::uintptr_t>(p);
  const std::uintptr_t start = (base + kHugePage - 1) / kHugePage * kHugePage;
  if (start > base) ::munmap(p, start - base);
  const std::uintptr_t end = start + want, map_end = base + want + kHugePage;
  if (map_end > end) ::munmap(reinterpret_cast<void*>(end), map_end - end);
  ::madvise(reinterpret_cast<void*>(start), want, MADV_HUGEPAGE);  // a hint: fine if refused
  map_len = want;
  return reinterpret_cast<char*>(start);
}

// The rest of `fd` into a string (pipes, /proc, small files), from the
// descriptor already open: a pipe (`ingest <(journalctl -k)`) cannot be
// opened a second time.
std::string read_rest(int fd, const std::filesystem::path& path, std::string out = {}) {
  std::size_t used = out.size();
  out.resize(std::max<std::size_t>(used * 2, 64 * 1024));
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

}  // namespace

FileBytes FileBytes::read(const std::filesystem::path& path) {
  int fd;
  do  // a FIFO's open waits for its writer; a signal (Ctrl-C, noticed later) must not fail it
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  while (fd < 0 && errno == EINTR);
  if (fd < 0) throw std::runtime_error(fmt::format("{}: cannot open: {}", path.string(), std::strerror(errno)));
  struct stat st {};
  FileBytes out;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && static_cast<std::size_t>(st.st_size) >= kMappedFrom) {
    // +1: a read that returns 0 there proves the end; a file that grew
    // meanwhile is read again the ordinary way.
    const std::size_t cap = static_cast<std::size_t>(st.st_size) + 1;
    out.mapped_ = map_aligned(cap, out.map_len_);
    if (out.mapped_) {
      std::size_t used = 0;
      while (used < cap) {
        const ssize_t n = ::read(fd, out.mapped_ + used, cap - used);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
          const int e = errno;
          ::close(fd);
          throw std::runtime_error(fmt::format("{}: read error: {}", path.string(), std::strerror(e)));
        }
        if (n == 0) break;
        used += static_cast<std::size_t>(n);
      }
      if (used < cap) {
        ::close(fd);
        out.size_ = used;
        return out;
      }
      // It grew while being read: the rest the ordinary way.
      std::string head(out.mapped_, used);
      ::munmap(out.mapped_, out.map_len_);
      out.mapped_ = nullptr;
      try {
        out.small_ = read_rest(fd, path, std::move(head));
      } catch (...) {
        ::close(fd);
        throw;
      }
      ::close(fd);
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

FileBytes::FileBytes(FileBytes&& o) noexcept
    : mapped_(std::exchange(o.mapped_, nullptr)),
      size_(o.size_),
      map_len_(o.map_len_),
      small_(std::move(o.small_)) {}

FileBytes& FileBytes::operator=(FileBytes&& o) noexcept {
  if (this != &o) {
    if (mapped_) ::munmap(mapped_, map_len_);
    mapped_ = std::exchange(o.mapped_, nullptr);
    size_ = o.size_;
    map_len_ = o.map_len_;
    small_ = std::move(o.small_);
  }
  return *this;
}

FileBytes::~FileBytes() {
  if (mapped_) ::munmap(mapped_, map_len_);
}

}  // namespace kvmbench
