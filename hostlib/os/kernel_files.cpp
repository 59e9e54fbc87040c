#include "hostlib/os/kernel_files.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

namespace kvmbench::host {

std::optional<std::string> read_kernel_file(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string text;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      text.append(buf, static_cast<std::size_t>(n));
    } else if (n == 0) {
      break;
    } else if (errno != EINTR) {
      const int error = errno;
      ::close(fd);
      errno = error;
      return std::nullopt;
    }
  }
  ::close(fd);
  return text;
}

std::optional<std::string> read_kernel_value(const std::filesystem::path& path) {
  std::optional<std::string> text = read_kernel_file(path);
  if (text) {
    const std::size_t end = text->find_last_not_of(" \t\r\n");
    text->erase(end == std::string::npos ? 0 : end + 1);
  }
  return text;
}

std::string read_kernel_file_or_throw(const std::filesystem::path& path) {
  std::optional<std::string> text = read_kernel_file(path);
  if (!text) throw std::runtime_error(fmt::format("cannot read {}: {}", path.string(), std::strerror(errno)));
  return *text;
}

}  // namespace kvmbench::host
