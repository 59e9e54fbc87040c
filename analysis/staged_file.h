// A file written before it has a name: an unnamed file (O_TMPFILE) in a
// directory, given its final name only once the run it belongs to is
// stored. `kvmbench ingest` copies a log into the run while it still parses
// it, and a log that turns out to be bad leaves nothing behind: the unnamed
// file goes away when it is closed.
#pragma once

#include <filesystem>
#include <memory>
#include <string_view>

namespace kvmbench {

class FileBytes;

class StagedFile {
 public:
  // nullptr when `dir` does not exist or its filesystem has no O_TMPFILE;
  // the caller then writes the file the ordinary way, later. `dir` need not
  // be where the file is named in the end, only on the same filesystem.
  static std::unique_ptr<StagedFile> open_in(const std::filesystem::path& dir);
  ~StagedFile();
  StagedFile(const StagedFile&) = delete;
  StagedFile& operator=(const StagedFile&) = delete;

  // Writes the bytes of `src` (FileBytes::copy_to: cloned, direct I/O or
  // copied in the kernel where it can). Throws std::runtime_error on failure.
  void write_copy_of(const FileBytes& src);
  // Names the file `path` (must not exist). Not synced to the disk. False
  // when `path` is on another filesystem than the directory it was opened
  // in (nothing done: write it the ordinary way); throws std::runtime_error
  // on any other failure.
  bool link_as(const std::filesystem::path& path);

 private:
  explicit StagedFile(int fd) : fd_(fd) {}
  int fd_;
};

}  // namespace kvmbench
