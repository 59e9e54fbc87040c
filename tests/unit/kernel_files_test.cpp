// The one reader of procfs/sysfs text (hostlib/os/kernel_files.h).
#include "hostlib/os/kernel_files.h"

#include <gtest/gtest.h>

#include <cerrno>
#include <stdexcept>
#include <string>

#include "tests/support/run_command.h"

namespace kvmbench::host {
namespace {

using test_support::TempDir;
using test_support::write_text;

TEST(KernelFiles, ReadsTheWholeFileAndTrimsAValue) {
  TempDir dir;
  write_text(dir.path / "enabled", "always [madvise] never\n");
  EXPECT_EQ(read_kernel_file(dir.path / "enabled"), "always [madvise] never\n");
  EXPECT_EQ(read_kernel_value(dir.path / "enabled"), "always [madvise] never");
  write_text(dir.path / "blank", " \n\t\n");
  EXPECT_EQ(read_kernel_value(dir.path / "blank"), "");
  // Longer than one read() of the reader's buffer: nothing is cut.
  const std::string big(10000, 'x');
  write_text(dir.path / "big", big);
  EXPECT_EQ(read_kernel_file(dir.path / "big"), big);
}

TEST(KernelFiles, ReadsProcfsWhoseSizeIsZero) {
  // stat() says 0 bytes for procfs files: a reader that trusts the size
  // reads nothing.
  EXPECT_EQ(read_kernel_value("/proc/sys/kernel/ostype"), "Linux");
}

TEST(KernelFiles, SaysWhyAFileCannotBeRead) {
  TempDir dir;
  errno = 0;
  EXPECT_EQ(read_kernel_file(dir.path / "absent"), std::nullopt);
  EXPECT_EQ(errno, ENOENT);
  // A directory opens but fails on read(): the error of the read is kept.
  errno = 0;
  EXPECT_EQ(read_kernel_value(dir.path), std::nullopt);
  EXPECT_EQ(errno, EISDIR);
  try {
    (void)read_kernel_file_or_throw(dir.path / "absent");
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "cannot read " + (dir.path / "absent").string() + ": No such file or directory");
  }
}

}  // namespace
}  // namespace kvmbench::host
