// kvmbench history SUITE [METRIC...] [--machine FP|HOST] [--kernel-order time|release]
//                  [--preset P] [--alpha A] [--min-segment N] [--min-change PCT]
//                  [--window N] [--format text|md|csv|json|html] [--db DB]
// A suite's metrics (without one named: the primary metrics of its presets)
// across kernels, one series per machine, with change points
// (analysis/verdicts/history.h).
#include <fmt/format.h>

#include <memory>

#include "analysis/views/history_view.h"
#include "analysis/report/render/renderer.h"
#include "suites/kvmbench/commands.h"
#include "suites/kvmbench/db_option.h"
#include "suites/framework/errors.h"
#include "suites/framework/suite.h"

namespace kvmbench::cli {

namespace {

// The primary metrics of the suite's presets (of `preset` only when
// given), each once.
std::vector<std::string> primary_metrics(const std::string& suite, const std::string& preset) {
  const suites::Suite* s = suites::find_suite(suite);
  if (!s)
    usage_error(suites::unknown_suite_message(suite, [](const suites::Suite&) { return true; }, false) +
                "; name the metric for another suite's history");
  std::vector<std::string> out;
  for (const auto& p : s->presets) {
    if (!preset.empty() && p.name != preset) continue;
    for (const auto& m : p.primary_metrics)
      if (std::find(out.begin(), out.end(), m) == out.end()) out.push_back(m);
  }
  if (out.empty()) usage_error(fmt::format("suite '{}'{} declares no primary metric: name one", suite,
                                           preset.empty() ? "" : " preset " + preset));
  return out;
}

}  // namespace

void add_history_command(CLI::App& app) {
  struct Opts {
    std::string suite, machine, order = "time", preset, format = "text";
    std::vector<std::string> metrics;
    std::optional<std::string> db;
    changepoint::Options detect;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand("history", "A suite's metrics across kernels from the results database, per "
                                            "machine, with change points (E-divisive, Holm over the series)");
  cmd->footer("Exit status: 0 printed; 2 a bad option, or a database that cannot be opened or read.");
  cmd->add_option("SUITE", o->suite, "suite name")->required();
  cmd->add_option("METRIC", o->metrics, "metrics (default: the suite's primary metrics)");
  cmd->add_option("--machine", o->machine, "one machine: its fingerprint (or 4+ leading characters) or host name");
  cmd->add_option("--kernel-order", o->order, "points in run start 'time' or kernel 'release' order")
      ->capture_default_str();
  cmd->add_option("--preset", o->preset, "runs of this preset only");
  cmd->add_option("--alpha", o->detect.alpha, "family-wise false-alarm rate over the series scanned")
      ->capture_default_str();
  cmd->add_option("--min-segment", o->detect.min_segment, "least runs on each side of a change point")
      ->capture_default_str();
  cmd->add_option("--min-change", o->detect.min_change_pct, "smallest change reported, percent")->capture_default_str();
  cmd->add_option("--window", o->detect.window,
                  "runs in a window of the scan for short changes (a regression of a few runs, then fixed), "
                  "in series of two windows or more; 0: no such scan")
      ->capture_default_str();
  cmd->add_option("--format", o->format, "text, md, csv, json or html (a chart per series)")->capture_default_str();
  add_db_option(cmd, o->db);
  cmd->callback([o] {
    if (o->order != "time" && o->order != "release")
      usage_error(fmt::format("--kernel-order is 'time' or 'release', not '{}'", o->order));
    Format format = Format::text;
    try {
      format = parse_format(o->format);
    } catch (const std::invalid_argument& e) {
      usage_error(e.what());
    }
    if (format == Format::junit) usage_error("--format junit: history has no pass or fail (gate --baseline db has)");
    HistoryOptions ho;
    ho.suite = o->suite;
    ho.metrics = o->metrics.empty() ? primary_metrics(o->suite, o->preset) : o->metrics;
    ho.machine = o->machine;
    ho.preset = o->preset;
    ho.order = o->order == "time" ? KernelOrder::time : KernelOrder::release;
    ho.detect = o->detect;
    db::ResultsDb rdb = open_results_db(o->db, db::Access::read);
    History h;
    try {
      h = build_history(rdb, ho);
    } catch (const std::invalid_argument& e) {
      usage_error(e.what());
    } catch (const db::DbError& e) {
      usage_error(e.what());
    }
    fmt::print("{}", render(history_document(h), format));
  });
}

}  // namespace kvmbench::cli
