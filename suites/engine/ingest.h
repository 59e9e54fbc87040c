// The engine behind `kvmbench ingest FILE...`: recognises each file (kernel
// log lines, Google Benchmark JSON, KVM selftest or vmexit output, plain
// numbers), parses it, stores everything as one run per suite (source:
// replay, the raw text under raw/) and prints the runs' tables.
// - Several files of one program's output (Google Benchmark, a selftest)
//   are several invocations of it: each sample says which (extra
//   "invocation"). A kernel log's records of different experiments (boots,
//   loops run apart) are told apart with --split-by, and said otherwise
//   (ingest_labels.h).
// - Every file is read and parsed before a run directory is created, so a
//   rejected input leaves nothing behind. A file is read as it is parsed, a
//   piece at a time (ingest_input.h): a kernel log of any size is held in
//   memory only as its samples.
// - Output of a test that failed (a selftest's "not ok", an assertion) is
//   stored with status "failed", meta.json "failures" naming each test and
//   its reason, its figures marked (extra "failed"); ingest then exits 1.
// Separate from the CLI (cmd_ingest.cpp parses the options) so tests can
// call it.
#pragma once

#include <string>
#include <vector>

namespace kvmbench::engine {

struct IngestRequest {
  std::vector<std::string> files;        // raw output files (or pipes)
  std::string out_root = "results/runs";  // where the run directories are created
  std::string suite;                      // the runs' suite; "": inferred from the metrics
  std::string format = "text";            // text, md, csv or json
  std::string split_by;                   // kernel logs: "boot", "gap=S", or "" (one part)
  bool variant_per_file = false;          // each file's stem the variant of its samples that have none
};

// Returns normally when every run is stored and printed; throws ExitError:
// 2 for bad input or options (nothing stored), 1 when a test in the input
// failed (stored, as a failed run), 130 when interrupted.
void ingest(const IngestRequest& req);

}  // namespace kvmbench::engine
