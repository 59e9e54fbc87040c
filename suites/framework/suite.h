// What a suite is: data (presets, parameters with defaults, what each needs
// from the host), the glue that calls its measurements (suites/<name>/) and
// what it makes of samples (its report layout, the metrics it owns, the
// document's tables from reference data). Every command that does something
// suite-specific (run, list, report, reproduce, ingest) asks this registry;
// none names a suite.
#pragma once

#include <any>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/model/metric_roles.h"
#include "analysis/model/result_model.h"
#include "analysis/report/table.h"
#include "hostlib/facts/confidential_host.h"
#include "hostlib/kvm/kvm_probe.h"
#include "suites/framework/boot.h"
#include "suites/framework/named_run.h"
#include "suites/framework/param_text.h"
#include "suites/framework/reproduce.h"

namespace kvmbench::suites {

// What the host offers, probed once per kvmbench invocation.
struct HostCaps {
  host::KvmStatus kvm;
  std::vector<std::string> cpu_features;  // lower case: svm, npt, sev_snp, rmpopt, ...
  std::string qemu_path;                  // empty when QEMU is missing
  std::vector<std::string> qemu_accels;   // "kvm", "tcg"
  std::string qemu_error;                 // why asking QEMU failed (a timeout, ...), or ""
  // The confidential-guest objects QEMU has ("sev-snp-guest", "tdx-guest"),
  // from a host description's probe; nullopt when not asked (a live run's
  // launcher asks QEMU itself before each confidential guest).
  std::optional<std::vector<std::string>> qemu_objects;
  std::string guest_kernel;               // a kernel image for TCG guests, or empty
  unsigned online_cpus = 1;
  unsigned long long memory_bytes = 0;
  host::ConfidentialHost confidential;   // C-bit, FLUSHBYASID as the kernel sees it, kernel log, RMPOPT at boot
  nlohmann::json metadata;                // everything, for meta.json
  // Why a measurement here is `emulated` although the preset measures
  // hardware (the CPU is QEMU TCG: the emulated lab); "" on real hardware.
  std::string emulated_reason;

