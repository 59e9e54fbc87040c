// The TSC frequency, and how it was found: CPUID leaf 0x15 (crystal x
// ratio, exact), the hypervisor leaf 0x40000010 (what the host told this
// VM), or a calibration of rdtsc against CLOCK_MONOTONIC_RAW (the kernel's
// clocksource; an estimate). Leaf 0x16 (nominal base MHz) is reported next
// to them but is not the TSC rate on every CPU.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace kvmbench::host {

struct TscInfo {
  std::uint64_t hz = 0;            // the value to use (0: unknown)
  std::string method;              // how `hz` was found
  std::uint64_t cpuid_hz = 0;      // from CPUID, 0 when it does not say
  std::string cpuid_leaf;          // "0x15", "0x16", "0x40000010" or ""
  std::uint64_t calibrated_hz = 0; // rdtsc over a CLOCK_MONOTONIC_RAW interval
  double calibration_ms = 0;
  bool constant_tsc = false;       // /proc/cpuinfo flags constant_tsc and nonstop_tsc
  std::string clocksource;         // current_clocksource
};

// Calibrates for `calibration_ms` (bounded; 0 skips calibration).
TscInfo read_tsc_info(int calibration_ms = 50);

nlohmann::json to_json(const TscInfo& t);

}  // namespace kvmbench::host
