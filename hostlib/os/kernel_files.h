// Reading the small text files the kernel exports (procfs, sysfs, module
// parameters): one reader instead of an ifstream-and-stringstream copy in
// every file that looks at the host.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace kvmbench::host {

// The whole file, or nullopt when it cannot be opened or read (errno says
// why: a sysfs attribute can fail on read, not only on open).
std::optional<std::string> read_kernel_file(const std::filesystem::path& path);

// The file without its trailing newline and blanks: a sysfs value
// ("1\n" -> "1", "[always] madvise never\n" -> "[always] madvise never").
std::optional<std::string> read_kernel_value(const std::filesystem::path& path);

// read_kernel_file() for a file that must be there: throws
// std::runtime_error "cannot read PATH: REASON".
std::string read_kernel_file_or_throw(const std::filesystem::path& path);

}  // namespace kvmbench::host
