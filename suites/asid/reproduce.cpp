// post 003 has no numbers: its reproduction is the measurement matrix
// it describes (lines 48-60), every cell saying so.
#include <fmt/format.h>

#include <stdexcept>

#include "suites/asid/report.h"

namespace kvmbench::suites::asid {

namespace {

// Three benchmarks, patched vs unpatched, with and without NPT and
// FLUSHBYASID, 5 iterations each.
Table described_matrix() {
  Table t;
  t.title = "ASID series: measurement matrix described by the document, 5 iterations";
  t.source = std::string(kReplaySource);
  t.columns = {{"benchmark", Align::left}, {"NPT", Align::left}, {"FLUSHBYASID", Align::left},
               {"unpatched"}, {"patched"}};
  const std::vector<std::string> benchmarks = {"netperf TCP_RR", "netperf TCP_STREAM", "cpuid_rate",
                                               "mmap/munmap 100M x100"};
  for (const auto& b : benchmarks)
    for (const char* npt : {"on", "off"})
      for (const char* flush : {"on", "off"}) t.add_row({b, npt, flush, "no data", "no data"});
  t.notes.push_back(fmt::format("{} benchmarks x NPT x FLUSHBYASID x unpatched/patched = {} cells;", benchmarks.size(),
                                benchmarks.size() * 8));
  t.notes.push_back(fmt::format("  5 iterations each = {} runs", benchmarks.size() * 8 * 5));
  t.notes.push_back("the document names \"netperf\" only; TCP_RR and TCP_STREAM are kvmbench's tests");
  t.notes.push_back("NPT or FLUSHBYASID off emulates old hardware; the document does not say");
  t.notes.push_back("  whether every combination was run");
  return t;
}

}  // namespace

Reproduction reproduce_document(const std::filesystem::path& dir, const ReproduceOptions&) {
  Reproduction r{"asid", "post 003 (Ahmed, static SVM ASIDs 0/7)", {}, {}, {}};
  const std::filesystem::path f = dir / "asid_no_raw_data.md";
  if (!std::filesystem::exists(f)) throw std::runtime_error(fmt::format("{}: missing", f.string()));
  r.files.push_back(f.string());
  r.tables.push_back(described_matrix());
  r.notes.push_back("no raw data to reproduce: the post gives no numbers, only the matrix above");
  r.notes.push_back("stated claim: netperf, cpuid_rate and mmap/munmap of 100M x 100, 5 iterations each, with "
                    "and without NPT and FLUSHBYASID: \"either no difference or a 1-2% performance hit for "
                    "the old hardware case\"");
  return r;
}

}  // namespace kvmbench::suites::asid
