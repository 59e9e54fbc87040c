// Numbers the distinct labels of a long run of samples in first-seen order.
// A dense kernel log's samples cycle through a few labels (a conversion's
// case, a group's metrics) among hundreds of thousands of lookups: the
// labels answered last are asked first, and only the others are hashed,
// all by address (a Label is its interned entry).
#pragma once

#include <array>
#include <cstddef>
#include <unordered_map>
#include <utility>

#include "analysis/label.h"

namespace kvmbench {

class LabelIndex {
 public:
  // The number of `label`, and whether it was new.
  std::pair<std::size_t, bool> find_or_add(const Label& label) {
    const Label::Entry* id = label.id();
    for (std::size_t k = 0; k < recent_used_; ++k)
      if (recent_[k].first == id) return {recent_[k].second, false};
    auto [it, fresh] = all_.try_emplace(id, all_.size());
    recent_[recent_next_] = {id, it->second};
    recent_next_ = (recent_next_ + 1) % recent_.size();
    if (recent_used_ < recent_.size()) ++recent_used_;
    return {it->second, fresh};
  }
  std::size_t size() const { return all_.size(); }

 private:
  std::unordered_map<const Label::Entry*, std::size_t> all_;
  std::array<std::pair<const Label::Entry*, std::size_t>, 8> recent_{};
  std::size_t recent_used_ = 0, recent_next_ = 0;
};

}  // namespace kvmbench
