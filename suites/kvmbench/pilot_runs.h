// The pilot of `kvmbench plan` and `ab --plan`: runs of one suite on one
// machine, each one boot, read from run directories, an ab experiment's
// state directory (the finished boots of one side) or the results
// database; and the plan they give, its refusals exit 2.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/store/run_store.h"
#include "analysis/verdicts/pilot_plan.h"

namespace kvmbench::cli {

// Run directories (or directories of runs) and ab state directories, each
// read whole; exit 2 naming a path that is none of those or a run that is
// short or malformed.
std::vector<Run> pilot_runs(const std::vector<std::string>& inputs, const std::string& side);
// The database's complete runs of the suite on the machine (a fingerprint,
// 4+ of its leading characters or a host name; "": this one), of the
// newest run's kernel and preset.
std::vector<Run> db_pilot(const std::optional<std::string>& db, const std::string& suite, std::string machine);
// This machine's fingerprint; exit 77 when its metadata does not name its CPU.
std::string this_machine();
// plan_from_pilot, its refusals (two suites or machines, one boot, ...) exit 2.
PilotPlan checked_plan(const std::vector<Run>& runs, const PilotPlanOptions& options);

}  // namespace kvmbench::cli
