#include "suites/kvmbench/dry_run.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <set>
#include <stdexcept>

#include "analysis/json_input.h"
#include "analysis/run_store.h"
#include "suites/common/plan.h"
#include "suites/kvmbench/exit.h"
#include "suites/kvmbench/render_tables.h"
#include "suites/param_check.h"
#include "suites/suite.h"

namespace kvmbench::cli {

namespace {

using suites::HostCaps;
using suites::Preset;
using suites::Suite;

HostCaps caps_for(const RunRequest& req, std::string& described) {
  if (req.host_file.empty()) {
    described = "this host (probed without ioctls)";
    return suites::probe_host_caps_without_ioctls();
  }
  std::string text;
  try {
    text = read_file(req.host_file);
  } catch (const std::exception& e) {
    usage_error(fmt::format("--host {}", e.what()));
  }
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    usage_error(fmt::format("--host {}: empty (expected `kvmbench probe --json` output)", req.host_file));
  nlohmann::json j;
  try {
    j = parse_json_input(text);
  } catch (const JsonInputError& e) {
    usage_error("--host " + json_input_message(e, req.host_file));
  } catch (const nlohmann::json::parse_error& e) {
    usage_error(fmt::format("--host {}: not JSON (truncated or malformed): {}", req.host_file, e.what()));
  }
  HostCaps caps;
  try {
    caps = suites::host_caps_from_probe_json(j);
  } catch (const std::invalid_argument& e) {
    usage_error(fmt::format("--host {}: {}", req.host_file, e.what()));
  }
  described = fmt::format("{} (from {})", j.value("hostname", std::string("unnamed host")), req.host_file);
  if (j.contains("_note") && j["_note"].is_string()) described += "; its note: " + j["_note"].get<std::string>();
  return caps;
}

}  // namespace

int plan_suites(const RunRequest& req) {
  if (!req.replay_dir.empty()) usage_error("--dry-run plans a live run; it does not take --replay");
  const std::string preset_name = req.preset.empty() ? std::string("document") : req.preset;
  std::vector<const Suite*> chosen;
  if (req.target == "all") {
    for (auto& s : suites::registry()) chosen.push_back(&s);
  } else if (const Suite* s = suites::find_suite(req.target)) {
    chosen.push_back(s);
  } else {
    std::vector<std::string> names;
    for (auto& x : suites::registry()) names.push_back(x.name);
    usage_error(fmt::format("unknown suite '{}' (known: {}, all)", req.target, fmt::join(names, ", ")));
  }
  std::vector<std::pair<const Suite*, const Preset*>> targets;
  std::set<std::string> known;
  for (const Suite* s : chosen) {
    const Preset* p = s->find_preset(preset_name);
    if (!p) continue;
    if (!p->plan)
      usage_error(fmt::format("{} / {} has no dry-run plan (every document preset has one)", s->name, p->name));
    targets.emplace_back(s, p);
    for (const auto& d : p->params) known.insert(d.name);
  }
  if (targets.empty()) usage_error(fmt::format("no chosen suite has a preset '{}'", preset_name));
  for (const auto& [k, v] : req.overrides)
    if (!known.count(k))
      usage_error(fmt::format("'{}' is not a parameter of the chosen preset(s); see `kvmbench list --params`", k));

  std::string described;
  const HostCaps caps = caps_for(req, described);
  // The same checks and parse as a run's, before the plan's first line.
  std::vector<suites::ResolvedParams> params;
  for (const auto& [suite, preset] : targets) params.push_back(suites::resolve_params(*preset, req.overrides, caps));
  fmt::print("{}\n", wrap_text("kvmbench dry run for " + described, 80, "    "));
  fmt::print("{}\n\n", wrap_text("Nothing is run, opened or written. In capitals: what only the run can know "
                                 "(RUN_DIR: the run directory it would make; SIZE, PORT, QMP_DIR, FIRMWARE, ...).",
                                 80, ""));
  bool any = false;
  for (std::size_t i = 0; i < targets.size(); ++i) {
    const auto& [suite, preset] = targets[i];
    const int reps = req.repetitions > 0 ? req.repetitions : preset->default_repetitions;
    suites::RunContext ctx(caps, params[i].parsed, reps, "RUN_DIR",
                           [](const Sample&) { throw std::logic_error("a dry run emits no sample"); });
    ctx.save_raw = [](const std::string&, const std::string&) {
      throw std::logic_error("a dry run writes nothing");
    };
    suites::Plan plan;
    plan.check(preset->unsupported_reason ? preset->unsupported_reason(caps) : "");
    preset->plan(ctx, plan);
    fmt::print("{}\n", suites::render_plan(suite->name, *preset, plan, params[i].text, req.adaptive ? -1 : reps));
    any = any || plan.would_run();
  }
  return any ? kExitOk : kExitCannotRun;
}

}  // namespace kvmbench::cli
