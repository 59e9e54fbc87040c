#include "suites/framework/param_text.h"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <stdexcept>

#include "analysis/model/units.h"
#include "suites/framework/errors.h"

namespace kvmbench::suites {

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t comma = text.find(',', pos);
    std::string item = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    if (!item.empty()) out.push_back(item);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return out;
}


const std::string& ParamText::text(const std::string& name) const {
  auto it = values_.find(name);
  if (it == values_.end()) throw std::logic_error("suite asked for undeclared parameter '" + name + "'");
  return it->second;
}

long long ParamText::integer(const std::string& name) const {
  const std::string& v = text(name);
  long long out = 0;
  auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (ec != std::errc() || p != v.data() + v.size())
    usage_error(fmt::format("parameter {}: '{}' is not an integer", name, v));
  return out;
}

double ParamText::number(const std::string& name) const {
  const std::string& v = text(name);
  try {
    std::size_t used = 0;
    double d = std::stod(v, &used);
    if (used == v.size() && std::isfinite(d)) return d;
  } catch (const std::invalid_argument&) {  // std::stod's: not a number
  } catch (const std::out_of_range&) {      // ... or not one a double holds
  }
  usage_error(fmt::format("parameter {}: '{}' is not a number", name, v));
}

unsigned long long ParamText::bytes(const std::string& name) const {
  const std::string& v = text(name);
  auto b = parse_bytes(v);
  if (!b) usage_error(fmt::format("parameter {}: '{}' is not a size (e.g. 4K, 1G, 2T)", name, v));
  return *b;
}

std::vector<std::string> ParamText::list(const std::string& name) const { return split_list(text(name)); }

bool ParamText::either(const std::string& name, const std::string& yes, const std::string& no) const {
  const std::string& v = text(name);
  if (v != yes && v != no) usage_error(fmt::format("parameter {}: '{}' is not {} or {}", name, v, yes, no));
  return v == yes;
}

}  // namespace kvmbench::suites
