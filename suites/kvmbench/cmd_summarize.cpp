// `kvmbench summarize FILE [FILE2] [--json]`: numbers one per line in, a
// summary (one file) or an A/B comparison (two files: FILE is the base A,
// FILE2 the candidate B) out. The quickest way to answer "is it in the
// noise?" for numbers that came from anywhere.
#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/parse/plain_numbers.h"
#include "analysis/report/numbers.h"
#include "analysis/stats/statistics.h"
#include "suites/kvmbench/commands.h"
#include "suites/framework/errors.h"

namespace kvmbench::cli {

namespace {

// A summary needs a standard deviation and a CI, a comparison needs both on
// each side: two numbers per file. Fewer is refused rather than printed as
// a table of NaNs.
constexpr std::size_t kMinValues = 2;

std::string read_all(const std::string& path) {
  if (path == "-") {
    return std::string(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  }
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) usage_error(fmt::format("{}: no such file", path));
  if (std::filesystem::is_directory(path, ec)) usage_error(fmt::format("{}: is a directory", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) usage_error(fmt::format("{}: cannot open for reading", path));
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) usage_error(fmt::format("{}: read error", path));
  return ss.str();
}

std::vector<double> load_numbers(const std::string& path) {
  const std::string name = path == "-" ? "<stdin>" : path;
  PlainNumbers parsed;
  try {
    parsed = parse_plain_numbers(read_all(path));
  } catch (const PlainNumbersError& e) {
    usage_error(fmt::format("{}:{}: {}", name, e.line, e.what()));
  }
  if (parsed.values.empty())
    usage_error(fmt::format("{}: no numbers (expected one number per line)", name));
  if (parsed.values.size() < kMinValues)
    usage_error(fmt::format("{}: only {} number; need at least {} for a standard deviation", name,
                            parsed.values.size(), kMinValues));
  return parsed.values;
}

// JSON has no NaN: a value that cannot be computed is null.
nlohmann::json num(double v) {
  if (std::isfinite(v)) return v;
  return nullptr;
}

// Shortest text that reads back to the same double (an input: alpha);
// "n/a" for NaN.
std::string text(double v) { return std::isfinite(v) ? fmt::format("{}", v) : "n/a"; }

// A statistic for reading: four significant digits (--json has them all).
std::string reading(double v) { return format_reading(v, 4); }
std::string percent(double v) { return std::isfinite(v) ? format_reading(v, 3) + "%" : "n/a"; }
// A p-value: three digits, or the power of ten when it is that small.
std::string p_value(double p) {
  return !std::isfinite(p) || p >= 1e-3 ? format_reading(p, 3) : fmt::format("{:.2e}", p);
}

nlohmann::json summary_json(const stats::Summary& s) {
  return {{"n", s.n},           {"mean", num(s.mean)},
          {"stddev", num(s.stddev)}, {"min", num(s.min)},
          {"median", num(s.median)}, {"max", num(s.max)},
          {"cv", num(s.cv)},         {"ci95_low", num(s.ci95_low)},
          {"ci95_high", num(s.ci95_high)}};
}

void print_line(const std::string& key, const std::string& value) {
  fmt::print("{:<18} {}\n", key, value);
}

void print_summary(const stats::Summary& s, const std::string& prefix) {
  print_line(prefix + "n", fmt::format("{}", s.n));
  print_line(prefix + "mean", reading(s.mean));
  print_line(prefix + "stddev", reading(s.stddev));
  print_line(prefix + "min", reading(s.min));
  print_line(prefix + "median", reading(s.median));
  print_line(prefix + "max", reading(s.max));
  print_line(prefix + "cv", percent(100 * s.cv));
  print_line(prefix + "ci95_low", reading(s.ci95_low));
  print_line(prefix + "ci95_high", reading(s.ci95_high));
}

struct Options {
  std::vector<std::string> files;
  std::string format = "text";
  bool json = false;
  bool higher_is_better = false;
  double alpha = 0.05;
};

void run(const Options& o) {
  if (o.files.size() == 2 && o.files[0] == "-" && o.files[1] == "-")
    usage_error("summarize: standard input ('-') can be read only once");
  if (!(o.alpha > 0 && o.alpha < 1)) usage_error("summarize: --alpha must be in (0, 1)");

  std::vector<double> a = load_numbers(o.files[0]);
  stats::Summary sa = stats::summarize(a);
  if (o.files.size() == 1) {
    if (o.json) {
      fmt::print("{}\n", summary_json(sa).dump(2));
    } else {
      print_line("file", o.files[0]);
      print_summary(sa, "");
    }
    return;
  }

  std::vector<double> b = load_numbers(o.files[1]);
  stats::Summary sb = stats::summarize(b);
  stats::Change change = stats::relative_change(sa, sb);
  stats::TestResult welch = stats::welch_t_test(sa, sb);
  stats::TestResult mw = stats::mann_whitney_u(a, b);
  const Direction dir = o.higher_is_better ? Direction::higher_is_better : Direction::lower_is_better;
  stats::Verdict v = stats::verdict(sa, sb, welch.p, dir, o.alpha);

  if (o.json) {
    nlohmann::json j = {{"a", summary_json(sa)},
                        {"b", summary_json(sb)},
                        {"change_pct", num(change.pct)},
                        {"change_ci95_low", num(change.ci95_low)},
                        {"change_ci95_high", num(change.ci95_high)},
                        {"welch_p", num(welch.p)},
                        {"mannwhitney_p", num(mw.p)},
                        {"verdict", std::string(stats::to_string(v))}};
    fmt::print("{}\n", j.dump(2));
    return;
  }
  print_line("a.file", o.files[0]);
  print_summary(sa, "a.");
  print_line("b.file", o.files[1]);
  print_summary(sb, "b.");
  print_line("change_pct", percent(change.pct));
  print_line("change_ci95_low", percent(change.ci95_low));
  print_line("change_ci95_high", percent(change.ci95_high));
  print_line("welch_p", p_value(welch.p));
  print_line("mannwhitney_p", p_value(mw.p));
  print_line("direction", o.higher_is_better ? "higher is better (--higher-is-better)"
                                             : "lower is better (assumed; --higher-is-better for rates)");
  print_line("alpha", text(o.alpha));
  print_line("verdict", std::string(stats::to_string(v)));
}

}  // namespace

void add_summarize_command(CLI::App& app) {
  auto opts = std::make_shared<Options>();
  auto* cmd = app.add_subcommand(
      "summarize",
      "Summarise numbers (one per line, '#' comments; '-' is stdin); with two files, "
      "compare B=FILE2 against A=FILE: change % with a 95% CI (Fieller), Welch and "
      "Mann-Whitney p, verdict from Welch's p");
  cmd->add_option("files", opts->files, "FILE [FILE2]")->required()->expected(1, 2);
  cmd->footer("Exit status: 0 summarized; 2 a bad option or input that cannot be read.");
  // --format as every other command has it; --json, its older spelling, kept.
  cmd->add_option("--format", opts->format, "Output: text or json (NaN as null)")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  cmd->add_flag("--json", opts->json, "As --format json");
  cmd->add_flag("--higher-is-better", opts->higher_is_better,
                "The numbers are rates: higher is better (default: lower is better, as times)");
  cmd->add_option("--alpha", opts->alpha, "Significance level of the verdict (default 0.05)");
  cmd->callback([opts] {
    if (opts->format == "json") opts->json = true;
    run(*opts);
  });
}

}  // namespace kvmbench::cli
