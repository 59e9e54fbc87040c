// kvmbench gate BASE CAND | --baseline db[:QUERY] CAND [--db DB] [--cross-machine]
//               [--max-regression PCT] [--alpha A] [--min-samples N]
//               [--metrics GLOB]... [--exclude GLOB]... [--strict]
//               [--log-scale] [--junit FILE] [--markdown FILE]
//               [--format text|md|json|junit|html|csv|mail]
// Exit 0: pass (with --max-regression M > 0: a regression of M % or more is
// excluded; else no significant regression); 1: a regression; 3:
// inconclusive (neither shown nor excluded); 2: unusable input (each reason
// said plainly). The --junit and --markdown
// files are written in every case, unusable input included, so that a CI
// job never reads an old "passed".
#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <memory>

#include "analysis/verdicts/gate.h"
#include "analysis/report/render/renderer.h"
#include "analysis/views/gate_view.h"
#include "analysis/store/run_store.h"
#include "suites/kvmbench/commands.h"
#include "suites/kvmbench/db_option.h"
#include "suites/kvmbench/gate_baseline.h"
#include "suites/framework/errors.h"

namespace kvmbench::cli {

namespace {

// The option errors, in words; empty when the options are usable.
std::string option_problem(const GateOptions& go) {
  if (!(go.alpha > 0 && go.alpha < 1)) return fmt::format("--alpha must be between 0 and 1, not {}", go.alpha);
  if (!(go.max_regression_pct >= 0 && std::isfinite(go.max_regression_pct)))
    return fmt::format("--max-regression must be a finite percentage >= 0, not {}", go.max_regression_pct);
  if (go.min_n < 2) return "--min-samples must be at least 2";
  for (auto* list : {&go.include, &go.exclude})
    for (auto& p : *list)
      if (p.empty()) return "--metrics / --exclude: an empty pattern";
  return "";
}

}  // namespace

void add_gate_command(CLI::App& app) {
  struct Opts {
    std::string base, cand, junit, markdown, baseline, format = "text";
    std::optional<std::string> db;
    bool cross_machine = false;
    double max_regression = 0, alpha = 0.05;
    std::size_t min_samples = 3;
    std::vector<std::string> include, exclude;
    bool strict = false, log_scale = false, linear = false, significance_only = false;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand(
      "gate", "Pre-merge gate: exit 1 when a primary metric regresses significantly (Holm-adjusted) and its "
              "whole CI (at Holm's level) lies beyond --max-regression M; 0 when, with M > 0, a regression of M % "
              "or more is excluded for every metric (without M: when none is shown); 3 when neither is shown "
              "nor excluded (with the units a side that would decide it); 2 on unusable input");
  cmd->footer("Exit status: 0 pass; 1 regression; 3 inconclusive; 2 a bad option or input that cannot be "
              "read.");
  cmd->add_option("BASE", o->base,
                  "base: a run directory, Google Benchmark JSON, KVM selftest or vmexit output; A,B,C: several "
                  "invocations (with --baseline: the candidate)");
  cmd->add_option("CAND", o->cand, "candidate, as BASE");
  cmd->add_option("--baseline", o->baseline,
                  "db[:kernel=RELEASE,last=N]: the baseline is the newest N (10) runs of the candidate's machine, "
                  "suite, preset and parameters in the results database, judged by their between-run noise");
  add_db_option(cmd, o->db);
  cmd->add_flag("--cross-machine", o->cross_machine, "gate even when BASE and CAND come from different machines");
  cmd->add_option("--max-regression", o->max_regression,
                  "allowed regression in percent; above 0, a pass needs a regression of that much excluded")
      ->capture_default_str();
  cmd->add_flag("--significance-only", o->significance_only,
                "pass whatever is not shown to regress beyond --max-regression (the pass of old: no exit 3)");
  cmd->add_option("--alpha", o->alpha, "family-wise significance level (Holm)")->capture_default_str();
  cmd->add_option("--min-samples", o->min_samples,
                  "least experimental units (repetitions, or invocations) per side; fewer: the metric is skipped")
      ->capture_default_str();
  cmd->add_option("--metrics", o->include, "gate only series whose key or metric matches this glob (repeatable)");
  cmd->add_option("--exclude", o->exclude, "do not gate series whose key or metric matches this glob (repeatable)");
  cmd->add_flag("--strict", o->strict, "a metric on one side only fails the gate (else it is reported and skipped)");
  cmd->add_flag("--linear", o->linear,
                "Welch on the values and Fieller's CI (arithmetic means) for every metric; by default a metric "
                "whose values are all positive (a time, a rate) is tested on the logs (geometric means)");
  // The geometric test was an option before it was the default: old scripts
  // still pass it.
  cmd->add_flag("--log-scale", o->log_scale, "the default (kept for old scripts)")->group("");
  cmd->add_option("--junit", o->junit, "write JUnit XML here (one test case per metric)");
  cmd->add_option("--markdown", o->markdown, "write a Markdown summary here (merge-request comment)");
  cmd->add_option("--format", o->format, "what stdout gets: text, md, json, junit, html, csv or mail")
      ->capture_default_str();
  cmd->callback([o] {
    Format format = Format::text;
    try {
      format = parse_format(o->format);
    } catch (const std::invalid_argument& e) {
      usage_error(e.what());
    }
    GateOptions go;
    go.alpha = o->alpha;
    go.max_regression_pct = o->max_regression;
    go.min_n = o->min_samples;
    go.include = o->include;
    go.exclude = o->exclude;
    go.strict = o->strict;
    go.mode = o->significance_only ? DecisionMode::significance : DecisionMode::within_noise;
    if (o->log_scale && o->linear) usage_error("--log-scale and --linear exclude each other");
    go.linear = o->linear;
    GateResult g;
    if (!o->baseline.empty()) {
      if (!o->cand.empty()) usage_error("with --baseline, name only the candidate");
      std::swap(o->cand, o->base);
      o->base = o->baseline;
    }
    if (o->cand.empty()) usage_error("gate needs BASE and CAND (or --baseline db CAND)");
    if (std::string bad = option_problem(go); !bad.empty()) {
      g = unusable_gate(o->base, o->cand, go, bad);
    } else {
      try {
        g = gate_against_baseline(o->base, o->cand, o->db, o->cross_machine, go, !o->baseline.empty());
      } catch (const std::exception& e) {
        // Inputs it cannot judge make a gate result that says why (a CI job
        // shows it); a bug is no such result: exit_verdict says 70.
        if (!is_bad_input(std::current_exception())) throw;
        g = unusable_gate(o->base, o->cand, go, e.what());
      }
    }
    // Complete files in every case, each written atomically: a CI job shows
    // why, and never an earlier gate's result.
    try {
      if (!o->junit.empty()) write_file_atomic(o->junit, render(gate_document(g), Format::junit));
      if (!o->markdown.empty()) write_file_atomic(o->markdown, render(gate_document(g), Format::md));
    } catch (const std::exception& e) {
      // What cannot be written must not be read as this gate's result.
      std::error_code ec;
      for (auto* f : {&o->junit, &o->markdown})
        if (!f->empty()) std::filesystem::remove(*f, ec);
      if (!is_bad_input(std::current_exception())) throw;
      usage_error(fmt::format("cannot write the gate's report (any earlier one is removed): {}", e.what()));
    }
    std::string text = render(gate_document(g), format);
    if (g.status == GateStatus::unusable) {
      fmt::print(stderr, "{}", text);
      throw ExitError(kExitUsage, "");
    }
    fmt::print("{}", text);
    std::fflush(stdout);
    if (g.status == GateStatus::fail) throw ExitError(kExitGateFailed, "");
    if (g.status == GateStatus::inconclusive) throw ExitError(kExitInconclusive, "");
  });
}

}  // namespace kvmbench::cli
