#include "hostlib/monitor/vmstat.h"

#include <charconv>

#include "hostlib/os/kernel_files.h"

namespace kvmbench::host {

VmstatCounters parse_vmstat(std::string_view text) {
  VmstatCounters out;
  while (!text.empty()) {
    const std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    const std::size_t sp = line.find(' ');
    if (sp == 0 || sp == std::string_view::npos) continue;
    const std::string_view value = line.substr(sp + 1);
    std::uint64_t v = 0;
    // A gauge can read negative (nr_* per-CPU drift): not a counter.
    const auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (ec != std::errc() || end != value.data() + value.size()) continue;
    out.emplace(std::string(line.substr(0, sp)), v);
  }
  return out;
}

std::optional<VmstatCounters> read_vmstat(const std::filesystem::path& path) {
  const std::optional<std::string> text = read_kernel_file(path);
  if (!text) return std::nullopt;
  return parse_vmstat(*text);
}

}  // namespace kvmbench::host
