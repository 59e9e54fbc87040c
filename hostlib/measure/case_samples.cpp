#include "hostlib/measure/case_samples.h"

#include <algorithm>
#include <exception>

#include <fmt/format.h>

#include "hostlib/os/interrupt.h"

namespace kvmbench::host {

void CaseValues::record(const std::string& metric, double value, const std::map<std::string, long long>& keys) {
  std::string order = metric;
  char sep = '@';
  for (const auto& [k, v] : keys) {
    order += fmt::format("{}{}={}", sep, k, v);
    sep = ',';
  }
  order_.push_back(std::move(order));
  Sample s;
  s.case_name = spec_.case_name;
  s.variant = spec_.variant;
  s.metric = metric;
  auto u = spec_.units.find(metric);
  s.unit = u == spec_.units.end() ? "" : u->second;
  s.value = value;
  s.extra = spec_.extra;
  for (const auto& [k, v] : keys) s.extra[k] = v;
  samples_.push_back(std::move(s));
}

std::vector<Sample> CaseValues::sorted_samples() const {
  std::vector<std::size_t> idx(samples_.size());
  for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) { return order_[a] < order_[b]; });
  std::vector<Sample> out;
  out.reserve(idx.size());
  for (std::size_t i : idx) out.push_back(samples_[i]);
  return out;
}

void measure_case(const CaseSpec& spec, const std::function<void(CaseValues&)>& body, const SampleSink& sink,
                  BenchOutcome& outcome) {
  if (interrupted()) {
    outcome.skipped.push_back({spec.case_name, spec.variant, "interrupted"});
    return;
  }
  CaseValues values(spec);
  try {
    body(values);
  } catch (const std::exception& e) {
    outcome.skipped.push_back({spec.case_name, spec.variant, e.what()});
    return;
  }
  for (const Sample& s : values.sorted_samples()) {
    sink(s);
    ++outcome.samples;
  }
}

}  // namespace kvmbench::host
