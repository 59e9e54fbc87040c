// `kvmbench model rmpopt`: the RMPOPT sweep cost model, calibrated on the
// published figures of document 000, answering "what would the sweep cost
// on this machine, for this layout of private pages and this strategy".
// Nothing here measures anything: every table says `source: model`.
#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>

#include "suites/rmpopt/model_calibration.h"
#include "suites/rmpopt/model.h"
#include "analysis/report/render/json_table.h"
#include "analysis/report/render/renderer.h"
#include "analysis/report/table.h"
#include "analysis/model/units.h"
#include "suites/kvmbench/commands.h"
#include "suites/framework/errors.h"
#include "suites/rmpopt/model_host_check.h"
#include "suites/rmpopt/model_report.h"

namespace kvmbench::cli {

namespace {

namespace model = kvmbench::rmpopt;
namespace report = kvmbench::suites::rmpopt;

struct RmpoptModelOptions {
  std::string memory = "2T";
  std::optional<unsigned> cpus;
  std::optional<unsigned> smt;
  std::optional<double> tsc_ghz;
  std::string layout = "none";
  std::optional<std::uint64_t> occupied_regions;
  std::optional<std::uint64_t> dirty_regions;
  std::string strategy = "compare";
  std::optional<double> bandwidth_gbs;
  std::optional<unsigned> calib_cpus;
  std::optional<unsigned> calib_smt;
  std::optional<double> calib_tsc_ghz;
  bool calibrate = false;
  bool from_host = false;
  std::string format = "text";
};

double checked_ghz(const char* option, double ghz) {
  if (!std::isfinite(ghz) || ghz <= 0 || ghz > 100)
    usage_error(fmt::format("{}: {} is not a TSC rate in GHz (0 < G <= 100)", option, ghz));
  return ghz * 1e9;
}

void check_cpus(const char* option, unsigned cpus, unsigned smt) {
  if (cpus == 0 || cpus > 1u << 20)
    usage_error(fmt::format("{}: {} CPUs is out of range (1..{})", option, cpus, 1u << 20));
  if (smt == 0 || smt > 8) usage_error(fmt::format("SMT {} is out of range (1..8)", smt));
  if (cpus % smt)
    usage_error(fmt::format("{}: {} CPUs is not a whole number of cores of {} threads", option,
                            cpus, smt));
}

void run_rmpopt_model(const RmpoptModelOptions& o) {
  Format format;
  try {
    format = parse_format(o.format);
  } catch (const std::invalid_argument& e) {
    usage_error(std::string("--format: ") + e.what());
  }
  if (format == Format::html) usage_error("--format: html is not available here (text, md, csv, json)");

  // The posted machine the figures are fitted on (assumptions, see
  // suites/rmpopt/model_calibration.h), and the machine to predict.
  model::Machine posted = model::posted_machine_assumption();
  if (o.calib_cpus) posted.cpus = *o.calib_cpus;
  if (o.calib_smt) posted.smt = *o.calib_smt;
  if (o.calib_tsc_ghz) posted.tsc_hz = checked_ghz("--calib-tsc-ghz", *o.calib_tsc_ghz);
  check_cpus("--calib-cpus", posted.cpus, posted.smt);

  model::Machine target = posted;
  auto bytes = parse_bytes(o.memory);
  if (!bytes || *bytes == 0)
    usage_error(fmt::format("--memory: '{}' is not a memory size (e.g. 2T, 512G)", o.memory));
  if (*bytes > (64ULL << 40)) usage_error(fmt::format("--memory: {} is above 64T", o.memory));
  target.memory_bytes = *bytes;
  if (o.cpus) target.cpus = *o.cpus;
  if (o.smt) target.smt = *o.smt;
  if (o.tsc_ghz) target.tsc_hz = checked_ghz("--tsc-ghz", *o.tsc_ghz);
  check_cpus("--cpus", target.cpus, target.smt);

  auto layout = model::parse_layout(o.layout);
  if (!layout)
    usage_error(fmt::format("--layout: '{}' is not none, first, last or random:K (1 <= K <= {})",
                            o.layout, model::kEntriesPerRegion));
  layout->occupied_regions = o.occupied_regions;
  layout->dirty_regions = o.dirty_regions;
  try {
    model::resolve_layout(target, *layout);
  } catch (const std::invalid_argument& e) {
    usage_error(e.what());
  }

  report::SweepRequest req{target, *layout, {}};
  if (o.strategy == "compare") {
    req.strategies.assign(std::begin(model::kAllStrategies), std::end(model::kAllStrategies));
  } else if (auto s = model::parse_strategy(o.strategy)) {
    req.strategies = {*s};
  } else {
    usage_error(fmt::format("--strategy: '{}' is not all, leader, primary, bitmap or compare",
                            o.strategy));
  }

  double bandwidth = model::assumed_bandwidth_bytes_per_s();
  if (o.bandwidth_gbs) {
    if (!std::isfinite(*o.bandwidth_gbs) || *o.bandwidth_gbs <= 0)
      usage_error(fmt::format("--bandwidth-gbs: {} is not a positive bandwidth", *o.bandwidth_gbs));
    bandwidth = *o.bandwidth_gbs * 1e9;
  }

  if (o.from_host) {
    // The model with parameters measured here against the emulated sweep
    // timed here (suites/rmpopt/model_host_check.h).
    report::HostCheck check;
    try {
      check = report::run_host_check(report::HostCheckOptions{});
    } catch (const std::invalid_argument& e) {
      usage_error(e.what());
    } catch (const std::exception& e) {
      if (!is_bad_input(std::current_exception())) throw;  // a bug, not this host
      cannot_run(std::string("the emulated sweep cannot run here: ") + e.what());
    }
    Table t = report::host_check_table(check);
    if (format == Format::json)
      fmt::print("{}\n", nlohmann::json::array({render_json(t)}).dump(2));
    else
      fmt::print("{}", render(t, format));
    return;
  }

  const auto figures = model::published_figures();
  model::Calibration cal = model::calibrate(posted, bandwidth, figures);

  std::vector<Table> tables;
  if (o.calibrate) {
    tables.push_back(report::fit_table(cal));
    tables.push_back(report::parameter_table(cal));
    tables.push_back(report::sensitivity_table(
        model::sensitivity(report::sensitivity_cpu_counts(), report::sensitivity_tsc_hz(),
                           posted.smt, bandwidth, figures)));
  }
  tables.push_back(report::sweep_table(cal, req));
  if (report::depends_on_bandwidth(cal, req)) tables.push_back(report::bandwidth_table(cal, req));

  if (format == Format::json) {
    nlohmann::json out = nlohmann::json::array();
    for (auto& t : tables) out.push_back(render_json(t));
    fmt::print("{}\n", out.dump(2));
    return;
  }
  for (std::size_t i = 0; i < tables.size(); ++i)
    fmt::print("{}{}", i ? "\n" : "", render(tables[i], format));
}

}  // namespace

void add_model_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("model", "Cost models (source: model, never a measurement)");
  cmd->footer("Exit status: 0 computed; 2 a bad option or parameter; 77 the emulated sweep cannot run "
              "on this host (why on stderr).");
  cmd->require_subcommand(1);
  auto o = std::make_shared<RmpoptModelOptions>();
  auto* rm = cmd->add_subcommand(
      "rmpopt", "RMPOPT sweep cost model calibrated on the published figures of document 000");
  rm->add_option("--memory", o->memory, "memory covered by the sweep (2T, 512G, ...)")
      ->capture_default_str();
  rm->add_option("--cpus", o->cpus, "CPUs of the machine to predict (default: the posted "
                                    "machine's assumed count)");
  rm->add_option("--smt", o->smt, "threads per core (default 2)");
  rm->add_option("--tsc-ghz", o->tsc_ghz, "TSC rate of the machine to predict, GHz");
  rm->add_option("--layout", o->layout, "assigned pages per 1GB region: none, first, last, random:K")
      ->capture_default_str();
  rm->add_option("--occupied-regions", o->occupied_regions,
                 "regions holding assigned pages (default: all, unless --layout none)");
  rm->add_option("--dirty-regions", o->dirty_regions,
                 "regions freed since the last sweep (default: all)");
  rm->add_option("--strategy", o->strategy, "all, leader, primary, bitmap or compare")
      ->capture_default_str();
  rm->add_option("--bandwidth-gbs", o->bandwidth_gbs,
                 "memory bandwidth shared by concurrent scans, GB/s (default: assumed 1152)");
  rm->add_option("--calib-cpus", o->calib_cpus, "assumed CPU count of the posted machine (512)");
  rm->add_option("--calib-smt", o->calib_smt, "assumed SMT of the posted machine (2)");
  rm->add_option("--calib-tsc-ghz", o->calib_tsc_ghz, "assumed TSC rate of the posted machine (2.7)");
  rm->add_flag("--calibrate", o->calibrate,
               "also print the fit to the published figures, the parameters and the sensitivity "
               "to the unknown CPU count and TSC rate");
  rm->add_flag("--from-host", o->from_host,
               "measure the model's parameters on this host, predict the emulated sweep "
               "(hostlib) with them, and compare with the emulated sweep timed here");
  rm->add_option("--format", o->format, "text, md, csv or json")->capture_default_str();
  rm->callback([o] { run_rmpopt_model(*o); });
}

}  // namespace kvmbench::cli
