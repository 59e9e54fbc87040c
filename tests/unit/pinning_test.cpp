#include "hostlib/measure/pinning.h"
#include "hostlib/os/cpu_list.h"

#include <gtest/gtest.h>

#include <thread>

#include "hostlib/state/run_lock.h"
#include "tests/support/run_command.h"

using namespace kvmbench::host;

TEST(CpuList, ParsesRangesSinglesAndStrides) {
  EXPECT_EQ(parse_cpu_list("0-3,8"), (std::vector<int>{0, 1, 2, 3, 8}));
  EXPECT_EQ(parse_cpu_list("8,0-1,1"), (std::vector<int>{0, 1, 8}));
  EXPECT_EQ(parse_cpu_list("0-7:2"), (std::vector<int>{0, 2, 4, 6}));
  EXPECT_EQ(parse_cpu_list("5\n"), (std::vector<int>{5}));
  EXPECT_TRUE(parse_cpu_list("").empty());
}

TEST(CpuList, RejectsBadText) {
  EXPECT_THROW(parse_cpu_list("3-1"), std::invalid_argument);
  EXPECT_THROW(parse_cpu_list("a"), std::invalid_argument);
  EXPECT_THROW(parse_cpu_list("1,,2"), std::invalid_argument);
  EXPECT_THROW(parse_cpu_list("-1"), std::invalid_argument);
  EXPECT_THROW(parse_cpu_list("0-3:0"), std::invalid_argument);
  EXPECT_THROW(parse_cpu_list("99999999"), std::invalid_argument);
}

TEST(CpuList, FormatsCompactly) {
  EXPECT_EQ(format_cpu_list({0, 1, 2, 3, 8}), "0-3,8");
  EXPECT_EQ(format_cpu_list({5, 1, 2}), "1-2,5");
  EXPECT_EQ(format_cpu_list({}), "");
  EXPECT_EQ(parse_cpu_list(format_cpu_list({0, 2, 3, 4, 9})), (std::vector<int>{0, 2, 3, 4, 9}));
}

TEST(Pinning, PinsAndScopedPinPutsAffinityBack) {
  std::thread t([] {
    auto before = thread_affinity();
    ASSERT_FALSE(before.empty());
    int cpu = before.back();
    {
      ScopedPin pin({cpu});
      EXPECT_EQ(thread_affinity(), std::vector<int>{cpu});
    }
    EXPECT_EQ(thread_affinity(), before);
    EXPECT_THROW(pin_thread_to_cpus({}), std::invalid_argument);
  });
  t.join();
}

TEST(Pinning, NodeZeroHasCpusAndPinningToItWorks) {
  ASSERT_GE(numa_node_count(), 1);
  auto cpus = node_cpus(0);
  ASSERT_FALSE(cpus.empty());
  EXPECT_EQ(cpu_node(cpus.front()), 0);
  EXPECT_THROW(node_cpus(4096), std::invalid_argument);
  std::thread t([] {
    pin_thread_to_node(0);
    for (int c : thread_affinity()) EXPECT_EQ(cpu_node(c), 0);
    bind_memory_to_node(0);
    unbind_memory();
  });
  t.join();
}

TEST(RunLock, SecondHolderFailsWithAClearMessageThenSucceeds) {
  kvmbench::test_support::TempDir dir;
  auto path = dir.path / "run.lock";
  {
    RunLock first(std::chrono::milliseconds(0), "suite directmap", path);
    EXPECT_NE(RunLock::holder(path).find("suite directmap"), std::string::npos);
    try {
      RunLock second(std::chrono::milliseconds(100), "", path);
      FAIL() << "two holders";
    } catch (const kvmbench::host::RunLockBusy& e) {
      // Busy, told apart from a lock file that cannot be opened (which
      // throws a plain runtime_error): the caller exits 75, not 77.
      std::string m = e.what();
      EXPECT_NE(m.find("another kvmbench run"), std::string::npos) << m;
      EXPECT_NE(m.find(std::to_string(::getpid())), std::string::npos) << m;
      EXPECT_EQ(e.holder, "pid " + std::to_string(::getpid()) + ": suite directmap");
      EXPECT_EQ(e.path, path);
    }
  }
  EXPECT_EQ(RunLock::holder(path), "");
  RunLock again(std::chrono::milliseconds(0), "", path);
}

TEST(RunLock, WaiterGetsTheLockWhenReleased) {
  // With a limit, and without one (kWaitForever: no deadline, where now()
  // + max would overflow the clock).
  for (const auto wait : {std::chrono::milliseconds(30000), kvmbench::host::kWaitForever}) {
    kvmbench::test_support::TempDir dir;
    auto path = dir.path / "run.lock";
    auto first = std::make_unique<RunLock>(std::chrono::milliseconds(0), "", path);
    std::thread releaser([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      first.reset();
    });
    EXPECT_NO_THROW(RunLock second(wait, "", path));
    releaser.join();
  }
}

TEST(RunLock, AFileThatCannotBeOpenedIsNotBusy) {
  kvmbench::test_support::TempDir dir;
  // A directory where the lock file would be: open() fails.
  std::filesystem::create_directories(dir.path / "run.lock");
  try {
    RunLock lock(std::chrono::milliseconds(0), "", dir.path / "run.lock");
    FAIL() << "locked a directory";
  } catch (const kvmbench::host::RunLockBusy& e) {
    FAIL() << "busy: " << e.what();
  } catch (const kvmbench::host::RunLockUnusable& e) {
    EXPECT_NE(std::string(e.what()).find("cannot open run lock"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("Is a directory"), std::string::npos) << e.what();
    EXPECT_EQ(e.path, dir.path / "run.lock");
  }
}
