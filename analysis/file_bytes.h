// The bytes of a whole file in memory, for files of hundreds of MB (the
// logs `kvmbench ingest` reads). A large regular file is mapped, not read:
// the kernel maps its page cache (large folios make that a few ms for
// 200 MB) where read(2) copied it into fresh memory that first had to be
// faulted in and zeroed (a third of the ingest of a 200 MB log). The bytes
// are the file as it was when opened: what is appended later is not seen.
// A mapped file that shrinks while it is read would raise SIGBUS; a guard
// turns that into "FILE: shrank while it was read" and exit status 2 (bad
// input) instead of a crash. Small files, and files whose size is not known
// in advance (pipes, /proc), are read into a std::string as usual.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace kvmbench {

class FileBytes {
 public:
  // Throws std::runtime_error naming the file when it cannot be read.
  static FileBytes read(const std::filesystem::path& path);

  FileBytes() = default;
  FileBytes(FileBytes&& o) noexcept;
  FileBytes& operator=(FileBytes&& o) noexcept;
  FileBytes(const FileBytes&) = delete;
  FileBytes& operator=(const FileBytes&) = delete;
  ~FileBytes();

  std::string_view view() const { return mapped_ ? std::string_view(mapped_, size_) : std::string_view(small_); }
  std::size_t size() const { return view().size(); }

  // Writes the bytes to `fd` (at its offset) the cheapest way the
  // filesystems allow: a shared-extent clone (btrfs, XFS), direct I/O from
  // the mapping (no copy through the CPU), an in-kernel copy from the file,
  // or write(2). Throws std::runtime_error naming the file on failure, also
  // when the file shrank meanwhile.
  void copy_to(int fd) const;

 private:
  void release();

  char* mapped_ = nullptr;  // the file's mapping
  std::size_t size_ = 0;    // bytes of the file (and of the mapping)
  int fd_ = -1;             // the mapped file, kept open for copy_to
  std::string path_;        // for messages
  std::string small_;       // the fallback
};

}  // namespace kvmbench
