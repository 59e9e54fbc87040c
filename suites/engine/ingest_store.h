// One run of `kvmbench ingest` stored: its directory (meta.json, each
// sample with its provenance in samples.jsonl, the raw copy of each input
// under raw/) and its tables. Whole or not at all: an input that turns out
// bad only now (samples the tables refuse), a full disk or an I/O error
// leaves no directory behind; a Ctrl-C leaves the samples written so far
// in a run marked "interrupted".
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "analysis/report/render/format.h"
#include "analysis/report/table.h"
#include "analysis/store/run_store.h"
#include "suites/engine/ingest_input.h"

namespace kvmbench::engine {

// Input k's samples in a run: run.samples[begin, end), which are the
// input's own at the indices `local` (empty: all of them, in order). The
// provenance of a kernel log's sample is found by that index.
struct InputSlice {
  std::size_t begin = 0, end = 0;
  std::vector<std::size_t> local;
};

struct StoredRun {
  std::filesystem::path dir;
  std::string suite;
  std::size_t samples = 0;
  std::vector<Table> tables;
};

// Stores `run` (meta and samples; its dir is not used) as a new directory
// under `out_root`, input k's samples being slices[k] and its raw copy
// inputs[k]'s, and returns it with its tables (for `format`; marked as a
// failed run's when `failed`). `before`: the runs this ingest stored
// already, named in an error's message (they stay).
// Throws ExitError: 2 for bad input or a run that cannot be stored (nothing
// of it left), 130 when interrupted (what was written kept).
StoredRun store_ingested_run(Run& run, const std::vector<IngestInput>& inputs, const std::vector<InputSlice>& slices,
                             const std::filesystem::path& out_root, Format format, bool failed,
                             const std::vector<StoredRun>& before);

}  // namespace kvmbench::engine
