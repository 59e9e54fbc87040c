// kvmbench compare BASE CAND [--format text|md|csv|json|html] [--alpha A]
#include <fmt/format.h>

#include <memory>

#include "analysis/compare_input.h"
#include "analysis/compare_render.h"
#include "suites/kvmbench/commands.h"
#include "suites/kvmbench/exit.h"

namespace kvmbench::cli {

void add_compare_command(CLI::App& app) {
  struct Opts {
    std::string base, cand, format = "text";
    double alpha = 0.05;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand(
      "compare", "A/B tables: per metric both sides' mean ± sd (n), change with 95% CI, p-values "
                 "(Welch, Mann-Whitney, Holm-adjusted) and a verdict");
  cmd->add_option("BASE", o->base, "base: a run directory or Google Benchmark JSON file")->required();
  cmd->add_option("CAND", o->cand, "candidate: a run directory or Google Benchmark JSON file")->required();
  cmd->add_option("--format", o->format, "text, md, csv, json or html")->capture_default_str();
  cmd->add_option("--alpha", o->alpha, "significance level for the verdicts")->capture_default_str();
  cmd->callback([o] {
    Format f;
    try {
      f = parse_format(o->format);
    } catch (const std::invalid_argument& e) {
      usage_error(e.what());
    }
    if (!(o->alpha > 0 && o->alpha < 1)) usage_error(fmt::format("--alpha must be between 0 and 1, not {}", o->alpha));
    Comparison c;
    try {
      CompareOptions co;
      co.alpha = o->alpha;
      c = compare(load_comparison_side(o->base), load_comparison_side(o->cand), co);
    } catch (const std::exception& e) {
      usage_error(e.what());
    }
    fmt::print("{}", render_comparison(c, f));
  });
}

}  // namespace kvmbench::cli
