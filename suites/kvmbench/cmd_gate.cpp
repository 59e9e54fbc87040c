// kvmbench gate BASE CAND [--max-regression PCT] [--alpha A] [--min-samples N]
//                         [--junit FILE] [--markdown FILE]
// Exit 0: no significant regression beyond the threshold; 1: a regression;
// 2: unusable input (each reason said plainly).
#include <fmt/format.h>

#include <memory>

#include "analysis/compare_input.h"
#include "analysis/gate.h"
#include "analysis/gate_report.h"
#include "analysis/run_store.h"
#include "suites/kvmbench/commands.h"
#include "suites/kvmbench/exit.h"

namespace kvmbench::cli {

void add_gate_command(CLI::App& app) {
  struct Opts {
    std::string base, cand, junit, markdown;
    double max_regression = 0, alpha = 0.05;
    std::size_t min_samples = 3;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand(
      "gate", "Pre-merge gate: exit 1 when a metric regresses significantly (Holm-adjusted) and its "
              "whole 95% CI lies beyond --max-regression; 0 otherwise; 2 on unusable input");
  cmd->add_option("BASE", o->base, "base: a run directory or Google Benchmark JSON file")->required();
  cmd->add_option("CAND", o->cand, "candidate: a run directory or Google Benchmark JSON file")->required();
  cmd->add_option("--max-regression", o->max_regression, "allowed regression in percent")->capture_default_str();
  cmd->add_option("--alpha", o->alpha, "family-wise significance level (Holm)")->capture_default_str();
  cmd->add_option("--min-samples", o->min_samples, "least samples per side and metric")->capture_default_str();
  cmd->add_option("--junit", o->junit, "write JUnit XML here (one test case per metric)");
  cmd->add_option("--markdown", o->markdown, "write a Markdown summary here (merge-request comment)");
  cmd->callback([o] {
    if (!(o->alpha > 0 && o->alpha < 1)) usage_error(fmt::format("--alpha must be between 0 and 1, not {}", o->alpha));
    if (!(o->max_regression >= 0))
      usage_error(fmt::format("--max-regression must be >= 0 (percent), not {}", o->max_regression));
    if (o->min_samples < 2) usage_error("--min-samples must be at least 2");
    GateOptions go;
    go.alpha = o->alpha;
    go.max_regression_pct = o->max_regression;
    go.min_n = o->min_samples;
    GateResult g;
    try {
      g = evaluate_gate(load_comparison_side(o->base), load_comparison_side(o->cand), go);
    } catch (const std::exception& e) {
      usage_error(e.what());
    }
    // The reports are complete files even for unusable input, so that a CI
    // job shows why; each is written atomically.
    if (!o->junit.empty()) write_file_atomic(o->junit, render_gate_junit(g));
    if (!o->markdown.empty()) write_file_atomic(o->markdown, render_gate_markdown(g));
    std::string text = render_gate_text(g);
    if (g.status == GateStatus::unusable) {
      fmt::print(stderr, "{}", text);
      throw ExitError(kExitUsage, "");
    }
    fmt::print("{}", text);
    std::fflush(stdout);
    if (g.status == GateStatus::fail) throw ExitError(kExitGateFailed, "");
  });
}

}  // namespace kvmbench::cli
