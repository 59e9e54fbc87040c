// One case of a host measurement (one backing and thread count, one table
// layout and strategy, ...) measured once: what its body records becomes
// complete Samples (analysis/model/result_model.h). The shape of KVM selftests'
// memstress: a measurement takes its parameters, makes fresh memory, runs
// its workers (hostlib/measure/bench_threads.h) and reports; the repetition loop is
// the run driver's (suites/engine/run_driver.cpp), never this one's, so a
// call here is one repetition and the driver stamps its iteration.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/model/result_model.h"

namespace kvmbench::host {

// A case that could not run here, and why.
struct SkippedCase {
  std::string case_name;
  std::string variant;
  std::string reason;
  // This kernel can never offer it (KVM lacks the feature): a note on the
  // tables, not a PARTIAL run (run_context.h's note_skip).
  bool not_offered = false;
};

// What a measurement did: how many samples went to the sink and what was
// skipped (with the reason). The caller decides about exit 77.
struct BenchOutcome {
  std::size_t samples = 0;
  std::vector<SkippedCase> skipped;
};

// Names every sample of a case carries.
struct CaseSpec {
  std::string case_name;
  std::string variant;
  // metric -> unit for every metric the body records ("GB/s", "ns", ...).
  std::map<std::string, std::string> units;
  // Copied into every sample's `extra` (parameters, backing, ...).
  nlohmann::json extra = nlohmann::json::object();
};

// The values one run of a case's body records.
class CaseValues {
 public:
  explicit CaseValues(const CaseSpec& spec) : spec_(spec) {}
  // Records `value` for `metric`. `keys` (e.g. {{"thread", 3}}) go into the
  // sample's extra: the several values of one metric within one repetition
  // (one per thread, CPU, conversion), which analysis/model/experimental_unit.h
  // summarises inside that repetition.
  void record(const std::string& metric, double value, const std::map<std::string, long long>& keys = {});
  // In the order of "metric@key=value,..." as text (keys by name), not of
  // recording: the order samples.jsonl has always had (the Google Benchmark
  // runner's counter map), which the generic tables' columns follow.
  std::vector<Sample> sorted_samples() const;

 private:
  const CaseSpec& spec_;
  std::vector<Sample> samples_;
  std::vector<std::string> order_;  // each sample's sort key
};

// Runs `body` once for `spec`. Its samples reach `sink` only once it has
// returned, so a case that fails half-way leaves no partial repetition; a
// std::exception from the body (or an interrupt before it starts) becomes a
// skip with the message in `outcome`. An exception from `sink` (a full
// disk) is not a skip: it propagates.
void measure_case(const CaseSpec& spec, const std::function<void(CaseValues&)>& body, const SampleSink& sink,
                  BenchOutcome& outcome);

}  // namespace kvmbench::host
