// A fresh temporary directory that goes, with everything in it, when it
// goes out of scope: where db import unpacks a tarball, bisect-run's
// measurement leaves its run, QEMU's QMP socket lives and the lab keeps
// its files.
#pragma once

#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace kvmbench::host {

class ScopedTempDir {
 public:
  // $TMPDIR/<prefix>-XXXXXX; throws std::runtime_error when it cannot be made.
  explicit ScopedTempDir(const std::string& prefix) {
    std::string tmpl = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
    if (!::mkdtemp(tmpl.data()))
      throw std::runtime_error("cannot make a temporary directory " + tmpl + ": " + std::strerror(errno));
    path_ = tmpl;
  }
  ~ScopedTempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScopedTempDir(const ScopedTempDir&) = delete;
  ScopedTempDir& operator=(const ScopedTempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace kvmbench::host
