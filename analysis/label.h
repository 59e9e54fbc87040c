// Label: an immutable text kept once per process (interned). A sample's
// case, variant, metric and unit are labels: a long kernel log has
// hundreds of thousands of samples that repeat a few dozen texts, and as
// std::strings each sample allocated, copied, hashed and compared them
// again. A Label is one pointer: copied without allocating, equal exactly
// when the pointers are, hashed by address, and it keeps its text's JSON
// string literal, made once, for samples.jsonl.
//
// It reads like a const std::string (comparisons, size, find, fmt and
// nlohmann see its text); it is assigned from any text. Interned texts live
// until the process ends: a run's labels, not its values.
#pragma once

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <compare>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace kvmbench {

class Label {
 public:
  struct Entry {
    std::string text;
    std::string json;  // the text as a JSON string literal, quotes included
    std::size_t hash;  // of text, as the pool hashes it
  };

  Label() : e_(empty_entry()) {}
  Label(std::string_view text) : e_(intern(text)) {}  // NOLINT: labels are written as text
  Label(const std::string& text) : Label(std::string_view(text)) {}
  Label(const char* text) : Label(std::string_view(text)) {}

  const std::string& str() const { return e_->text; }
  operator const std::string&() const { return e_->text; }  // NOLINT
  operator std::string_view() const { return e_->text; }    // NOLINT
  std::string_view json() const { return e_->json; }

  std::size_t size() const { return e_->text.size(); }
  bool empty() const { return e_->text.empty(); }
  bool starts_with(std::string_view p) const { return std::string_view(e_->text).starts_with(p); }
  std::size_t find(std::string_view t, std::size_t pos = 0) const { return e_->text.find(t, pos); }
  std::size_t find(char c, std::size_t pos = 0) const { return e_->text.find(c, pos); }
  std::size_t rfind(std::string_view t, std::size_t pos = std::string::npos) const { return e_->text.rfind(t, pos); }
  std::string substr(std::size_t pos, std::size_t n = std::string::npos) const { return e_->text.substr(pos, n); }

  // The same text is the same entry: equal labels have equal addresses.
  const Entry* id() const { return e_; }

  friend bool operator==(const Label& a, const Label& b) { return a.e_ == b.e_; }
  friend bool operator==(const Label& a, std::string_view b) { return std::string_view(a.e_->text) == b; }
  friend bool operator==(const Label& a, const std::string& b) { return a.e_->text == b; }
  friend bool operator==(const Label& a, const char* b) { return std::string_view(a.e_->text) == b; }
  friend std::strong_ordering operator<=>(const Label& a, const Label& b) {
    return a.e_ == b.e_ ? std::strong_ordering::equal : a.e_->text.compare(b.e_->text) <=> 0;
  }
  friend std::strong_ordering operator<=>(const Label& a, std::string_view b) {
    return std::string_view(a.e_->text).compare(b) <=> 0;
  }
  friend std::string operator+(const Label& a, std::string_view b) { return a.e_->text + std::string(b); }
  friend std::string operator+(std::string_view a, const Label& b) { return std::string(a) + b.e_->text; }
  friend std::string operator+(const Label& a, const Label& b) { return a.e_->text + b.e_->text; }
  friend std::string operator+(const Label& a, const char* b) { return a.e_->text + b; }
  friend std::string operator+(const char* a, const Label& b) { return a + b.e_->text; }
  friend std::string operator+(const Label& a, char b) { return a.e_->text + b; }
  friend std::string operator+(const std::string& a, const Label& b) { return a + b.e_->text; }
  friend std::string operator+(const Label& a, const std::string& b) { return a.e_->text + b; }
  friend std::ostream& operator<<(std::ostream& o, const Label& l) { return o << l.e_->text; }

 private:
  static const Entry* intern(std::string_view text);
  static const Entry* empty_entry();
  const Entry* e_;
};

inline void to_json(nlohmann::json& j, const Label& l) { j = l.str(); }
inline void from_json(const nlohmann::json& j, Label& l) { l = Label(j.get_ref<const std::string&>()); }

}  // namespace kvmbench

template <>
struct std::hash<kvmbench::Label> {
  std::size_t operator()(const kvmbench::Label& l) const { return std::hash<const void*>()(l.id()); }
};

template <>
struct fmt::formatter<kvmbench::Label> : fmt::formatter<std::string_view> {
  template <typename Ctx>
  auto format(const kvmbench::Label& l, Ctx& ctx) const {
    return fmt::formatter<std::string_view>::format(std::string_view(l.str()), ctx);
  }
};
