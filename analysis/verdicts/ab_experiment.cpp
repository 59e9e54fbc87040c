#include "analysis/verdicts/ab_experiment.h"
#include "analysis/model/printable.h"
#include "analysis/model/sample_jsonl.h"
#include "analysis/model/text_lines.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <climits>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

namespace kvmbench::ab {

namespace {

constexpr std::array<std::pair<StepStatus, std::string_view>, 7> kStepNames = {{
    {StepStatus::pending, "pending"},
    {StepStatus::booting, "booting"},
    {StepStatus::running, "running"},
    {StepStatus::done, "done"},
    {StepStatus::failed, "failed"},
    {StepStatus::no_boot, "no_boot"},
    {StepStatus::skipped, "skipped"},
}};

// SplitMix64: a shuffle that gives the same order for a seed on every
// machine and library (std::shuffle's does not).
std::uint64_t next_random(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

[[noreturn]] void bad(const std::string& key, const std::string& expected, const std::string& got = "") {
  throw std::invalid_argument(
      fmt::format("ab state: {}: expected {}{}", key, expected, got.empty() ? "" : ", got " + got));
}

template <typename T>
T field(const nlohmann::json& j, const char* key, const char* expected) {
  if (!j.contains(key)) bad(key, expected);
  try {
    return j.at(key).get<T>();
  } catch (const nlohmann::json::exception&) {
    bad(key, expected);
  }
}

// An integer member within [lo, hi]: nlohmann's get<int>() would convert a
// fraction or wrap a number too large for an int without a word.
long long integer_field(const nlohmann::json& j, const std::string& key, long long lo, long long hi,
                        const std::string& where = "") {
  const std::string name = where.empty() ? key : where;
  const std::string expected = fmt::format("an integer from {} to {}", lo, hi);
  if (!j.contains(key)) bad(name, expected);
  const nlohmann::json& v = j.at(key);
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(hi) || static_cast<long long>(u) < lo) bad(name, expected, std::to_string(u));
    return static_cast<long long>(u);
  }
  if (!v.is_number_integer()) bad(name, expected, v.is_number() ? v.dump() : std::string(v.type_name()));
  const auto x = v.get<long long>();
  if (x < lo || x > hi) bad(name, expected, std::to_string(x));
  return x;
}

// A setting out of its bounds: the state's key, the option that sets it,
// the value as given and what it must be.
struct SettingProblem {
  std::string key, option, value, expected;
};

std::optional<SettingProblem> settings_problem(const Settings& s) {
  if (s.sequential && (s.n < 2 || s.n > kMaxBootsASide))
    return SettingProblem{"n", "--max-boots", std::to_string(s.n),
                          fmt::format("the most boots a side -n auto may make: at least 2, at most {}",
                                      kMaxBootsASide)};
  if (s.n < 2 || s.n > kMaxBootsASide)
    return SettingProblem{"n", "-n", std::to_string(s.n),
                          fmt::format("at least 2 invocations a side (a CI needs two boots), at most {}",
                                      kMaxBootsASide)};
  if (!(std::isfinite(s.max_time_s) && s.max_time_s >= 0))
    return SettingProblem{"max_time_s", "--max-time", fmt::format("{}", s.max_time_s),
                          "a finite number of seconds >= 0"};
  if (s.max_time_s > 0 && !s.sequential)
    return SettingProblem{"max_time_s", "--max-time", fmt::format("{}", s.max_time_s),
                          "a budget of -n auto (a fixed -n runs all its boots)"};
  if (s.order != "abba" && s.order != "random")
    return SettingProblem{"order", "--order", printable(s.order), "abba or random"};
  // A state file is JSON, which holds no infinity and no NaN (nlohmann
  // writes null for them, which nothing reads back as a number).
  if (!(std::isfinite(s.max_regression_pct) && s.max_regression_pct >= 0))
    return SettingProblem{"max_regression_pct", "--max-regression", fmt::format("{}", s.max_regression_pct),
                          "a finite percentage >= 0"};
  if (!(s.alpha > 0 && s.alpha < 1))
    return SettingProblem{"alpha", "--alpha", fmt::format("{}", s.alpha), "a level between 0 and 1"};
  if (!(std::isfinite(s.step_timeout_s) && s.step_timeout_s >= 0))
    return SettingProblem{"step_timeout_s", "--step-timeout", fmt::format("{}", s.step_timeout_s),
                          "a finite number of seconds >= 0 (0: no limit)"};
  if (!(std::isfinite(s.boot_timeout_s) && s.boot_timeout_s > 0))
    return SettingProblem{"boot_timeout_s", "--boot-timeout", fmt::format("{}", s.boot_timeout_s),
                          "a finite number of seconds > 0"};
  return std::nullopt;
}

void check_text(const std::string& key, std::string_view text) {
  if (const std::size_t at = first_invalid_utf8(text); at != std::string_view::npos)
    bad(key, "UTF-8 text", fmt::format("'{}', not UTF-8 at byte {}", printable(text), at));
}

// A word for a file name (<id>.json) and the kernel command line's marker
// (kvmbench.ab=<id>:<step>): printable ASCII, no space, ':' or '/'.
bool id_word(std::string_view id) {
  if (id.empty() || id == "." || id == "..") return false;
  for (char c : id)
    if (c <= ' ' || c > '~' || c == ':' || c == '/') return false;
  return true;
}

nlohmann::json kernel_json(const KernelChoice& k) {
  return {{"spec", k.spec},       {"append", k.append},   {"image", k.image},
          {"initrd", k.initrd},   {"release", k.release}, {"cmdline", k.cmdline}};
}

KernelChoice kernel_from(const nlohmann::json& j, const char* which) {
  if (!j.is_object()) bad(which, "an object");
  KernelChoice k;
  k.spec = field<std::string>(j, "spec", "a string");
  k.append = field<std::string>(j, "append", "a string");
  k.image = field<std::string>(j, "image", "a string");
  k.initrd = field<std::string>(j, "initrd", "a string");
  k.release = field<std::string>(j, "release", "a string");
  k.cmdline = field<std::string>(j, "cmdline", "a string");
  return k;
}

Side side_from(const std::string& s, const std::string& key) {
  if (s == "base") return Side::base;
  if (s == "cand") return Side::cand;
  bad(key, "\"base\" or \"cand\"", "'" + printable(s) + "'");
}

Phase phase_from(const std::string& s) {
  for (Phase p : {Phase::running, Phase::returning, Phase::done})
    if (to_string(p) == s) return p;
  bad("phase", "running, returning or done");
}

// A figure that may be NaN (too few units): null in JSON, which keeps none.
nlohmann::json number_or_null(double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); }

