// Runs host-side micro-benchmarks in-process through Google Benchmark and
// turns every repetition into kvmbench Samples (analysis/result_model.h).
//
// A benchmark body measures one repetition itself (fresh memory, its own
// threads, its own clocks) and records named values with record(); Google
// Benchmark provides the repetition loop, manual timing, error handling and
// the reporter interface. Each recorded value becomes one Sample with the
// case's case_name and variant, iteration = repetition index.
#pragma once

#include <benchmark/benchmark.h>

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/result_model.h"

namespace kvmbench::host {

// A case that could not run here, and why.
struct SkippedCase {
  std::string case_name;
  std::string variant;
  std::string reason;
};

// What a suite's host benchmarks did: how many samples went to the sink and
// what was skipped (with the reason). The caller decides about exit 77.
struct BenchOutcome {
  std::size_t samples = 0;
  std::vector<SkippedCase> skipped;
  void merge(const BenchOutcome& o);
};

struct BenchCase {
  std::string case_name;
  std::string variant;
  int repetitions = 3;
  // metric -> unit for every metric the body records ("GB/s", "ns", ...).
  std::map<std::string, std::string> units;
  // Copied into every sample's `extra` (parameters, backing, ...).
  nlohmann::json extra = nlohmann::json::object();
  // When > 0, values recorded with the key `subsample_key` (k) become
  // iterations repetition * subsamples + k (e.g. 5 conversions per VM build).
  int subsamples = 0;
  std::string subsample_key = "sub";
  // Measures one repetition. Throwing std::exception marks the case skipped
  // with the exception's message.
  std::function<void(benchmark::State&)> body;
};

// Records `value` for `metric` in the current repetition. `keys` (e.g.
// {{"cpu", 3}}) go into the sample's extra, so one metric can carry several
// values per repetition (one per CPU, one per conversion).
void record(benchmark::State& state, const std::string& metric, double value,
            const std::map<std::string, long long>& keys = {});

// Registers the cases with Google Benchmark (after clearing its registry),
// runs them with a reporter that sends samples to `sink`, and clears the
// registry again. Not reentrant; serialised by a process-wide lock.
BenchOutcome run_bench_cases(const std::string& suite, const std::vector<BenchCase>& cases,
                             const SampleSink& sink);

}  // namespace kvmbench::host