  bool has_feature(const std::string& f) const;
  bool qemu_has_accel(const std::string& a) const;
};

// Probes the host (KVM, CPU features, QEMU, guest kernel); bounded in time.
HostCaps probe_host_caps();

// For `run --dry-run` on this host: what probe_host_caps() finds without an
// ioctl and without starting a program (CPUID, /proc, /sys, the kernel
// log, where QEMU and the guest kernel are). KVM is reported as not probed,
// with the way to plan with it (--host FILE from `kvmbench probe --json`).
HostCaps probe_host_caps_without_ioctls();

// Another host, from its `kvmbench probe --json`. Throws
// std::invalid_argument naming the key for a description without "cpu" or
// "kvm" or with a value of the wrong type.
HostCaps host_caps_from_probe_json(const nlohmann::json& probe);

// Whether a value given with --set can be used on `host`, checked before
// anything runs (suites/framework/param_check.h): throws std::invalid_argument with
// what is valid, a phrase that follows "<name> is" ("a comma-separated list
// of ...; 'x' is not one").
using ParamCheck = std::function<void(const std::string& value, const HostCaps& host)>;

struct Param {
  std::string name;           // "guest-mem", "vcpus", ...
  std::string default_value;  // as text; parsed by the preset's `parse`
  std::string help;
  ParamCheck check = {};      // unset: the preset reads any text
};

class RunContext;
class Plan;
class Collector;

// A preset is written as a designated-initializer literal (suites/<name>/
// suite.cpp): every member has a default, so a literal names only what it sets.
struct Preset {
  std::string name = {};     // "document", "host", "smoke"
  std::string description = {};
  Source source = Source::hardware;   // what its numbers are
  // Made for the emulated lab (`kvmbench lab`): `list` tags it [emulated],
  // what its numbers are where it is meant to run.
  bool for_emulated_lab = false;
  std::vector<Param> params = {};
  // The parameters' text (defaults with --set, each checked) made into the
  // preset's own struct, once, before anything runs: what `run` and `plan`
  // read (RunContext::params<P>(), built with parse_as/run_with/plan_with
  // below). Throws ExitError(2) naming a malformed value.
  std::function<std::any(const ParamText&)> parse = {};
  // Empty when it can run here; otherwise the reason it cannot.
  std::function<std::string(const HostCaps&)> unsupported_reason = {};
  // The boot it needs where the kernel's command line decides what can run
  // (suites/framework/boot.h), from the host and its parameters' text (defaults with
  // --set). Unset: any boot will do.
  std::function<BootNeed(const HostCaps&, const ParamText&)> boot = {};
  // Collects samples into ctx; throws on failure; checks ctx.interrupted().
  std::function<void(RunContext&)> run = {};
  int default_repetitions = 1;   // -r when not given
  // What a gate decides on, and whose CI drives `-r auto` (series keys'
  // metric names); empty: every metric not derived.
  std::vector<std::string> primary_metrics = {};
  // Metrics that are transforms of another (metric -> the one it is
  // computed from): compare and gate show them, never test them again
  // (analysis/model/metric_roles.h).
  std::map<std::string, std::string> derived_metrics = {};
  // What one repetition is, for the reader of a comparison.
  std::string repetition = {};
  MetricRoles metric_roles() const { return {primary_metrics, derived_metrics, repetition}; }
  // `run --dry-run`: what `run` would do on ctx.host(), from the same
  // parameters and builders, touching nothing (suites/framework/plan.h).
  // Empty for presets without a plan.
  std::function<void(RunContext&, Plan&)> plan = {};
};

// Written as a designated-initializer literal too; unset hooks are empty.
struct Suite {
  std::string name = {};     // "rmpopt", "directmap", "make_shared", "asid"
  std::string description = {};
  std::vector<Preset> presets = {};
  // Whether a metric is one this suite's report reads: names the suite of
  // samples that came without a meta.json (`kvmbench ingest`). Unset: none.
  std::function<bool(std::string_view metric)> owns_metric = {};
  // The suite's own tables of one run (the document's layout); empty when
  // the samples are not the ones it reads. Unset: the generic tables only.
  std::function<std::vector<Table>(const std::vector<Sample>&, std::string_view source)> tables = {};
  // Tables in the suite's layout that only `--verbose` prints, after
  // `tables` (measurements beside the one the document is about).
  std::function<std::vector<Table>(const std::vector<Sample>&, std::string_view source)> detail_tables = {};
  // Whether the layout (`tables`) shows a metric, when it shows anything:
  // the compact generic tables (analysis/report/case_table.h) leave those out.
  // Unset: the metrics it owns (owns_metric).
  std::function<bool(std::string_view metric)> layout_shows = {};
  // The workload a metric is measured by, where the case name does not
  // say it (asid's cases are the workload's arguments): a verdict names a
  // series with it. Unset or "": the series key alone.
  std::function<std::string_view(std::string_view metric)> workload_of = {};
  // Several runs in one table (`kvmbench report RUN_A RUN_B`); throws
  // std::invalid_argument naming a run it cannot use. Unset: not offered.
  std::function<std::vector<Table>(const std::vector<NamedRun>&)> tables_of_runs = {};
  // The document's tables from the transcribed data in `reference_dir`
  // (suites/framework/reproduce.h). Unset: nothing to reproduce.
  std::function<Reproduction(const std::filesystem::path& reference_dir, const ReproduceOptions&)> reproduce = {};
  const Preset* find_preset(const std::string& name) const;
};

// In the order `run all`, `list` and `reproduce all` take them.
const std::vector<Suite>& registry();
const Suite* find_suite(std::string_view name);
// The names of the suites for which `has` holds ("directmap, make_shared"),
// for messages that say what would have been accepted.
std::string suite_names(const std::function<bool(const Suite&)>& has);
// The refusal of a suite name that is none of those `has` accepts (nor
// "all" when `all_too`), with the closest of them where one is close:
// "unknown suite 'directmapp'; did you mean 'directmap'? (known: rmpopt,
// directmap, make_shared, asid, all)".
std::string unknown_suite_message(std::string_view name, const std::function<bool(const Suite&)>& has,
                                  bool all_too);

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
  // Why a part of the preset was skipped on this host; recorded in meta.json.
  // not_offered: this CPU can never run it (a feature it lacks), so the
  // run is not the less complete for it: a note on its tables, never a
  // PARTIAL (suites/engine/incomplete_run.h), which is for what the user can act on.
  void note_skip(const std::string& part, const std::string& reason, bool not_offered = false);
  const nlohmann::json& skips() const { return skips_; }
  bool interrupted() const;

  // Where measurements come from (the live host or a replay's captures),
  // set by the runner for the run (suites/collect/collector.h).
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
