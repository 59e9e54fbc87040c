// A preset's parameters as text (its defaults with the --set overrides),
// read once by the preset's `parse` into its own struct (suites/framework/suite.h).
// The readers turn a malformed value into ExitError(2) naming the parameter,
// so that a bad value stops the run before anything is measured.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace kvmbench::suites {

// Splits "a,b,c" into its non-empty items (a list parameter's value).
std::vector<std::string> split_list(const std::string& text);

class ParamText {
 public:
  explicit ParamText(std::map<std::string, std::string> values) : values_(std::move(values)) {}

  const std::map<std::string, std::string>& values() const { return values_; }

  // The text; std::logic_error for a parameter the preset does not declare.
  const std::string& text(const std::string& name) const;
  long long integer(const std::string& name) const;
  double number(const std::string& name) const;
  unsigned long long bytes(const std::string& name) const;  // "4K", "1G", "100M", "2T"
  // The non-empty items of a comma-separated list.
  std::vector<std::string> list(const std::string& name) const;
  // `name` is one of two words: true for `yes`, false for `no`.
  bool either(const std::string& name, const std::string& yes, const std::string& no) const;

 private:
  std::map<std::string, std::string> values_;
};

}  // namespace kvmbench::suites