double number_from(const nlohmann::json& j, const char* key, const std::string& at) {
  if (!j.contains(key)) bad(at + "." + key, "a number or null");
  const nlohmann::json& v = j.at(key);
  if (v.is_null()) return NAN;
  if (!v.is_number()) bad(at + "." + key, "a number or null");
  return v.get<double>();
}

MetricFinding finding_from(const std::string& s, const std::string& key) {
  for (MetricFinding f :
       {MetricFinding::regression_shown, MetricFinding::regression_excluded, MetricFinding::inconclusive})
    if (to_string(f) == s) return f;
  bad(key, "regression shown, regression excluded or inconclusive", "'" + printable(s) + "'");
}

FamilyVerdict verdict_from(const std::string& s, const std::string& key) {
  for (FamilyVerdict v : {FamilyVerdict::regression, FamilyVerdict::pass, FamilyVerdict::inconclusive})
    if (to_string(v) == s) return v;
  bad(key, "REGRESSION, PASS or INCONCLUSIVE", "'" + printable(s) + "'");
}

nlohmann::json looks_json(const std::vector<SequentialLook>& looks) {
  nlohmann::json out = nlohmann::json::array();
  for (const SequentialLook& l : looks) {
    nlohmann::json metrics = nlohmann::json::array();
    for (const SequentialMetric& m : l.metrics)
      metrics.push_back({{"key", m.key},
                         {"finding", std::string(to_string(m.finding))},
                         {"decided_at", m.decided_at},
                         {"worse_pct", number_or_null(m.worse_pct)},
                         {"p_shown", number_or_null(m.p_shown)},
                         {"p_excluded", number_or_null(m.p_excluded)},
                         {"shown_boundary", number_or_null(m.shown_boundary)},
                         {"excluded_boundary", number_or_null(m.excluded_boundary)}});
    out.push_back({{"information", l.information},
                   {"last", l.last},
                   {"verdict", std::string(to_string(l.verdict))},
                   {"metrics", metrics}});
  }
  return out;
}

