// A run on disk: results/runs/<suite>-<UTC time>-<host>/ (the time to the
// microsecond, 20261130T050102.123456Z; ".N" after it when that name is
// taken in the directory already) with
//   meta.json      suite, preset, parameters, tool version, times, host, source,
//                  status ("running" until finish(), then "complete",
//                  "interrupted" or "failed")
//   samples.jsonl  one Sample per line, appended and flushed as measured
//   raw/<name>     raw text that was parsed (kernel log lines, guest output)
// Every file except samples.jsonl is written atomically (temp + rename).
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/model/result_model.h"

namespace kvmbench {

// Writes `text` to `path` through a temporary file in the same directory and
// rename(2), so readers see the old or the new file, never half of one.
// With `durable`, the data reaches the disk (fsync) before the rename;
// without, a crash soon after may leave the file short or empty (callers
// record the size to detect that).
void write_file_atomic(const std::filesystem::path& path, std::string_view text, bool durable = true);

// Reads a whole file; throws std::runtime_error naming the file on failure.
std::string read_file(const std::filesystem::path& path);

// "20261130T050102Z" for the current UTC time.
std::string utc_timestamp_compact();
// "20261130T050102.123456Z": the same to the microsecond (run directories'
// names).
std::string utc_timestamp_compact_us();
// "2026-11-30T05:01:02Z"
std::string utc_timestamp_iso();

class RunWriter {
 public:
  // Creates a fresh directory <out_root>/<suite>-<UTC time>-<host> (the
  // time to the microsecond, so that runs of one machine have names of their
  // own wherever they are written; a numeric suffix is added if it exists) and writes meta.json with
  // status "running". `meta` must hold at least "suite" and "source".
  // Room for meta.json's last writes is kept aside until finish(), so that
  // a run on a disk that fills still ends with its status. A directory
  // whose meta.json, samples file or that room cannot be made is removed,
  // and so are the folders above it made for it, when empty; the same when
  // the writer is destroyed after its caller removed the run directory
  // (input refused once it was made).
  static RunWriter create_in(const std::filesystem::path& out_root, const nlohmann::json& meta);
  // Same, at exactly `dir`, which must not exist yet.
  static RunWriter create_at(const std::filesystem::path& dir, const nlohmann::json& meta);

  RunWriter(RunWriter&&) noexcept;
  RunWriter& operator=(RunWriter&&) noexcept;
  RunWriter(const RunWriter&) = delete;
  ~RunWriter();

  // Appends one sample and flushes it to the kernel before returning. A
  // write that fails (a full disk) throws std::runtime_error and leaves
  // samples.jsonl as it was before, every line whole.
  void append(const Sample& s);
  // Appends `n` samples already formatted as samples.jsonl lines (each
  // ending in a newline, see sample_jsonl.h), in the kernel's hands (or on
  // the disk: a large text goes mostly past the page cache) before it
  // returns: the bulk path of ingest.
  void append_lines(std::string_view lines, std::size_t n);
  // Stores raw text under raw/<name> (atomic; durable unless told not to,
  // see write_file_atomic). Touches nothing but raw/, so it may run on
  // another thread while samples are appended.
  void write_raw(const std::string& name, std::string_view text, bool durable = true) const;
  // The same with the first `bytes` bytes of the file open at `from` (read
  // from its start; the descriptor's offset is not used): a raw input too
  // large to hold in memory.
  void copy_raw(const std::string& name, int from, std::uint64_t bytes, bool durable = true) const;
  // Adds or replaces keys in meta.json (written atomically at once).
  void update_meta(const nlohmann::json& patch);
  // Records end time and status and closes the samples file.
  void finish(std::string_view status = "complete");

  const std::filesystem::path& dir() const { return dir_; }
  const nlohmann::json& meta() const { return meta_; }
  std::size_t samples_written() const { return n_samples_; }

 private:
  RunWriter(std::filesystem::path dir, nlohmann::json meta);
  static RunWriter writer_in_new_dir(const std::filesystem::path& dir, const nlohmann::json& meta,
                                     std::vector<std::filesystem::path> made);
  void write_meta();
  void release_reserve();

  std::filesystem::path dir_;
  nlohmann::json meta_;
  int samples_ = -1;  // samples.jsonl, open for appending
  std::size_t n_samples_ = 0;
  std::uint64_t samples_bytes_ = 0;  // of the whole lines in samples.jsonl
  std::filesystem::path reserve_;    // room kept for meta.json (run_store.cpp)
  // The folders made for the run directory (--out and its parents that
  // were missing), the deepest first: removed again, if empty, when the run
  // directory goes (it could not be written, or its caller removed it).
  std::vector<std::filesystem::path> made_roots_;
};

struct Run {
  std::filesystem::path dir;
  nlohmann::json meta;
  std::vector<Sample> samples;

  Source source() const;            // from meta["source"]
  std::string suite() const;        // from meta["suite"]
  std::string status() const;       // from meta["status"]
};

// Loads a run directory. Throws std::runtime_error with "file:line: reason"
// for a missing meta.json, malformed JSON or a malformed sample line. A last
// line without its newline (a run killed mid-write) is reported, not loaded.
// SampleProvenance::drop leaves the samples' provenance members out of their
// extra (see kProvenanceMembers): what report, compare and gate load.
enum class SampleProvenance { keep, drop };
Run load_run(const std::filesystem::path& dir, SampleProvenance provenance = SampleProvenance::keep);
// The same from the texts of meta.json and samples.jsonl (none: no such
// file); `dir` names them in messages.
Run run_from_text(const std::filesystem::path& dir, std::string_view meta_text,
                  std::optional<std::string_view> samples_text,
                  SampleProvenance provenance = SampleProvenance::keep);

// For each meta.json "inputs" entry with "raw" and "raw_bytes" (what ingest
// stores), a message when that copy is missing or not of that size (a crash
// before it reached the disk: the samples are intact, the copy is not).
std::vector<std::string> check_raw_copies(const Run& run);

// A message when samples.jsonl holds another number of samples than the
// n_samples meta.json recorded when the run finished (an emptied or cut
// file reads as a run with fewer samples, lines that are whole included);
// nothing for a run that never finished (no n_samples).
std::optional<std::string> check_sample_count(const Run& run);

}  // namespace kvmbench
