// The lab's console analysis: where a kernel's fault or stall report starts.
#include "analysis/parse/kernel_console_trouble.h"

#include <gtest/gtest.h>

using namespace kvmbench;

namespace {

// The shape of a lab kernel that double-faulted under depmod: the fault
// line, then its registers and stack, the panic last.
const char* kDoubleFault =
    "[    0.000000] Linux version 6.12.95+deb12-cloud-amd64\n"
    "KVMBENCH-LAB-BOOTED uptime=1.52\n"
    "[    1.734010] traps: PANIC: double fault, error_code: 0x0\n"
    "[    1.734012] double fault: 0000 [#1] PREEMPT SMP NOPTI\n"
    "[    1.734020] CPU: 0 UID: 0 PID: 52 Comm: depmod Not tainted 6.12.95+deb12-cloud-amd64 #1\n"
    "[    1.734030] RIP: 0010:kmem_cache_alloc_noprof+0x5b/0x2f0\n"
    "[    1.734040] RSP: 0018:ffffb4a1c0003ff8 EFLAGS: 00010246\n"
    "[    1.734050] RAX: 0000000000000000 RBX: ffff8fb2c1042400 RCX: 0000000000000000\n"
    "[    1.734100] Kernel panic - not syncing: Fatal exception in interrupt\n";

}  // namespace

TEST(KernelConsoleTrouble, AFaultIsFoundAtItsFirstLineNotAtTheRegistersAfterIt) {
  auto f = first_kernel_fault(kDoubleFault);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->line, "[    1.734010] traps: PANIC: double fault, error_code: 0x0");
  const std::string excerpt = console_excerpt(kDoubleFault, f->offset, 3);
  EXPECT_EQ(excerpt.rfind("[    1.734010] traps: PANIC: double fault", 0), 0u) << excerpt;
  EXPECT_NE(excerpt.find("Comm: depmod"), std::string::npos);
  EXPECT_EQ(excerpt.find("RIP:"), std::string::npos) << "three lines only";
  EXPECT_FALSE(first_kernel_stall(kDoubleFault));
}

TEST(KernelConsoleTrouble, OopsBugAndPanicAreFaults) {
  for (const char* line : {"[ 3.1] Oops: 0000 [#1] SMP NOPTI", "[ 3.1] kernel BUG at mm/slub.c:435!",
                           "[ 3.1] BUG: kernel NULL pointer dereference, address: 0000000000000008",
                           "[ 3.1] general protection fault, probably for non-canonical address",
                           "[ 3.1] Kernel panic - not syncing: VFS: Unable to mount root fs"}) {
    const std::string console = std::string("[ 1.0] booting\n") + line + "\n[ 3.2] Call Trace:\n";
    auto f = first_kernel_fault(console);
    ASSERT_TRUE(f) << line;
    EXPECT_EQ(f->line, line);
    EXPECT_EQ(f->offset, std::string("[ 1.0] booting\n").size());
  }
  EXPECT_FALSE(first_kernel_fault("[ 1.0] booting\nKVMBENCH-LAB-READY uptime=3 kvm=loaded\n"));
}

TEST(KernelConsoleTrouble, LockupsRcuStallsAndHungTasksAreStallsNotFaults) {
  for (const char* line : {"[ 150.2] watchdog: BUG: soft lockup - CPU#0 stuck for 26s! [qemu-system-x86:812]",
                           "[ 150.2] watchdog: Watchdog detected hard LOCKUP on cpu 0",
                           "[ 150.2] rcu: INFO: rcu_sched self-detected stall on CPU",
                           "[ 150.2] rcu: INFO: rcu_sched detected stalls on CPUs/tasks:",
                           "[ 150.2] INFO: task kvmbench:301 blocked for more than 120 seconds.",
                           "[ 150.2] BUG: workqueue lockup - pool cpus=0 node=0 flags=0x0 nice=0 stuck for 31s!"}) {
    const std::string console = std::string("KVMBENCH-LAB-READY uptime=3\n") + line + "\n";
    auto s = first_kernel_stall(console);
    ASSERT_TRUE(s) << line;
    EXPECT_EQ(s->line, line);
    EXPECT_FALSE(first_kernel_fault(console)) << line;
  }
}

TEST(KernelConsoleTrouble, ExcerptStopsAtTheEndOfTheConsole) {
  EXPECT_EQ(console_excerpt("a\nb\n", 2, 40), "b");
  EXPECT_EQ(console_excerpt("a\nb", 0, 40), "a\nb");
  EXPECT_EQ(console_excerpt("a\n", 5, 40), "");
}
