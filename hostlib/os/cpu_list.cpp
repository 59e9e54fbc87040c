#include "hostlib/os/cpu_list.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <set>
#include <stdexcept>

namespace kvmbench::host {

namespace {

int parse_int(std::string_view s, std::string_view whole) {
  int v = 0;
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size() || v < 0)
    throw std::invalid_argument(fmt::format("bad CPU list '{}': '{}' is not a CPU number", whole, s));
  return v;
}

}  // namespace

std::vector<int> parse_cpu_list(std::string_view text) {
  std::set<int> cpus;
  std::string_view rest = text;
  while (!rest.empty() && (rest.back() == '\n' || rest.back() == ' ')) rest.remove_suffix(1);
  if (rest.empty()) return {};
  for (;;) {
    auto comma = rest.find(',');
    auto part = rest.substr(0, comma);
    int stride = 1;
    if (auto colon = part.find(':'); colon != std::string_view::npos) {
      stride = parse_int(part.substr(colon + 1), text);
      if (stride <= 0) throw std::invalid_argument(fmt::format("bad CPU list '{}': stride 0", text));
      part = part.substr(0, colon);
    }
    auto dash = part.find('-');
    int lo = parse_int(part.substr(0, dash), text);
    int hi = dash == std::string_view::npos ? lo : parse_int(part.substr(dash + 1), text);
    if (hi < lo) throw std::invalid_argument(fmt::format("bad CPU list '{}': range {}-{} is reversed", text, lo, hi));
    if (hi >= 1 << 16) throw std::invalid_argument(fmt::format("bad CPU list '{}': CPU {} is too large", text, hi));
    for (int c = lo; c <= hi; c += stride) cpus.insert(c);
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  return {cpus.begin(), cpus.end()};
}

std::string format_cpu_list(const std::vector<int>& in) {
  std::vector<int> cpus = in;
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  std::string out;
  for (std::size_t i = 0; i < cpus.size();) {
    std::size_t j = i;
    while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1) ++j;
    if (!out.empty()) out += ',';
    out += j == i ? fmt::format("{}", cpus[i]) : fmt::format("{}-{}", cpus[i], cpus[j]);
    i = j + 1;
  }
  return out;
}

}  // namespace kvmbench::host
