// post 000's tables from the three kernel logs of results/reference.
#include <fmt/format.h>

#include <optional>
#include <stdexcept>

#include "analysis/verdicts/published_change.h"
#include "suites/rmpopt/report.h"

namespace kvmbench::suites::rmpopt {

Reproduction reproduce_document(const std::filesystem::path& dir, const ReproduceOptions& options) {
  namespace fs = std::filesystem;
  Reproduction r{"rmpopt", "post 000 (Kalra, RMPOPT v2 3/7)", {}, {}, {}};
  const fs::path cycles = dir / "rmpopt_cycles.log";
  const fs::path all = dir / "rmpopt_sweep_all_cpus.log";
  const fs::path leader = dir / "rmpopt_sweep_leader_primary.log";
  r.files = {cycles.string(), all.string(), leader.string()};
  std::vector<Sample> samples;
  // The cycle stats come in two groups: during boot, then after guest
  // shutdown (the reference file's header and the document's text).
  for (Sample s : reference_kernel_log(cycles)) {
    const std::optional<long long> group = sample_key_int(s, "group");  // parsed here: never a legacy sample
    if (group == 1) s.case_name = "during boot";
    else if (group == 2) s.case_name = "after guest shutdown";
    else throw std::runtime_error(fmt::format("{}:{}: expected two groups of cycle stats, found {}", cycles.string(),
                                              s.extra.value("line", 0), s.case_name));
    samples.push_back(std::move(s));
  }
  // The kernel print does not name the variant; the file does.
  for (auto [file, variant] : {std::pair{all, "all-cpus"}, std::pair{leader, "leader+primary"}})
    for (Sample s : reference_kernel_log(file)) {
      s.variant = variant;
      samples.push_back(std::move(s));
    }
  r.tables = report_tables(samples, kReplaySource, "all-cpus", options.tsc_ghz);
  // What the document's two sweeps a side exclude, in a verdict's words.
  std::vector<double> sweeps[2];
  for (const Sample& s : samples)
    if (s.metric == "sweep_time") sweeps[s.variant == "leader+primary"].push_back(s.value);
  const PublishedChange change =
      published_change(change_model(sweeps[0], sweeps[1], Direction::lower_is_better), 0.95);
  r.notes.push_back(published_change_sentence(
      change, 0.95,
      fmt::format("leader+primary against all-cpus, {} and {} sweeps, the geometric means", sweeps[1].size(),
                  sweeps[0].size())));
  r.notes.push_back("all-cpus: on_each_cpu_mask(cpu_online_mask) per 1GB region; leader+primary: the "
                    "current CPU sweeps first, then one thread per core in parallel");
  r.notes.push_back("document: \"~16-20% performance improvement\"; above is what two runs per variant support");
  r.notes.push_back("per-CPU time needs the number of CPUs, which the document does not give");
  if (!options.tsc_ghz)
    r.notes.push_back("the document does not give the TSC rate of its machine, so the cycle stats stay in "
                      "cycles; --tsc-ghz G adds their wall-clock equivalents (ns = cycles / G)");
  return r;
}

}  // namespace kvmbench::suites::rmpopt
