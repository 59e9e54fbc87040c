#include "hostlib/facts/physical_ram.h"

#include <charconv>
#include <system_error>

#include "hostlib/os/kernel_files.h"

namespace kvmbench::host {

namespace {

std::optional<std::uint64_t> hex(std::string_view s) {
  if (s.starts_with("0x")) s.remove_prefix(2);
  std::uint64_t v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 16);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

}  // namespace

std::optional<std::uint64_t> ram_end_from_iomem(std::string_view iomem) {
  std::optional<std::uint64_t> end;
  while (!iomem.empty()) {
    const std::size_t eol = iomem.find('\n');
    std::string_view line = iomem.substr(0, eol);
    iomem.remove_prefix(eol == std::string_view::npos ? iomem.size() : eol + 1);
    // Top-level ranges only: nested ones ("  01000000-01ffffff : Kernel code")
    // are indented and lie inside a System RAM range.
    if (line.empty() || line.front() == ' ') continue;
    const std::size_t colon = line.find(" : ");
    if (colon == std::string_view::npos || line.substr(colon + 3) != "System RAM") continue;
    const std::string_view range = line.substr(0, colon);
    const std::size_t dash = range.find('-');
    if (dash == std::string_view::npos) continue;
    const auto last = hex(range.substr(dash + 1));
    if (!last || *last == 0) continue;  // zeros: read without CAP_SYS_ADMIN
    if (!end || *last + 1 > *end) end = *last + 1;
  }
  return end;
}

std::optional<std::uint64_t> ram_end_from_memory_blocks(const std::filesystem::path& dir) {
  const auto size_text = read_kernel_value(dir / "block_size_bytes");
  if (!size_text) return std::nullopt;
  const auto block = hex(*size_text);
  if (!block || *block == 0) return std::nullopt;
  std::optional<std::uint64_t> highest;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (!name.starts_with("memory") || name.size() == 6) continue;
    std::uint64_t n = 0;
    const auto [p, err] = std::from_chars(name.data() + 6, name.data() + name.size(), n);
    if (err != std::errc() || p != name.data() + name.size()) continue;
    if (read_kernel_value(e.path() / "online").value_or("0") != "1") continue;
    if (!highest || n > *highest) highest = n;
  }
  if (!highest) return std::nullopt;
  return (*highest + 1) * *block;
}

RamEnd read_ram_end() {
  if (const auto iomem = read_kernel_file("/proc/iomem"))
    if (const auto end = ram_end_from_iomem(*iomem)) return {end, "/proc/iomem"};
  if (const auto end = ram_end_from_memory_blocks("/sys/devices/system/memory"))
    return {end, "/sys/devices/system/memory"};
  return {std::nullopt, "not known: /proc/iomem shows no addresses (root is needed) and there are no online memory "
                        "blocks in /sys/devices/system/memory"};
}

}  // namespace kvmbench::host
