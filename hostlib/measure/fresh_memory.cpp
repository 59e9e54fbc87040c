#include "hostlib/measure/fresh_memory.h"

#include <linux/memfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

#include "hostlib/kvm/kvm_uapi.h"

#ifndef MAP_HUGE_2MB
#define MAP_HUGE_2MB (21 << MAP_HUGE_SHIFT)
#endif
#ifndef MAP_HUGE_1GB
#define MAP_HUGE_1GB (30 << MAP_HUGE_SHIFT)
#endif

namespace kvmbench::host {

namespace {

std::uint64_t round_up(std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; }

}  // namespace

std::uint64_t mapped_bytes(Backing backing, std::uint64_t bytes) {
  return round_up(bytes, backing_info(backing).page_size);
}

FreshMemory::FreshMemory(Backing backing, std::uint64_t bytes, GuestMemfdContext* gmem) : map_(MAP_FAILED) {
  len_ = mapped_bytes(backing, bytes);
  int prot = PROT_READ | PROT_WRITE;
  switch (backing) {
    case Backing::anon_4k:
    case Backing::thp: {
      const bool thp = backing == Backing::thp;
      // THP needs 2 MiB alignment: over-allocate and start at the boundary.
      map_len_ = len_ + (thp ? k2M : 0);
      map_ = ::mmap(nullptr, map_len_, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
      if (map_ == MAP_FAILED) fail("mmap(anonymous)");
      auto base = reinterpret_cast<std::uintptr_t>(map_);
      addr_ = reinterpret_cast<char*>(thp ? round_up(base, k2M) : base);
      if (::madvise(addr_, len_, thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE) != 0)
        fail(thp ? "madvise(MADV_HUGEPAGE)" : "madvise(MADV_NOHUGEPAGE)");
      break;
    }
    case Backing::hugetlb_2m:
    case Backing::hugetlb_1g: {
      int size_flag = backing == Backing::hugetlb_1g ? MAP_HUGE_1GB : MAP_HUGE_2MB;
      map_len_ = len_;
      map_ = ::mmap(nullptr, map_len_, prot, MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | size_flag, -1, 0);
      if (map_ == MAP_FAILED) fail("mmap(MAP_HUGETLB)");
      addr_ = static_cast<char*>(map_);
      break;
    }
    case Backing::memfd: {
      int fd = ::memfd_create("kvmbench-fresh-memory", MFD_CLOEXEC);
      if (fd < 0) fail("memfd_create");
      fd_ = UniqueFd(fd);
      if (::ftruncate(fd, static_cast<off_t>(len_)) != 0) fail("ftruncate(memfd)");
      map_shared();
      break;
    }
    case Backing::guest_memfd:
      if (!gmem) throw std::invalid_argument("guest_memfd memory needs a VM (GuestMemfdContext)");
      fd_ = gmem->vm.create_guest_memfd(len_, GUEST_MEMFD_FLAG_MMAP | GUEST_MEMFD_FLAG_INIT_SHARED);
      map_shared();
      break;
  }
}

FreshMemory::~FreshMemory() {
  if (map_ != MAP_FAILED) ::munmap(map_, map_len_);
}

void FreshMemory::touch() {
  for (std::uint64_t off = 0; off < len_; off += k4K) addr_[off] = 1;
}

void FreshMemory::fill() { std::memset(addr_, 0x5a, len_); }

void FreshMemory::map_shared() {
  map_len_ = len_;
  map_ = ::mmap(nullptr, map_len_, PROT_READ | PROT_WRITE, MAP_SHARED, fd_.get(), 0);
  if (map_ == MAP_FAILED) fail("mmap(MAP_SHARED)");
  addr_ = static_cast<char*>(map_);
}

void FreshMemory::fail(const char* what) {
  int err = errno;
  throw std::runtime_error(fmt::format("{} of {} bytes failed: {}", what, len_, errno_description(err)));
}

}  // namespace kvmbench::host
