#include "analysis/metric_roles.h"

#include <fmt/format.h>

#include <stdexcept>

namespace kvmbench {

std::string MetricRoles::derived_from(std::string_view metric) const {
  auto it = derived.find(std::string(metric));
  return it == derived.end() ? std::string() : it->second;
}

nlohmann::json MetricRoles::to_json() const {
  nlohmann::json j = {{"derived", derived}};
  if (!repetition.empty()) j["repetition"] = repetition;
  return j;
}

MetricRoles MetricRoles::from_json(const nlohmann::json& j) {
  MetricRoles r;
  if (j.is_null()) return r;
  if (!j.is_object()) throw std::runtime_error("metric_roles is not an object");
  if (j.contains("derived") && !j["derived"].is_null()) {
    if (!j["derived"].is_object()) throw std::runtime_error("metric_roles.derived is not an object");
    for (auto& [k, v] : j["derived"].items()) {
      if (!v.is_string()) throw std::runtime_error(fmt::format("metric_roles.derived.{} is not a metric name", k));
      r.derived[k] = v.get<std::string>();
    }
  }
  if (j.contains("repetition")) {
    if (!j["repetition"].is_string()) throw std::runtime_error("metric_roles.repetition is not text");
    r.repetition = j["repetition"].get<std::string>();
  }
  return r;
}

MetricRoles merge_roles(const MetricRoles& a, const MetricRoles& b) {
  MetricRoles r = a;
  for (auto& [k, v] : b.derived) r.derived.try_emplace(k, v);
  if (a.repetition.empty()) r.repetition = b.repetition;
  else if (!b.repetition.empty() && b.repetition != a.repetition) r.repetition.clear();
  return r;
}

}  // namespace kvmbench
