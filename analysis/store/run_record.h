// A run as the results database holds it: meta.json whole (its text, as on
// disk) and every samples.jsonl line whole (its text), so that a field a
// later kvmbench adds to either is kept without a schema change; beside
// them, the columns queries select on (suite, preset, source, status,
// times, host name, kernel release, machine fingerprint, tool version,
// parameters; and per sample case, variant, metric, unit, value,
// iteration, warm-up). Pure: built from the two files' texts, so the
// mapping is tested without a database.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/model/result_model.h"

namespace kvmbench::db {

struct SampleRecord {
  Sample sample;      // parsed from the line: its columns
  std::string line;   // the line as in samples.jsonl (no newline)
};

struct RunRecord {
  // Identity: the machine and the run directory's name
  // (<suite>-<UTC time>-<host>), "<machine>/<dir_name>".
  std::string run_key, dir_name;
  // SHA-256 of meta.json's text and the sample lines: an import of the same
  // run again is told from a changed copy by it.
  std::string content_sha256;
  std::string suite, preset, source, status, start_time, end_time, hostname, kernel_release;
  std::string machine;       // machine fingerprint, or "unknown:<hostname>" when the metadata has no CPU
  std::string machine_identity;  // its fields, "name=value" lines ("" when unknown)
  std::string tool_version;
  std::string parameters;    // meta.json "parameters" as compact JSON, keys sorted ("{}" when none)
  std::string meta_text;     // meta.json as on disk
  std::vector<SampleRecord> samples;
  std::string imported_from, imported_at;
};

// Builds a record from a run's files. `where` names the run in messages.
// Throws std::runtime_error with "file:line: reason" for meta.json that is
// not a JSON object or lacks "suite" or a known "source", for a sample line
// that is not a sample, for a last line without its newline (a run killed
// while writing) and for a samples.jsonl that holds another number of
// samples than meta.json's n_samples says (a file cut short or emptied).
RunRecord run_record_from_text(std::string dir_name, std::string meta_text, std::string_view samples_text,
                               const std::filesystem::path& where);

// Reads DIR/meta.json and DIR/samples.jsonl (absent: no samples) into a
// record; imported_from is DIR's absolute path.
RunRecord read_run_record(const std::filesystem::path& dir);

// The content hash of a record's meta text and sample lines.
std::string content_hash(const std::string& meta_text, const std::vector<SampleRecord>& samples);

// Whether `dir` is a run directory (holds meta.json).
bool is_run_directory(const std::filesystem::path& dir);

}  // namespace kvmbench::db
