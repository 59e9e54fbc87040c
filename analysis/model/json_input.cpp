#include "analysis/model/json_input.h"

#include "analysis/model/printable.h"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>
#include <unordered_set>
#include <utility>
#include <vector>

namespace kvmbench {

namespace {

// A character iterator that counts the newlines the lexer has read, so that
// a refusal can name the line it happened on. nlohmann reads each character
// once (it keeps its own one-character push-back).
class LineCountingIterator {
 public:
  using iterator_category = std::forward_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  LineCountingIterator() = default;
  LineCountingIterator(const char* at, std::size_t* newlines) : at_(at), newlines_(newlines) {}
  reference operator*() const { return *at_; }
  LineCountingIterator& operator++() {
    if (*at_ == '\n') ++*newlines_;
    ++at_;
    return *this;
  }
  LineCountingIterator operator++(int) {
    LineCountingIterator was = *this;
    ++*this;
    return was;
  }
  bool operator==(const LineCountingIterator& o) const { return at_ == o.at_; }
  bool operator!=(const LineCountingIterator& o) const { return at_ != o.at_; }

 private:
  const char* at_ = nullptr;
  std::size_t* newlines_ = nullptr;
};

std::string shown_key(const std::string& key) {
  constexpr std::size_t kShown = 80;
  return key.size() <= kShown ? printable(key) : printable(key.substr(0, kShown)) + "...";
}

}  // namespace

JsonInputError::JsonInputError(std::size_t l, std::string r)
    : std::runtime_error(fmt::format("line {}: {}", l, r)), line(l), reason(std::move(r)) {}

void refuse_nul_bytes(std::string_view text) {
  const std::size_t nul = text.find('\0');
  if (nul == std::string_view::npos) return;
  const std::string_view before = text.substr(0, nul);
  const std::size_t line_start = before.rfind('\n');
  throw JsonInputError(
      static_cast<std::size_t>(std::count(before.begin(), before.end(), '\n')) + 1,
      fmt::format("a NUL byte at offset {} (column {}): JSON holds none, and what follows it would go unread", nul,
                  line_start == std::string_view::npos ? nul + 1 : nul - line_start));
}

nlohmann::json parse_json_input(std::string_view text) {
  refuse_nul_bytes(text);
  std::size_t newlines = 0;
  // The keys met so far in each object still open, by its depth; a set is
  // kept (cleared, not freed) per depth so that a line of a JSON-lines file
  // allocates little.
  std::vector<std::unordered_set<std::string>> keys;
  const auto check = [&](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    if (event == Event::object_start || event == Event::array_start) {
      // `depth` is the number of values open around this one.
      if (depth + 1 > kMaxJsonDepth)
        throw JsonInputError(newlines + 1, fmt::format("JSON nested more than {} levels deep (the most kvmbench "
                                                       "reads; a file it can use is far shallower)",
                                                       kMaxJsonDepth));
      if (event == Event::object_start) {
        if (keys.size() <= static_cast<std::size_t>(depth)) keys.resize(depth + 1);
        keys[depth].clear();
      }
    } else if (event == Event::key) {
      // A key is reported one level inside the object it belongs to.
      auto& seen = keys[depth - 1];
      if (!seen.insert(parsed.get_ref<const std::string&>()).second)
        throw JsonInputError(newlines + 1,
                             fmt::format("key \"{}\" given twice in one JSON object (which one is meant?)",
                                         shown_key(parsed.get_ref<const std::string&>())));
    }
    return true;
  };
  try {
    return nlohmann::json::parse(LineCountingIterator(text.data(), &newlines),
                                 LineCountingIterator(text.data() + text.size(), &newlines), check);
  } catch (const nlohmann::json::out_of_range& e) {
    // 406: a number beyond a double's range ("1e309"), which nlohmann
    // reports as out_of_range rather than as a parse error.
    if (e.id != 406) throw;
    const std::string_view what = e.what();
    const std::size_t from = what.find("parsing '");
    const std::string number =
        from == std::string_view::npos ? "" : std::string(what.substr(from + 9, what.rfind('\'') - from - 9));
    throw JsonInputError(newlines + 1, fmt::format("number {} is beyond the range of a double", printable(number)));
  }
}

nlohmann::json parse_json_input_or_discarded(std::string_view text) {
  try {
    return parse_json_input(text);
  } catch (const JsonInputError&) {
  } catch (const nlohmann::json::exception&) {
  }
  return nlohmann::json(nlohmann::json::value_t::discarded);
}

std::size_t json_depth(const nlohmann::json& value) {
  std::size_t deepest = 0;
  std::vector<std::pair<const nlohmann::json*, std::size_t>> open{{&value, 0}};
  while (!open.empty()) {
    const auto [v, above] = open.back();
    open.pop_back();
    if (!v->is_structured()) continue;
    deepest = std::max(deepest, above + 1);
    for (const auto& child : *v) open.emplace_back(&child, above + 1);
  }
  return deepest;
}

std::string json_input_message(const JsonInputError& e, std::string_view file, std::size_t first_line) {
  return fmt::format("{}:{}: {}", file, first_line + e.line - 1, e.reason);
}

}  // namespace kvmbench
