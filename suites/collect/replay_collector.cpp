// The collector of a replayed run (`kvmbench run SUITE --replay DIR`):
// every collection path reads the capture a live run would have kept.
#include <fmt/format.h>

#include <fstream>
#include <sstream>

#include "analysis/model/json_input.h"
#include "analysis/model/last_lines.h"
#include "analysis/parse/guest_output.h"
#include "analysis/store/run_store.h"
#include "suites/collect/capture.h"
#include "suites/framework/collector.h"
#include "suites/framework/errors.h"
#include "suites/framework/run_context.h"
#include "suites/framework/suite.h"

namespace kvmbench::suites {

namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) usage_error(fmt::format("replay: cannot read capture {}", p.string()));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class ReplayCollector final : public Collector {
 public:
  explicit ReplayCollector(fs::path dir) : dir_(std::move(dir)) {}

  // A replayed run's numbers come from the captures, whatever the preset
  // measures live.
  Source source(Source, const HostCaps&) const override { return Source::replay; }

  void describe(nlohmann::json& meta, const HostCaps& caps, Source) const override {
    // The numbers come from the machine the captures were taken on: its
    // metadata is the capture's host.json where there is one (the `host`
    // object of a live run's meta.json); this machine only replayed them.
    meta["replay_dir"] = fs::absolute(dir_).lexically_normal().string();
    meta["replayed_on"] = caps.metadata;
    meta["host"] = nullptr;
    const fs::path host_json = dir_ / "host.json";
    std::error_code ec;
    if (fs::exists(host_json, ec)) {
      try {
        meta["host"] = parse_json_input(read_file(host_json));
      } catch (const JsonInputError& e) {
        usage_error(json_input_message(e, host_json.string()));
      } catch (const std::exception& e) {
        usage_error(fmt::format("{}: not JSON: {}", host_json.string(), e.what()));
      }
    } else {
      meta["host_note"] = "the capture has no host.json: the measured machine is not recorded";
    }
  }

  // A replay measures nothing here: this host's noise does not matter.
  std::vector<std::string> noise_warnings(const nlohmann::json&) const override { return {}; }

  host::GuestRunResult guest(RunContext& ctx, const host::GuestSpec& spec, const std::string& label) override {
    ctx.progress(fmt::format("{}: replaying its console", label));
    // What the launcher concludes from the console alone (no QEMU exit
    // code, no timing).
    const fs::path file = path(ctx, label, "console.log");
    const std::string console = slurp(file);
    ctx.save_raw(fmt::format("{}.it{}.console.log", label, ctx.iteration()), console);
    host::GuestRunResult r;
    r.accel = spec.accel;
    r.source = Source::replay;
    r.console_tail = last_lines(console, 40);
    r.output = parsers::parse_guest_output(console);
    r.samples = r.output.result.samples;
    for (Sample& s : r.samples) stamp(s);
    std::string failure = r.output.ok() ? "" : r.output.failure();
    if (!failure.empty() && r.output.unfinished())
      failure += fmt::format(" (workload '{}' started but never finished)", r.output.workload);
    if (failure.empty()) {
      r.status = host::GuestRunStatus::ok;
    } else {
      r.status = host::GuestRunStatus::failed;
      r.reason = fmt::format("{} (console capture {})", failure, file.string());
    }
    return r;
  }

  std::vector<host::GuestRunResult> guests_together(
      RunContext& ctx, const std::vector<std::pair<host::GuestSpec, std::string>>& guests,
      const std::function<void(std::size_t)>&) override {
    std::vector<host::GuestRunResult> out;
    for (const auto& [spec, label] : guests) out.push_back(guest(ctx, spec, label));
    return out;
  }

  std::optional<std::string> kernel_log_while(RunContext& ctx, const KernelLogUnreadable&,
                                              const std::function<void()>& during) override {
    during();
    return slurp(path(ctx, "kmsg", "log"));
  }

  void kernel_log_lacks(RunContext&, const std::string&, const std::string&, const std::string& lines) override {
    throw std::runtime_error("the kernel log capture holds no " + lines);
  }

  // As a live run stores it: raw/<stem>.it<N>.csv.
  MeminfoSeries meminfo_while(RunContext& ctx, const std::string& stem, const std::string& field,
                              const std::function<double()>&, const std::function<void()>& during) override {
    during();
    MeminfoSeries m;
    const fs::path file = path(ctx, stem, "csv");
    parse_meminfo_csv(slurp(file), field, file.string(), m.t, m.v);
    return m;
  }

  Finding meminfo_field(RunContext& ctx, const std::string& stem, const std::function<Finding()>&) override {
    return {meminfo_csv_field(slurp(path(ctx, stem, "csv"))), "the header of the capture"};
  }

  // The workload's output as a live run keeps it (raw/<label>.it<N>.native.log,
  // exit status 0); optional.
  std::vector<Sample> native_run(RunContext& ctx, const std::string& workload, const std::vector<std::string>&,
                                 const std::string& label, double) override {
    const std::string text = optional(ctx, label, "native.log");
    if (text.empty()) {
      ctx.note_skip(label + " (native)", fmt::format("no capture {0}.it{1}.native.log or {0}.native.log in {2}",
                                                     label, ctx.iteration(), dir_.string()));
      return {};
    }
    ctx.progress(fmt::format("{}: replaying its native output", label));
    ctx.save_raw(fmt::format("{}.it{}.native.log", label, ctx.iteration()), text);
    auto out = parsers::parse_guest_output(
        fmt::format("KVMBENCH-BEGIN workload={}\n{}\nKVMBENCH-END workload={} status=0\n", workload, text, workload));
    if (!out.ok())
      throw std::runtime_error(fmt::format("{}: native {} capture: {}", label, workload, out.failure()));
    std::vector<Sample> samples = std::move(out.result.samples);
    for (Sample& s : samples) {
      s.variant = s.variant.empty() ? "native" : "native/" + s.variant;
      stamp(s);
    }
    return samples;
  }

  // Nothing is set here: the capture says what the captured host had, if it says.
  std::string apply(RunContext& ctx, const HostSetting& setting) override {
    const std::string state = setting.state(optional(ctx, setting.stem, "txt"));
    if (state != "unknown" && state != setting.want)
      usage_error(fmt::format("replay: {}.txt in {} says {} was {}", setting.stem, dir_.string(), setting.name, state));
    return "";
  }

  void on_this_host(RunContext& ctx, const std::function<void()>&, const std::string& part,
                    const std::string& why_not) override {
    if (!part.empty() && ctx.iteration() <= 0) ctx.note_skip(part, "replay: " + why_not);
  }

  void stamp(Sample& s) const override { s.extra["replayed"] = true; }

 private:
  void read_host_fact(RunContext& ctx, const std::string& stem, const std::function<void()>&,
                      const std::function<void(const std::string&)>& captured) override {
    captured(optional(ctx, stem, "txt"));
  }

  fs::path per_iteration(const RunContext& ctx, const std::string& stem, const std::string& ext) const {
    return dir_ / fmt::format("{}.it{}.{}", stem, std::max(0, ctx.iteration()), ext);
  }
  fs::path shared(const std::string& stem, const std::string& ext) const {
    return dir_ / fmt::format("{}.{}", stem, ext);
  }

  // The capture for the context's iteration; ExitError(2) when neither name exists.
  fs::path path(const RunContext& ctx, const std::string& stem, const std::string& ext) const {
    const fs::path it = per_iteration(ctx, stem, ext), all = shared(stem, ext);
    std::error_code ec;
    if (fs::is_regular_file(it, ec)) return it;
    if (fs::is_regular_file(all, ec)) return all;
    usage_error(fmt::format("replay: missing capture file {} (or {})", it.string(), all.filename().string()));
  }

  // An optional capture's text, "" when neither file exists.
  std::string optional(const RunContext& ctx, const std::string& stem, const std::string& ext) const {
    const fs::path it = per_iteration(ctx, stem, ext), all = shared(stem, ext);
    std::error_code ec;
    if (fs::is_regular_file(it, ec)) return slurp(it);
    if (fs::is_regular_file(all, ec)) return slurp(all);
    return "";
  }

  fs::path dir_;
};

}  // namespace

std::unique_ptr<Collector> replay_collector(fs::path dir) { return std::make_unique<ReplayCollector>(std::move(dir)); }

}  // namespace kvmbench::suites
