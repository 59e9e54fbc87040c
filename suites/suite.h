// What a suite is: data (presets, parameters with defaults, what each needs
// from the host) plus the glue that calls hostlib to collect samples. The
// `run` and `list` commands work on this registry only.
#pragma once

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/metric_roles.h"
#include "analysis/result_model.h"
#include "hostlib/confidential_host.h"
#include "hostlib/kvm_probe.h"

namespace kvmbench::suites {

// What the host offers, probed once per kvmbench invocation.
struct HostCaps {
  host::KvmStatus kvm;
  std::vector<std::string> cpu_features;  // lower case: svm, npt, sev_snp, rmpopt, ...
  std::string qemu_path;                  // empty when QEMU is missing
  std::vector<std::string> qemu_accels;   // "kvm", "tcg"
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

struct Param {
  std::string name;           // "guest-mem", "vcpus", ...
  std::string default_value;  // as text; parsed by the preset
  std::string help;
};

class RunContext;
class Plan;

struct Preset {
  std::string name;          // "document", "host", "smoke"
  std::string description;
  Source source = Source::hardware;   // what its numbers are
  std::vector<Param> params;
  // Empty when it can run here; otherwise the reason it cannot.
  std::function<std::string(const HostCaps&)> unsupported_reason;
  // Collects samples into ctx; throws on failure; checks ctx.interrupted().
  std::function<void(RunContext&)> run;
  int default_repetitions = 1;   // -r when not given
  // What a gate decides on, and whose CI drives `-r auto` (series keys'
  // metric names); empty: every metric not derived.
  std::vector<std::string> primary_metrics;
  // Metrics that are transforms of another (metric -> the one it is
  // computed from): compare and gate show them, never test them again
  // (analysis/metric_roles.h).
  std::map<std::string, std::string> derived_metrics;
  // What one repetition is, for the reader of a comparison.
  std::string repetition;
  MetricRoles metric_roles() const { return {primary_metrics, derived_metrics, repetition}; }
  // `run --dry-run`: what `run` would do on ctx.host(), from the same
  // parameters and builders, touching nothing (suites/common/plan.h).
  // Empty for presets without a plan.
  std::function<void(RunContext&, Plan&)> plan;
};

struct Suite {
  std::string name;          // "rmpopt", "directmap", "make_shared", "asid"
  std::string description;
  std::vector<Preset> presets;
  const Preset* find_preset(const std::string& name) const;
};

const std::vector<Suite>& registry();
const Suite* find_suite(const std::string& name);

// Handed to a preset's run function.
class RunContext {
 public:
  RunContext(const HostCaps& caps, std::map<std::string, std::string> params, int repetitions,
             std::filesystem::path run_dir, SampleSink sink);

  const HostCaps& host() const { return caps_; }
  int repetitions() const { return repetitions_; }
  const std::filesystem::path& run_dir() const { return run_dir_; }
  const std::map<std::string, std::string>& params() const { return params_; }

  // Parameter accessors; a malformed value throws ExitError(2) naming it.
  std::string param(const std::string& name) const;
  long long param_int(const std::string& name) const;
  double param_double(const std::string& name) const;
  unsigned long long param_bytes(const std::string& name) const;  // "4K", "1G", "100M", "2T"

  // The repetition being run (0-based) and whether it is a warm-up; set by
  // the runner. emit() stamps both onto each sample.
  int iteration() const { return iteration_; }
  bool warmup() const { return warmup_; }
  void set_iteration(int i, bool warmup) {
    iteration_ = i;
    warmup_ = warmup;
  }

  void emit(Sample s);
  std::size_t samples_emitted() const { return n_emitted_; }
  // Raw text that was parsed (console logs, kernel log lines) kept in the run.
  std::function<void(const std::string& name, const std::string& text)> save_raw;
  // Progress line (shown only on a terminal).
  std::function<void(const std::string& what)> progress;
  // Why a part of the preset was skipped on this host; recorded in meta.json.
  void note_skip(const std::string& part, const std::string& reason);
  const nlohmann::json& skips() const { return skips_; }
  bool interrupted() const;

  // Replay (`run --replay DIR`): the collection paths (kernel log, meminfo
  // series, guest console) read captures from this directory instead of the
  // live host. Empty for a live run.
  const std::filesystem::path& replay_dir() const { return replay_dir_; }
  bool replaying() const { return !replay_dir_.empty(); }
  void set_replay_dir(std::filesystem::path dir) { replay_dir_ = std::move(dir); }

 private:
  const HostCaps& caps_;
  std::map<std::string, std::string> params_;
  int repetitions_;
  std::filesystem::path run_dir_;
  SampleSink sink_;
  std::size_t n_emitted_ = 0;
  int iteration_ = 0;
  bool warmup_ = false;
  nlohmann::json skips_ = nlohmann::json::array();
  std::filesystem::path replay_dir_;
};

// The suites, one per folder.
Suite make_rmpopt_suite();
Suite make_directmap_suite();
Suite make_make_shared_suite();
Suite make_asid_suite();

}  // namespace kvmbench::suites
