// `kvmbench fleet`: one `kvmbench run` on every device of a LAVA server
// whose tags hold the labels, through the server's REST API: a job per
// device from the lab's job template (lava_fleet_job.h), followed until each
// ends, each job's published run directories fetched from its log, checked,
// kept under --out and imported into the results database, then one report
// (analysis/views/fleet_view.h).
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/report/render/format.h"
#include "analysis/store/db/results_db.h"

namespace kvmbench::engine {

struct FleetRequest {
  std::vector<std::string> labels;
  std::string server;
  std::string token;  // read from --token-file; never printed
  std::string job_template, job_template_path;
  std::vector<std::string> command;           // after `--`
  std::map<std::string, std::string> params;  // --param KEY=VALUE
  std::filesystem::path out;                  // where the fetched runs go
  std::chrono::seconds timeout{3600};         // for all jobs, from the first submission
  std::chrono::milliseconds poll{5000};
  Format format = Format::text;
  bool dry_run = false;  // print each device's job, submit nothing
};

// Exit status: 0 every device's job gave its runs; 1 a job failed, timed
// out or gave nothing readable (the others' runs are kept and reported);
// 2 bad options, an unreachable server, a refused token, no device with
// the labels (nothing submitted); 130 interrupted (the submitted jobs are
// cancelled, what came back is kept).
// `open_db`: the results database the runs go into, or nullptr for none;
// called once, after the server has been asked and before any job is
// submitted.
int run_fleet(const FleetRequest& request, const std::function<db::ResultsDb*()>& open_db);

}  // namespace kvmbench::engine
