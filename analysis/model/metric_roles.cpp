#include "analysis/model/metric_roles.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace kvmbench {

std::string MetricRoles::derived_from(std::string_view metric) const {
  auto it = derived.find(std::string(metric));
  return it == derived.end() ? std::string() : it->second;
}

bool MetricRoles::is_monitor(std::string_view metric) const {
  for (const auto& source : monitor)
    if (metric.size() > source.size() + 1 && metric.starts_with(source) && metric[source.size()] == '.') return true;
  return false;
}

bool MetricRoles::is_primary(std::string_view metric) const {
  if (is_monitor(metric)) return false;
  if (primary.empty()) return !is_derived(metric);
  return std::find(primary.begin(), primary.end(), metric) != primary.end();
}

nlohmann::json MetricRoles::to_json() const {
  nlohmann::json j = {{"primary", primary}, {"derived", derived}};
  if (!repetition.empty()) j["repetition"] = repetition;
  if (!monitor.empty()) j["monitor"] = monitor;
  return j;
}

MetricRoles MetricRoles::from_json(const nlohmann::json& j) {
  MetricRoles r;
  if (j.is_null()) return r;
  if (!j.is_object()) throw std::runtime_error("metric_roles is not an object");
  if (j.contains("primary") && !j["primary"].is_null()) {
    if (!j["primary"].is_array()) throw std::runtime_error("metric_roles.primary is not a list");
    for (auto& v : j["primary"]) {
      if (!v.is_string()) throw std::runtime_error("metric_roles.primary holds something that is not a metric name");
      r.primary.push_back(v.get<std::string>());
    }
  }
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
  if (j.contains("monitor") && !j["monitor"].is_null()) {
    if (!j["monitor"].is_array()) throw std::runtime_error("metric_roles.monitor is not a list");
    for (auto& v : j["monitor"]) {
      if (!v.is_string() || v.get<std::string>().empty())
        throw std::runtime_error("metric_roles.monitor holds something that is not a monitor source name");
      r.monitor.push_back(v.get<std::string>());
    }
  }
  return r;
}

MetricRoles merge_roles(const MetricRoles& a, const MetricRoles& b) {
  MetricRoles r = a;
  for (auto& p : b.primary)
    if (std::find(r.primary.begin(), r.primary.end(), p) == r.primary.end()) r.primary.push_back(p);
  for (auto& [k, v] : b.derived) r.derived.try_emplace(k, v);
  for (auto& m : b.monitor)
    if (std::find(r.monitor.begin(), r.monitor.end(), m) == r.monitor.end()) r.monitor.push_back(m);
  if (a.repetition.empty()) r.repetition = b.repetition;
  else if (!b.repetition.empty() && b.repetition != a.repetition) r.repetition.clear();
  return r;
}

}  // namespace kvmbench