std::vector<SequentialLook> looks_from(const nlohmann::json& j) {
  if (!j.is_array()) bad("sequential.looks", "a list");
  std::vector<SequentialLook> looks;
  for (const auto& l : j) {
    const std::string at = fmt::format("sequential.looks[{}]", looks.size());
    if (!l.is_object()) bad(at, "an object");
    SequentialLook look;
    look.information = number_from(l, "information", at);
    look.last = field<bool>(l, "last", "true or false");
    look.verdict = verdict_from(field<std::string>(l, "verdict", "a string"), at + ".verdict");
    const auto& metrics = l.value("metrics", nlohmann::json());
    if (!metrics.is_array()) bad(at + ".metrics", "a list");
    for (const auto& m : metrics) {
      const std::string mat = fmt::format("{}.metrics[{}]", at, look.metrics.size());
      if (!m.is_object()) bad(mat, "an object");
      SequentialMetric sm;
      sm.key = field<std::string>(m, "key", "a string");
      sm.finding = finding_from(field<std::string>(m, "finding", "a string"), mat + ".finding");
      sm.decided_at = number_from(m, "decided_at", mat);
      sm.worse_pct = number_from(m, "worse_pct", mat);
      sm.p_shown = number_from(m, "p_shown", mat);
      sm.p_excluded = number_from(m, "p_excluded", mat);
      sm.shown_boundary = number_from(m, "shown_boundary", mat);
      sm.excluded_boundary = number_from(m, "excluded_boundary", mat);
      look.metrics.push_back(std::move(sm));
    }
    looks.push_back(std::move(look));
  }
  return looks;
}

}  // namespace

std::string_view to_string(Side s) { return s == Side::base ? "base" : "cand"; }

std::string_view to_string(StepStatus s) {
  for (const auto& [status, name] : kStepNames)
    if (status == s) return name;
  return "?";
}

StepStatus step_status_from_name(std::string_view name) {
  for (const auto& [status, n] : kStepNames)
    if (n == name) return status;
  throw std::invalid_argument(fmt::format("'{}' is not a step status", name));
}

std::string_view to_string(Phase p) {
  switch (p) {
    case Phase::running: return "running";
    case Phase::returning: return "returning";
    case Phase::done: return "done";
  }
  return "?";
}

std::vector<Side> invocation_order(int n, std::string_view order, std::uint64_t seed) {
  if (n < 2)
    throw std::invalid_argument(fmt::format("-n {}: at least 2 invocations a side (a CI needs two boots)", n));
  std::vector<Side> out;
  if (order == "abba") {
    static constexpr Side kBlock[] = {Side::base, Side::cand, Side::cand, Side::base};
    for (int i = 0; i < 2 * n; ++i) out.push_back(kBlock[i % 4]);
    return out;
  }
  if (order == "random") {
    for (int i = 0; i < n; ++i) out.push_back(Side::base);
    for (int i = 0; i < n; ++i) out.push_back(Side::cand);
    std::uint64_t state = seed;
    for (std::size_t i = out.size() - 1; i > 0; --i) std::swap(out[i], out[next_random(state) % (i + 1)]);
    return out;
  }
  throw std::invalid_argument(fmt::format("--order {}: abba or random", order));
}

std::string Experiment::request_key() const {
  return fmt::format("{}|{}|{}|{}|{}|{}|{}|{}{}", fmt::join(command, " "), base.spec, base.append, cand.spec,
                     cand.append, order, seed, n, sequential ? fmt::format("|auto|{}", max_time_s) : "");
}

