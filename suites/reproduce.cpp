#include "suites/reproduce.h"

#include <fmt/format.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "analysis/parsers/kernel_log.h"
#include "analysis/run_store.h"
#include "analysis/statistics.h"
#include "hostlib/install_layout.h"
#include "suites/directmap/report.h"
#include "suites/make_shared/report.h"
#include "suites/rmpopt/report.h"

namespace kvmbench::suites {

namespace fs = std::filesystem;

namespace {

constexpr std::string_view kReplay = "replay";

// Parses a reference kernel log; a file without a single record is an error.
std::vector<Sample> kernel_log_samples(const fs::path& file) {
  const std::string text = read_file(file);
  auto parsed = parsers::parse_kernel_log(text);
  if (parsed.samples.empty())
    throw std::runtime_error(fmt::format("{}:1: no kernel log record found", file.string()));
  return parsed.samples;
}

Reproduction make_shared_tables(const fs::path& dir) {
  Reproduction r{"make_shared", "documents/002_e68ad5e7b1fb71fb.txt", {}, {}, {}};
  const fs::path f = dir / "make_shared_to_shared.log";
  r.files.push_back(f.string());
  r.tables = make_shared::report_tables(kernel_log_samples(f), kReplay);
  r.notes.push_back("document: \"Looks to me it is within noise.\" (Ackerley Tng)");
  return r;
}

Reproduction rmpopt_tables(const fs::path& dir, std::optional<double> tsc_ghz) {
  Reproduction r{"rmpopt", "documents/000_d7f8210c34ef167c.txt", {}, {}, {}};
  const fs::path cycles = dir / "rmpopt_cycles.log";
  const fs::path all = dir / "rmpopt_sweep_all_cpus.log";
  const fs::path leader = dir / "rmpopt_sweep_leader_primary.log";
  r.files = {cycles.string(), all.string(), leader.string()};
  std::vector<Sample> samples;
  // The cycle stats come in two groups: during boot, then after guest
  // shutdown (the reference file's header and the document's text).
  for (Sample s : kernel_log_samples(cycles)) {
    if (s.case_name == "group=1") s.case_name = "during boot";
    else if (s.case_name == "group=2") s.case_name = "after guest shutdown";
    else throw std::runtime_error(fmt::format("{}:{}: expected two groups of cycle stats, found {}", cycles.string(),
                                              s.extra.value("line", 0), s.case_name));
    samples.push_back(std::move(s));
  }
  // The kernel print does not name the variant; the file does.
  for (auto [file, variant] : {std::pair{all, "all-cpus"}, std::pair{leader, "leader+primary"}})
    for (Sample s : kernel_log_samples(file)) {
      s.variant = variant;
      samples.push_back(std::move(s));
    }
  r.tables = rmpopt::report_tables(samples, kReplay, "all-cpus", tsc_ghz);
  r.notes.push_back("all-cpus: on_each_cpu_mask(cpu_online_mask) per 1GB region; leader+primary: the "
                    "current CPU sweeps first, then one thread per core in parallel");
  r.notes.push_back("document: \"~16-20% performance improvement\"; above is what two runs per variant support");
  r.notes.push_back("per-CPU time needs the number of CPUs, which the document does not give");
  if (!tsc_ghz)
    r.notes.push_back("the document does not give the TSC rate of its machine, so the cycle stats stay in "
                      "cycles; --tsc-ghz G adds their wall-clock equivalents (ns = cycles / G)");
  return r;
}

Reproduction directmap_tables(const fs::path& dir) {
  Reproduction r{"directmap", "documents/001_ea3f563d108a34e5.txt", {}, {}, {}};
  const fs::path f = dir / "directmap_faultin.json";
  r.files.push_back(f.string());
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(read_file(f));
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(fmt::format("{}: malformed JSON: {}", f.string(), e.what()));
  }
  std::vector<directmap::Cell> cells;
  try {
    const std::size_t n = j.at("n").get<std::size_t>();
    for (const auto& c : j.at("cells"))
      cells.push_back({c.at("case").get<std::string>(), c.at("variant").get<std::string>(),
                       stats::summary_from_moments(c.at("mean").get<double>(), c.at("stddev").get<double>(), n)});
    r.tables = directmap::tables_from_cells(
        cells, j.at("unit").get<std::string>(), kReplay,
        fmt::format("# Average fault-in rate across {} runs, measured in {}", n, j.at("unit").get<std::string>()));
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(fmt::format("{}: missing or bad field: {}", f.string(), e.what()));
  }
  r.notes.push_back("only the aggregated table exists (mean, sd, n = 3, rounded to 0.1 GB/s): the t-test uses "
                    "those summaries");
  return r;
}

// The measurement matrix the asid document describes (lines 48-60): three
// benchmarks, patched vs unpatched, with and without NPT and FLUSHBYASID,
// 5 iterations each. The post gives no numbers, so every cell says so.
Table asid_matrix() {
  Table t;
  t.title = "ASID series: measurement matrix described by the document, 5 iterations";
  t.source = std::string(kReplay);
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

Reproduction asid_tables(const fs::path& dir) {
  Reproduction r{"asid", "documents/003_33375d03bcc75d72.txt", {}, {}, {}};
  const fs::path f = dir / "asid_no_raw_data.md";
  if (!fs::exists(f)) throw std::runtime_error(fmt::format("{}: missing", f.string()));
  r.files.push_back(f.string());
  r.tables.push_back(asid_matrix());
  r.notes.push_back("no raw data to reproduce: the post gives no numbers, only the matrix above");
  r.notes.push_back("stated claim: netperf, cpuid_rate and mmap/munmap of 100M x 100, 5 iterations each, with "
                    "and without NPT and FLUSHBYASID: \"either no difference or a 1-2% performance hit for "
                    "the old hardware case\"");
  return r;
}

}  // namespace

fs::path default_reference_dir() { return host::data_dir() / "reference"; }

const std::vector<std::string>& reproducible_suites() {
  static const std::vector<std::string> s = {"rmpopt", "directmap", "make_shared", "asid"};
  return s;
}

Reproduction reproduce(std::string_view suite, const fs::path& dir, const ReproduceOptions& options) {
  if (options.tsc_ghz && !(std::isfinite(*options.tsc_ghz) && *options.tsc_ghz > 0))
    throw std::invalid_argument(fmt::format("--tsc-ghz must be a positive number of GHz, not {}", *options.tsc_ghz));
  if (suite == "make_shared") return make_shared_tables(dir);
  if (suite == "rmpopt") return rmpopt_tables(dir, options.tsc_ghz);
  if (suite == "directmap") return directmap_tables(dir);
  if (suite == "asid") return asid_tables(dir);
  throw std::invalid_argument(fmt::format("unknown suite '{}' (rmpopt, directmap, make_shared, asid, all)", suite));
}

}  // namespace kvmbench::suites
