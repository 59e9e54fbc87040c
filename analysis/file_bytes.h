// The bytes of a whole file in memory, for files of hundreds of MB (the
// logs `kvmbench ingest` reads). A std::string of that size is zeroed
// before read(2) fills it, and its 4 KiB page faults took as long as the
// read itself; this buffer is anonymous memory, not zeroed by us, and
// backed by transparent huge pages where the kernel allows (madvise).
// Small files, and files whose size is not known in advance (pipes, /proc),
// are read into a std::string as usual.
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

 private:
  char* mapped_ = nullptr;  // start of the mapping (huge-page aligned)
  std::size_t size_ = 0;    // bytes of the file
  std::size_t map_len_ = 0; // length of the mapping
  std::string small_;       // the fallback
};

}  // namespace kvmbench
