#include "suites/framework/run_context.h"
#include "suites/framework/suite.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "analysis/model/closest_names.h"
#include "analysis/model/units.h"
#include "suites/framework/collector.h"
#include "hostlib/os/interrupt.h"
#include "suites/framework/errors.h"

namespace kvmbench::suites {

bool HostCaps::has_feature(const std::string& f) const {
  return std::find(cpu_features.begin(), cpu_features.end(), f) != cpu_features.end();
}

bool HostCaps::qemu_has_accel(const std::string& a) const {
  return std::find(qemu_accels.begin(), qemu_accels.end(), a) != qemu_accels.end();
}

const Preset* Suite::find_preset(const std::string& n) const {
  for (auto& p : presets)
    if (p.name == n) return &p;
  return nullptr;
}

// Each defined in its folder (suites/<name>/suite.cpp); this list is the
// only place that names them.
Suite rmpopt_suite();
Suite directmap_suite();
Suite make_shared_suite();
Suite asid_suite();

const std::vector<Suite>& registry() {
  static const std::vector<Suite> suites = {rmpopt_suite(), directmap_suite(), make_shared_suite(), asid_suite()};
  return suites;
}

const Suite* find_suite(std::string_view name) {
  for (auto& s : registry())
    if (s.name == name) return &s;
  return nullptr;
}

std::string suite_names(const std::function<bool(const Suite&)>& has) {
  std::string out;
  for (const auto& s : registry())
    if (has(s)) out += (out.empty() ? "" : ", ") + s.name;
  return out;
}

std::string unknown_suite_message(std::string_view name, const std::function<bool(const Suite&)>& has,
                                  bool all_too) {
  std::vector<std::string> valid;
  for (const auto& s : registry())
    if (has(s)) valid.push_back(s.name);
  if (all_too) valid.push_back("all");
  const std::string hint = did_you_mean(name, valid);
  return fmt::format("unknown suite '{}'{}{} (known: {})", name, hint.empty() ? "" : "; ", hint,
                     fmt::join(valid, ", "));
}

RunContext::RunContext(const HostCaps& caps, std::any params, int repetitions, std::filesystem::path run_dir,
                       SampleSink sink)
    : caps_(caps), params_(std::move(params)), repetitions_(repetitions), run_dir_(std::move(run_dir)),
      sink_(std::move(sink)) {
  save_raw = [](const std::string&, const std::string&) {};
  progress = [](const std::string&) {};
}

Collector& RunContext::collector() const {
  if (!collector_) throw std::logic_error("a preset collected outside a run (no collector set)");
  return *collector_;
}

void RunContext::emit(Sample s) {
  s.iteration = iteration_;
  s.warmup = warmup_;
  // Every sample, whoever built it: a suite that makes samples from what
  // the collector gave (a kernel log, a ramp) cannot forget the mark.
  if (collector_) collector_->stamp(s);
  sink_(s);
}

void RunContext::note_skip(const std::string& part, const std::string& reason, bool not_offered) {
  // Once per part and reason: a part skipped for every variant or
  // repetition (the 1G pool, pinned and unpinned) is one fact.
  nlohmann::json entry = {{"part", part}, {"reason", reason}};
  if (not_offered) entry["not_offered"] = true;
  for (const auto& s : skips_)
    if (s == entry) return;
  skips_.push_back(entry);
  // A part this host never offers is a note of the run's report, not news
  // while it runs (`run all` said the reason three times).
  if (!not_offered) progress(fmt::format("skipped {}: {}", part, reason));
}

bool RunContext::interrupted() const { return host::interrupted(); }

}  // namespace kvmbench::suites
