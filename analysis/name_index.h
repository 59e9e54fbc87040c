// Numbers the distinct names of a long run of samples in first-seen order.
// A dense kernel log's samples cycle through a few names (a conversion's
// case, a group's metrics) among hundreds of thousands of lookups: the
// names answered last are asked first, by length and bytes, and only the
// others are hashed.
#pragma once

#include <array>
#include <cstddef>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace kvmbench {

class NameIndex {
 public:
  // The number of `name` (a view that must outlive the index), and whether
  // it was new.
  std::pair<std::size_t, bool> find_or_add(std::string_view name) {
    for (std::size_t k = 0; k < recent_used_; ++k)
      if (same(recent_[k].first, name)) return {recent_[k].second, false};
    auto [it, fresh] = all_.try_emplace(name, all_.size());
    recent_[recent_next_] = {name, it->second};
    recent_next_ = (recent_next_ + 1) % recent_.size();
    if (recent_used_ < recent_.size()) ++recent_used_;
    return {it->second, fresh};
  }
  std::size_t size() const { return all_.size(); }

 private:
  // Numbered names ("group=1041", "group=1042") share length and prefix:
  // their last byte tells most of them apart before a full compare.
  static bool same(std::string_view a, std::string_view b) {
    return a.size() == b.size() && (a.empty() || a.back() == b.back()) && a == b;
  }
  std::unordered_map<std::string_view, std::size_t> all_;
  std::array<std::pair<std::string_view, std::size_t>, 8> recent_{};
  std::size_t recent_used_ = 0, recent_next_ = 0;
};

}  // namespace kvmbench