std::size_t Experiment::count(Side s, StepStatus status) const {
  std::size_t k = 0;
  for (const auto& st : steps) k += st.side == s && st.status == status;
  return k;
}

std::optional<std::size_t> Experiment::next_step() const {
  for (std::size_t i = 0; i < steps.size(); ++i)
    if (steps[i].status == StepStatus::pending || steps[i].status == StepStatus::booting ||
        steps[i].status == StepStatus::running)
      return i;
  return std::nullopt;
}

std::string Experiment::marker(int step) const {
  return fmt::format("kvmbench.ab={}:{}", id, step < 0 ? std::string("base") : std::to_string(step));
}

std::optional<int> marked_step(std::string_view cmdline, std::string_view id) {
  const std::string key = fmt::format("kvmbench.ab={}:", id);
  std::optional<std::string_view> step;
  for_each_word(cmdline, [&](std::string_view word) {
    if (!step && word.starts_with(key)) step = word.substr(key.size());
  });
  if (!step || step->empty()) return std::nullopt;
  if (*step == "base") return -1;
  int v = 0;
  for (char c : *step) {
    if (c < '0' || c > '9' || v > 100000) return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

nlohmann::json to_json(const Experiment& e) {
  nlohmann::json steps = nlohmann::json::array();
  for (const auto& s : e.steps) {
    steps.push_back({{"side", std::string(to_string(s.side))},
                     {"status", std::string(to_string(s.status))},
                     {"run_dir", s.run_dir},
                     {"exit_code", s.exit_code},
                     {"note", s.note},
                     {"boot_id", s.boot_id},
                     {"release", s.release},
                     {"started_at", s.started_at},
                     {"ended_at", s.ended_at}});
    // Only where a try was interrupted: older states read back the same.
    if (!s.interrupted_run.empty()) steps.back()["interrupted_run"] = s.interrupted_run;
  }
  nlohmann::json j = {{"kvmbench_ab", 1},
          {"id", e.id},
          {"command", e.command},
          {"base", kernel_json(e.base)},
          {"cand", kernel_json(e.cand)},
          {"order", e.order},
          {"seed", e.seed},
          {"n", e.n},
          {"max_regression_pct", e.max_regression_pct},
          {"alpha", e.alpha},
          {"boot_timeout_s", e.boot_timeout_s},
          {"out_dir", e.out_dir},
          {"junit", e.junit},
          {"markdown", e.markdown},
          {"db", e.db},
          {"steps", steps},
          {"phase", std::string(to_string(e.phase))},
          {"abort_requested", e.abort_requested},
          {"kexec_step", e.kexec_step},
          {"kexec_from_boot_id", e.kexec_from_boot_id},
          {"kexec_at", e.kexec_at},
          {"result_code", e.result_code},
          {"verdict_line", e.verdict_line},
          {"created_at", e.created_at}};
  // Only where asked for: a fixed experiment's record is as it always was.
  if (e.sequential) j["sequential"] = {{"max_time_s", e.max_time_s}, {"looks", looks_json(e.looks)}};
  if (e.boot_via != "kexec") j["boot_via"] = e.boot_via;
  if (e.step_timeout_s > 0) j["step_timeout_s"] = e.step_timeout_s;
  return j;
}

void check_settings(const Settings& s) {
  if (const auto p = settings_problem(s))
    throw std::invalid_argument(fmt::format("{} {}: {}", p->option, p->value, p->expected));
  for (const auto& t : s.texts)
    if (const std::size_t at = first_invalid_utf8(t); at != std::string_view::npos)
      throw std::invalid_argument(fmt::format("'{}' is not UTF-8 (byte {}): an experiment's state keeps its "
                                              "command, kernels and paths as UTF-8 text",
                                              printable(t), at));
}

void check_experiment(const Experiment& e) {
  if (!id_word(e.id)) bad("id", "a word of printable ASCII without spaces, ':' or '/'", "'" + printable(e.id) + "'");
  if (e.command.empty()) bad("command", "the command each boot runs (not empty)");
  for (std::size_t i = 0; i < e.command.size(); ++i) check_text(fmt::format("command[{}]", i), e.command[i]);
  for (const auto& [name, k] : {std::pair<const char*, const KernelChoice&>{"base", e.base}, {"cand", e.cand}})
    for (const auto& [key, text] : {std::pair<const char*, const std::string&>{"spec", k.spec},
                                    {"append", k.append},
                                    {"image", k.image},
                                    {"initrd", k.initrd},
                                    {"release", k.release},
                                    {"cmdline", k.cmdline}})
      check_text(fmt::format("{}.{}", name, key), text);
  if (const auto p = settings_problem(
          {e.n, e.order, e.max_regression_pct, e.alpha, e.boot_timeout_s, {}, e.sequential, e.max_time_s,
           e.step_timeout_s}))
    bad(p->key, p->expected, p->value);
  if (!e.sequential && !e.looks.empty()) bad("sequential", "looks only for -n auto");
  for (std::size_t i = 0; i < e.looks.size(); ++i) {
    const SequentialLook& l = e.looks[i];
    const std::string at = fmt::format("sequential.looks[{}]", i);
    if (!(l.information >= 2 && l.information <= e.n + 1e-9) || (i > 0 && l.information <= e.looks[i - 1].information))
      bad(at + ".information", fmt::format("units a side from 2 to {}, more than the look before", e.n),
          fmt::format("{}", l.information));
    if (i + 1 < e.looks.size() && l.ends()) bad(at, "a look that did not end the experiment (others follow it)");
    for (const SequentialMetric& m : l.metrics) check_text(at + ".key", m.key);
  }
  for (const auto& [key, text] : {std::pair<const char*, const std::string&>{"out_dir", e.out_dir},
                                  {"junit", e.junit},
                                  {"markdown", e.markdown},
                                  {"db", e.db},
                                  {"kexec_from_boot_id", e.kexec_from_boot_id},
                                  {"kexec_at", e.kexec_at},
                                  {"verdict_line", e.verdict_line},
                                  {"created_at", e.created_at}})
    check_text(key, text);
  // n is within bounds here, so 2n is an int.
  const int steps = static_cast<int>(e.steps.size());
  if (steps != 2 * e.n) bad("steps", fmt::format("{} steps (2n)", 2 * e.n), std::to_string(steps));
  const auto base = static_cast<int>(
      std::count_if(e.steps.begin(), e.steps.end(), [](const Step& s) { return s.side == Side::base; }));
  if (base != e.n)
    bad("steps", fmt::format("{} boots of each side (n)", e.n), fmt::format("{} base, {} cand", base, steps - base));
  for (std::size_t i = 0; i < e.steps.size(); ++i) {
    const Step& s = e.steps[i];
    for (const auto& [key, text] : {std::pair<const char*, const std::string&>{"run_dir", s.run_dir},
                                    {"note", s.note},
                                    {"boot_id", s.boot_id},
                                    {"release", s.release},
                                    {"started_at", s.started_at},
                                    {"ended_at", s.ended_at},
                                    {"interrupted_run", s.interrupted_run}})
      check_text(fmt::format("steps[{}].{}", i, key), text);
  }
  // -2: none since the last arrival; -1: the way back to base; else a step.
  if (e.kexec_step < -2 || e.kexec_step >= steps)
    bad("kexec_step", fmt::format("-2 (none), -1 (back to base) or a step from 0 to {}", steps - 1),
        std::to_string(e.kexec_step));
  if (!e.kexec_from_boot_id.empty() && e.kexec_step == -2)
    bad("kexec_step", "the step of the kexec in flight (kexec_from_boot_id is set)", "-2");
  if (e.result_code != -1 && e.result_code != 0 && e.result_code != 1 && e.result_code != 3)
    bad("result_code", "-1 (no verdict yet), 0, 1 or 3", std::to_string(e.result_code));
  if (e.phase != Phase::running && e.result_code == -1)
    bad("result_code", fmt::format("the verdict's code (0, 1 or 3) in phase {}", to_string(e.phase)), "-1");
}

Experiment experiment_from_json(const nlohmann::json& j) {
  if (!j.is_object() || j.value("kvmbench_ab", 0) != 1) bad("kvmbench_ab", "1 (a `kvmbench ab` state file)");
  Experiment e;
  e.id = field<std::string>(j, "id", "a string");
  e.command = field<std::vector<std::string>>(j, "command", "a list of strings");
  e.base = kernel_from(j.value("base", nlohmann::json()), "base");
  e.cand = kernel_from(j.value("cand", nlohmann::json()), "cand");
  e.order = field<std::string>(j, "order", "a string");
  if (!j.contains("seed") || !j.at("seed").is_number_unsigned()) bad("seed", "a non-negative integer");
  e.seed = j.at("seed").get<std::uint64_t>();
  e.n = static_cast<int>(integer_field(j, "n", 2, kMaxBootsASide));
  e.max_regression_pct = field<double>(j, "max_regression_pct", "a number");
  e.alpha = field<double>(j, "alpha", "a number");
  e.boot_timeout_s = field<double>(j, "boot_timeout_s", "a number");
  if (j.contains("step_timeout_s")) e.step_timeout_s = field<double>(j, "step_timeout_s", "a number");
  e.out_dir = field<std::string>(j, "out_dir", "a string");
  e.junit = field<std::string>(j, "junit", "a string");
  e.markdown = field<std::string>(j, "markdown", "a string");
  e.db = field<std::string>(j, "db", "a string");
  const auto& steps = j.value("steps", nlohmann::json());
  if (!steps.is_array()) bad("steps", "a list");
  if (steps.size() != static_cast<std::size_t>(2 * e.n))
    bad("steps", fmt::format("{} steps (2n)", 2 * e.n), std::to_string(steps.size()));
  for (const auto& s : steps) {
    const std::string at = fmt::format("steps[{}]", e.steps.size());
    if (!s.is_object()) bad(at, "an object");
    Step st;
    st.side = side_from(field<std::string>(s, "side", "a string"), at + ".side");
    try {
      st.status = step_status_from_name(field<std::string>(s, "status", "a string"));
    } catch (const std::invalid_argument&) {
      bad(at + ".status", "a step status (pending, booting, running, done, failed, no_boot, skipped)");
    }
    st.run_dir = field<std::string>(s, "run_dir", "a string");
    st.exit_code = static_cast<int>(integer_field(s, "exit_code", INT_MIN, INT_MAX, at + ".exit_code"));
    st.note = field<std::string>(s, "note", "a string");
    st.boot_id = field<std::string>(s, "boot_id", "a string");
    st.release = field<std::string>(s, "release", "a string");
    st.started_at = field<std::string>(s, "started_at", "a string");
    st.ended_at = field<std::string>(s, "ended_at", "a string");
    if (s.contains("interrupted_run")) st.interrupted_run = field<std::string>(s, "interrupted_run", "a string");
    e.steps.push_back(std::move(st));
  }
  e.phase = phase_from(field<std::string>(j, "phase", "a string"));
  e.abort_requested = field<bool>(j, "abort_requested", "true or false");
  e.kexec_step = static_cast<int>(integer_field(j, "kexec_step", INT_MIN, INT_MAX));
  e.kexec_from_boot_id = field<std::string>(j, "kexec_from_boot_id", "a string");
  e.kexec_at = field<std::string>(j, "kexec_at", "a string");
  e.result_code = static_cast<int>(integer_field(j, "result_code", INT_MIN, INT_MAX));
  e.verdict_line = field<std::string>(j, "verdict_line", "a string");
  e.created_at = field<std::string>(j, "created_at", "a string");
  if (j.contains("sequential")) {
    const auto& q = j.at("sequential");
    if (!q.is_object()) bad("sequential", "an object");
    e.sequential = true;
    e.max_time_s = number_from(q, "max_time_s", "sequential");
    e.looks = looks_from(q.value("looks", nlohmann::json()));
  }
  if (j.contains("boot_via")) {
    e.boot_via = field<std::string>(j, "boot_via", "a string");
    if (e.boot_via != "kexec" && e.boot_via != "reboot") bad("boot_via", "kexec or reboot", e.boot_via);
  }
  check_experiment(e);
  return e;
}

}  // namespace kvmbench::ab
