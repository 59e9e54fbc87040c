#include "analysis/model/flatten_json.h"

#include <fmt/format.h>

#include <algorithm>

namespace kvmbench {

namespace {

std::string scalar_text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "null";
  return v.dump();
}

void flatten_into(const nlohmann::json& j, const std::string& prefix,
                  std::vector<std::pair<std::string, std::string>>& out) {
  if (j.is_object()) {
    if (j.empty() && !prefix.empty()) out.emplace_back(prefix, "{}");
    for (auto& [k, v] : j.items()) flatten_into(v, prefix.empty() ? k : prefix + "." + k, out);
  } else if (j.is_array()) {
    bool all_scalar = std::all_of(j.begin(), j.end(), [](auto& e) { return e.is_primitive(); });
    if (all_scalar) {
      std::string joined;
      for (auto& e : j) joined += (joined.empty() ? "" : " ") + scalar_text(e);
      out.emplace_back(prefix, joined);
    } else {
      for (std::size_t i = 0; i < j.size(); ++i) flatten_into(j[i], fmt::format("{}[{}]", prefix, i), out);
    }
  } else {
    out.emplace_back(prefix, scalar_text(j));
  }
}

}  // namespace

std::vector<std::pair<std::string, std::string>> flatten_json(const nlohmann::json& j) {
  std::vector<std::pair<std::string, std::string>> out;
  flatten_into(j, "", out);
  return out;
}

}  // namespace kvmbench
