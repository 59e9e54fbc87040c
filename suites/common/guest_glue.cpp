#include "suites/common/guest_glue.h"

#include <fmt/format.h>

#include <chrono>
#include <thread>

#include "analysis/last_lines.h"
#include "analysis/parsers/guest_output.h"
#include "hostlib/interrupt.h"
#include "hostlib/qemu_paths.h"
#include "hostlib/qemu_process.h"
#include "suites/common/capture.h"
#include "suites/kvmbench/exit.h"

namespace kvmbench::suites {

namespace fs = std::filesystem;

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    std::size_t comma = text.find(',', pos);
    std::string item = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    if (!item.empty()) out.push_back(item);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return out;
}

host::SevSnpOptions snp_options(const RunContext& ctx) {
  host::SevSnpOptions o;
  o.firmware = ctx.param("firmware");
  const std::string hashes = ctx.param("kernel-hashes");
  if (hashes != "on" && hashes != "off")
    usage_error(fmt::format("parameter kernel-hashes: '{}' is not on or off", hashes));
  o.kernel_hashes = hashes == "on";
  return o;
}

std::vector<Param> snp_params(const std::string& firmware_help) {
  return {
      {"firmware", "", firmware_help},
      {"kernel-hashes", "off",
       "on: measure kernel, initrd and command line into the SNP launch digest (needs the AmdSev OVMF build, "
       "whose SEV hash table QEMU fills; other firmware makes QEMU refuse to start)"},
  };
}

namespace {

// A guest's run read back from its console capture: what the launcher
// concludes from the console alone (no QEMU exit code, no timing).
host::GuestRunResult replay_guest_run(RunContext& ctx, const host::GuestSpec& spec, const std::string& label) {
  const fs::path file = capture_path(ctx, label, "console.log");
  const std::string console = read_capture(ctx, label, "console.log");
  ctx.save_raw(fmt::format("{}.it{}.console.log", label, ctx.iteration()), console);
  host::GuestRunResult r;
  r.accel = spec.accel;
  r.source = Source::replay;
  r.console_tail = last_lines(console, 40);
  r.output = parsers::parse_guest_output(console);
  r.samples = r.output.result.samples;
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

}  // namespace

host::GuestRunResult obtain_guest_run(RunContext& ctx, const host::GuestSpec& spec, const std::string& label) {
  if (ctx.replaying()) {
    ctx.progress(fmt::format("{}: replaying its console", label));
    return replay_guest_run(ctx, spec, label);
  }
  const std::string console_name = fmt::format("{}.it{}.console.log", label, ctx.iteration());
  const fs::path console = ctx.run_dir() / "raw" / console_name;
  fs::create_directories(console.parent_path());
  ctx.progress(fmt::format("{}: booting guest ({} vCPU, {} MiB)", label, spec.vcpus, spec.memory_mib));
  return host::run_guest_workload(spec, console);
}

void emit_guest_result(RunContext& ctx, const host::GuestRunResult& r, const std::string& label,
                       const std::string& variant) {
  if (r.status == host::GuestRunStatus::cannot_run) {
    ctx.note_skip(label, r.reason);
    return;
  }
  if (r.status == host::GuestRunStatus::interrupted) return;
  if (!r.ok())
    throw std::runtime_error(fmt::format("{}: guest failed: {}\n--- console tail ---\n{}", label, r.reason,
                                         r.console_tail));
  for (Sample s : r.samples) {
    if (!variant.empty()) s.variant = s.variant.empty() ? variant : variant + "/" + s.variant;
    s.extra["accel"] = std::string(host::to_string(r.accel));
    if (ctx.replaying())
      s.extra["replayed"] = true;
    else
      s.extra["boot_to_result_s"] = r.boot_to_result_s;
    ctx.emit(s);
  }
}

void run_native_workload(RunContext& ctx, const std::string& workload, const std::vector<std::string>& args,
                         const std::string& label, double timeout_s) {
  if (ctx.replaying()) {
    // The workload's output as a live run keeps it (raw/<label>.it<N>.native.log,
    // exit status 0) read from the capture directory; optional.
    const std::string text = read_optional_capture(ctx, label, "native.log");
    if (text.empty()) {
      ctx.note_skip(label + " (native)", fmt::format("no capture {0}.it{1}.native.log or {0}.native.log in {2}",
                                                     label, ctx.iteration(), ctx.replay_dir().string()));
      return;
    }
    ctx.progress(fmt::format("{}: replaying its native output", label));
    ctx.save_raw(fmt::format("{}.it{}.native.log", label, ctx.iteration()), text);
    auto out = parsers::parse_guest_output(
        fmt::format("KVMBENCH-BEGIN workload={}\n{}\nKVMBENCH-END workload={} status=0\n", workload, text, workload));
    if (!out.ok())
      throw std::runtime_error(fmt::format("{}: native {} capture: {}", label, workload, out.failure()));
    for (Sample s : out.result.samples) {
      s.variant = s.variant.empty() ? "native" : "native/" + s.variant;
      s.extra["replayed"] = true;
      ctx.emit(s);
    }
    return;
  }
  const fs::path bin = host::guest_bin_dir() / ("kvmbench-" + workload);
  if (!fs::exists(bin)) {
    ctx.note_skip(label, fmt::format("workload binary {} not built", bin.string()));
    return;
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
      return;
    }
    if (std::chrono::steady_clock::now() > deadline) {
      child.kill_and_reap();
      throw std::runtime_error(fmt::format("{}: native {} did not finish within {} s", label, workload, timeout_s));
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
    throw std::runtime_error(fmt::format("{}: native {} failed: {}\n{}", label, workload, out.failure(),
                                         child.output()));
  for (Sample s : out.result.samples) {
    s.variant = s.variant.empty() ? "native" : "native/" + s.variant;
    ctx.emit(s);
  }
}

}  // namespace kvmbench::suites
