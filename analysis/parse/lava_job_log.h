// A LAVA job's log as a LAVA server keeps it (one YAML mapping a line: dt,
// lvl, msg), and what kvmbench's test definition publishes in it: its run
// directories as a gzipped tarball in base64 between two marker lines on
// the device's console (lab-jobs/lava/kvmbench-testdef.yaml), so that a lab
// needs no file store for `kvmbench fleet` to fetch them.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace kvmbench {

struct LavaLogRecord {
  std::string level;  // "target", "info", "error", "results", ...
  std::string text;   // msg when it is text; a structured msg as flow YAML
};

// Records in order. A line that is not a record (a cut last line of a job
// still running) is skipped and counted.
struct LavaLog {
  std::vector<LavaLogRecord> records;
  std::size_t unreadable_lines = 0;
};
LavaLog parse_lava_log(const std::string& text);

// The markers: "KVMBENCH-RUNS-BEGIN <sha256 hex> <bytes>", base64 lines,
// "KVMBENCH-RUNS-END".
inline constexpr const char* kRunsBeginMarker = "KVMBENCH-RUNS-BEGIN";
inline constexpr const char* kRunsEndMarker = "KVMBENCH-RUNS-END";

struct PublishedRuns {
  std::string tarball;  // the decoded bytes, checked against the size and hash announced
  std::string sha256;
};

// The last complete publication in the log's target output. nullopt with
// `why` set when there is none, or when what is there is damaged (a line
// lost or garbled on the console, a cut log): a damaged copy is never
// returned.
std::optional<PublishedRuns> published_runs(const LavaLog& log, std::string& why);

// The log's error records (lava-test-raise's message among them), in
// order: what a failed job says about itself.
std::vector<std::string> error_messages(const LavaLog& log);

// Decodes RFC 4648 base64; nullopt on a character outside the alphabet or
// a bad length.
std::optional<std::string> base64_decoded(const std::string& text);

}  // namespace kvmbench
