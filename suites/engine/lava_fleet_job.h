// The LAVA job `kvmbench fleet` submits for one device: the lab's job
// template (lab-jobs/lava/kvmbench-job.yaml or the lab's own copy) with the
// labels as its device tags, a name that says what it is for, and the
// kvmbench test definition's parameters (SUITE, PRESET, RUN_ARGS, REQUIRE,
// and any --param) taken from the command after `--`.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace kvmbench::engine {

// `kvmbench fleet ... -- run SUITE [--preset P] [ARGS...]` as the test
// definition's parameters. Throws std::invalid_argument (exit 2) for what the
// test definition cannot carry: not a `run`, no suite, an argument with
// white space (RUN_ARGS is word-split on the device), an option the job
// sets itself (--out, --wait-lock), --replay (nothing to run on a device).
std::map<std::string, std::string> testdef_parameters(const std::vector<std::string>& command);

struct FleetJobTemplate {
  std::string yaml;         // as read
  std::string device_type;  // its device_type
};

// Reads and checks a template: YAML with a device_type and a test action
// holding the kvmbench test definition (a definition named "kvmbench" or
// whose path ends in kvmbench-testdef.yaml). Throws std::invalid_argument
// naming what is missing.
FleetJobTemplate parse_fleet_job_template(const std::string& yaml, const std::string& label);

// The job to submit: the template with top-level `tags` replaced by
// `labels`, `job_name` set, and `parameters` merged into the kvmbench test
// definition's (replacing the template's values of the same name).
std::string render_fleet_job(const FleetJobTemplate& job, const std::vector<std::string>& labels,
                             const std::string& job_name, const std::map<std::string, std::string>& parameters);

}  // namespace kvmbench::engine
