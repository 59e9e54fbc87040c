#include "analysis/file_bytes.h"

#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "analysis/run_store.h"
#include "analysis/staged_file.h"
#include "tests/support/run_command.h"

using namespace kvmbench;
namespace fs = std::filesystem;

namespace {
std::string pattern(std::size_t n) {
  std::string s(n, '\0');
  for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>('a' + (i * 7 + i / 4096) % 26);
  return s;
}
}  // namespace

// Small files go through a string, large ones through the huge-page buffer;
// both give the bytes of the file, and a moved-from buffer gives nothing.
TEST(FileBytes, ReadsSmallAndLargeFilesWhole) {
  test_support::TempDir tmp;
  for (std::size_t n : {std::size_t{0}, std::size_t{5}, std::size_t{9} << 20}) {
    const fs::path p = tmp.path / ("f" + std::to_string(n));
    const std::string want = pattern(n);
    std::ofstream(p, std::ios::binary) << want;
    FileBytes b = FileBytes::read(p);
    EXPECT_EQ(b.size(), n);
    EXPECT_TRUE(b.view() == want) << n;
    FileBytes moved = std::move(b);
    EXPECT_TRUE(moved.view() == want);
  }
  EXPECT_THROW(FileBytes::read(tmp.path / "missing"), std::runtime_error);
}

// The copy for raw/ (direct I/O or an in-kernel copy for a mapped file,
// write(2) for a small one; a size that is no whole number of blocks for
// the direct path) is the bytes that were read, also when the file grew
// since; a file that shrank is an error, not a short copy.
TEST(FileBytes, CopiesWhatWasRead) {
  test_support::TempDir tmp;
  for (std::size_t n : {std::size_t{5}, std::size_t{9} << 20, (std::size_t{40} << 20) + 123}) {
    const fs::path p = tmp.path / ("f" + std::to_string(n)), copy = tmp.path / ("copy" + std::to_string(n));
    std::ofstream(p, std::ios::binary) << pattern(n);
    FileBytes b = FileBytes::read(p);
    std::ofstream(p, std::ios::binary | std::ios::app) << "appended later";
    const int fd = ::open(copy.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ASSERT_GE(fd, 0);
    b.copy_to(fd);
    ::close(fd);
    EXPECT_TRUE(read_file(copy) == pattern(n)) << n;
  }
  const fs::path p = tmp.path / "shrinks";
  std::ofstream(p, std::ios::binary) << pattern(9u << 20);
  FileBytes b = FileBytes::read(p);
  fs::resize_file(p, 1u << 20);
  const int fd = ::open((tmp.path / "short").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  EXPECT_THROW(b.copy_to(fd), std::runtime_error);
  ::close(fd);
}

// A mapped file cut short while it is read would raise SIGBUS: it is bad
// input (exit 2, naming the file), not a crash.
TEST(FileBytesDeathTest, AFileThatShrinksWhileReadIsBadInput) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  test_support::TempDir tmp;
  const fs::path p = tmp.path / "rotated.log";
  std::ofstream(p, std::ios::binary) << pattern(9u << 20);
  EXPECT_EXIT(
      {
        FileBytes b = FileBytes::read(p);
        fs::resize_file(p, 0);
        volatile char last = b.view().back();
        (void)last;
        std::exit(0);
      },
      ::testing::ExitedWithCode(2), "rotated.log: the file shrank while it was read");
}

// A FIFO has no size to read ahead: the ordinary way.
TEST(FileBytes, ReadsAPipe) {
  test_support::TempDir tmp;
  const fs::path fifo = tmp.path / "fifo";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([&] { std::ofstream(fifo) << "line 1\nline 2\n"; });
  FileBytes b = FileBytes::read(fifo);
  writer.join();
  EXPECT_EQ(b.view(), "line 1\nline 2\n");
}

// A staged file has no name until it is linked; dropped, it leaves nothing.
TEST(StagedFile, NamedOnlyWhenLinked) {
  test_support::TempDir tmp, src;
  std::ofstream(src.path / "a.log") << "raw bytes\n";
  std::ofstream(src.path / "b.log") << "never named";
  EXPECT_EQ(StagedFile::open_in(tmp.path / "missing"), nullptr);
  auto staged = StagedFile::open_in(tmp.path);
  if (!staged) GTEST_SKIP() << "no O_TMPFILE on the filesystem of " << tmp.path;
  staged->write_copy_of(FileBytes::read(src.path / "a.log"));
  EXPECT_TRUE(fs::is_empty(tmp.path));
  EXPECT_TRUE(staged->link_as(tmp.path / "raw.log"));
  EXPECT_EQ(read_file(tmp.path / "raw.log"), "raw bytes\n");
  EXPECT_THROW(staged->link_as(tmp.path / "raw.log"), std::runtime_error);  // exists
  staged.reset();
  auto dropped = StagedFile::open_in(tmp.path);
  ASSERT_NE(dropped, nullptr);
  dropped->write_copy_of(FileBytes::read(src.path / "b.log"));
  dropped.reset();
  std::size_t entries = 0;
  for ([[maybe_unused]] auto& e : fs::directory_iterator(tmp.path)) ++entries;
  EXPECT_EQ(entries, 1u);
}

// Named on another filesystem than the one it was staged on: false, nothing
// done (ingest then writes the raw copy the ordinary way).
TEST(StagedFile, LinkOnAnotherFilesystemIsRefusedQuietly) {
  test_support::TempDir tmp;
  const fs::path other = "/dev/shm";
  struct stat a {}, b {};
  if (::stat(tmp.path.c_str(), &a) != 0 || ::stat(other.c_str(), &b) != 0 || a.st_dev == b.st_dev)
    GTEST_SKIP() << "no second filesystem at " << other;
  auto staged = StagedFile::open_in(tmp.path);
  if (!staged) GTEST_SKIP() << "no O_TMPFILE on the filesystem of " << tmp.path;
  const fs::path target = other / ("kvmbench-staged-test-" + std::to_string(::getpid()));
  EXPECT_FALSE(staged->link_as(target));
  EXPECT_FALSE(fs::exists(target));
}
