#include "analysis/verdicts/compare_input.h"

#include <fmt/format.h>

#include <cmath>
#include <map>
#include <set>
#include <stdexcept>

#include "analysis/parse/format_recognizer.h"
#include "analysis/store/run_store.h"

namespace kvmbench {

namespace fs = std::filesystem;

namespace {

// The series of an aggregates-only file: for each benchmark and metric
// without repetitions, its mean and stddev rows over their count.
std::vector<Series> series_from_aggregates(const std::vector<parsers::GbenchAggregate>& aggregates,
                                           const std::set<std::string>& with_repetitions) {
  struct Moments {
    std::string case_name, metric, unit;
    double mean = NAN, stddev = NAN;
    std::size_t count = 0;
    bool has_mean = false;
  };
  std::vector<Moments> order;
  std::map<std::pair<std::string, std::string>, std::size_t> index;
  for (const auto& a : aggregates) {
    if (with_repetitions.count(a.case_name)) continue;
    if (a.aggregate_name != "mean" && a.aggregate_name != "stddev") continue;
    auto [it, fresh] = index.try_emplace({a.case_name, a.metric}, order.size());
    if (fresh) order.push_back({a.case_name, a.metric, a.unit});
    Moments& m = order[it->second];
    m.count = std::max(m.count, a.count);
    if (a.aggregate_name == "mean") {
      m.mean = a.value;
      m.has_mean = true;
    } else {
      m.stddev = a.value;
    }
  }
  std::vector<Series> out;
  // A benchmark given by other aggregates only (a percentage, as a cv, no
  // mean): each one's value, shown with its change and never tested, as
  // Google Benchmark's compare.py shows it.
  std::set<std::string> with_mean;
  for (const Moments& m : order)
    if (m.has_mean) with_mean.insert(m.case_name);
  for (const auto& a : aggregates) {
    if (with_repetitions.count(a.case_name) || with_mean.count(a.case_name) || a.aggregate_name == "mean" ||
        a.aggregate_name == "stddev" || !std::isfinite(a.value))
      continue;
    Series s;
    s.key = {a.case_name, "", a.metric + "_" + a.aggregate_name, a.unit};
    s.given = stats::summary_from_moments(a.value, NAN, 1);
    out.push_back(std::move(s));
  }
  for (const Moments& m : order) {
    if (!m.has_mean || m.count == 0) continue;
    Series s;
    s.key = {m.case_name, "", m.metric, m.unit};
    if (std::isfinite(m.mean) && (m.count < 2 || (std::isfinite(m.stddev) && m.stddev >= 0))) {
      s.given = stats::summary_from_moments(m.mean, m.stddev, m.count);
    } else {
      // NaN or infinite, as the file has it: shown, never tested.
      stats::Summary shown;
      shown.n = m.count;
      shown.mean = m.mean;
      shown.stddev = shown.min = shown.median = shown.max = shown.cv = shown.ci95_low = shown.ci95_high = NAN;
      s.given = shown;
    }
    out.push_back(std::move(s));
  }
  return out;
}

ComparisonSide side_from_file(const fs::path& path) {
  const std::string text = read_file(path);
  parsers::ParsedInput parsed;
  const parsers::Recognition rec = parsers::recognise_format(text);
  if (rec.format != parsers::InputFormat::gbench_json && rec.format != parsers::InputFormat::kvm_selftest &&
      rec.format != parsers::InputFormat::kvm_unit_tests_vmexit)
    throw std::runtime_error(fmt::format(
        "{}: not a run directory, Google Benchmark JSON, or KVM selftest or vmexit output ({}); `kvmbench "
        "ingest` stores other raw output as a run, which compares",
        path.string(), rec.format == parsers::InputFormat::unrecognised ? rec.reason : to_string(rec.format)));
  ComparisonSide side;
  side.label = path.string();
  side.source = Source::replay;  // measured elsewhere, parsed here
  if (rec.format == parsers::InputFormat::gbench_json) {
    parsers::GbenchParse g;
    try {
      g = parsers::parse_gbench_json(text);
    } catch (const parsers::ParseError& e) {
      throw std::runtime_error(fmt::format("{}:{}: {}", path.string(), e.line, e.what()));
    }
    side.meta["context"] = g.context.is_null() ? nlohmann::json::object() : g.context;
    side.series = group_series(g.result.samples);
    std::set<std::string> with_repetitions;
    for (auto& s : g.result.samples) with_repetitions.insert(s.case_name);
    for (auto& s : series_from_aggregates(g.aggregates, with_repetitions)) side.series.push_back(std::move(s));
    for (auto& n : g.not_measured) side.not_measured.push_back({n.case_name, n.message});
    for (auto& n : g.result.notes) side.input_notes.push_back(fmt::format("{}:{}", path.filename().string(), n.substr(4)));
    std::set<std::string> percentage_only;
    for (auto& a : g.aggregates)
      if (!with_repetitions.count(a.case_name) && a.aggregate_name != "mean" && a.aggregate_name != "stddev")
        percentage_only.insert(a.case_name);
    for (auto& a : g.aggregates)
      if (a.aggregate_name == "mean") percentage_only.erase(a.case_name);
    for (auto& c : percentage_only)
      side.input_notes.push_back(fmt::format("{}: '{}' has aggregates only, none of them a mean (no repetitions): "
                                             "each aggregate's value is shown with its change, not tested",
                                             path.filename().string(), c));
    side.roles.repetition = "a Google Benchmark repetition (in one process)";
    if (side.series.empty() && side.not_measured.empty())
      throw std::runtime_error(fmt::format("{}: Google Benchmark JSON without a benchmark row that measured{}",
                                           path.string(),
                                           g.result.notes.empty() ? "" : " (" + g.result.notes.front() + ")"));
    return side;
  }
  try {
    parsed = parsers::parse_any(text);
  } catch (const parsers::ParseError& e) {
    throw std::runtime_error(fmt::format("{}:{}: {}", path.string(), e.line, e.what()));
  }
  side.series = group_series(parsed.result.samples);
  side.roles = parsed.roles;
  side.invocations = invocations_of(side.series);  // a file can hold several runs
  for (auto& f : parsed.result.failures) side.failed_tests.push_back({f.program, f.reason});
  if (!side.failed_tests.empty()) side.status = "failed";
  return side;
}

}  // namespace

ComparisonSide load_comparison_side(const fs::path& path) {
  std::error_code ec;
  if (!fs::exists(path, ec))
    throw std::runtime_error(fmt::format("{}: no such file or directory", path.string()));
  if (fs::is_directory(path, ec)) {
    if (!fs::exists(path / "meta.json", ec))
      throw std::runtime_error(fmt::format("{}: not a run directory (no meta.json)", path.string()));
    return side_from_run(load_run(path, SampleProvenance::drop), path.string());
  }
  return side_from_file(path);
}

ComparisonSide load_comparison_sides(const std::string& arg) {
  std::error_code ec;
  if (arg.find(',') == std::string::npos || fs::exists(arg, ec)) return load_comparison_side(arg);
  std::vector<ComparisonSide> sides;
  std::size_t pos = 0;
  while (pos <= arg.size()) {
    std::size_t comma = arg.find(',', pos);
    if (comma == std::string::npos) comma = arg.size();
    const std::string item = arg.substr(pos, comma - pos);
    if (item.empty()) throw std::runtime_error(fmt::format("'{}': an empty path between commas", arg));
    sides.push_back(load_comparison_side(item));
    pos = comma + 1;
  }
  return merge_invocations(std::move(sides));
}

std::string same_input_warning(const std::string& base_arg, const std::string& cand_arg) {
  // Each side's files as canonical paths, in order.
  auto files = [](const std::string& arg) {
    std::error_code ec;
    std::vector<std::string> out;
    std::size_t pos = 0;
    const bool one = arg.find(',') == std::string::npos || fs::exists(arg, ec);
    while (pos <= arg.size()) {
      const std::size_t comma = one ? std::string::npos : arg.find(',', pos);
      const std::string item = arg.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
      const fs::path p = fs::weakly_canonical(item, ec);
      out.push_back(ec ? item : p.string());
      if (comma == std::string::npos) break;
      pos = comma + 1;
    }
    return out;
  };
  if (files(base_arg) != files(cand_arg)) return "";
  return "BASE and CAND are the same input: a comparison of a run with itself finds no change whatever it holds";
}

}  // namespace kvmbench
