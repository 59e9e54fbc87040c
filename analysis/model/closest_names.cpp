#include "analysis/model/closest_names.h"

#include <algorithm>

namespace kvmbench {

namespace {

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// `prefix` begins `s` and is shorter, ignoring ASCII case.
bool cut_short(std::string_view prefix, std::string_view s) {
  if (prefix.empty() || prefix.size() >= s.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i)
    if (lower(prefix[i]) != lower(s[i])) return false;
  return true;
}

}  // namespace

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // d[i][j]: edits between a's first i and b's first j characters; three
  // rows are enough (a swap looks two rows back).
  const std::size_t n = b.size();
  std::vector<std::size_t> before(n + 1), prev(n + 1), cur(n + 1);
  for (std::size_t j = 0; j <= n; ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= n; ++j) {
      const bool same = lower(a[i - 1]) == lower(b[j - 1]);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (same ? 0 : 1)});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1]))
        cur[j] = std::min(cur[j], before[j - 2] + 1);
    }
    std::swap(before, prev);
    std::swap(prev, cur);
  }
  return prev[n];
}

std::vector<std::string> closest_names(std::string_view name, const std::vector<std::string>& candidates,
                                       std::size_t most) {
  if (name.empty() || std::find(candidates.begin(), candidates.end(), name) != candidates.end()) return {};
  const std::size_t within = std::min(std::max<std::size_t>(2, name.size() / 3), name.size() - 1);
  struct Near {
    std::size_t edits;
    std::size_t order;
  };
  std::vector<Near> near;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const std::size_t d = edit_distance(name, candidates[i]);
    if (d <= within || cut_short(name, candidates[i])) near.push_back({d, i});
  }
  if (near.empty()) return {};
  const std::size_t best = std::min_element(near.begin(), near.end(), [](const Near& x, const Near& y) {
                             return x.edits < y.edits;
                           })->edits;
  std::vector<std::string> out;
  for (const Near& x : near)
    if (x.edits == best && out.size() < most) out.push_back(candidates[x.order]);
  return out;
}

std::string did_you_mean(const std::vector<std::string>& names) {
  if (names.empty()) return "";
  std::string out = "did you mean ";
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " or " : ", ";
    out += "'" + names[i] + "'";
  }
  return out + "?";
}

std::string did_you_mean(std::string_view name, const std::vector<std::string>& candidates) {
  return did_you_mean(closest_names(name, candidates));
}

}  // namespace kvmbench
