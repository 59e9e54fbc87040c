// kvmbench compare BASE CAND [--format text|md|csv|json|html|mail] [--alpha A]
//                            [--metrics GLOB]... [--exclude GLOB]... [--all] [--linear] [--per-unit]
// BASE and CAND: a run directory, Google Benchmark JSON, KVM selftest or
// vmexit output; several joined by ',' are several invocations of a side.
#include <fmt/format.h>

#include <algorithm>
#include <memory>

#include "analysis/verdicts/compare_input.h"
#include "analysis/report/render/renderer.h"
#include "analysis/views/compare_view.h"
#include "analysis/verdicts/machine_check.h"
#include "suites/kvmbench/commands.h"
#include "suites/framework/errors.h"

namespace kvmbench::cli {

void add_compare_command(CLI::App& app) {
  struct Opts {
    std::string base, cand, format = "text";
    double alpha = 0.05;
    std::vector<std::string> include, exclude;
    bool per_unit = false, all = false, linear = false;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = app.add_subcommand(
      "compare", "A/B tables: the verdict first, then per primary metric both sides' mean and spread of their "
                 "experimental units, the change with its CI (at Holm's level), Holm's p and a verdict");
  cmd->footer("Exit status: 0 compared, whatever the verdict (`kvmbench gate` fails on a regression); 2 "
              "a bad option or input that cannot be read (the message says which); 70 a bug in "
              "kvmbench.");
  cmd->add_option("BASE", o->base,
                  "base: a run directory, Google Benchmark JSON, KVM selftest or vmexit output; A,B,C: several "
                  "invocations")
      ->required();
  cmd->add_option("CAND", o->cand, "candidate, as BASE")->required();
  cmd->add_option("--format", o->format,
                  "text, mail (the same, for a mailing-list reply: 80 columns), md, csv, json or html")
      ->capture_default_str();
  cmd->add_option("--alpha", o->alpha, "significance level for the verdicts")->capture_default_str();
  cmd->add_option("--metrics", o->include, "compare only series whose key or metric matches this glob (repeatable)");
  cmd->add_option("--exclude", o->exclude, "leave out series whose key or metric matches this glob (repeatable)");
  cmd->add_flag("--all", o->all,
                "also the derived and secondary metrics (shown, never tested); json always has them");
  cmd->add_flag("--linear", o->linear,
                "Welch on the values and Fieller's CI (arithmetic means) for every metric; by default a metric "
                "whose values are all positive (a time, a rate) is tested on the logs (geometric means)");
  cmd->add_flag("--per-unit", o->per_unit,
                "also every repetition's value and its threads', CPUs' or vCPUs' (for looking; verdicts are on "
                "the units)");
  cmd->callback([o] {
    Format f = Format::text;
    try {
      f = parse_format(o->format);
    } catch (const std::invalid_argument&) {
      usage_error(fmt::format("unknown format '{}' (text, mail, md, csv, json, html)", o->format));
    }
    if (f == Format::junit) usage_error("--format junit is the gate's (kvmbench gate --format junit): compare has no pass or fail");
    if (!(o->alpha > 0 && o->alpha < 1)) usage_error(fmt::format("--alpha must be between 0 and 1, not {}", o->alpha));
    CompareOptions co;
    co.alpha = o->alpha;
    co.include = o->include;
    co.exclude = o->exclude;
    // The suite's primary metrics are tested, unless the user chose.
    co.primary_only = o->include.empty();
    co.linear = o->linear;
    // What BASE and CAND hold is the user's input: a file that cannot be
    // read or parsed, or values that cannot be compared (one metric in two
    // units), ends with exit 2 and a message that names the file. A bug
    // inside is no bad input: it reaches exit_verdict, which says 70.
    const ComparisonSide base = naming_bad_input("", [&] { return load_comparison_sides(o->base); });
    const ComparisonSide cand = naming_bad_input("", [&] { return load_comparison_sides(o->cand); });
    if (const std::string why = different_experiments(base.meta, cand.meta); !why.empty()) usage_error(why);
    if (const std::string same = same_input_warning(o->base, o->cand); !same.empty())
      fmt::print(stderr, "kvmbench: warning: {}\n", same);
    // A difference between two machines is not one a patch made: said,
    // not refused (gate refuses it).
    if (const MachineCheck mc = check_same_machine(base.meta, cand.meta); mc.outcome == MachineCheck::Outcome::different)
      fmt::print(stderr, "kvmbench: note: {}\n", mc.message);
    const Comparison c = naming_bad_input("", [&] { return compare(base, cand, co); });
    if (!c.metrics.empty() && std::none_of(c.metrics.begin(), c.metrics.end(),
                                           [](const MetricComparison& m) { return m.in_base && m.in_cand; }))
      usage_error(fmt::format("no metric is in both BASE ({}) and CAND ({}): nothing to compare", o->base, o->cand));
    fmt::print("{}", render(comparison_document(c, {.all = o->all, .per_unit = o->per_unit}), f));
  });
}

}  // namespace kvmbench::cli
