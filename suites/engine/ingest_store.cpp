#include "suites/engine/ingest_store.h"

#include <fmt/format.h>

#include <future>
#include <span>

#include "analysis/model/sample_jsonl.h"
#include "analysis/parse/kernel_log.h"
#include "hostlib/os/interrupt.h"
#include "suites/engine/incomplete_run.h"
#include "suites/engine/run_report.h"
#include "suites/framework/errors.h"

namespace kvmbench::engine {

namespace fs = std::filesystem;

namespace {

// Writes an input's samples as samples.jsonl lines, each with its
// provenance after its other members: for a kernel log record its line,
// group and timestamps (from the record), then the raw file. A few MB per
// write, not a write per sample; false when Ctrl-C stopped it between two
// writes.
bool append_samples(RunWriter& w, const IngestInput& in, std::span<const Sample> samples,
                    std::span<const std::size_t> local) {
  constexpr std::size_t kChunk = 4u << 20;
  const auto& records = in.parsed.kernel_records;
  const auto& record_of = in.parsed.kernel_sample_record;
  std::string chunk;
  std::size_t pending = 0;
  std::string provenance;
  std::string file;  // its member, the same for every sample: written once
  append_json_member(file, "file", in.raw_name);
  // local[j]: sample j's index among the input's own (its record); none:
  // the samples are the input's, in order.
  auto index = [&](std::size_t j) { return local.empty() ? j : local[j]; };
  for (std::size_t j = 0; j < samples.size(); ++j) {
    const std::size_t i = index(j);
    // A record's samples (a conversion's three) share its provenance; the
    // samples of other formats share the file.
    if (j == 0 || (i < record_of.size() && (index(j - 1) >= record_of.size() || record_of[i] != record_of[index(j - 1)]))) {
      provenance.clear();
      if (i < record_of.size()) parsers::append_record_provenance(provenance, records[record_of[i]]);
      provenance += file;
    }
    append_sample_line(chunk, samples[j], provenance);
    if (++pending, chunk.size() >= kChunk) {
      w.append_lines(chunk, pending);
      chunk.clear();
      pending = 0;
      if (host::interrupted()) return false;
    }
  }
  if (pending) w.append_lines(chunk, pending);
  return true;
}

// " (the runs before it stay: DIR, DIR)": what an error says about the runs
// this ingest stored before the one that failed.
std::string kept_before(const std::vector<StoredRun>& before) {
  if (before.empty()) return "";
  std::string dirs;
  for (const auto& d : before) dirs += (dirs.empty() ? "" : ", ") + d.dir.string();
  return fmt::format(" (the run{} before it stay{}: {})", before.size() == 1 ? "" : "s", before.size() == 1 ? "s" : "",
                     dirs);
}

// A run that is no result (meta.json still "running", part of its samples)
// goes, whatever stopped it.
void remove_unfinished(const fs::path& dir) {
  std::error_code ec;
  if (!dir.empty()) fs::remove_all(dir, ec);
}

}  // namespace

StoredRun store_ingested_run(Run& run, const std::vector<IngestInput>& inputs, const std::vector<InputSlice>& slices,
                             const fs::path& out_root, Format format, bool failed,
                             const std::vector<StoredRun>& before) {
  // The tables and the raw copies are made on threads of their own while
  // this one writes the samples: ingest's budget (at most 4x the time of
  // an awk one-liner on a 200 MB log; docs/formats.md) failed
  // without them. bench/ingest_bench.cpp's BM_IngestVsAwk measures it.
  // The tables come from the samples in memory (`kvmbench report` computes
  // the same from disk: the stored lines add only provenance, which no
  // table reads), while this thread stores the run (into its new
  // directory, not run.dir): neither writes what the other reads.
  const bool data = format == Format::csv || format == Format::json;
  std::future<std::vector<Table>> tables_ahead = std::async(std::launch::async, [&run, data] {
    return report_tables(run, data ? ReportDetail::data : ReportDetail::brief);
  });
  StoredRun out{{}, run.meta.value("suite", std::string()), run.samples.size(), {}};
  bool stopped = false;
  std::size_t stored = 0;
  try {
    RunWriter w = RunWriter::create_in(out_root, run.meta);
    out.dir = w.dir();
    // The raw copies are not forced to the disk: a lab's logs run to
    // hundreds of MB, and the original is still where it was read. Their
    // sizes are in meta.json, so `report` tells a copy cut short by a
    // crash; samples.jsonl and meta.json are synced as always. write_raw
    // touches only raw/, so the copies are made while the samples are
    // written.
    std::future<void> raw = std::async(std::launch::async, [&w, &inputs] {
      for (auto& in : inputs) in.store_raw(w);
    });
    for (std::size_t k = 0; k < inputs.size() && !stopped; ++k) {
      const InputSlice& s = slices[k];
      stopped = !append_samples(w, inputs[k], {run.samples.data() + s.begin, s.end - s.begin}, s.local);
    }
    raw.get();
    // A Ctrl-C after the last bulk of samples (or while the raw copy was
    // still being written) is honoured too: the samples are whole, the run
    // says it was interrupted.
    stopped = stopped || host::interrupted();
    stored = w.samples_written();
    if (!stopped) {
      try {
        out.tables = tables_ahead.get();
      } catch (const std::exception& e) {
        // Samples the tables refuse (one metric in two time units) are bad
        // input: the run is not finished, so nothing of it is left. (A bug
        // goes on to the catch below.)
        if (!is_bad_input(std::current_exception())) throw;
        remove_unfinished(out.dir);
        const auto* exit = dynamic_cast<const ExitError*>(&e);
        throw ExitError(exit ? exit->code : kExitUsage, fmt::format("{}; nothing stored{}", e.what(), kept_before(before)));
      }
      if (failed) {  // the tables say so, as `report` will
        run.meta["status"] = "failed";
        mark_run_notes(out.tables, run);
      }
    }
    w.finish(stopped ? "interrupted" : failed ? "failed" : "complete");
  } catch (const ExitError&) {
    throw;
  } catch (const std::exception& e) {
    // A run cut short by a full disk, an I/O error or a bug is no result:
    // its directory goes. Only the first two are the user's to fix.
    remove_unfinished(out.dir);
    if (!is_bad_input(std::current_exception())) throw;
    usage_error(fmt::format("cannot store the run under {}: {}; nothing stored{}", out_root.string(), e.what(),
                            kept_before(before)));
  } catch (...) {
    remove_unfinished(out.dir);
    throw;
  }
  if (stopped)
    throw ExitError(kExitInterrupted, fmt::format("interrupted; {} of {} samples kept in {} (status: interrupted){}",
                                                  stored, run.samples.size(), out.dir.string(), kept_before(before)));
  return out;
}

}  // namespace kvmbench::engine
