// anon_huge_share: the AnonHugePages of the mappings inside a range, over
// its length. The smaps text is in the kernel's layout (fs/proc/task_mmu.c:
// a mapping line, then "Key:   value kB" lines).
#include "hostlib/measure/huge_page_share.h"

#include <gtest/gtest.h>
#include <sys/mman.h>

#include <cstring>

namespace kvmbench::host {
namespace {

constexpr const char* kSmaps =
    "7f0000000000-7f0000400000 rw-p 00000000 00:00 0 \n"
    "Size:               4096 kB\n"
    "AnonHugePages:      2048 kB\n"
    "7f0000400000-7f0000800000 rw-p 00000000 00:00 0 \n"
    "Size:               4096 kB\n"
    "AnonHugePages:      4096 kB\n"
    "7f0001000000-7f0001200000 rw-p 00000000 00:00 0 \n"
    "AnonHugePages:      2048 kB\n";

const void* at(std::uintptr_t a) { return reinterpret_cast<const void*>(a); }

TEST(HugePageShare, SumsTheMappingsInsideTheRange) {
  // 8 MiB over two mappings: 2 + 4 MiB huge = 6/8.
  EXPECT_DOUBLE_EQ(*anon_huge_share(kSmaps, at(0x7f0000000000), 8 << 20), 0.75);
  // The first mapping only: 2 of its 4 MiB.
  EXPECT_DOUBLE_EQ(*anon_huge_share(kSmaps, at(0x7f0000000000), 4 << 20), 0.5);
  // The third mapping's AnonHugePages is outside the range: not counted.
  EXPECT_DOUBLE_EQ(*anon_huge_share(kSmaps, at(0x7f0000400000), 4 << 20), 1.0);
}

TEST(HugePageShare, ARangeNoMappingListsIsUnknownNotZero) {
  EXPECT_FALSE(anon_huge_share(kSmaps, at(0x100000), 4096).has_value());
  EXPECT_FALSE(anon_huge_share("", at(0x7f0000000000), 4096).has_value());
  EXPECT_FALSE(anon_huge_share(kSmaps, at(0x7f0000000000), 0).has_value());
}

TEST(HugePageShare, FourKilobytePagesOfThisProcessAreNoHugePages) {
  // Memory the kernel must not back with huge pages: its share is 0 as
  // this process's own smaps says.
  const std::size_t len = 4 << 20;
  void* p = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  ASSERT_EQ(madvise(p, len, MADV_NOHUGEPAGE), 0);
  std::memset(p, 1, len);
  auto share = anon_huge_share(p, len);
  munmap(p, len);
  ASSERT_TRUE(share.has_value());
  EXPECT_EQ(*share, 0.0);
}

}  // namespace
}  // namespace kvmbench::host
