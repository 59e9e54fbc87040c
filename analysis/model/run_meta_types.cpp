#include "analysis/model/run_meta_types.h"

#include <fmt/format.h>

#include "analysis/model/host_meta_types.h"
#include "analysis/model/json_member_types.h"

namespace kvmbench {

namespace {

// As kvmbench writes them; a list's elements are never null.
constexpr MemberType kMembers[] = {
    {"suite", JsonKind::string, false},
    {"preset", JsonKind::string},
    {"source", JsonKind::string, false},
    {"status", JsonKind::string, false},
    {"hostname", JsonKind::string},
    {"start_time", JsonKind::string},
    {"end_time", JsonKind::string},
    {"tool_version", JsonKind::string},
    {"error", JsonKind::string},
    {"adaptive_stop", JsonKind::string},
    {"measured_repetitions", JsonKind::integer, false},
    {"invocation_seconds", JsonKind::number},
    {"parameters", JsonKind::object},
    {"host", JsonKind::object},
    {"metric_roles", JsonKind::object},
    {"skipped_parts", JsonKind::array},
    {"skipped_parts[]", JsonKind::object, false},
    {"skipped_parts[].part", JsonKind::string},
    {"skipped_parts[].reason", JsonKind::string},
    {"skipped_parts[].not_offered", JsonKind::boolean},
    {"not_measured", JsonKind::array},
    {"not_measured[]", JsonKind::object, false},
    {"not_measured[].case", JsonKind::string},
    {"not_measured[].message", JsonKind::string},
    {"not_measured[].file", JsonKind::string},
    {"gbench_aggregates", JsonKind::array},
    {"gbench_aggregates[]", JsonKind::object, false},
    {"gbench_aggregates[].case", JsonKind::string},
    {"gbench_aggregates[].metric", JsonKind::string},
    {"gbench_aggregates[].aggregate", JsonKind::string},
    {"gbench_aggregates[].file", JsonKind::string},
    {"host_changes", JsonKind::array},
    {"host_changes[]", JsonKind::object, false},
    {"host_changes[].kind", JsonKind::string},
    {"host_changes[].path", JsonKind::string},
    {"host_changes[].old", JsonKind::string},
    {"host_changes[].new", JsonKind::string},
    {"host_changes[].set_at", JsonKind::string},
    {"host_changes[].restored_at", JsonKind::string},
    {"stability_warnings", JsonKind::array},
    {"stability_warnings[]", JsonKind::string, false},
    {"inputs", JsonKind::array},
    {"inputs[]", JsonKind::object, false},
    {"inputs[].file", JsonKind::string},
    {"inputs[].raw", JsonKind::string},
    {"inputs[].format", JsonKind::string},
};

}  // namespace

std::optional<std::string> run_meta_type_problem(const nlohmann::json& meta) {
  if (!meta.is_object()) return fmt::format("meta.json is {} where an object belongs", meta.type_name());
  if (auto p = member_type_problem(meta, kMembers)) return p;
  if (meta.contains("host"))
    if (auto p = host_meta_type_problem(meta["host"])) return "\"host\"." + *p;
  return std::nullopt;
}

}  // namespace kvmbench
