#include "analysis/verdicts/history_baseline.h"
#include "analysis/model/json_input.h"

#include <fmt/format.h>

#include <cmath>
#include <filesystem>
#include <stdexcept>

#include "analysis/report/numbers.h"
#include "analysis/verdicts/family_verdicts.h"
#include "analysis/store/machine_fingerprint.h"
#include "analysis/store/run_record.h"
#include "analysis/model/sample_jsonl.h"

namespace kvmbench {

std::optional<BaselineQuery> parse_baseline_spec(std::string_view base) {
  if (base != "db" && base.substr(0, 3) != "db:") return std::nullopt;
  BaselineQuery q;
  std::string_view rest = base.size() > 3 ? base.substr(3) : std::string_view();
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
    const auto eq = item.find('=');
    const std::string key(item.substr(0, eq)), value(eq == std::string_view::npos ? "" : item.substr(eq + 1));
    if (key == "kernel" && !value.empty()) {
      q.kernel = value;
    } else if (key == "last" && !value.empty() && value.find_first_not_of("0123456789") == std::string::npos &&
               value.size() < 7 && std::stoul(value) >= 2) {
      q.last = std::stoul(value);
    } else {
      throw std::invalid_argument(fmt::format("--baseline {}: cannot read '{}' (kernel=RELEASE, last=N with N >= 2, "
                                              "joined by ',')",
                                              base, item));
    }
  }
  return q;
}

HistoryBaseline baseline_from_history(db::ResultsDb& rdb, const ComparisonSide& cand,
                                      const std::vector<std::string>& cand_dir_names, const BaselineQuery& q,
                                      std::size_t min_runs) {
  const MachineIdentity id = machine_identity(cand.meta);
  if (!id.known())
    throw std::invalid_argument(fmt::format("{}: records no machine (no host CPU in its metadata): the history of "
                                            "which machine is the baseline cannot be told",
                                            cand.label));
  const std::string suite = cand.meta.value("suite", std::string());
  if (suite.empty()) throw std::invalid_argument(fmt::format("{}: no suite in its metadata", cand.label));
  db::RunQuery rq;
  rq.suite = suite;
  rq.machine = id.fingerprint;
  rq.preset = cand.meta.value("preset", std::string());
  // The same text RunRecord stores (nlohmann sorts object keys).
  rq.parameters = cand.meta.contains("parameters") && cand.meta["parameters"].is_object()
                      ? cand.meta["parameters"].dump()
                      : "{}";
  rq.status = "complete";
  rq.source = std::string(to_string(cand.source));
  rq.kernel_release = q.kernel;
  rq.newest_first = true;
  HistoryBaseline b;
  for (auto& r : rdb.runs(rq)) {
    bool is_cand = false;
    for (const auto& d : cand_dir_names) is_cand |= r.run_key == id.fingerprint + "/" + d;
    if (is_cand) continue;
    b.runs.push_back(std::move(r));
    if (b.runs.size() == q.last) break;
  }
  if (b.runs.size() < min_runs)
    throw std::invalid_argument(fmt::format(
        "{}: {} complete {} run(s) of {} preset '{}' with the candidate's parameters on machine {}{} (the baseline "
        "needs at least {})",
        rdb.name(), b.runs.size(), rq.source, suite, rq.preset, id.fingerprint,
        q.kernel.empty() ? "" : " under kernel " + q.kernel, min_runs));
  std::vector<ComparisonSide> sides;
  for (const auto& row : b.runs) {
    const db::RunRecord rec = rdb.record(row.id);
    Run run;
    run.dir = rec.imported_from;
    run.meta = parse_json_input(rec.meta_text);
    for (const auto& s : rec.samples) run.samples.push_back(parse_sample_line(s.line, false));
    sides.push_back(side_from_run(run, row.dir_name));
  }
  b.side = merge_invocations(std::move(sides));
  const auto& newest = b.runs.front();
  const auto& oldest = b.runs.back();
  b.side.label = fmt::format("history: {} runs of {} on {}{} ({} .. {})", b.runs.size(), suite, newest.hostname,
                             q.kernel.empty() ? "" : ", kernel " + q.kernel, oldest.start_time.substr(0, 10),
                             newest.start_time.substr(0, 10));
  return b;
}

void retest_against_history(Comparison& c) {
  std::vector<FamilyMember> members;
  for (std::size_t i = 0; i < c.metrics.size(); ++i) {
    MetricComparison& m = c.metrics[i];
    if (m.status != MetricStatus::tested) continue;
    const double n = static_cast<double>(m.base_values.size());
    const bool invocations = m.cand_units.level == UnitLevel::invocation;
    const double k = invocations ? static_cast<double>(m.cand_values.size()) : 1.0;
    // A positive quantity is judged on the logs, as compare judges it: the
    // runs of a history differ by factors.
    const bool logs = all_positive(m.base_values) && all_positive(m.cand_values);
    FamilyMember f;
    f.index = i;
    f.base = logs ? log_summary(m.base_values) : m.base;
    f.cand = m.cand;
    f.cand.mean = !logs ? m.cand.mean : invocations ? log_summary(m.cand_values).mean : std::log(m.cand.mean);
    const double xbar = f.base.mean, s = f.base.stddev, df = n - 1, d = f.cand.mean - xbar;
    const double se = s * std::sqrt(1 / n + 1 / k);
    f.p = se > 0 ? 2 * stats::student_t_cdf(-std::fabs(d / se), df) : (d == 0 ? 1.0 : 0.0);
    f.interval = [=](double error) {
      const double half = stats::student_t_quantile(1 - error / 2, df) * se;
      if (!logs) return stats::Change{100 * d / std::fabs(xbar), 100 * (d - half) / std::fabs(xbar),
                                      100 * (d + half) / std::fabs(xbar)};
      stats::Change ch{(std::exp(d) - 1) * 100, (std::exp(d - half) - 1) * 100, (std::exp(d + half) - 1) * 100};
      ch.log_scale = ch.geometric = true;
      return ch;
    };
    m.p_mann_whitney = NAN;  // a rank test of one run against the history says nothing more
    m.note = logs ? fmt::format("against the between-run noise of {} history runs (sd {:.3g}% on the logs)",
                                m.base_values.size(), 100 * s)
                  : fmt::format("against the between-run noise of {} history runs (sd {} {})", m.base_values.size(),
                                format_number(s), m.key.unit);
    members.push_back(std::move(f));
  }
  judge_family(c, members);
}

}  // namespace kvmbench
