#include "analysis/staged_file.h"

#include "analysis/file_bytes.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace kvmbench {

std::unique_ptr<StagedFile> StagedFile::open_in(const std::filesystem::path& dir) {
  const int fd = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644);
  if (fd < 0) return nullptr;
  return std::unique_ptr<StagedFile>(new StagedFile(fd));
}

StagedFile::~StagedFile() { ::close(fd_); }

void StagedFile::write_copy_of(const FileBytes& src) { src.copy_to(fd_); }

bool StagedFile::link_as(const std::filesystem::path& path) {
  // linkat(fd, "", ..., AT_EMPTY_PATH) needs CAP_DAC_READ_SEARCH; the
  // /proc/self/fd link works for anyone (open(2), O_TMPFILE).
  const std::string self = fmt::format("/proc/self/fd/{}", fd_);
  if (::linkat(AT_FDCWD, self.c_str(), AT_FDCWD, path.c_str(), AT_SYMLINK_FOLLOW) == 0) return true;
  if (errno == EXDEV) return false;
  throw std::runtime_error(fmt::format("cannot name {}: {}", path.string(), std::strerror(errno)));
}

}  // namespace kvmbench
