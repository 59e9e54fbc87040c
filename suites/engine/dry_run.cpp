#include "suites/engine/dry_run.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <stdexcept>

#include "analysis/model/text_wrap.h"
#include "analysis/model/json_input.h"
#include "analysis/store/run_store.h"
#include "hostlib/facts/confidential_host.h"
#include "hostlib/facts/rmpopt_boot_state.h"
#include "suites/collect/kernel_boot.h"
#include "suites/framework/chosen_suites.h"
#include "suites/framework/plan.h"
#include "suites/framework/errors.h"
#include "suites/engine/host_description.h"
#include "suites/engine/render_tables.h"
#include "suites/framework/param_check.h"
#include "suites/framework/run_context.h"
#include "suites/framework/suite.h"

namespace kvmbench::engine {

namespace {

using suites::HostCaps;
using suites::Preset;
using suites::Suite;

HostCaps caps_for(const RunRequest& req, std::string& described) {
  if (req.host_file.empty()) {
    described = "this host (probed without ioctls)";
    if (!req.kmsg_file.empty()) described += fmt::format(", with its kernel log from {}", req.kmsg_file);
    return suites::probe_host_caps_without_ioctls();
  }
  const nlohmann::json j = read_host_description(req.host_file);
  HostCaps caps;
  try {
    caps = suites::host_caps_from_probe_json(j);
  } catch (const std::invalid_argument& e) {
    usage_error(fmt::format("--host {}: {}", req.host_file, e.what()));
  }
  described = fmt::format("{} (from {})", j.value("hostname", std::string("unnamed host")), req.host_file);
  if (!req.kmsg_file.empty()) described += fmt::format(", with its kernel log from {}", req.kmsg_file);
  if (j.contains("_note") && j["_note"].is_string()) described += "; its note: " + j["_note"].get<std::string>();
  return caps;
}

// --kmsg FILE: what that host's captured kernel log says stands in for
// what the probe read from /dev/kmsg.
void read_kernel_log_into(HostCaps& caps, const std::string& kmsg_file) {
  try {
    caps.confidential.rmpopt = host::rmpopt_boot_state_from_file(kmsg_file);
  } catch (const std::invalid_argument& e) {
    usage_error(e.what());
  }
  caps.metadata["confidential"] = host::to_json(caps.confidential);
}

// Which presets run on which boot, for a lab engineer booking the machine:
// this boot, each other boot a preset needs, and those that run on none.
class BootPlan {
 public:
  void add(const std::string& suite, const Preset& preset, const suites::BootNeed& need, bool would_run) {
    const std::string name = fmt::format("{} / {}", suite, preset.name);
    if (!need.this_boot)
      other_[need.setting].push_back(name);
    else if (would_run)
      here_.push_back(name);
    else
      none_.push_back(name);
  }
  bool needs_another() const { return !other_.empty(); }

  std::string render(const std::string& this_boot) const {
    std::string out = "== boots ==\n";
    auto item = [&](const std::string& head, const std::vector<std::string>& names) {
      out += wrap_text(fmt::format("{}: {}", head, names.empty() ? std::string("nothing") : fmt::format("{}", fmt::join(names, ", "))),
                       80, "    ");
    };
    item(this_boot.empty() ? std::string("this boot") : "this boot (" + this_boot + ")", here_);
    for (const auto& [setting, names] : other_) item("a boot with " + setting, names);
    if (!none_.empty()) item("on no boot of this kernel (see each plan)", none_);
    return out;
  }

