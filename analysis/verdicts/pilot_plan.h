// `kvmbench plan`: from a pilot (runs of one suite on one machine, each run
// one boot), the boots x repetitions a side that an A/B experiment needs to
// find a regression of a target size (the MDE) with a given power, in the
// least time.
//
// Per primary metric: the pilot's variance components (between boots,
// between repetitions of a boot, within a repetition: Kalibera and Jones,
// ISMM 2013; stats/variance_components.h), of the logs of a positive
// metric (a regression of M % is then a shift of ln(1 + M/100)), of the
// values otherwise (M % of the pilot's mean); then the cheapest design
// whose Welch test (two-sided at alpha, so one-sided alpha/2 towards the
// regression) finds that shift with `power` (stats/t_power.h). The cost
// is the pilot's: a repetition's mean seconds, and a boot's seconds beyond
// its repetitions (the process's start-up and set-up; a reboot or kexec
// costs more than the run records, hence extra_boot_s). The design for the
// experiment as a whole is the cheapest one that reaches the target in
// every primary metric at once (every metric is measured in every
// repetition).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "analysis/model/series_key.h"
#include "analysis/stats/variance_components.h"
#include "analysis/store/run_store.h"

namespace kvmbench {

struct PilotPlanOptions {
  double mde_pct = 5;        // the regression to find, percent
  double power = 0.95;
  double alpha = 0.05;       // the test's, two-sided
  double extra_boot_s = 0;   // a boot's cost beyond what the runs record (reboot, kexec)
  std::size_t most_boots = 100, most_repetitions = 100;  // a side; per boot
};

struct MetricPlan {
  SeriesKey key;
  bool log_scale = true;  // components of the logs (positive values)
  double mean = 0;        // the pilot's mean of the boot means
  stats::VarianceComponents components;
  double target_shift = 0;      // on the components' scale
  std::optional<stats::Plan> plan;  // nullopt: out of reach within the limits
};

struct PilotPlan {
  std::string suite, machine, hostname;
  std::size_t boots = 0;                  // in the pilot
  double repetition_s = 0, boot_s = 0;    // the costs used
  PilotPlanOptions options;
  std::vector<MetricPlan> metrics;        // primary ones, in first-seen order
  std::optional<stats::Plan> overall;     // every metric at once (its detectable_shift: the largest)
  std::vector<std::string> notes;
};

// The pilot's runs (loaded; one boot each). Throws std::invalid_argument
// with the reason, naming the runs, for: fewer than 2 runs; runs of
// different suites or machines (or of a machine the metadata does not
// name); an emulated or model source (no performance figure); a run that
// did not complete; runs that did not record their seconds
// (repetition_seconds, invocation_seconds); no primary metric; an MDE or
// power out of range.
PilotPlan plan_from_pilot(const std::vector<Run>& runs, const PilotPlanOptions& opt);

}  // namespace kvmbench
