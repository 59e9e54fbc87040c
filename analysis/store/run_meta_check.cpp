#include "analysis/store/run_meta_check.h"

#include "analysis/model/metric_roles.h"
#include "analysis/model/result_model.h"
#include "analysis/model/run_meta_types.h"

namespace kvmbench {

std::optional<std::string> run_meta_problem(const nlohmann::json& meta) {
  if (!meta.is_object()) return "not a JSON object";
  if (auto problem = run_meta_type_problem(meta)) return problem;
  if (!meta.contains("source") || !meta["source"].is_string() || !parse_source(meta["source"].get<std::string>()))
    return "missing or unknown 'source'";
  if (meta.contains("metric_roles")) try {
      MetricRoles::from_json(meta["metric_roles"]);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
  return std::nullopt;
}

}  // namespace kvmbench
