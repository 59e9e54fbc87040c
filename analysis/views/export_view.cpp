#include "analysis/views/export_view.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "analysis/report/numbers.h"

namespace kvmbench {

namespace {

// The statistics of a metric, by name, as every format carries them.
std::vector<std::pair<std::string, double>> statistics(const ExportedMetric& m) {
  if (m.units == 0) return {};
  const auto& s = m.summary;
  return {{"mean", s.mean},   {"stddev", s.stddev}, {"ci95_low", s.ci95_low}, {"ci95_high", s.ci95_high},
          {"median", s.median}, {"min", s.min},     {"max", s.max},           {"cv", s.cv},
          {"n", static_cast<double>(m.units)}};
}

// A number as text that reads back to the same double; "nan" / "inf" spelled out.
std::string exact(double x) { return std::isfinite(x) ? fmt::format("{}", x) : (std::isnan(x) ? "nan" : "inf"); }

// "mean ± sd unit (n repetitions), 95% CI [lo, hi]".
std::string described(const ExportedMetric& m) {
  if (m.units == 0) return "no value";
  const ReadingScale scale = reading_scale(std::fabs(m.summary.mean), m.key.unit);
  std::string s = format_mean_sd(m.summary, true, scale) + " " + scale.unit;
  s += fmt::format(" ({} {}{})", m.units, m.unit_level, m.units == 1 ? "" : "s");
  if (m.units >= 2)
    s += fmt::format(", 95% CI [{}, {}]", format_number(m.summary.ci95_low * scale.factor),
                     format_number(m.summary.ci95_high * scale.factor));
  return s;
}

std::string run_title(const ExportedRun& r) {
  return fmt::format("{}{} ({})", r.suite.empty() ? "?" : r.suite, r.preset.empty() ? "" : "/" + r.preset, r.name);
}

// A run's status as a result: failed fails, an incomplete run is not one.
ExportResult status_result(const ExportedRun& r) {
  if (r.status == "failed") return ExportResult::fail;
  return r.status == "complete" ? ExportResult::pass : ExportResult::skip;
}

std::string status_message(const ExportedRun& r) {
  if (r.status == "failed") return "run failed" + (r.error.empty() ? "" : ": " + r.error);
  if (r.status != "complete") return fmt::format("run {}: not complete", r.status.empty() ? "of no status" : r.status);
  return "";
}

// [A-Za-z0-9_-] kept, anything else '_': what LAVA test case names and
// KCIDB path components may hold.
std::string name_part(std::string_view s) {
  std::string o;
  for (char c : s) o += (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-') ? c : '_';
  return o.empty() ? "_" : o;
}

std::string metric_name(const ExportedMetric& m) {
  std::string n = name_part(m.key.case_name);
  if (!m.key.variant.empty()) n += "." + name_part(m.key.variant);
  return n + "." + name_part(m.key.metric);
}

std::string shell_quote(std::string_view s) {
  std::string o = "'";
  for (char c : s) o += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return o + "'";
}

// A suite per run: a case for its status, one per primary metric (its
// statistics as the suite's properties), one per skipped part.
std::vector<JunitSuite> export_junit(const std::vector<ExportedRun>& runs) {
  std::vector<JunitSuite> suites;
  for (const auto& r : runs) {
    JunitSuite s;
    s.name = "kvmbench " + run_title(r);
    s.timestamp = r.start_time;
    s.hostname = r.hostname;
    for (const auto& [k, v] : {std::pair<const char*, const std::string&>{"suite", r.suite}, {"preset", r.preset},
                               {"status", r.status}, {"source", r.source}, {"tool_version", r.tool_version},
                               {"kernel", r.kernel}, {"start_time", r.start_time}, {"end_time", r.end_time}})
      if (!v.empty()) s.properties.emplace_back(k, v);
    const std::string cls = "kvmbench." + (r.suite.empty() ? std::string("run") : r.suite);
    JunitCase status;
    status.classname = cls;
    status.name = "run status";
    switch (status_result(r)) {
      case ExportResult::fail:
        status.result = JunitCase::Result::failure;
        status.type = "run failed";
        break;
      case ExportResult::skip: status.result = JunitCase::Result::skipped; break;
      case ExportResult::pass: break;
    }
    status.message = status_message(r);
    status.system_out = fmt::format("status {}, source {}", r.status, r.source);
    s.cases.push_back(status);
    for (const auto& m : r.metrics) {
      s.properties.emplace_back(m.key.name() + ".unit", m.key.unit);
      for (const auto& [k, v] : statistics(m)) s.properties.emplace_back(m.key.name() + "." + k, exact(v));
      JunitCase c;
      c.classname = cls + "." + m.key.where();
      c.name = m.key.metric;
      if (m.result == ExportResult::skip) {
        c.result = JunitCase::Result::skipped;
        c.message = m.message;
      }
      c.system_out = described(m);
      s.cases.push_back(std::move(c));
    }
    for (const auto& p : r.skipped)
      s.cases.push_back({cls + ".skipped", p.part, JunitCase::Result::skipped, "", p.reason, ""});
    // Monitors are figures, not test cases: properties named monitor.KEY.
    for (const auto& m : r.monitors) {
      s.properties.emplace_back("monitor." + m.key.name() + ".unit", m.key.unit);
      for (const auto& [k, v] : statistics(m)) s.properties.emplace_back("monitor." + m.key.name() + "." + k, exact(v));
    }
    suites.push_back(std::move(s));
  }
  return suites;
}

}  // namespace

std::string render_export_lava(const std::vector<ExportedRun>& runs) {
  std::string out;
  auto line = [&](const std::string& name, ExportResult res, const std::string& extra = "") {
    out += fmt::format("lava-test-case {} --result {}{}\n", shell_quote(name), to_string(res), extra);
  };
  for (const auto& r : runs) {
    // LAVA keeps a case's name, result, measurement and units, nothing
    // else: figures not measured on hardware (emulated, replay, model) name
    // their source in every case, so that nothing fed from LAVA files them
    // beside a hardware measurement of the same metric.
    std::string prefix = name_part(r.suite.empty() ? "run" : r.suite);
    if (!r.source.empty() && r.source != "hardware") prefix += "." + name_part(r.source);
    out += fmt::format("# kvmbench {}: status {}, source {}\n", run_title(r), r.status, r.source);
    line(prefix + ".run-status", status_result(r));
    for (const auto& m : r.metrics) {
      const std::string name = prefix + "." + metric_name(m);
      const std::string units = shell_quote(m.key.unit);
      if (m.units == 0 || !std::isfinite(m.summary.mean)) {
        line(name, ExportResult::skip);
        continue;
      }
      line(name, m.result, fmt::format(" --measurement {} --units {}", exact(m.summary.mean), units));
      // The statistics, as a set named like the metric.
      out += fmt::format("lava-test-set start {}\n", shell_quote(name));
      for (const auto& [k, v] : statistics(m))
        if (std::isfinite(v))
          line(k, ExportResult::pass,
               fmt::format(" --measurement {} --units {}", exact(v),
                           k == "n" ? shell_quote("units") : k == "cv" ? shell_quote("ratio") : units));
      out += "lava-test-set stop\n";
    }
    for (const auto& p : r.skipped) line(prefix + ".skipped." + name_part(p.part), ExportResult::skip);
    // The monitors as a set of their own, each its mean a repetition.
    if (!r.monitors.empty()) {
      out += fmt::format("lava-test-set start {}\n", shell_quote(prefix + ".monitors"));
      for (const auto& m : r.monitors)
        if (m.units > 0 && std::isfinite(m.summary.mean))
          line(metric_name(m), ExportResult::pass,
               fmt::format(" --measurement {} --units {}", exact(m.summary.mean), shell_quote(m.key.unit)));
      out += "lava-test-set stop\n";
    }
  }
  return out;
}

std::string render_export_kcidb(const std::vector<ExportedRun>& runs, const std::string& origin) {
  nlohmann::json checkouts = nlohmann::json::array(), builds = nlohmann::json::array(),
                 tests = nlohmann::json::array();
  std::vector<std::string> kernels;
  for (const auto& r : runs) {
    // The kernel under test as booted: its release is all a run knows of
    // it (no commit), so it names the checkout and the build alike.
    const std::string kernel = r.kernel.empty() ? "unknown-kernel" : r.kernel;
    const std::string build_id = origin + ":" + kernel;
    if (std::find(kernels.begin(), kernels.end(), kernel) == kernels.end()) {
      kernels.push_back(kernel);
      checkouts.push_back({{"id", build_id}, {"origin", origin}, {"comment", "kernel " + kernel + " (as booted)"}});
      builds.push_back({{"id", build_id}, {"checkout_id", build_id}, {"origin", origin},
                        {"comment", "kernel " + kernel + " (as booted)"}});
    }
    const std::string path = "kvmbench." + name_part(r.suite.empty() ? "run" : r.suite);
    auto test = [&](const std::string& id_tail, const std::string& test_path, const char* status) {
      nlohmann::json t = {{"id", origin + ":" + r.name + ":" + id_tail}, {"build_id", build_id}, {"origin", origin},
                          {"path", test_path}, {"status", status}};
      if (!r.start_time.empty()) t["start_time"] = r.start_time;
      if (!r.hostname.empty()) t["environment"] = {{"comment", r.hostname}};
      return t;
    };
    const ExportResult sr = status_result(r);
    nlohmann::json st = test("run", path, sr == ExportResult::fail ? "ERROR" : sr == ExportResult::skip ? "MISS" : "PASS");
    st["misc"] = {{"status", r.status}, {"source", r.source}, {"preset", r.preset}, {"tool_version", r.tool_version}};
    if (!status_message(r).empty()) st["comment"] = status_message(r);
    tests.push_back(st);
    for (const auto& m : r.metrics) {
      // DONE: a measurement, not a verdict on the code (that is a gate's).
      const bool measured = m.units > 0 && std::isfinite(m.summary.mean);
      nlohmann::json t = test(m.key.name(), path + "." + metric_name(m), m.result == ExportResult::pass ? "DONE" : "SKIP");
      if (measured) {
        t["number"] = {{"value", m.summary.mean}};
        if (!m.key.unit.empty()) t["number"]["unit"] = m.key.unit;
      }
      nlohmann::json misc = {{"source", r.source}, {"unit_level", m.unit_level}, {"role", "primary"}};
      for (const auto& [k, v] : statistics(m))
        if (std::isfinite(v)) misc[k] = v;  // KCIDB has no null
      t["misc"] = misc;
      if (!m.message.empty()) t["comment"] = m.message;
      tests.push_back(t);
    }
    // Monitors under a path of their own, marked in misc: never a result.
    for (const auto& m : r.monitors) {
      nlohmann::json t = test("monitor:" + m.key.name(), path + ".monitors." + metric_name(m), "DONE");
      if (m.units > 0 && std::isfinite(m.summary.mean)) {
        t["number"] = {{"value", m.summary.mean}};
        if (!m.key.unit.empty()) t["number"]["unit"] = m.key.unit;
      }
      nlohmann::json misc = {{"source", r.source}, {"unit_level", m.unit_level}, {"role", "monitor"}};
      for (const auto& [k, v] : statistics(m))
        if (std::isfinite(v)) misc[k] = v;
      t["misc"] = misc;
      tests.push_back(t);
    }
    for (const auto& p : r.skipped) {
      nlohmann::json t = test("skipped:" + p.part, path + ".skipped." + name_part(p.part), "SKIP");
      t["comment"] = p.reason;
      tests.push_back(t);
    }
  }
  nlohmann::json doc = {{"version", {{"major", 5}, {"minor", 0}}},
                        {"checkouts", checkouts},
                        {"builds", builds},
                        {"tests", tests}};
  return doc.dump(2) + "\n";
}

Document export_document(const std::vector<ExportedRun>& runs) {
  const ExportVerdict v = export_verdict(runs);
  Document d;
  d.title = "kvmbench export";
  d.lead.push_back(fmt::format("kvmbench export: {} run{}, {}", runs.size(), runs.size() == 1 ? "" : "s", to_string(v)));
  d.lead.push_back("");
  for (const auto& r : runs) {
    // A table per run, its primary metrics; what the run was in its notes.
    Table t;
    t.title = run_title(r);
    t.source = r.source;
    t.max_text_rows = 0;
    t.columns = {{"result", Align::left}, {"primary metric", Align::left}, {"mean ± sd (n)"}, {"95% CI"},
                 {"unit", Align::left}};
    for (const auto& m : r.metrics) {
      const bool ci = m.units >= 2;
      const ReadingScale scale = reading_scale(std::fabs(m.summary.mean), m.key.unit);
      t.add_row({std::string(to_string(m.result)), m.key.name(), format_mean_sd(m.summary, m.units > 0, scale),
                 ci ? Cell::interval(m.summary.ci95_low, m.summary.ci95_high, m.key.unit,
                                     fmt::format("[{}, {}]", format_number(m.summary.ci95_low * scale.factor),
                                                 format_number(m.summary.ci95_high * scale.factor)))
                    : Cell(m.message),
                 scale.unit});
    }
    t.notes.push_back(fmt::format("status {} · kernel {} · host {} · kvmbench {}", r.status, r.kernel, r.hostname,
                                  r.tool_version));
    if (!status_message(r).empty()) t.notes.push_back(status_message(r));
    for (const auto& p : r.skipped) t.notes.push_back(fmt::format("skipped {}: {}", p.part, p.reason));
    d.tables.push_back(std::move(t));
    if (r.monitors.empty()) continue;
    Table mt;
    mt.title = "monitors of " + run_title(r) + " (what the kernel counted; not results)";
    mt.source = r.source;
    mt.max_text_rows = 0;
    mt.columns = {{"monitor", Align::left}, {"mean ± sd (n)"}, {"unit", Align::left}};
    for (const auto& m : r.monitors) {
      const ReadingScale scale = m.key.unit == "count" ? ReadingScale{} : reading_scale(std::fabs(m.summary.mean), m.key.unit);
      mt.add_row({m.key.name(), format_mean_sd(m.summary, m.units > 0, scale), scale.unit.empty() ? m.key.unit : scale.unit});
    }
    d.tables.push_back(std::move(mt));
  }
  d.junit_name = "kvmbench export";
  d.junit = export_junit(runs);
  return d;
}

}  // namespace kvmbench
