#include "suites/engine/ingest_labels.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <string>
#include <unordered_map>

namespace kvmbench::engine {

namespace {

// How many runs of its program the input holds: one per file, or as many as
// the parser numbered (extra "invocation").
int invocations_in(const IngestInput& in) {
  int invocations = 1;
  for (const auto& s : in.parsed.result.samples)
    if (s.extra.is_object() && s.extra.contains("invocation"))
      invocations = std::max(invocations, s.extra["invocation"].get<int>() + 1);
  return invocations;
}

// The labels a sample takes from its file: a plain number's case, the
// file's variant, and its invocation counted from `first_invocation` (none:
// the file is no invocation of a program, or the only one).
void label_samples(IngestInput& in, const IngestLabelRules& rules, std::optional<int> first_invocation) {
  const std::string stem = in.path.stem().string();
  for (auto& s : in.parsed.result.samples) {
    if (in.parsed.format == parsers::InputFormat::plain_numbers) s.case_name = stem;
    if (rules.variant_per_file && s.variant.empty()) s.variant = stem;
    if (s.extra.is_object()) s.extra.erase("file");  // stored from raw_name (ingest_store.h)
    if (first_invocation)
      s.extra["invocation"] = *first_invocation + (s.extra.is_object() ? s.extra.value("invocation", 0) : 0);
  }
}

// A kernel log's samples with the variant of their part, "boot=2" or
// "part=2" after any variant they have; without a rule, the log's warnings
// say what pooling its records may hide.
void label_kernel_log_parts(IngestInput& in, const std::optional<parsers::SplitRule>& split) {
  auto& samples = in.parsed.result.samples;
  const auto& records = in.parsed.kernel_records;
  const auto& record_of = in.parsed.kernel_sample_record;
  if (split) {
    const std::vector<int> part = parsers::split_parts(records, *split);
    for (std::size_t i = 0; i < samples.size() && i < record_of.size(); ++i) {
      Sample& s = samples[i];
      const std::string label = split->label(part[record_of[i]]);
      s.variant = s.variant.empty() ? label : s.variant + "/" + label;
    }
    return;
  }
  // Records of one part per case: the case of each record's first sample.
  std::vector<std::string> case_of(records.size());
  for (std::size_t i = 0; i < samples.size() && i < record_of.size(); ++i)
    if (case_of[record_of[i]].empty()) case_of[record_of[i]] = samples[i].case_name;
  for (auto& h : parsers::pooling_hints(records, case_of)) in.parsed.result.warnings.push_back(h);
}

// A series that an earlier file began goes on from its first free
// iteration (`next_iteration`: series key -> that iteration, updated).
void continue_iterations(std::vector<Sample>& samples, std::map<std::string, int>& next_iteration) {
  std::vector<std::string> keys;
  keys.reserve(samples.size());
  for (auto& s : samples) keys.push_back(s.series_key());
  std::unordered_map<std::string, int> offset, top;
  for (auto& k : keys) offset.try_emplace(k, next_iteration[k]);
  for (std::size_t i = 0; i < samples.size(); ++i) {
    Sample& s = samples[i];
    s.iteration += offset[keys[i]];
    int& t = top[keys[i]];
    t = std::max(t, s.iteration + 1);
  }
  for (auto& [k, v] : top) next_iteration[k] = v;
}

// What meta.json says of one input: its entry in "inputs", and what its
// parser found beside the samples.
void describe_input(const IngestInput& in, IngestMeta& meta) {
  const auto& res = in.parsed.result;
  for (const auto& f : res.failures)
    meta.failures.push_back({{"file", in.raw_name}, {"program", f.program}, {"reason", f.reason}, {"line", f.line},
                             {"samples", f.samples}});
  meta.roles = merge_roles(meta.roles, in.parsed.roles);
  for (const auto& n : in.parsed.not_measured)
    meta.not_measured.push_back({{"file", in.raw_name}, {"case", n.case_name}, {"message", n.message}});
  for (const auto& a : in.parsed.aggregates) {
    auto j = parsers::to_json(a);
    j["file"] = in.raw_name;
    meta.aggregates.push_back(j);
  }
  if (!in.parsed.context.is_null()) meta.contexts[in.raw_name] = in.parsed.context;
  meta.inputs.push_back({{"file", in.path.string()},
                         {"raw", "raw/" + in.raw_name},
                         {"raw_bytes", in.bytes},
                         {"format", res.format},
                         {"lines_read", res.lines_read},
                         {"records", res.records},
                         {"lines_ignored", res.lines_ignored},
                         {"samples", res.samples.size()},
                         {"warnings", res.warnings},
                         {"notes", res.notes}});
}

}  // namespace

IngestMeta label_inputs(std::vector<IngestInput>& inputs, const IngestLabelRules& rules) {
  IngestMeta meta;
  std::map<std::string, int> next_iteration;  // series key -> first free iteration
  int next_invocation = 0;
  for (IngestInput& in : inputs) {
    const int invocations = invocations_in(in);
    const bool invocation =
        (inputs.size() > 1 || invocations > 1) && parsers::is_one_invocation(in.parsed.format);
    label_samples(in, rules, invocation ? std::optional<int>(next_invocation) : std::nullopt);
    if (invocation) next_invocation += invocations;
    if (in.parsed.format == parsers::InputFormat::kernel_log) label_kernel_log_parts(in, rules.split);
    // One file (the usual case, and a long log's) needs no bookkeeping:
    // its iterations stand as parsed.
    if (inputs.size() > 1) continue_iterations(in.parsed.result.samples, next_iteration);
    describe_input(in, meta);
  }
  return meta;
}

std::vector<Sample> pool_samples(std::vector<IngestInput>& inputs) {
  std::vector<Sample> all = std::move(inputs[0].parsed.result.samples);
  inputs[0].first_sample = 0;
  for (std::size_t k = 1; k < inputs.size(); ++k) {
    auto& samples = inputs[k].parsed.result.samples;
    inputs[k].first_sample = all.size();
    std::move(samples.begin(), samples.end(), std::back_inserter(all));
    samples = {};
  }
  return all;
}

}  // namespace kvmbench::engine
