// kvmbench fleet --labels L1,L2 --server URL --token-file F --job JOB.yaml
// [--param K=V]... [--out DIR] [--db DB] [--timeout S] -- run SUITE ...:
// one run on every device of a LAVA server whose tags hold the labels, one
// report (suites/engine/fleet_driver.h). The options are parsed here.
#include <fmt/format.h>

#include <fstream>
#include <memory>
#include <sstream>

#include "analysis/report/render/format.h"
#include "suites/engine/fleet_driver.h"
#include "suites/framework/errors.h"
#include "suites/kvmbench/commands.h"
#include "suites/kvmbench/db_option.h"

namespace kvmbench::cli {

namespace {

std::string read_whole(const std::string& path, const char* what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) usage_error(fmt::format("{} {}: cannot be read", what, path));
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

void add_fleet_command(CLI::App& app) {
  struct Opts {
    std::string labels, token_file, engine = "lava", format = "text", out = "results/runs";
    std::vector<std::string> params;
    int timeout_s = 3600;
    int poll_s = 5;
    std::optional<std::string> db;
    bool dry_run = false;
  };
  auto o = std::make_shared<Opts>();
  auto r = std::make_shared<engine::FleetRequest>();
  auto* cmd = app.add_subcommand(
      "fleet", "Run one kvmbench command on every LAVA device whose tags hold the labels, and report once");
  cmd->footer(
      "Exit status: 0 every device's job gave its runs (with ab: and every verdict passed); 1 a job failed, timed "
      "out or gave nothing readable (the other devices' runs are kept and reported), or with ab a device's "
      "candidate regressed; 3 with ab, a device's verdict inconclusive; 2 a bad option, an unreachable server, a "
      "refused token or no device with the labels (nothing submitted); 130 interrupted (the jobs still running "
      "are cancelled).");
  cmd->add_option("--labels", o->labels, "device tags a device must all have, comma-separated (capability labels)")
      ->required();
  cmd->add_option("--engine", o->engine, "the lab engine: lava (the only one so far)")
      ->capture_default_str()
      ->check(CLI::IsMember({"lava"}));
  cmd->add_option("--server", r->server, "the LAVA server's URL (https://lava.example.org/)")->required();
  cmd->add_option("--token-file", o->token_file,
                  "a file holding an API token of the LAVA server (never printed, never stored in a run)")
      ->required();
  cmd->add_option("--job", r->job_template_path,
                  "the lab's LAVA job template (lab-jobs/lava/kvmbench-job.yaml with its URLs filled in)")
      ->required();
  // One value a --param: a vector option would also take the `--` after it.
  cmd->add_option("--param", o->params,
                  "KEY=VALUE for the kvmbench test definition (DEB_URL=..., KVMBENCH_DB=...); give it again for more")
      ->allow_extra_args(false);
  cmd->add_option("--out", o->out, "where the runs fetched from the jobs go")->capture_default_str();
  cmd->add_option("--db", o->db, "import the fetched runs into this results database (else $KVMBENCH_DB, if set)");
  cmd->add_option("--timeout", o->timeout_s, "seconds for all jobs, after which the unfinished are cancelled")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd->add_option("--poll", o->poll_s, "seconds between two looks at the jobs")->capture_default_str()->check(CLI::PositiveNumber);
  cmd->add_option("--format", o->format, "the report: text, md, csv, json or html")
      ->capture_default_str()
      ->check(CLI::IsMember({"text", "md", "csv", "json", "html"}));
  cmd->add_flag("--dry-run", o->dry_run, "print the job each matching device would get; submit nothing");
  cmd->add_option("command", r->command,
                  "after --: the command each device runs: run SUITE [OPTIONS], or ab --base URL --cand URL [-n N] "
                  "[--max-regression M] [--alpha A] [--base-modules URL --cand-modules URL] -- run SUITE [OPTIONS] "
                  "(LAVA boots the two kernels in the ABBA order in one job per device)");
  cmd->callback([o, r] {
    std::stringstream labels(o->labels);
    for (std::string l; std::getline(labels, l, ',');)
      if (!l.empty()) r->labels.push_back(l);
    if (r->labels.empty()) usage_error("--labels: no label given");
    std::string token = read_whole(o->token_file, "--token-file");
    while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back()))) token.pop_back();
    while (!token.empty() && std::isspace(static_cast<unsigned char>(token.front()))) token.erase(0, 1);
    if (token.empty() || token.find_first_of(" \t\r\n") != std::string::npos)
      usage_error(fmt::format("--token-file {}: not one API token (empty, or more than one word)", o->token_file));
    r->token = token;
    r->job_template = read_whole(r->job_template_path, "--job");
    for (const auto& p : o->params) {
      const auto eq = p.find('=');
      if (eq == std::string::npos || eq == 0) usage_error(fmt::format("--param {}: not KEY=VALUE", p));
      r->params[p.substr(0, eq)] = p.substr(eq + 1);
    }
    r->out = o->out;
    r->timeout = std::chrono::seconds(o->timeout_s);
    r->poll = std::chrono::seconds(o->poll_s);
    r->format = parse_format(o->format);
    r->dry_run = o->dry_run;
    std::optional<db::ResultsDb> rdb;
    auto open_db = [&]() -> db::ResultsDb* {
      if (!o->db && !std::getenv("KVMBENCH_DB")) return nullptr;
      rdb.emplace(open_results_db(o->db, db::Access::create));
      return &*rdb;
    };
    int code = 0;
    try {
      code = engine::run_fleet(*r, open_db);
    } catch (const std::invalid_argument& e) {
      usage_error(e.what());
    }
    if (code != 0) throw ExitError(code, "");
  });
}

}  // namespace kvmbench::cli
