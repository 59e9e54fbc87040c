#include "hostlib/bench_runner.h"

#include <exception>
#include <mutex>
#include <set>

#include <fmt/format.h>

#include "hostlib/interrupt.h"

namespace kvmbench::host {

void BenchOutcome::merge(const BenchOutcome& o) {
  samples += o.samples;
  skipped.insert(skipped.end(), o.skipped.begin(), o.skipped.end());
}

// Counter names carry the keys: "metric" or "metric@cpu=3,sub=1".
void record(benchmark::State& state, const std::string& metric, double value,
            const std::map<std::string, long long>& keys) {
  std::string name = metric;
  char sep = '@';
  for (const auto& [k, v] : keys) {
    name += fmt::format("{}{}={}", sep, k, v);
    sep = ',';
  }
  state.counters[name] = benchmark::Counter(value);
}

namespace {

struct ParsedCounter {
  std::string metric;
  std::map<std::string, long long> keys;
};

ParsedCounter parse_counter_name(const std::string& name) {
  ParsedCounter p;
  auto at = name.find('@');
  p.metric = name.substr(0, at);
  if (at == std::string::npos) return p;
  std::string rest = name.substr(at + 1);
  std::size_t pos = 0;
  while (pos < rest.size()) {
    std::size_t comma = rest.find(',', pos);
    std::string kv = rest.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    auto eq = kv.find('=');
    if (eq != std::string::npos) p.keys[kv.substr(0, eq)] = std::stoll(kv.substr(eq + 1));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return p;
}

// Turns each repetition of each case into Samples; errors become skips.
class SampleReporter : public benchmark::BenchmarkReporter {
 public:
  SampleReporter(const std::map<std::string, const BenchCase*>& by_name, const SampleSink& sink,
                 BenchOutcome& outcome)
      : by_name_(by_name), sink_(sink), outcome_(outcome) {}

  bool ReportContext(const Context&) override { return true; }

  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& run : runs) {
      if (run.run_type != Run::RT_Iteration) continue;  // we keep raw values, not GB's aggregates
      auto it = by_name_.find(run.run_name.function_name);
      if (it == by_name_.end()) continue;
      const BenchCase& c = *it->second;
      if (run.error_occurred) {
        if (skipped_names_.insert(run.run_name.function_name).second)
          outcome_.skipped.push_back({c.case_name, c.variant, run.error_message});
        continue;
      }
      int rep = run.repetition_index < 0 ? 0 : static_cast<int>(run.repetition_index);
      for (const auto& [name, counter] : run.counters) {
        ParsedCounter pc = parse_counter_name(name);
        Sample s;
        s.case_name = c.case_name;
        s.variant = c.variant;
        s.metric = pc.metric;
        auto u = c.units.find(pc.metric);
        s.unit = u == c.units.end() ? "" : u->second;
        s.value = counter.value;
        s.iteration = rep;
        s.extra = c.extra;
        for (const auto& [k, v] : pc.keys) s.extra[k] = v;
        if (c.subsamples > 0 && pc.keys.count(c.subsample_key))
          s.iteration = rep * c.subsamples + static_cast<int>(pc.keys.at(c.subsample_key));
        s.extra["repetition"] = rep;
        try {
          if (!error_) sink_(s);
          ++outcome_.samples;
        } catch (...) {
          error_ = std::current_exception();  // rethrown once Google Benchmark is done
        }
      }
    }
  }

  void Finalize() override {}
  std::exception_ptr error() const { return error_; }

 private:
  const std::map<std::string, const BenchCase*>& by_name_;
  const SampleSink& sink_;
  BenchOutcome& outcome_;
  std::set<std::string> skipped_names_;
  std::exception_ptr error_;
};

std::mutex g_runner_lock;

}  // namespace

BenchOutcome run_bench_cases(const std::string& suite, const std::vector<BenchCase>& cases,
                             const SampleSink& sink) {
  std::lock_guard<std::mutex> lock(g_runner_lock);
  BenchOutcome outcome;
  std::map<std::string, const BenchCase*> by_name;
  benchmark::ClearRegisteredBenchmarks();
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const BenchCase& c = cases[i];
    // The index keeps names unique even if two cases share case and variant.
    std::string name = fmt::format("{}/{}/{}/{}", suite, i, c.case_name, c.variant);
    by_name[name] = &c;
    benchmark::RegisterBenchmark(name.c_str(),
                                 [&c](benchmark::State& st) {
                                   for (auto _ : st) {
                                     if (interrupted()) {
                                       st.SkipWithError("interrupted");
                                       break;
                                     }
                                     try {
                                       c.body(st);
                                     } catch (const std::exception& e) {
                                       st.SkipWithError(e.what());
                                       break;
                                     }
                                   }
                                 })
        ->Iterations(1)
        ->Repetitions(c.repetitions < 1 ? 1 : c.repetitions)
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond);
  }
  SampleReporter reporter(by_name, sink, outcome);
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::ClearRegisteredBenchmarks();
  if (reporter.error()) std::rethrow_exception(reporter.error());
  return outcome;
}

}  // namespace kvmbench::host
