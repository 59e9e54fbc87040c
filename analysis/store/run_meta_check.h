// What every reader of a run refuses in its meta.json (report, compare,
// gate, merge, export read it through run_store.h's load_run; db import
// through run_record.h): one check, so that the database holds no run that
// `report` of its directory would refuse.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace kvmbench {

// Why `meta` is no run's meta.json, worded to follow "meta.json: ": not an
// object, a member kvmbench reads of another type than it writes
// (run_meta_types.h: a numeric "preset"), no known "source", or
// "metric_roles" that do not read (metric_roles.h). nullopt when it is one.
std::optional<std::string> run_meta_problem(const nlohmann::json& meta);

}  // namespace kvmbench
