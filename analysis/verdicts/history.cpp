#include "analysis/verdicts/history.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <tuple>

#include "analysis/parse/kernel_release_order.h"
#include "analysis/model/result_model.h"

namespace kvmbench {

std::string HistorySeries::label() const {
  const std::string where = key.where();
  return (where.empty() ? "" : where + " ") + key.metric;
}

std::size_t History::change_points() const {
  std::size_t n = 0;
  for (const auto& s : series) n += s.result.change_points.size();
  return n;
}

namespace {

// The machines `wanted` names: all when empty.
std::vector<db::MachineRow> machines_named(db::ResultsDb& rdb, const std::string& wanted) {
  const auto all = rdb.machines();
  if (wanted.empty()) return all;
  std::vector<db::MachineRow> hit;
  for (const auto& m : all)
    if (m.fingerprint == wanted || m.hostname == wanted ||
        (wanted.size() >= 4 && m.fingerprint.compare(0, wanted.size(), wanted) == 0))
      hit.push_back(m);
  if (hit.size() == 1) return hit;
  std::string known;
  for (const auto& m : (hit.empty() ? all : hit)) known += fmt::format("{}{} ({})", known.empty() ? "" : ", ",
                                                                       m.fingerprint, m.hostname);
  if (hit.empty())
    throw std::invalid_argument(fmt::format("{}: no machine '{}' (machines: {})", rdb.name(), wanted,
                                            known.empty() ? "none" : known));
  throw std::invalid_argument(fmt::format("'{}' names {} machines: {}; give more of the fingerprint", wanted,
                                          hit.size(), known));
}

}  // namespace

History build_history(db::ResultsDb& rdb, const HistoryOptions& opt) {
  if (opt.metrics.empty()) throw std::invalid_argument("history needs at least one metric");
  History h;
  h.options = opt;
  std::map<std::string, std::string> hostname_of;
  std::vector<db::RunRow> runs;
  for (const auto& m : machines_named(rdb, opt.machine)) {
    hostname_of[m.fingerprint] = m.hostname;
    db::RunQuery q;
    q.suite = opt.suite;
    q.machine = m.fingerprint;
    q.preset = opt.preset;
    for (auto& r : rdb.runs(q)) {
      const auto src = parse_source(r.source);
      if (r.status != "complete" || !src || *src == Source::emulated || *src == Source::model) {
        ++h.left_out;
        continue;
      }
      runs.push_back(std::move(r));
    }
  }
  if (runs.empty()) {
    if (h.left_out)
      throw std::invalid_argument(fmt::format("{}: {} runs of {}{}, none complete with source hardware or replay",
                                              rdb.name(), h.left_out, opt.suite,
                                              opt.machine.empty() ? "" : " on " + opt.machine));
    throw std::invalid_argument(fmt::format("{}: no runs of suite '{}'{}{}", rdb.name(), opt.suite,
                                            opt.preset.empty() ? "" : " preset " + opt.preset,
                                            opt.machine.empty() ? "" : " on machine " + opt.machine));
  }
  h.runs = runs.size();
  // The order of the points: runs come by start time; release order keeps
  // that order among the runs of one kernel.
  if (opt.order == KernelOrder::release)
    std::stable_sort(runs.begin(), runs.end(), [](const db::RunRow& a, const db::RunRow& b) {
      return kernel_release_less(a.kernel_release, b.kernel_release);
    });
  std::vector<std::int64_t> ids;
  std::map<std::int64_t, const db::RunRow*> run_of;
  for (const auto& r : runs) {
    ids.push_back(r.id);
    run_of[r.id] = &r;
  }
  // Per run and series: the sum and count of its non-warm-up values.
  using SeriesId = std::tuple<std::string, std::string, std::string, std::string, std::string, std::string>;
  std::map<SeriesId, std::size_t> index;
  std::vector<std::map<std::int64_t, std::pair<double, std::size_t>>> sums;
  for (const auto& s : rdb.samples(ids, opt.metrics)) {
    if (s.warmup) continue;
    if (!std::isfinite(s.value)) {
      ++h.non_finite;  // a failed measurement: no level to place
      continue;
    }
    const db::RunRow& r = *run_of.at(s.run_id);
    const SeriesId key{r.machine, r.preset, r.parameters, s.case_name, s.variant, s.metric};
    auto [it, fresh] = index.emplace(key, h.series.size());
    if (fresh) {
      HistorySeries hs;
      hs.machine = r.machine;
      hs.hostname = hostname_of[r.machine];
      hs.preset = r.preset;
      hs.parameters = r.parameters;
      hs.key = {s.case_name, s.variant, s.metric, s.unit};
      h.series.push_back(std::move(hs));
      sums.emplace_back();
    }
    auto& acc = sums[it->second][s.run_id];
    acc.first += s.value;
    ++acc.second;
  }
  for (std::size_t i = 0; i < h.series.size(); ++i)
    for (const auto id : ids)
      if (auto it = sums[i].find(id); it != sums[i].end()) {
        const db::RunRow& r = *run_of.at(id);
        h.series[i].points.push_back(
            {id, r.dir_name, r.kernel_release, r.start_time, it->second.first / it->second.second, it->second.second});
      }
  if (h.series.empty()) {
    std::string names;
    for (const auto& m : opt.metrics) names += (names.empty() ? "" : ", ") + m;
    throw std::invalid_argument(fmt::format("{}: no samples of {} in the {} runs of {}", rdb.name(), names, runs.size(),
                                            opt.suite));
  }
  std::stable_sort(h.series.begin(), h.series.end(), [](const HistorySeries& a, const HistorySeries& b) {
    return std::tie(a.hostname, a.machine, a.preset, a.parameters) < std::tie(b.hostname, b.machine, b.preset, b.parameters);
  });
  std::vector<std::vector<double>> values;
  for (const auto& s : h.series) {
    values.emplace_back();
    for (const auto& p : s.points) values.back().push_back(p.value);
  }
  const auto results = changepoint::detect(values, opt.detect);
  for (std::size_t i = 0; i < h.series.size(); ++i) h.series[i].result = results[i];
  return h;
}

}  // namespace kvmbench
