// What a preset's run function is handed (RunContext: the host, its parsed
// parameters, the repetition, where samples and raw text go), and the
// helpers that wire a preset's hooks to its own parameter struct.
#pragma once

#include <any>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "analysis/model/result_model.h"
#include "suites/framework/host_caps.h"
#include "suites/framework/param_text.h"

namespace kvmbench::suites {

class Plan;
class Collector;

// Handed to a preset's run function.
class RunContext {
 public:
  // `params`: what the preset's `parse` made of its parameters.
  RunContext(const HostCaps& caps, std::any params, int repetitions, std::filesystem::path run_dir,
             SampleSink sink);

  const HostCaps& host() const { return caps_; }
  int repetitions() const { return repetitions_; }
  const std::filesystem::path& run_dir() const { return run_dir_; }

  // The preset's parsed parameters; std::logic_error when the preset's
  // `parse` made something else (a preset wired to another's run).
  template <class P>
  const P& params() const {
    const P* p = std::any_cast<P>(&params_);
    if (!p) throw std::logic_error("a preset read parameters its parse did not make");
    return *p;
  }

  // The repetition being run (0-based) and whether it is a warm-up; set by
  // the runner. emit() stamps both onto each sample, and the collector's
  // mark (Collector::stamp: a replay's samples are "replayed").
  int iteration() const { return iteration_; }
  bool warmup() const { return warmup_; }
  void set_iteration(int i, bool warmup) {
    iteration_ = i;
    warmup_ = warmup;
  }

  void emit(Sample s);
  // Raw text that was parsed (console logs, kernel log lines) kept in the run.
  std::function<void(const std::string& name, const std::string& text)> save_raw;
  // Progress line (shown only on a terminal).
  std::function<void(const std::string& what)> progress;
  // The run's monitors count (--monitors other than off, live): each KVM
  // guest's QEMU is held at its shutdown and asked for KVM's statistics
  // over QMP (hostlib/qemu/qemu_stats.h), which a plan shows in its argv.
  bool monitors_count = false;
  // Why a part of the preset was skipped on this host; recorded in meta.json.
  // not_offered: this CPU can never run it (a feature it lacks), so the
  // run is not the less complete for it: a note on its tables, never a
  // PARTIAL (suites/engine/incomplete_run.h), which is for what the user can act on.
  void note_skip(const std::string& part, const std::string& reason, bool not_offered = false);
  const nlohmann::json& skips() const { return skips_; }
  bool interrupted() const;

  // Where measurements come from (the live host or a replay's captures),
  // set by the runner for the run (suites/framework/collector.h).
  Collector& collector() const;
  void set_collector(Collector* c) { collector_ = c; }

 private:
  const HostCaps& caps_;
  std::any params_;
  int repetitions_;
  std::filesystem::path run_dir_;
  SampleSink sink_;
  int iteration_ = 0;
  bool warmup_ = false;
  nlohmann::json skips_ = nlohmann::json::array();
  Collector* collector_ = nullptr;
};

// A preset's hooks over its own parameter struct P: `parse` from a
// function P(const ParamText&), `run` and `plan` from functions that take
// the parsed P next to the context.
template <class P>
std::function<std::any(const ParamText&)> parse_as(P (*parse)(const ParamText&)) {
  return [parse](const ParamText& t) { return std::any(parse(t)); };
}
template <class P>
std::function<void(RunContext&)> run_with(void (*run)(RunContext&, const P&)) {
  return [run](RunContext& ctx) { run(ctx, ctx.params<P>()); };
}
template <class P>
std::function<void(RunContext&, Plan&)> plan_with(void (*plan)(RunContext&, Plan&, const P&)) {
  return [plan](RunContext& ctx, Plan& p) { plan(ctx, p, ctx.params<P>()); };
}

}  // namespace kvmbench::suites
