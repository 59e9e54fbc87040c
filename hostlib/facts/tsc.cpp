#include "hostlib/facts/tsc.h"
#include "hostlib/os/kernel_files.h"

#include <time.h>

#include <chrono>
#include <climits>
#include <cstdint>
#include <thread>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

#include "hostlib/facts/cpuid.h"

namespace kvmbench::host {

namespace {

std::int64_t raw_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
  return static_cast<std::int64_t>(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

std::uint64_t calibrate(int ms) {
#if defined(__x86_64__) || defined(__i386__)
  // Read both clocks back to back at each end; the pair with the smallest
  // gap between the two clock reads bounds the error of each end.
  auto sample = [](std::uint64_t& tsc, std::int64_t& ns) {
    std::int64_t best_gap = INT64_MAX;
    for (int i = 0; i < 5; ++i) {
      std::uint64_t t0 = __rdtsc();
      std::int64_t n = raw_ns();
      std::uint64_t t1 = __rdtsc();
      if (static_cast<std::int64_t>(t1 - t0) < best_gap) {
        best_gap = static_cast<std::int64_t>(t1 - t0);
        tsc = t0 + (t1 - t0) / 2;
        ns = n;
      }
    }
  };
  std::uint64_t tsc0 = 0, tsc1 = 0;
  std::int64_t ns0 = 0, ns1 = 0;
  sample(tsc0, ns0);
  std::this_thread::sleep_for(std::chrono::milliseconds(ms));
  sample(tsc1, ns1);
  if (ns1 <= ns0) return 0;
  return static_cast<std::uint64_t>(static_cast<double>(tsc1 - tsc0) * 1e9 / static_cast<double>(ns1 - ns0));
#else
  (void)ms;
  return 0;
#endif
}

}  // namespace

TscInfo read_tsc_info(int calibration_ms) {
  TscInfo t;
  auto cpu = decode_cpu(read_cpuid_table());
  t.cpuid_hz = cpu.tsc_hz_cpuid;
  t.cpuid_leaf = cpu.tsc_hz_cpuid_leaf;
  if (auto flags = cpuinfo_field(read_kernel_file("/proc/cpuinfo").value_or(""), "flags")) {
    std::string f = " " + *flags + " ";
    t.constant_tsc = f.find(" constant_tsc ") != std::string::npos && f.find(" nonstop_tsc ") != std::string::npos;
  }
  t.clocksource =
      read_kernel_value("/sys/devices/system/clocksource/clocksource0/current_clocksource").value_or("");
  if (calibration_ms > 0) {
    t.calibration_ms = calibration_ms;
    t.calibrated_hz = calibrate(calibration_ms);
  }
  if (t.cpuid_hz && (t.cpuid_leaf == "0x15" || t.cpuid_leaf == "0x40000010")) {
    t.hz = t.cpuid_hz;
    t.method = t.cpuid_leaf == "0x15" ? "cpuid 0x15 (crystal clock x TSC ratio)"
                                      : "cpuid 0x40000010 (TSC rate the hypervisor reports)";
  } else if (t.calibrated_hz) {
    t.hz = t.calibrated_hz;
    t.method = "calibrated: rdtsc against CLOCK_MONOTONIC_RAW (clocksource " + t.clocksource + ") over " +
               std::to_string(calibration_ms) + " ms";
  } else if (t.cpuid_hz) {
    t.hz = t.cpuid_hz;
    t.method = "cpuid 0x16 (nominal base frequency)";
  } else {
    t.method = "unknown";
  }
  return t;
}

nlohmann::json to_json(const TscInfo& t) {
  return {{"hz", t.hz},
          {"method", t.method},
          {"cpuid_hz", t.cpuid_hz},
          {"cpuid_leaf", t.cpuid_leaf},
          {"calibrated_hz", t.calibrated_hz},
          {"calibration_ms", t.calibration_ms},
          {"constant_tsc", t.constant_tsc},
          {"clocksource", t.clocksource}};
}

}  // namespace kvmbench::host
