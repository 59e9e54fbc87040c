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
  std::string error;  // a structured msg's error_msg (LAVA's results of a failed job say why there)
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
  std::string step;     // what the BEGIN line says after the size ("3 cand": fleet's A/B boots), or ""
};

// The last complete publication in the log's target output. nullopt with
// `why` set when there is none, or when what is there is damaged (a line
// lost or garbled on the console, a cut log): a damaged copy is never
// returned.
std::optional<PublishedRuns> published_runs(const LavaLog& log, std::string& why);

// Every complete publication, in order (a job that boots several times
// publishes once a boot). `damaged` gets a line for each one that is not
// complete or does not match what it announced; those are left out.
std::vector<PublishedRuns> all_published_runs(const LavaLog& log, std::vector<std::string>& damaged);

// The log's error records (lava-test-raise's message among them) and the
// error_msg of its results (where LAVA puts the detail: "Invalid job data:
// [...]"), in order: what a failed job says about itself.
std::vector<std::string> error_messages(const LavaLog& log);

// Decodes RFC 4648 base64; nullopt on a character outside the alphabet or
// a bad length.
std::optional<std::string> base64_decoded(const std::string& text);

}  // namespace kvmbench
