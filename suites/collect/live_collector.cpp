// The collector of a live run: everything is measured on this host.
#include <fmt/format.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "analysis/stats/adaptive.h"
#include "analysis/parse/guest_output.h"
#include "hostlib/os/interrupt.h"
#include "hostlib/facts/kmsg_reader.h"
#include "hostlib/os/lab_env.h"
#include "hostlib/measure/meminfo_sampler.h"
#include "hostlib/qemu/qemu_paths.h"
#include "hostlib/os/child_process.h"
#include "suites/framework/collector.h"
#include "suites/framework/run_context.h"
#include "suites/framework/suite.h"

namespace kvmbench::suites {

namespace fs = std::filesystem;

namespace {

class LiveCollector final : public Collector {
 public:
  Source source(Source preset_source, const HostCaps& caps) const override {
    // On an emulated CPU (the emulated lab) nothing of hardware is measured,
    // whatever the preset would measure on a real host.
    if (preset_source == Source::hardware && !caps.emulated_reason.empty()) return Source::emulated;
    return preset_source;
  }

  void describe(nlohmann::json& meta, const HostCaps& caps, Source preset_source) const override {
    if (source(preset_source, caps) != preset_source) meta["source_note"] = caps.emulated_reason;
    if (auto lab = host::lab_identity_from_env(); !lab.is_null()) meta["lab"] = lab;
  }

  std::vector<std::string> noise_warnings(const nlohmann::json& meta) const override {
    return adaptive::host_noise_warnings(meta);
  }

  host::GuestRunResult guest(RunContext& ctx, const host::GuestSpec& spec, const std::string& label) override {
    const fs::path console = console_path(ctx, label);
    fs::create_directories(console.parent_path());
    ctx.progress(fmt::format("{}: booting guest ({} vCPU, {} MiB)", label, spec.vcpus, spec.memory_mib));
    return stamped(host::run_guest_workload(spec, console));
  }

  std::vector<host::GuestRunResult> guests_together(
      RunContext& ctx, const std::vector<std::pair<host::GuestSpec, std::string>>& guests,
      const std::function<void(std::size_t)>& on_exit) override {
    std::vector<host::GuestRunResult> out(guests.size());
    std::vector<std::thread> threads;
    for (std::size_t g = 0; g < guests.size(); ++g)
      threads.emplace_back([&, g] {
        out[g] = stamped(host::run_guest_workload(guests[g].first, console_path(ctx, guests[g].second)));
        if (on_exit) on_exit(g);
      });
    for (auto& t : threads) t.join();
    return out;
  }

  std::optional<std::string> kernel_log_while(RunContext& ctx, const KernelLogUnreadable& if_unreadable,
                                              const std::function<void()>& during) override {
    std::optional<host::KmsgReader> kmsg;
    try {
      kmsg.emplace(host::KmsgReader::open_live());
    } catch (const std::exception& e) {
      ctx.note_skip(if_unreadable.part, if_unreadable.prefix + e.what());
      if (if_unreadable.still_run) during();
      return std::nullopt;
    }
    // Kept as /dev/kmsg records: each with its sequence number and time.
    std::vector<KmsgRecord> records;
    std::atomic<bool> stop{false};
    std::thread reader([&] {
      while (!stop && !host::interrupted()) {
        auto rec = kmsg->next(100);
        if (rec) records.push_back(std::move(*rec));
      }
    });
    try {
      during();
    } catch (...) {
      stop = true;
      reader.join();
      throw;
    }
    stop = true;
    reader.join();
    return to_kmsg_text(records);
  }

  void kernel_log_lacks(RunContext& ctx, const std::string& part, const std::string& host_reason,
                        const std::string&) override {
    if (ctx.iteration() <= 0) ctx.note_skip(part, host_reason);
  }

  MeminfoSeries meminfo_while(RunContext&, const std::string&, const std::string& field,
                              const std::function<double()>& sample_hz, const std::function<void()>& during) override {
    host::MeminfoSamplerOptions mo;
    mo.fields = {field, "MemFree"};
    mo.period = std::chrono::microseconds(static_cast<long long>(1e6 / sample_hz()));
    host::MeminfoSampler sampler(mo);
    sampler.start();
    during();
    sampler.stop();
    MeminfoSeries m;
    sampler.series(field, m.t, m.v);
    m.late_samples = sampler.late_samples();
    return m;
  }

  Finding meminfo_field(RunContext&, const std::string&, const std::function<Finding()>& live) override {
    return live();
  }

  std::vector<Sample> native_run(RunContext& ctx, const std::string& workload, const std::vector<std::string>& args,
                                 const std::string& label, double timeout_s) override {
    const fs::path bin = host::guest_bin_dir() / ("kvmbench-" + workload);
    if (!fs::exists(bin)) {
      ctx.note_skip(label, fmt::format("workload binary {} not built", bin.string()));
      return {};
    }
    std::vector<std::string> argv = {bin.string()};
    argv.insert(argv.end(), args.begin(), args.end());
    ctx.progress(fmt::format("{}: running natively", label));
    host::ChildProcess child(argv);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
    while (!child.poll_exit()) {
      child.drain_output();
      if (host::interrupted()) {
        child.kill_and_reap();
        return {};
      }
      if (std::chrono::steady_clock::now() > deadline) {
        child.kill_and_reap();
        throw std::runtime_error(
            fmt::format("{}: native {} did not finish within {} s", label, workload, timeout_s));
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    child.drain_output();
    ctx.save_raw(fmt::format("{}.it{}.native.log", label, ctx.iteration()), child.output());
    // The workload prints the same KVMBENCH-* markers as in a guest, minus
    // the init script's BEGIN/END, which are added here from the exit code.
    std::string text = fmt::format("KVMBENCH-BEGIN workload={}\n{}\nKVMBENCH-END workload={} status={}\n", workload,
                                   child.output(), workload, child.exit_code());
    auto out = parsers::parse_guest_output(text);
    if (!out.ok())
      throw std::runtime_error(
          fmt::format("{}: native {} failed: {}\n{}", label, workload, out.failure(), child.output()));
    std::vector<Sample> samples = std::move(out.result.samples);
    for (Sample& s : samples) s.variant = s.variant.empty() ? "native" : "native/" + s.variant;
    return samples;
  }

  std::string apply(RunContext&, const HostSetting& setting) override { return setting.apply(); }

  void on_this_host(RunContext&, const std::function<void()>& work, const std::string&,
                    const std::string&) override {
    work();
  }

  void stamp(Sample&) const override {}

 private:
  void read_host_fact(RunContext&, const std::string&, const std::function<void()>& live,
                      const std::function<void(const std::string&)>&) override {
    live();
  }

  static fs::path console_path(const RunContext& ctx, const std::string& label) {
    return ctx.run_dir() / "raw" / fmt::format("{}.it{}.console.log", label, ctx.iteration());
  }

  // A booted guest's samples carry how long it took to give them.
  static host::GuestRunResult stamped(host::GuestRunResult r) {
    for (Sample& s : r.samples) s.extra["boot_to_result_s"] = r.boot_to_result_s;
    return r;
  }
};

}  // namespace

std::unique_ptr<Collector> live_collector() { return std::make_unique<LiveCollector>(); }

}  // namespace kvmbench::suites
