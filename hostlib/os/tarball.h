// Unpacks a tarball of run directories (what a lab machine ships to the
// results database) with the system's tar, which knows every compression
// Debian's tar does (gzip, xz, zstd by their suffix or magic).
#pragma once

#include <filesystem>
#include <vector>

namespace kvmbench {

// Extracts `tarball` into `into` (an existing, empty directory). Throws
// std::runtime_error with tar's own message when it is not a tarball, is
// damaged or cannot be read.
void extract_tarball(const std::filesystem::path& tarball, const std::filesystem::path& into);

// The run directories (those holding meta.json) at `root` itself or below
// it, sorted by path.
std::vector<std::filesystem::path> find_run_directories(const std::filesystem::path& root);

}  // namespace kvmbench
