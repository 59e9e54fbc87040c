// Run directories written by hand for the export tests: a small rmpopt-like
// run whose one primary metric has five repetitions, a derived metric and a
// non-primary one beside it, and a skipped part; variants of its status.
#pragma once

#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/support/run_command.h"

namespace kvmbench::test_support {

inline nlohmann::json export_run_meta(const std::string& status) {
  return {{"suite", "rmpopt"},
          {"preset", "host"},
          {"source", "hardware"},
          {"status", status},
          {"tool_version", "v0-test"},
          {"hostname", "lab-7"},
          {"start_time", "2026-01-02T03:04:05Z"},
          {"end_time", "2026-01-02T03:05:05Z"},
          {"host", {{"kernel", {{"release", "6.18.0-rc3+"}}}}},
          {"metric_roles", {{"primary", {"emulated_sweep_wall"}}, {"derived", {{"sweep_rate", "emulated_sweep_wall"}}}}},
          {"skipped_parts", {{{"part", "document"}, {"reason", "no SEV-SNP <here> & \"no\" RMPOPT"}}}}};
}

// <dir>/<name>/ with meta.json and samples.jsonl; `reps` repetitions of
// the primary metric (wall time, ms) with a derived rate beside each.
inline std::filesystem::path write_export_run(const std::filesystem::path& dir, const std::string& name,
                                             const std::string& status = "complete", int reps = 5,
                                             double base_ms = 10) {
  const auto run = dir / name;
  std::filesystem::create_directories(run);
  nlohmann::json meta = export_run_meta(status);
  if (status == "failed") meta["error"] = "the sweep thread died";
  write_text(run / "meta.json", meta.dump(2));
  std::string lines;
  for (int i = 0; i < reps; ++i) {
    const double ms = base_ms + 0.1 * i;
    lines += nlohmann::json{{"case", "ram=64G"}, {"variant", "layout=last"}, {"metric", "emulated_sweep_wall"},
                            {"unit", "ms"}, {"value", ms}, {"iteration", i}}.dump() + "\n";
    lines += nlohmann::json{{"case", "ram=64G"}, {"variant", "layout=last"}, {"metric", "sweep_rate"},
                            {"unit", "GB/s"}, {"value", 64 / ms}, {"iteration", i}}.dump() + "\n";
    lines += nlohmann::json{{"case", "calibration"}, {"variant", ""}, {"metric", "scan_rate"},
                            {"unit", "GB/s"}, {"value", 20.0 + i}, {"iteration", i}}.dump() + "\n";
  }
  write_text(run / "samples.jsonl", lines);
  return run;
}

}  // namespace kvmbench::test_support
