// A run's samples under the name its reports and messages give it: the
// input of a suite's several-runs report (suites/framework/suite.h, tables_of_runs).
#pragma once

#include <string>
#include <vector>

#include "analysis/model/result_model.h"

namespace kvmbench::suites {

struct NamedRun {
  std::string name;  // the run directory's name, for rows and messages
  std::vector<Sample> samples;
  std::string source;  // "hardware", "replay", ...
  std::string kernel = {};  // the release it ran on (meta.json host.kernel.release), "" when unknown
};

}  // namespace kvmbench::suites
