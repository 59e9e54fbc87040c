// What the input files of one `kvmbench ingest` become together: their
// samples labelled as one run's (which file, which invocation of a program,
// which part of a kernel log), their iterations kept distinct across files,
// and what meta.json says of the files beside the samples. No I/O: the
// files are read before (ingest_input.h) and stored after (ingest_store.h).
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <vector>

#include "analysis/model/metric_roles.h"
#include "analysis/model/result_model.h"
#include "analysis/parse/kernel_log_split.h"
#include "suites/engine/ingest_input.h"

namespace kvmbench::engine {

// The command line's choices of labels.
struct IngestLabelRules {
  bool variant_per_file = false;  // --variant-per-file: the file's stem as a variant
  // --split-by: a kernel log's parts (boots, or records far apart) told
  // apart by variant; none: said as a hint where the log seems to hold
  // several experiments.
  std::optional<parsers::SplitRule> split;
};

// What meta.json says of the inputs besides their samples, each entry
// naming its file by its name under raw/.
struct IngestMeta {
  nlohmann::json inputs = nlohmann::json::array();        // per file: format, counts, warnings, notes
  nlohmann::json aggregates = nlohmann::json::array();    // Google Benchmark's aggregate rows
  nlohmann::json contexts = nlohmann::json::object();     // Google Benchmark's "context", by file
  nlohmann::json not_measured = nlohmann::json::array();  // benchmarks that errored or were skipped
  nlohmann::json failures = nlohmann::json::array();      // tests whose output says they failed
  MetricRoles roles;                                      // derived metrics, what a repetition is
};

// Labels every input's samples in place and gathers their meta, input by
// input in order:
// - plain numbers take the file's stem as their case;
// - with --variant-per-file, a sample without a variant takes the stem;
// - each file of one program's output (Google Benchmark, a selftest) is an
//   invocation of it, and so is each run a file holds several of: extra
//   "invocation", numbered across the files;
// - a kernel log's samples get the variant of their part (--split-by), or
//   the log a warning where it seems to hold several experiments;
// - a series that goes on in a later file goes on with its iterations.
// A file's warnings (in.parsed.result.warnings) get the kernel log's hints.
IngestMeta label_inputs(std::vector<IngestInput>& inputs, const IngestLabelRules& rules);

// Every input's samples in one list, in input order, moved out of the
// inputs; each input's first_sample says where its own start.
std::vector<Sample> pool_samples(std::vector<IngestInput>& inputs);

}  // namespace kvmbench::engine
