#include "analysis/verdicts/ab_experiment.h"
#include "analysis/model/text_lines.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
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

[[noreturn]] void bad(const std::string& key, const std::string& expected) {
  throw std::invalid_argument(fmt::format("ab state: {}: expected {}", key, expected));
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

Side side_from(const std::string& s) {
  if (s == "base") return Side::base;
  if (s == "cand") return Side::cand;
  bad("steps[].side", "\"base\" or \"cand\"");
}

Phase phase_from(const std::string& s) {
  for (Phase p : {Phase::running, Phase::returning, Phase::done})
    if (to_string(p) == s) return p;
  bad("phase", "running, returning or done");
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
  return fmt::format("{}|{}|{}|{}|{}|{}|{}|{}", fmt::join(command, " "), base.spec, base.append, cand.spec,
                     cand.append, order, seed, n);
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
  for (const auto& s : e.steps)
    steps.push_back({{"side", std::string(to_string(s.side))},
                     {"status", std::string(to_string(s.status))},
                     {"run_dir", s.run_dir},
                     {"exit_code", s.exit_code},
                     {"note", s.note},
                     {"boot_id", s.boot_id},
                     {"release", s.release},
                     {"started_at", s.started_at},
                     {"ended_at", s.ended_at}});
  return {{"kvmbench_ab", 1},
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
}

Experiment experiment_from_json(const nlohmann::json& j) {
  if (!j.is_object() || j.value("kvmbench_ab", 0) != 1) bad("kvmbench_ab", "1 (a `kvmbench ab` state file)");
  Experiment e;
  e.id = field<std::string>(j, "id", "a string");
  if (e.id.empty() || e.id.find_first_of(" \t\n:") != std::string::npos) bad("id", "a word without ':'");
  e.command = field<std::vector<std::string>>(j, "command", "a list of strings");
  e.base = kernel_from(j.value("base", nlohmann::json()), "base");
  e.cand = kernel_from(j.value("cand", nlohmann::json()), "cand");
  e.order = field<std::string>(j, "order", "a string");
  e.seed = field<std::uint64_t>(j, "seed", "a non-negative integer");
  e.n = field<int>(j, "n", "an integer");
  e.max_regression_pct = field<double>(j, "max_regression_pct", "a number");
  e.alpha = field<double>(j, "alpha", "a number");
  e.boot_timeout_s = field<double>(j, "boot_timeout_s", "a number");
  e.out_dir = field<std::string>(j, "out_dir", "a string");
  e.junit = field<std::string>(j, "junit", "a string");
  e.markdown = field<std::string>(j, "markdown", "a string");
  e.db = field<std::string>(j, "db", "a string");
  const auto& steps = j.value("steps", nlohmann::json());
  if (!steps.is_array()) bad("steps", "a list");
  for (const auto& s : steps) {
    if (!s.is_object()) bad("steps[]", "objects");
    Step st;
    st.side = side_from(field<std::string>(s, "side", "a string"));
    try {
      st.status = step_status_from_name(field<std::string>(s, "status", "a string"));
    } catch (const std::invalid_argument&) {
      bad("steps[].status", "a step status");
    }
    st.run_dir = field<std::string>(s, "run_dir", "a string");
    st.exit_code = field<int>(s, "exit_code", "an integer");
    st.note = field<std::string>(s, "note", "a string");
    st.boot_id = field<std::string>(s, "boot_id", "a string");
    st.release = field<std::string>(s, "release", "a string");
    st.started_at = field<std::string>(s, "started_at", "a string");
    st.ended_at = field<std::string>(s, "ended_at", "a string");
    e.steps.push_back(std::move(st));
  }
  if (e.steps.size() != static_cast<std::size_t>(2 * e.n)) bad("steps", fmt::format("{} steps (2n)", 2 * e.n));
  e.phase = phase_from(field<std::string>(j, "phase", "a string"));
  e.abort_requested = field<bool>(j, "abort_requested", "true or false");
  e.kexec_step = field<int>(j, "kexec_step", "an integer");
  e.kexec_from_boot_id = field<std::string>(j, "kexec_from_boot_id", "a string");
  e.kexec_at = field<std::string>(j, "kexec_at", "a string");
  e.result_code = field<int>(j, "result_code", "an integer");
  e.verdict_line = field<std::string>(j, "verdict_line", "a string");
  e.created_at = field<std::string>(j, "created_at", "a string");
  return e;
}

}  // namespace kvmbench::ab
