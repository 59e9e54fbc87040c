// The LAVA job `kvmbench fleet` submits for one device: the lab's job
// template (lab-jobs/lava/kvmbench-job.yaml or the lab's own copy) with the
// labels as its device tags, a name that says what it is for, and the
// kvmbench test definition's parameters (SUITE, PRESET, RUN_ARGS, REQUIRE,
// and any --param) taken from the command after `--`.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace kvmbench::engine {

// `kvmbench fleet ... -- run SUITE [--preset P] [ARGS...]` as the test
// definition's parameters. Throws std::invalid_argument (exit 2) for what the
// test definition cannot carry: not a `run`, no suite, an argument with
// white space (RUN_ARGS is word-split on the device), an option the job
// sets itself (--out, --wait-lock), --replay (nothing to run on a device).
std::map<std::string, std::string> testdef_parameters(const std::vector<std::string>& command);

// `kvmbench fleet ... -- ab --base URL --cand URL [-n N] [--max-regression
// M] [--alpha A] [--base-modules URL --cand-modules URL] -- run SUITE ...`:
// the two kernels LAVA deploys (their images' URLs, as the job template's
// deploy action names its kernel), and ab's verdict options. LAVA boots
// them in the ABBA order within one job per device.
struct FleetAb {
  std::string base_kernel, cand_kernel, base_modules, cand_modules;
  int n = 3;  // boots a side
  double max_regression_pct = 0, alpha = 0.05;
};

struct FleetCommand {
  std::optional<FleetAb> ab;
  std::map<std::string, std::string> parameters;  // the test definition's (testdef_parameters)
};

// Either form. Throws std::invalid_argument naming what `ab` cannot do
// through LAVA: -n auto (the boots are fixed when the job is submitted),
// kernel command line appends (the template's boot action owns the
// command line), an order other than ABBA, a kernel that is not a URL.
FleetCommand parse_fleet_command(const std::vector<std::string>& command);

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

// The A/B job: the template's actions (deploy, boot, test) once per boot in
// ab's ABBA order of 2n boots, each deploy with its side's kernel (and
// modules), each kvmbench test definition told its step ("3 cand" in
// FLEET_STEP, which it prints beside the runs it publishes), the job's
// timeout 2n times the template's. Throws std::invalid_argument when the
// template deploys no kernel by URL, or modules that --base-modules and
// --cand-modules do not replace.
std::string render_fleet_ab_job(const FleetJobTemplate& job, const std::vector<std::string>& labels,
                                const std::string& job_name, const std::map<std::string, std::string>& parameters,
                                const FleetAb& ab);

}  // namespace kvmbench::engine
