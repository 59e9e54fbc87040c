#include "analysis/verdicts/compare.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <fnmatch.h>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <stdexcept>

#include "analysis/model/flatten_json.h"
#include "analysis/verdicts/configuration_keys.h"
#include "analysis/verdicts/comparison_bounds.h"
#include "analysis/verdicts/family_verdicts.h"
#include "analysis/model/units.h"

namespace kvmbench {

std::vector<Series> group_series(const std::vector<Sample>& samples, int invocation) {
  std::vector<Series> out;
  std::map<std::string, std::size_t> index;
  for (const Sample& s : samples) {
    std::string key = s.series_key();
    auto it = index.find(key);
    if (it == index.end()) {
      it = index.emplace(key, out.size()).first;
      out.push_back(Series{s.key(), {}, 0, std::nullopt, {}});
    }
    Series& ser = out[it->second];
    if (ser.failed.empty() && s.extra.is_object())
      if (auto f = s.extra.find("failed"); f != s.extra.end() && f->is_string()) ser.failed = f->get<std::string>();
    double value = s.value;
    if (ser.key.unit != s.unit) {
      const auto to = seconds_per_time_unit(ser.key.unit), from = seconds_per_time_unit(s.unit);
      if (!to || !from)
        throw std::runtime_error(fmt::format("series '{}' mixes units '{}' and '{}'", key, ser.key.unit, s.unit));
      value *= *from / *to;
    }
    if (s.warmup) {
      ++ser.warmups_dropped;  // stored for the record, never summarised
      continue;
    }
    // A run stored from several files (ingest) says which file was which.
    int inv = invocation;
    if (s.extra.is_object())
      if (auto it = s.extra.find("invocation"); it != s.extra.end() && it->is_number_integer())
        inv += it->get<int>();
    ser.observations.push_back({value, inv, s.iteration, sub_unit_of(s)});
  }
  return out;
}

// The costs of one run's levels from its meta.json: what `kvmbench run`
// records (the measured repetitions' seconds, the process's seconds).
static LevelCosts costs_of(const nlohmann::json& meta) {
  LevelCosts c;
  if (!meta.is_object() || !meta.contains("repetition_seconds") || !meta["repetition_seconds"].is_array() ||
      meta["repetition_seconds"].empty() || !meta.contains("invocation_seconds") ||
      !meta["invocation_seconds"].is_number())
    return c;
  double sum = 0;
  for (auto& v : meta["repetition_seconds"]) {
    if (!v.is_number()) return c;
    sum += v.get<double>();
  }
  c.repetition_s = sum / static_cast<double>(meta["repetition_seconds"].size());
  c.invocation_s = std::max(0.0, meta["invocation_seconds"].get<double>() - sum);
  return c;
}

ComparisonSide side_from_run(const Run& run, std::string label) {
  ComparisonSide side;
  side.label = std::move(label);
  side.source = run.source();
  side.meta = run.meta;
  side.series = group_series(run.samples);
  side.status = run.status();
  try {
    side.roles = MetricRoles::from_json(run.meta.value("metric_roles", nlohmann::json()));
  } catch (const std::exception& e) {
    throw std::runtime_error(fmt::format("{}: meta.json: {}", side.label, e.what()));
  }
  side.costs = costs_of(run.meta);
  if (run.meta.contains("not_measured") && run.meta["not_measured"].is_array())  // what ingest stores
    for (auto& n : run.meta["not_measured"])
      if (n.is_object()) side.not_measured.push_back({n.value("case", ""), n.value("message", "")});
  if (run.meta.contains("failures") && run.meta["failures"].is_array())  // ingest's, of a test that failed
    for (auto& f : run.meta["failures"])
      if (f.is_object()) side.failed_tests.push_back({f.value("program", ""), f.value("reason", "")});
  side.invocations = invocations_of(side.series);
  return side;
}

std::size_t invocations_of(const std::vector<Series>& series) {
  int most = 0;
  for (auto& ser : series)
    for (auto& o : ser.observations) most = std::max(most, o.invocation);
  return static_cast<std::size_t>(most) + 1;
}

ComparisonSide merge_invocations(std::vector<ComparisonSide> sides) {
  if (sides.empty()) throw std::invalid_argument("merge_invocations: no side");
  if (sides.size() == 1) return std::move(sides.front());
  ComparisonSide out;
  out.source = sides.front().source;
  out.meta = sides.front().meta;
  out.status = sides.front().status;
  out.invocations = 0;
  std::map<std::string, std::size_t> index;
  double inv_cost = 0, rep_cost = 0;
  std::size_t costed = 0;
  for (std::size_t k = 0; k < sides.size(); ++k) {
    ComparisonSide& s = sides[k];
    if (s.source != out.source)
      throw std::runtime_error(fmt::format("{} has source '{}' but {} has '{}': one side is one kind of "
                                           "measurement",
                                           s.label, to_string(s.source), sides.front().label, to_string(out.source)));
    out.label += (k ? "," : "") + s.label;
    if (s.status != "complete" && !s.status.empty()) out.status = s.status;
    out.roles = merge_roles(out.roles, s.roles);
    out.not_measured.insert(out.not_measured.end(), s.not_measured.begin(), s.not_measured.end());
    out.failed_tests.insert(out.failed_tests.end(), s.failed_tests.begin(), s.failed_tests.end());
    out.input_notes.insert(out.input_notes.end(), s.input_notes.begin(), s.input_notes.end());
    if (std::isfinite(s.costs.invocation_s) && std::isfinite(s.costs.repetition_s)) {
      inv_cost += s.costs.invocation_s;
      rep_cost += s.costs.repetition_s;
      ++costed;
    }
    const int first_invocation = static_cast<int>(out.invocations);
    out.invocations += s.invocations;
    for (Series& ser : s.series) {
      if (ser.given)
        throw std::runtime_error(fmt::format("{}: '{}' has only aggregates (mean, stddev): one such file per side, "
                                             "or files with their repetitions",
                                             s.label, ser.key.name()));
      for (Observation& o : ser.observations) o.invocation += first_invocation;
      auto [it, fresh] = index.try_emplace(ser.key.name(), out.series.size());
      if (fresh) {
        out.series.push_back(std::move(ser));
        continue;
      }
      Series& into = out.series[it->second];
      if (into.failed.empty()) into.failed = ser.failed;
      double factor = 1;
      if (into.key.unit != ser.key.unit) {
        const auto to = seconds_per_time_unit(into.key.unit), from = seconds_per_time_unit(ser.key.unit);
        if (!to || !from)
          throw std::runtime_error(fmt::format("'{}' is in '{}' in {} but in '{}' in {}", ser.key.name(),
                                               into.key.unit, sides.front().label, ser.key.unit, s.label));
        factor = *from / *to;
      }
      for (Observation& o : ser.observations) {
        o.value *= factor;
        into.observations.push_back(std::move(o));
      }
      into.warmups_dropped += ser.warmups_dropped;
    }
  }
  if (costed == sides.size()) {
    out.costs.invocation_s = inv_cost / static_cast<double>(costed);
    out.costs.repetition_s = rep_cost / static_cast<double>(costed);
  }
  return out;
}

// ---- metadata differences -------------------------------------------------

// Whitespace-separated items of a, not in b (order kept).
static std::string items_not_in(const std::string& a, const std::string& b) {
  std::istringstream sa(a), sb(b);
  std::multiset<std::string> bset;
  for (std::string w; sb >> w;) bset.insert(w);
  std::string out;
  for (std::string w; sa >> w;) {
    auto it = bset.find(w);
    if (it != bset.end()) {
      bset.erase(it);
      continue;
    }
    out += (out.empty() ? "" : " ") + w;
  }
  return out;
}

namespace {

// An ingested run keeps each Google Benchmark file's context under its
// file's name; one file's is read as a compared file's "context".
nlohmann::json configuration_meta(const nlohmann::json& meta) {
  if (!meta.is_object()) return meta;
  const auto it = meta.find("gbench_context");
  if (it == meta.end() || !it->is_object() || it->size() != 1 || meta.contains("context")) return meta;
  nlohmann::json out = meta;
  out["context"] = it->begin().value();
  out.erase("gbench_context");
  return out;
}

}  // namespace

bool host_recorded(const nlohmann::json& meta) {
  if (!meta.is_object()) return false;
  const auto it = meta.find("host");
  return it != meta.end() && it->is_object() && !it->empty();
}

std::vector<MetaDifference> meta_alike(const nlohmann::json& base, const nlohmann::json& cand) {
  auto fb = flatten_json(configuration_meta(base)), fc = flatten_json(configuration_meta(cand));
  std::map<std::string, std::string> mc(fc.begin(), fc.end());
  std::vector<MetaDifference> out;
  for (auto& [k, v] : fb) {
    const ConfigurationKey* configuration = configuration_key(k);
    const auto it = mc.find(k);
    if (configuration && it != mc.end() && same_configuration(*configuration, v, it->second))
      out.push_back({k, v, it->second});
  }
  return out;
}

std::vector<MetaDifference> meta_differences(const nlohmann::json& base_meta, const nlohmann::json& cand_meta) {
  const nlohmann::json base = configuration_meta(base_meta), cand = configuration_meta(cand_meta);
  auto fb = flatten_json(base), fc = flatten_json(cand);
  std::map<std::string, std::string> mc(fc.begin(), fc.end());
  std::map<std::string, std::string> mb(fb.begin(), fb.end());
  std::vector<MetaDifference> out;
  auto add = [&](const std::string& key, const std::string* b, const std::string* c) {
    const ConfigurationKey* configuration = configuration_key(key);
    if (!configuration) return;
    if (b && c && same_configuration(*configuration, *b, *c)) return;
    auto shown = [](const std::string* v) -> std::string { return !v ? "(absent)" : v->empty() ? "(empty)" : *v; };
    MetaDifference d{key, shown(b), shown(c)};
    // Long word lists (cmdline, CPU flags): only the words that differ.
    if (b && c && (b->size() > 40 || c->size() > 40) && b->find(' ') != std::string::npos &&
        c->find(' ') != std::string::npos) {
      std::string only_b = items_not_in(*b, *c), only_c = items_not_in(*c, *b);
      if (!only_b.empty() || !only_c.empty()) {
        d.base = only_b.empty() ? "(same words)" : "only here: " + only_b;
        d.cand = only_c.empty() ? "(same words)" : "only here: " + only_c;
      } else {
        d.base = "(same words, other order)";
        d.cand = d.base;
      }
    }
    out.push_back(std::move(d));
  };
  for (auto& [k, v] : fb) {
    auto it = mc.find(k);
    add(k, &v, it == mc.end() ? nullptr : &it->second);
  }
  for (auto& [k, v] : fc)
    if (!mb.count(k)) add(k, nullptr, &v);
  return out;
}

// ---- the comparison -------------------------------------------------------

std::string Comparison::source_label() const {
  if (base.source == cand.source) return std::string(to_string(base.source));
  return fmt::format("base {}, cand {}", to_string(base.source), to_string(cand.source));
}

namespace {

// A string at a path of meta.json ("host", "kernel", "release"); a number
// as JSON writes it; "" when absent.
std::string meta_text(const nlohmann::json& meta, std::initializer_list<const char*> path) {
  const nlohmann::json* j = &meta;
  for (const char* key : path) {
    if (!j->is_object()) return "";
    const auto it = j->find(key);
    if (it == j->end()) return "";
    j = &*it;
  }
  return j->is_string() ? j->get<std::string>() : j->is_null() || j->is_structured() ? "" : j->dump();
}

// "lab7, AMD EPYC 9654, 192 CPUs": what a reader recognises a machine by.
std::string machine_line(const nlohmann::json& meta) {
  std::vector<std::string> parts;
  for (const std::string& p : {meta_text(meta, {"hostname"}), meta_text(meta, {"host", "cpu", "model_name"})})
    if (!p.empty()) parts.push_back(p);
  if (const std::string threads = meta_text(meta, {"host", "topology", "threads"}); !threads.empty())
    parts.push_back(threads + " CPUs");
  return fmt::format("{}", fmt::join(parts, ", "));
}

}  // namespace

ComparedSide compared_side(const ComparisonSide& side) {
  ComparedSide c;
  c.label = side.label;
  c.source = side.source;
  c.status = side.status;
  c.machine = machine_identity(side.meta);
  c.machine_line = machine_line(side.meta);
  c.kernel = meta_text(side.meta, {"host", "kernel", "release"});
  c.suite = meta_text(side.meta, {"suite"});
  c.preset = meta_text(side.meta, {"preset"});
  c.invocations = side.invocations;
  c.not_measured = side.not_measured;
  c.failed_tests = side.failed_tests;
  c.input_notes = side.input_notes;
  c.costs = side.costs;
  return c;
}

std::size_t Comparison::tested_count() const {
  std::size_t k = 0;
  for (auto& m : metrics) k += m.tested;
  return k;
}

namespace {

bool matches_any(const std::vector<std::string>& patterns, const Series& s) {
  for (auto& p : patterns)
    if (::fnmatch(p.c_str(), s.key.name().c_str(), 0) == 0 || ::fnmatch(p.c_str(), s.key.metric.c_str(), 0) == 0)
      return true;
  return false;
}

bool selected(const CompareOptions& opt, const Series& s) {
  if (!opt.include.empty() && !matches_any(opt.include, s)) return false;
  return !matches_any(opt.exclude, s);
}

bool all_finite(const std::vector<double>& v) {
  return std::all_of(v.begin(), v.end(), [](double x) { return std::isfinite(x); });
}

// The summary of one side's units: as given (aggregates), from the unit
// values, or for non-finite values one that shows them (mean = the first
// such value; no spread).
stats::Summary summary_of(const Series& s, const ExperimentalUnits& u) {
  if (s.given) return *s.given;
  if (u.values.empty()) return {};
  if (all_finite(u.values)) return stats::summarize(u.values);
  stats::Summary sm;
  sm.n = u.values.size();
  sm.mean = *std::find_if(u.values.begin(), u.values.end(), [](double x) { return !std::isfinite(x); });
  sm.stddev = sm.min = sm.median = sm.max = sm.cv = sm.ci95_low = sm.ci95_high = NAN;
  return sm;
}

void fill_side(MetricComparison& m, const Series& s, bool base) {
  ExperimentalUnits u = experimental_units(s.observations);
  if (s.given) u.repetitions = s.given->n;
  const stats::Summary sm = summary_of(s, u);
  (base ? m.base_units : m.cand_units) = u;
  (base ? m.base_levels : m.cand_levels) = level_variance(s.observations);
  (base ? m.base : m.cand) = sm;
  (base ? m.base_values : m.cand_values) = u.values;
  (base ? m.base_observations : m.cand_observations) = s.observations;
  (base ? m.in_base : m.in_cand) = s.given || !s.observations.empty();
  m.from_aggregates = m.from_aggregates || s.given.has_value();
}

// Converts cand's observations into base's time unit; false when the two
// units do not convert.
bool align_units(const Series& base, Series& cand) {
  if (base.key.unit == cand.key.unit) return true;
  const auto to = seconds_per_time_unit(base.key.unit), from = seconds_per_time_unit(cand.key.unit);
  if (!to || !from) return false;
  const double f = *from / *to;
  for (auto& o : cand.observations) o.value *= f;
  if (cand.given) {  // every statistic of a summary scales with the unit (the CV does not)
    stats::Summary& g = *cand.given;
    for (double* x : {&g.mean, &g.stddev, &g.min, &g.median, &g.max, &g.ci95_low, &g.ci95_high}) *x *= f;
  }
  cand.key.unit = base.key.unit;
  return true;
}

void add_note(MetricComparison& m, const std::string& n) { m.note += (m.note.empty() ? "" : "; ") + n; }

std::string errored_note(const std::vector<NotMeasured>& list, const std::string& case_name, const char* side) {
  for (auto& e : list)
    if (e.case_name == case_name) return fmt::format("{} did not measure it: {}", side, e.message);
  return "";
}

// Why the test of `case_name` failed on a side ("" when it did not): the
// case is the test's own ("memslot_perf_test") or one of its parts
// ("memslot_perf_test/rw", "dirty_log_perf_test [With this series]").
std::string failed_test_reason(const std::vector<FailedTest>& list, const std::string& case_name) {
  for (auto& f : list) {
    if (f.test.empty() || !case_name.starts_with(f.test)) continue;
    const std::string_view rest = std::string_view(case_name).substr(f.test.size());
    if (rest.empty() || rest.front() == '/' || rest.front() == ' ') return f.reason;
  }
  return "";
}

}  // namespace

std::string different_experiments(const nlohmann::json& base, const nlohmann::json& cand) {
  auto text = [](const nlohmann::json& meta, const char* key) {
    const auto it = meta.is_object() ? meta.find(key) : meta.end();
    return it != meta.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  const std::string bs = text(base, "suite"), cs = text(cand, "suite");
  if (!bs.empty() && !cs.empty() && bs != cs)
    return fmt::format("BASE is a run of suite '{}' and CAND of suite '{}': they measure different things "
                       "(compare two runs of one suite)",
                       bs, cs);
  const std::string bp = text(base, "preset"), cp = text(cand, "preset");
  if (!bs.empty() && bs == cs && !bp.empty() && !cp.empty() && bp != cp)
    return fmt::format("BASE ran {} --preset {} and CAND {} --preset {}: the presets measure different cases "
                       "(compare two runs of one preset)",
                       bs, bp, cs, cp);
  return "";
}

Comparison compare(const ComparisonSide& base, const ComparisonSide& cand_in, const CompareOptions& opt) {
  for (auto& p : opt.include)
    if (p.empty()) throw std::invalid_argument("an empty --metrics pattern");
  for (auto& p : opt.exclude)
    if (p.empty()) throw std::invalid_argument("an empty --exclude pattern");
  Comparison c;
  c.base = compared_side(base);
  c.cand = compared_side(cand_in);
  c.alpha = opt.alpha;
  c.meta_differences = meta_differences(base.meta, cand_in.meta);
  c.meta_alike = meta_alike(base.meta, cand_in.meta);
  c.base_host_recorded = host_recorded(base.meta);
  c.cand_host_recorded = host_recorded(cand_in.meta);
  // What published output does not record is unknown, not different: a
  // key absent on a side whose host kvmbench never saw says nothing (a
  // run's host, suite or preset against a file's nothing).
  std::erase_if(c.meta_differences, [&](const MetaDifference& d) {
    return (!c.base_host_recorded && d.base == "(absent)") || (!c.cand_host_recorded && d.cand == "(absent)");
  });
  const MetricRoles roles = merge_roles(base.roles, cand_in.roles);
  c.repetition = roles.repetition;

  std::vector<Series> cand_series = cand_in.series;
  std::map<std::string, Series*> cand_by_key;
  for (auto& s : cand_series) cand_by_key[s.key.name()] = &s;
  std::set<std::string> base_keys;
  std::set<std::size_t> mismatched;  // rows whose two units do not convert

  auto start_row = [&](const Series& s) {
    MetricComparison m;
    m.key = s.key;
    m.direction = direction_for_unit(s.key.unit);
    m.derived_from = roles.derived_from(s.key.metric);
    m.primary = roles.is_primary(s.key.metric);
    return m;
  };
  // Monitors in one family, the suite's metrics in the other.
  auto other_family = [&](const Series& s) { return roles.is_monitor(s.key.metric) != opt.monitors_only; };
  for (auto& bs : base.series) {
    base_keys.insert(bs.key.name());
    if (other_family(bs)) continue;
    if (!selected(opt, bs)) {
      ++c.left_out;
      continue;
    }
    MetricComparison m = start_row(bs);
    fill_side(m, bs, true);
    m.base_failed = bs.failed;
    auto it = cand_by_key.find(bs.key.name());
    if (it != cand_by_key.end()) {
      m.cand_failed = it->second->failed;
      if (!align_units(bs, *it->second)) {
        add_note(m, fmt::format("in '{}' in base but in '{}' in cand: not compared", bs.key.unit,
                                it->second->key.unit));
        mismatched.insert(c.metrics.size());
        c.metrics.push_back(std::move(m));
        continue;
      }
      fill_side(m, *it->second, false);
    }
    c.metrics.push_back(std::move(m));
  }
  for (auto& cs : cand_series) {
    if (base_keys.count(cs.key.name())) continue;
    if (other_family(cs)) continue;
    if (!selected(opt, cs)) {
      ++c.left_out;
      continue;
    }
    MetricComparison m = start_row(cs);
    fill_side(m, cs, false);
    m.cand_failed = cs.failed;
    c.metrics.push_back(std::move(m));
  }

  const std::size_t need = std::max<std::size_t>(2, opt.min_n);
  std::vector<std::size_t> tested_idx;
  for (std::size_t i = 0; i < c.metrics.size(); ++i) {
    auto& m = c.metrics[i];
    if (mismatched.count(i)) continue;  // stays not_comparable
    // A side whose test failed before it printed this figure.
    if (!m.in_base) m.base_failed = failed_test_reason(c.base.failed_tests, m.key.case_name);
    if (!m.in_cand) m.cand_failed = failed_test_reason(c.cand.failed_tests, m.key.case_name);
    auto failed_notes = [&] {
      for (auto [side, reason] : {std::pair{"base", &m.base_failed}, std::pair{"cand", &m.cand_failed}})
        if (!reason->empty())
          add_note(m, fmt::format("{}'s test failed ({}): {}", side, *reason,
                                  (side[0] == 'b' ? m.in_base : m.in_cand) ? "figures before the failure, not compared"
                                                                            : "it printed none"));
    };
    if (!m.in_base || !m.in_cand) {
      m.status = MetricStatus::one_side;
      add_note(m, m.in_base ? "only in base" : "only in cand");
      const std::string why = m.in_base ? errored_note(c.cand.not_measured, m.key.case_name, "cand")
                                        : errored_note(c.base.not_measured, m.key.case_name, "base");
      if (!why.empty()) add_note(m, why);
      failed_notes();
      continue;
    }
    // Figures printed before their test failed are no good run's: shown,
    // never tested (the gate fails on cand's).
    if (!m.base_failed.empty() || !m.cand_failed.empty()) {
      m.status = MetricStatus::not_comparable;
      failed_notes();
      continue;
    }
    // (A summary from aggregates may lack its spread: a stddev row.)
    auto no_spread = [](const stats::Summary& s) { return s.n >= 2 && !std::isfinite(s.stddev); };
    if (!all_finite(m.base_values) || !all_finite(m.cand_values) || !std::isfinite(m.base.mean) ||
        !std::isfinite(m.cand.mean) || no_spread(m.base) || no_spread(m.cand)) {
      m.status = MetricStatus::not_comparable;
      add_note(m, "non-finite values (NaN or infinity), as the input has them: not compared");
      continue;
    }
    m.change = stats::relative_change(m.base, m.cand);
    if (!m.derived_from.empty()) {
      m.status = MetricStatus::derived;
      add_note(m, fmt::format("derived from {}: shown, not tested again", m.derived_from));
      continue;
    }
    if (opt.primary_only && !opt.monitors_only && !roles.is_primary(m.key.metric)) {
      m.status = MetricStatus::secondary;
      add_note(m, "not a primary metric of its suite: shown, not tested (--metrics gates it)");
      continue;
    }
    if (m.base.n < need || m.cand.n < need) {
      m.status = MetricStatus::change_only;
      m.change.ci95_low = m.change.ci95_high = NAN;
      add_note(m, fmt::format("{} units: the change only (no CI, no p; a test needs {} per side)",
                              m.base.n == m.cand.n ? fmt::format("n = {}", m.base.n)
                                                   : fmt::format("n = {} vs {}", m.base.n, m.cand.n),
                              need));
      continue;
    }
    m.status = MetricStatus::tested;
    m.tested = true;
    m.p_welch = stats::welch_t_test(m.base, m.cand).p;
    if (!m.from_aggregates) {
      const auto mw = stats::mann_whitney_u(m.base_values, m.cand_values);
      m.p_mann_whitney = mw.p;
      m.mann_whitney_exact = mw.exact;
    }
    tested_idx.push_back(i);
  }
  judge_tested_metrics(c, opt.linear ? TestScale::linear : TestScale::log_where_positive);
  for (std::size_t i : tested_idx) {
    auto& m = c.metrics[i];
    if (m.direction == Direction::unknown && !opt.monitors_only)
      add_note(m, "direction unknown (unit '" + m.key.unit + "')");
  }
  // What the verdict's metrics exclude; monitors explain, they state none.
  if (!opt.monitors_only) state_bounds(c, opt.linear);
  if (!opt.monitors_only && (!base.roles.monitor.empty() || !cand_in.roles.monitor.empty())) {
    CompareOptions mo;
    mo.alpha = opt.alpha;
    mo.min_n = opt.min_n;
    mo.monitors_only = true;
    c.monitors = compare(base, cand_in, mo).metrics;
  }
  return c;
}

}  // namespace kvmbench
