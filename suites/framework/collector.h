// Where a run's measurements come from: the live host, or the captures a
// live run left (`kvmbench run SUITE --replay DIR`). The run driver picks
// one collector for the run and hands it to the suite through its
// RunContext; a suite asks it for what it collects (a guest's run, a slice
// of the kernel log, a meminfo series, a native run, a fact of the host)
// and never asks which one it has.
//
// A replay reads each capture from DIR, per iteration or shared by all of
// them (DIR/<stem>.it<N>.<ext>, else DIR/<stem>.<ext>); a missing required
// capture is bad input (ExitError(2) naming both file names).
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/model/result_model.h"
#include "hostlib/qemu/qemu_launcher.h"

namespace kvmbench::suites {

class RunContext;
struct HostCaps;

// What a suite says to do when the kernel log cannot be read live.
struct KernelLogUnreadable {
  std::string part;      // the skipped part, for meta.json
  std::string prefix;    // before the reason: "cannot read the kernel log: "
  bool still_run = true; // whether what it would have timed runs anyway
};

// A meminfo series of one field, t in seconds from the start.
struct MeminfoSeries {
  std::vector<double> t, v;
  std::optional<std::size_t> late_samples;  // live only: ticks the sampler missed
};

// A value and how it was found ("the header of the capture", ...).
struct Finding {
  std::string value;
  std::string why;
};

// A host setting a measurement needs (a module parameter). Live, `apply`
// makes it and checks it took; under replay the capture DIR/<stem>.txt says
// what the captured host had, read by `state`.
struct HostSetting {
  std::string stem;   // "npt-on"
  std::string name;   // "npt", for the message
  std::string want;   // "on"
  std::function<std::string()> apply;                    // "" when done, else why not
  std::function<std::string(const std::string&)> state;  // capture text -> "on", "off", "unknown"
};

class Collector {
 public:
  virtual ~Collector() = default;

  // meta.json's record of where the numbers come from: `source` (what the
  // preset measures, or replay), the host that measured them, and notes.
  virtual Source source(Source preset_source, const HostCaps& caps) const = 0;
  virtual void describe(nlohmann::json& meta, const HostCaps& caps, Source preset_source) const = 0;
  // Warnings about this host's noise (a replay measures nothing here).
  virtual std::vector<std::string> noise_warnings(const nlohmann::json& meta) const = 0;

  // One guest workload: booted, or read back from its console capture
  // <label>[.it<N>].console.log and parsed as the live launcher parses a
  // console. Either way the console is in the run as
  // raw/<label>.it<N>.console.log and the samples carry how they came.
  virtual host::GuestRunResult guest(RunContext& ctx, const host::GuestSpec& spec, const std::string& label) = 0;
  // Guests that run at the same time (each with its label). `on_exit(g)`,
  // where given, is called as guest g has exited (live; from its thread).
  virtual std::vector<host::GuestRunResult> guests_together(
      RunContext& ctx, const std::vector<std::pair<host::GuestSpec, std::string>>& guests,
      const std::function<void(std::size_t)>& on_exit) = 0;

  // The kernel log printed while `during` runs (capture kmsg[.it<N>].log).
  // nullopt when it cannot be read live: the skip is noted, and `during`
  // runs only if `if_unreadable.still_run`.
  virtual std::optional<std::string> kernel_log_while(RunContext& ctx, const KernelLogUnreadable& if_unreadable,
                                                      const std::function<void()>& during) = 0;
  // The kernel log held none of the lines a measurement reads: live, the
  // kernel lacks them (a skip noted once, `host_reason`); replayed, the
  // capture lacks them (the run fails naming `lines`).
  virtual void kernel_log_lacks(RunContext& ctx, const std::string& part, const std::string& host_reason,
                                const std::string& lines) = 0;

  // The series of /proc/meminfo `field` sampled at `sample_hz()` (with
  // MemFree) while `during` runs; a replay reads DIR/<stem>[.it<N>].csv.
  virtual MeminfoSeries meminfo_while(RunContext& ctx, const std::string& stem, const std::string& field,
                                      const std::function<double()>& sample_hz,
                                      const std::function<void()>& during) = 0;
  // The meminfo field whose series is to be read: `live()` on this host,
  // the header of DIR/<stem>[.it<N>].csv under replay.
  virtual Finding meminfo_field(RunContext& ctx, const std::string& stem, const std::function<Finding()>& live) = 0;

  // The samples of a workload program run natively with `args` under a
  // timeout (variant "native"; output kept as raw/<label>.it<N>.native.log),
  // or read from the optional capture <label>[.it<N>].native.log. A missing
  // binary or capture is a skip; a failed run throws.
  virtual std::vector<Sample> native_run(RunContext& ctx, const std::string& workload,
                                         const std::vector<std::string>& args, const std::string& label,
                                         double timeout_s) = 0;

  // A fact of the host: `live()` here; under replay `captured(text)` of the
  // optional capture DIR/<stem>[.it<N>].txt ("" when there is none). Each
  // reads the fact, and says whose it is, in its own words.
  template <class Live, class Captured>
  auto host_fact(RunContext& ctx, const std::string& stem, const Live& live, const Captured& captured) {
    std::optional<decltype(live())> fact;
    read_host_fact(ctx, stem, [&] { fact = live(); }, [&](const std::string& text) { fact = captured(text); });
    return std::move(*fact);
  }
  // A fact as text in its capture's format: `live()` here, the capture's text under replay.
  std::string host_text(RunContext& ctx, const std::string& stem, const std::function<std::string()>& live) {
    return host_fact(ctx, stem, live, [](const std::string& text) { return text; });
  }
  // Makes a host setting; "" when the host has it, else why not (a skip).
  // A capture that says the captured host had another value is bad input.
  virtual std::string apply(RunContext& ctx, const HostSetting& setting) = 0;
  // Work that only means something on the host being measured (checks of
  // its firmware, notes about its memory); a replay does not do it. With a
  // `part`, a replay notes it skipped (once per run) with `why_not`.
  virtual void on_this_host(RunContext& ctx, const std::function<void()>& work, const std::string& part = "",
                            const std::string& why_not = "") = 0;

  // Marks a sample made from what this collector gave (a replay's: replayed).
  // RunContext::emit calls it on every sample it passes on.
  virtual void stamp(Sample& s) const = 0;

 private:
  // host_fact's choice: calls `live`, or `captured` with the capture's text.
  virtual void read_host_fact(RunContext& ctx, const std::string& stem, const std::function<void()>& live,
                              const std::function<void(const std::string&)>& captured) = 0;
};

std::unique_ptr<Collector> live_collector();
// Reads the captures in `dir`.
std::unique_ptr<Collector> replay_collector(std::filesystem::path dir);

}  // namespace kvmbench::suites
