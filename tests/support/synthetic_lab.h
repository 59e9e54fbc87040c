// A synthetic year of a small lab: three machines (the made-up SNP, TDX and
// plain hosts of tests/data/hosts/), one `directmap --preset host` run a
// day each on a kernel that moves on every two weeks (6.8.0, 6.9.0-rc2,
// 6.9.0-rc5, 6.9.0, 6.10.0-rc2, ...), written as run directories as kvmbench
// writes them. Each run: three backings (anon-4k, thp, hugetlb-2m), one
// warm-up and five repetitions of faultin_rate (GB/s, the preset's primary
// metric) and fault_ns (derived: the time of one 4 KiB page), with 1 %
// noise between runs (another boot) and 1 % between repetitions.
//
// Planted, at a kernel's first day and nowhere else (kernel_of):
//   lab-snp-1  thp         x 0.94 from day 126 (6.11.0)
//   lab-snp-1  anon-4k     x 1.05 from day 252 (6.14.0)
//   lab-tdx-1  hugetlb-2m  x 0.92 from day 196 (6.13.0-rc5)
//   lab-plain-1: nothing.
// A caller may plant others instead, among them regressions that are fixed
// again (PlantedChange::until).
// Used by the history tests and by bench/synthetic_lab (the import and
// `history` figures of docs/database.md); header-only over analysis/.
#pragma once

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/model/result_model.h"
#include "analysis/store/run_store.h"
#include "analysis/model/sample_jsonl.h"

namespace kvmbench::test_support {

struct PlantedChange {
  std::string hostname, case_name;
  int day;        // first day at the new level
  double factor;  // new level / old level
  int until = 0;  // first day back at the old level (0: never)
};

inline const std::vector<PlantedChange>& planted_changes() {
  static const std::vector<PlantedChange> p = {
      {"lab-snp-1", "thp", 126, 0.94}, {"lab-snp-1", "anon-4k", 252, 1.05}, {"lab-tdx-1", "hugetlb-2m", 196, 0.92}};
  return p;
}

// The kernel on day d: a new one every 14 days, release candidates 2 and 5
// before each release.
inline std::string kernel_of(int day) {
  const int step = day / 14;  // 0: 6.8, 1: 6.9-rc2, 2: 6.9-rc5, 3: 6.9, 4: 6.10-rc2, ...
  const int minor = 8 + (step + 2) / 3;
  switch (step % 3) {
    case 0: return fmt::format("6.{}.0", minor);
    case 1: return fmt::format("6.{}.0-rc2", minor);
    default: return fmt::format("6.{}.0-rc5", minor);
  }
}

struct SyntheticYear {
  std::vector<std::filesystem::path> runs;
};

// Writes `days` runs per machine under `out` (created). `hosts_dir` holds
// snp.json, tdx.json and plain.json.
inline SyntheticYear write_synthetic_year(const std::filesystem::path& out, const std::filesystem::path& hosts_dir,
                                          int days = 365, std::uint64_t seed = 2026,
                                          const std::vector<PlantedChange>& planted = planted_changes()) {
  namespace fs = std::filesystem;
  fs::create_directories(out);
  std::mt19937_64 rng(seed);
  auto normal = [&] {  // Box-Muller: the same numbers with every standard library
    const double u1 = (static_cast<double>(rng() >> 11) + 1) * 0x1.0p-53, u2 = static_cast<double>(rng() >> 11) * 0x1.0p-53;
    return std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
  };
  struct Machine {
    std::string file;
    double speed;  // scales every rate
    int hour;
  };
  const std::vector<Machine> machines = {{"snp.json", 1.0, 2}, {"tdx.json", 1.2, 3}, {"plain.json", 0.7, 4}};
  const std::vector<std::pair<std::string, double>> cases = {{"anon-4k", 3.1}, {"thp", 9.8}, {"hugetlb-2m", 11.5}};
  SyntheticYear y;
  for (const auto& m : machines) {
    std::ifstream in(hosts_dir / m.file);
    const nlohmann::json host0 = nlohmann::json::parse(in);
    const std::string hostname = host0.value("hostname", std::string("lab"));
    for (int day = 0; day < days; ++day) {
      const std::time_t t = 1767225600 + static_cast<std::time_t>(day) * 86400 + m.hour * 3600;  // 2026-01-01
      std::tm tm{};
      gmtime_r(&t, &tm);
      char iso[32], compact[32], iso_end[32];
      std::strftime(iso, sizeof iso, "%Y-%m-%dT%H:%M:%SZ", &tm);
      std::strftime(compact, sizeof compact, "%Y%m%dT%H%M%SZ", &tm);
      const std::time_t t_end = t + 600;
      std::tm tm_end{};
      gmtime_r(&t_end, &tm_end);
      std::strftime(iso_end, sizeof iso_end, "%Y-%m-%dT%H:%M:%SZ", &tm_end);
      nlohmann::json host = host0;
      host["kernel"]["release"] = kernel_of(day);
      host["collected_at"] = iso;
      host["tsc_hz"] = 2400000000 + static_cast<long long>(normal() * 2e5);  // drifts: not part of the machine
      std::string samples;
      std::size_t n = 0;
      for (const auto& [case_name, base] : cases) {
        double level = base * m.speed;
        for (const auto& p : planted)
          if (p.hostname == hostname && p.case_name == case_name && day >= p.day && (p.until == 0 || day < p.until))
            level *= p.factor;
        const double run_level = level * (1 + 0.01 * normal());  // this boot's level
        for (int rep = -1; rep < 5; ++rep) {
          const double rate = run_level * (1 + 0.01 * normal()) * (rep < 0 ? 0.8 : 1.0);  // a slow warm-up
          Sample s;
          s.case_name = case_name;
          s.variant = "1-thread";
          s.iteration = rep < 0 ? 0 : rep;
          s.warmup = rep < 0;
          s.metric = "faultin_rate";
          s.unit = "GB/s";
          s.value = rate;
          append_sample_line(samples, s);
          s.metric = "fault_ns";
          s.unit = "ns";
          s.value = 4096 / rate;  // GB/s is bytes per ns
          append_sample_line(samples, s);
          n += 2;
        }
      }
      nlohmann::json meta = {
          {"suite", "directmap"},
          {"preset", "host"},
          {"source", "hardware"},
          {"parameters", {{"bytes", "64M"}, {"threads", "1"}, {"backings", "anon-4k,thp,hugetlb-2m"},
                          {"write-bandwidth", "0"}}},
          {"tool_version", "v0.1.0-synthetic"},
          {"hostname", hostname},
          {"repetitions", 5},
          {"warmup_repetitions", 1},
          {"host", host},
          {"start_time", iso},
          {"end_time", iso_end},
          {"status", "complete"},
          {"skipped_parts", nlohmann::json::array()},
          {"measured_repetitions", 5},
          {"n_samples", n},
          // As kvmbench run writes them: the gate decides on faultin_rate.
          {"metric_roles", {{"primary", {"faultin_rate"}}, {"derived", {{"fault_ns", "faultin_rate"}}}}},
      };
      const fs::path dir = out / fmt::format("directmap-{}-{}", compact, hostname);
      fs::create_directories(dir / "raw");
      write_file_atomic(dir / "meta.json", meta.dump(2) + "\n", false);
      write_file_atomic(dir / "samples.jsonl", samples, false);
      y.runs.push_back(dir);
    }
  }
  return y;
}

}  // namespace kvmbench::test_support
