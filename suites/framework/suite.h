// What a suite is: data (presets, parameters with defaults, what each needs
// from the host), the glue that calls its measurements (suites/<name>/) and
// what it makes of samples (its report layout, the metrics it owns, the
// document's tables from reference data). Every command that does something
// suite-specific (run, list, report, reproduce, ingest) asks this registry;
// none names a suite. Its parts: host_caps.h (what the host offers),
// param.h (a parameter), run_context.h (what a run function is handed).
#pragma once

#include <any>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/model/metric_roles.h"
#include "analysis/model/result_model.h"
#include "analysis/report/document.h"
#include "analysis/report/table.h"
#include "suites/framework/boot.h"
#include "suites/framework/host_caps.h"
#include "suites/framework/named_run.h"
#include "suites/framework/param.h"
#include "suites/framework/param_text.h"
#include "suites/framework/reproduce.h"

namespace kvmbench::suites {

class RunContext;
class Plan;
class Collector;

// A preset is written as a designated-initializer literal (suites/<name>/
// suite.cpp): every member has a default, so a literal names only what it sets.
struct Preset {
  std::string name = {};     // "document", "host", "smoke"
  std::string description = {};
  Source source = Source::hardware;   // what its numbers are
  // Made for the emulated lab (`kvmbench lab`): `list` tags it [emulated],
  // what its numbers are where it is meant to run.
  bool for_emulated_lab = false;
  std::vector<Param> params = {};
  // The parameters' text (defaults with --set, each checked) made into the
  // preset's own struct, once, before anything runs: what `run` and `plan`
  // read (RunContext::params<P>(), built with parse_as/run_with/plan_with
  // below). Throws ExitError(2) naming a malformed value.
  std::function<std::any(const ParamText&)> parse = {};
  // Empty when it can run here; otherwise the reason it cannot.
  std::function<std::string(const HostCaps&)> unsupported_reason = {};
  // The boot it needs where the kernel's command line decides what can run
  // (suites/framework/boot.h), from the host and its parameters' text (defaults with
  // --set). Unset: any boot will do.
  std::function<BootNeed(const HostCaps&, const ParamText&)> boot = {};
  // Collects samples into ctx; throws on failure; checks ctx.interrupted().
  std::function<void(RunContext&)> run = {};
  int default_repetitions = 1;   // -r when not given
  // What a gate decides on, and whose CI drives `-r auto` (series keys'
  // metric names); empty: every metric not derived.
  std::vector<std::string> primary_metrics = {};
  // Metrics that are transforms of another (metric -> the one it is
  // computed from): compare and gate show them, never test them again
  // (analysis/model/metric_roles.h).
  std::map<std::string, std::string> derived_metrics = {};
  // What one repetition is, for the reader of a comparison.
  std::string repetition = {};
  MetricRoles metric_roles() const { return {primary_metrics, derived_metrics, repetition, {}}; }
  // `run --dry-run`: what `run` would do on ctx.host(), from the same
  // parameters and builders, touching nothing (suites/framework/plan.h).
  // Empty for presets without a plan.
  std::function<void(RunContext&, Plan&)> plan = {};
};

// Written as a designated-initializer literal too; unset hooks are empty.
struct Suite {
  std::string name = {};     // "rmpopt", "directmap", "make_shared", "asid"
  std::string description = {};
  std::vector<Preset> presets = {};
  // Whether a metric is one this suite's report reads: names the suite of
  // samples that came without a meta.json (`kvmbench ingest`). Unset: none.
  std::function<bool(std::string_view metric)> owns_metric = {};
  // The suite's own tables of one run (the document's layout); empty when
  // the samples are not the ones it reads. Unset: the generic tables only.
  std::function<std::vector<Table>(const std::vector<Sample>&, std::string_view source)> tables = {};
  // Tables in the suite's layout that only `--verbose` prints, after
  // `tables` (measurements beside the one the document is about).
  std::function<std::vector<Table>(const std::vector<Sample>&, std::string_view source)> detail_tables = {};
  // Whether the layout (`tables`) shows a metric, when it shows anything:
  // the compact generic tables (analysis/report/case_table.h) leave those out.
  // Unset: the metrics it owns (owns_metric).
  std::function<bool(std::string_view metric)> layout_shows = {};
  // The workload a metric is measured by, where the case name does not
  // say it (asid's cases are the workload's arguments): a verdict names a
  // series with it. Unset or "": the series key alone.
  std::function<std::string_view(std::string_view metric)> workload_of = {};
  // Several runs in one table (`kvmbench report RUN_A RUN_B`); throws
  // std::invalid_argument naming a run it cannot use. Unset: not offered.
  std::function<std::vector<Table>(const std::vector<NamedRun>&)> tables_of_runs = {};
  // Pictures of one run beyond its tables (directmap: each ramp its rate
  // was fitted over), from the run directory's raw files and its samples;
  // for the HTML report. Unset: none.
  std::function<std::vector<Chart>(const std::filesystem::path& run_dir, const std::vector<Sample>&)> run_charts = {};
  // The document's tables from the transcribed data in `reference_dir`
  // (suites/framework/reproduce.h). Unset: nothing to reproduce.
  std::function<Reproduction(const std::filesystem::path& reference_dir, const ReproduceOptions&)> reproduce = {};
  // Whether its measurements are about transparent huge pages (THP's
  // defrag setting is then part of what is measured: `run --steady` leaves it).
  bool measures_thp = false;
  const Preset* find_preset(const std::string& name) const;
};

// In the order `run all`, `list` and `reproduce all` take them.
const std::vector<Suite>& registry();
const Suite* find_suite(std::string_view name);
// The names of the suites for which `has` holds ("directmap, make_shared"),
// for messages that say what would have been accepted.
std::string suite_names(const std::function<bool(const Suite&)>& has);
// The refusal of a suite name that is none of those `has` accepts (nor
// "all" when `all_too`), with the closest of them where one is close:
// "unknown suite 'directmapp'; did you mean 'directmap'? (known: rmpopt,
// directmap, make_shared, asid, all)".
std::string unknown_suite_message(std::string_view name, const std::function<bool(const Suite&)>& has,
                                  bool all_too);

}  // namespace kvmbench::suites
