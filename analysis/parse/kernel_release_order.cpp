#include "analysis/parse/kernel_release_order.h"

#include <cctype>
#include <string>
#include <vector>

namespace kvmbench {

namespace {

bool digit(char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; }

// Reads the digits at s[i...] as a number (saturating: a release has no
// 20-digit component, but a hash-like suffix might).
unsigned long long read_number(std::string_view s, std::size_t& i) {
  unsigned long long v = 0;
  for (; i < s.size() && digit(s[i]); ++i) v = v > 1'000'000'000'000ull ? v : v * 10 + (s[i] - '0');
  return v;
}

// Natural order: runs of digits compare as numbers, the rest byte by byte.
int natural_compare(std::string_view a, std::string_view b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (digit(a[i]) && digit(b[j])) {
      const auto x = read_number(a, i), y = read_number(b, j);
      if (x != y) return x < y ? -1 : 1;
      continue;
    }
    if (a[i] != b[j]) return static_cast<unsigned char>(a[i]) < static_cast<unsigned char>(b[j]) ? -1 : 1;
    ++i, ++j;
  }
  return (i < a.size()) - (j < b.size());
}

struct Release {
  std::vector<unsigned long long> version;  // 6.9.1 -> {6, 9, 1}; empty when it starts with no number
  bool release_candidate = false;
  unsigned long long rc = 0;
  std::string_view rest;
};

Release parse(std::string_view s) {
  Release r;
  std::size_t i = 0;
  while (i < s.size() && digit(s[i])) {
    r.version.push_back(read_number(s, i));
    if (i + 1 < s.size() && s[i] == '.' && digit(s[i + 1])) ++i;
    else break;
  }
  if (s.substr(i, 3) == "-rc" && i + 3 < s.size() && digit(s[i + 3])) {
    i += 3;
    r.release_candidate = true;
    r.rc = read_number(s, i);
  }
  r.rest = s.substr(i);
  return r;
}

}  // namespace

int compare_kernel_releases(std::string_view a, std::string_view b) {
  const Release x = parse(a), y = parse(b);
  if (x.version.empty() != y.version.empty()) return x.version.empty() ? 1 : -1;
  // Missing components are 0: 6.9 = 6.9.0.
  for (std::size_t k = 0; k < std::max(x.version.size(), y.version.size()); ++k) {
    const auto u = k < x.version.size() ? x.version[k] : 0, v = k < y.version.size() ? y.version[k] : 0;
    if (u != v) return u < v ? -1 : 1;
  }
  if (x.release_candidate != y.release_candidate) return x.release_candidate ? -1 : 1;
  if (x.rc != y.rc) return x.rc < y.rc ? -1 : 1;
  return natural_compare(x.rest, y.rest);
}

}  // namespace kvmbench