 private:
  std::vector<std::string> here_, none_;
  std::map<std::string, std::vector<std::string>> other_;
};

// `--format json`: what a program (ab's preflight) asks of the plan: each
// preset, whether it would run, the boot it needs, and why it could not run
// besides the boot ("" where only the boot stands in the way: the checks
// after it depend on that boot, and each boot's run makes them again).
nlohmann::json preset_json(const std::string& suite, const Preset& preset, const HostCaps& caps,
                           const suites::BootNeed& boot, bool would_run) {
  const std::string reason = preset.unsupported_reason ? preset.unsupported_reason(caps) : "";
  const bool only_the_boot = !boot.this_boot && reason.find(boot.setting) != std::string::npos;
  nlohmann::json j = {{"suite", suite}, {"preset", preset.name}, {"would_run", would_run},
                      {"reason", reason},  {"refusal_besides_boot", only_the_boot ? std::string() : reason}};
  j["boot"] = boot.setting.empty()
                  ? nlohmann::json(nullptr)
                  : nlohmann::json{{"setting", boot.setting}, {"this_boot", boot.this_boot}, {"why", boot.why}};
  return j;
}

}  // namespace

int plan_suites(const RunRequest& req) {
  if (!req.replay_dir.empty()) usage_error("--dry-run plans a live run; it does not take --replay");
  const std::string preset_name = req.preset.empty() ? std::string("document") : req.preset;
  std::vector<std::pair<const Suite*, const Preset*>> targets;
  for (const Suite* s : suites::chosen_suites(req.target, preset_name, req.overrides))
    if (const Preset* p = s->find_preset(preset_name)) targets.emplace_back(s, p);

  std::string described;
  HostCaps caps = caps_for(req, described);
  if (!req.kmsg_file.empty()) read_kernel_log_into(caps, req.kmsg_file);
  // The same checks and parse as a run's, before the plan's first line.
  std::vector<suites::ResolvedParams> params;
  for (const auto& [suite, preset] : targets) params.push_back(suites::resolve_params(*preset, req.overrides, caps));
  const bool json = req.format == "json";
  if (!json) {
    fmt::print("{}\n", wrap_text("kvmbench dry run for " + described, 80, "    "));
    fmt::print("{}\n\n", wrap_text("Nothing is run, opened or written. In capitals: what only the run can know "
                                   "(RUN_DIR: the run directory it would make; SIZE, PORT, QMP_DIR, FIRMWARE, ...).",
                                   80, ""));
  }
  nlohmann::json presets = nlohmann::json::array();
  bool any = false;
  BootPlan boots;
  for (std::size_t i = 0; i < targets.size(); ++i) {
    const auto& [suite, preset] = targets[i];
    const int reps = req.repetitions > 0 ? req.repetitions : preset->default_repetitions;
    suites::RunContext ctx(caps, params[i].parsed, reps, "RUN_DIR",
                           [](const Sample&) { throw std::logic_error("a dry run emits no sample"); });
    ctx.save_raw = [](const std::string&, const std::string&) {
      throw std::logic_error("a dry run writes nothing");
    };
    ctx.monitors_count = req.monitors != "off";
    suites::Plan plan;
    const suites::BootNeed boot = suites::boot_need(*preset, caps, req.overrides);
    plan.check(suites::why_not_here(*preset, caps, req.overrides));
    // Another boot is the check's reason already.
    if (!boot.setting.empty() && boot.this_boot) plan.boot(boot);
    if (preset->plan)
      preset->plan(ctx, plan);
    else
      plan.note("no step-by-step plan for this preset (every document preset has one): its parameters are checked "
                "as a run checks them, and it measures this host's side only");
    boots.add(suite->name, *preset, boot, plan.would_run());
    any = any || plan.would_run();
    if (json)
      presets.push_back(preset_json(suite->name, *preset, caps, boot, plan.would_run()));
    else
      fmt::print("{}\n", suites::render_plan(suite->name, *preset, plan, params[i].text, req.adaptive ? -1 : reps));
  }
  if (json)
    fmt::print("{}\n", nlohmann::json{{"host", described}, {"boot_settings", suites::boot_settings(caps)},
                                      {"presets", presets}}
                           .dump(2));
  else if (targets.size() > 1 || boots.needs_another())
    fmt::print("{}", boots.render(suites::boot_settings(caps)));
  return any ? kExitOk : kExitCannotRun;
}

}  // namespace kvmbench::engine
