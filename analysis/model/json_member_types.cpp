#include "analysis/model/json_member_types.h"

#include <fmt/format.h>

#include <utility>
#include <vector>

#include "analysis/model/printable.h"

namespace kvmbench {

namespace {

std::string_view name_of(JsonKind k) {
  switch (k) {
    case JsonKind::string: return "a string";
    case JsonKind::number: return "a number";
    case JsonKind::integer: return "a whole number";
    case JsonKind::boolean: return "true or false";
    case JsonKind::object: return "an object";
    case JsonKind::array: return "an array";
  }
  return "?";
}

bool is(const nlohmann::json& v, JsonKind k) {
  switch (k) {
    case JsonKind::string: return v.is_string();
    case JsonKind::number: return v.is_number();
    case JsonKind::integer: return v.is_number_integer();
    case JsonKind::boolean: return v.is_boolean();
    case JsonKind::object: return v.is_object();
    case JsonKind::array: return v.is_array();
  }
  return false;
}

using Found = std::vector<std::pair<std::string, const nlohmann::json*>>;

// The values at `path` below `at`, with their names as a message writes
// them.
void values_at(const nlohmann::json& at, std::string_view path, const std::string& shown, Found& out) {
  if (path.empty()) {
    out.emplace_back(shown, &at);
    return;
  }
  const std::size_t dot = path.find('.');
  std::string_view step = path.substr(0, dot);
  const std::string_view rest = dot == std::string_view::npos ? std::string_view() : path.substr(dot + 1);
  const bool each = step.ends_with("[]");
  if (each) step.remove_suffix(2);
  const auto go = [&](const nlohmann::json& v, const std::string& name) {
    if (!each) return values_at(v, rest, name, out);
    if (!v.is_array()) return;
    for (std::size_t i = 0; i < v.size(); ++i) values_at(v[i], rest, fmt::format("{}[{}]", name, i), out);
  };
  if (!at.is_object()) return;
  const std::string dotted = shown.empty() ? "" : shown + ".";
  if (step == "*") {
    for (const auto& [k, v] : at.items()) go(v, fmt::format("{}\"{}\"", dotted, printable(k)));
    return;
  }
  if (const auto it = at.find(step); it != at.end()) go(*it, fmt::format("{}\"{}\"", dotted, step));
}

}  // namespace

std::optional<std::string> member_type_problem(const nlohmann::json& doc, std::span<const MemberType> members) {
  for (const MemberType& m : members) {
    Found found;
    values_at(doc, m.path, "", found);
    for (const auto& [name, v] : found)
      if (!is(*v, m.kind) && !(m.nullable && v->is_null()))
        return fmt::format("{} is {} where {} belongs", name, v->type_name(), name_of(m.kind));
  }
  return std::nullopt;
}

}  // namespace kvmbench
