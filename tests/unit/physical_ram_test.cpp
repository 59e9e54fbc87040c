// Where RAM ends by address: above MemTotal wherever the PCI hole below
// 4 GiB is remapped above the top of RAM.
#include <gtest/gtest.h>

#include <fstream>

#include "hostlib/facts/physical_ram.h"
#include "tests/support/run_command.h"

using namespace kvmbench::host;

// /proc/iomem as root on a 24 GiB VM: RAM below the hole and above 4 GiB.
TEST(PhysicalRam, TopLevelSystemRamRangesOfIomem) {
  const char* iomem =
      "00000000-00000fff : Reserved\n"
      "00001000-0009fbff : System RAM\n"
      "00100000-bfffffff : System RAM\n"
      "  01000000-01ffffff : Kernel code\n"
      "c0001000-eebfffff : PCI Bus 0000:00\n"
      "100000000-63fffffff : System RAM\n"
      "  2f0000000-2ffffffff : Crash kernel\n"
      "4000000000-7fffffffff : PCI Bus 0000:00\n";
  EXPECT_EQ(ram_end_from_iomem(iomem), 0x640000000ULL);  // 25 GiB for 24 GiB of RAM
  // Without CAP_SYS_ADMIN every address reads 0: not known.
  EXPECT_FALSE(ram_end_from_iomem("00000000-00000000 : System RAM\n00000000-00000000 : System RAM\n"));
  EXPECT_FALSE(ram_end_from_iomem(""));
  EXPECT_FALSE(ram_end_from_iomem("00000000-0009fbff : Reserved\n"));
}

TEST(PhysicalRam, HighestOnlineMemoryBlock) {
  kvmbench::test_support::TempDir dir;
  std::ofstream(dir.path / "block_size_bytes") << "8000000\n";  // 128 MiB, in hex as sysfs writes it
  for (int n : {0, 1, 7, 200}) {
    std::filesystem::create_directories(dir.path / ("memory" + std::to_string(n)));
    std::ofstream(dir.path / ("memory" + std::to_string(n)) / "online") << (n == 200 ? "0\n" : "1\n");
  }
  std::filesystem::create_directories(dir.path / "power");
  EXPECT_EQ(ram_end_from_memory_blocks(dir.path), 8ULL * 0x8000000);  // block 7 is the highest online one
  EXPECT_FALSE(ram_end_from_memory_blocks(dir.path / "missing"));
}
