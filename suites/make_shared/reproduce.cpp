// post 002's table from results/reference/make_shared_to_shared.log.
#include <fmt/format.h>

#include <cmath>
#include <map>

#include "analysis/verdicts/published_change.h"
#include "suites/make_shared/report.h"

namespace kvmbench::suites::make_shared {

Reproduction reproduce_document(const std::filesystem::path& dir, const ReproduceOptions&) {
  Reproduction r{"make_shared", "post 002 (Tng, guest_memfd v10 12/41)", {}, {}, {}};
  const std::filesystem::path f = dir / "make_shared_to_shared.log";
  r.files.push_back(f.string());
  const std::vector<Sample> samples = reference_kernel_log(f);
  r.tables = report_tables(samples, kReplaySource);
  r.notes.push_back("document: \"Looks to me it is within noise.\" (Ackerley Tng)");
  // What the data exclude of make_shared's share, the VM build the unit
  // (the reference file's header: 5 conversions a build, in file order):
  // conversions of one build share its memory and are no independent units.
  std::map<std::string, std::map<int, std::vector<double>>> shares;  // case -> build -> shares
  for (const Sample& s : samples)
    if (s.metric == "make_shared_pct") shares[s.case_name][s.iteration / 5].push_back(s.value);
  for (const auto& [case_name, builds] : shares) {
    // One build: its conversions are the units, as a run's repetitions are
    // with one invocation a side (the noise between builds is not in them).
    std::vector<double> units;
    if (builds.size() >= 2)
      for (const auto& [build, v] : builds) units.push_back(stats::summarize(v).mean);
    else
      units = builds.begin()->second;
    const double bound = mean_upper_bound(units, 0.95);
    const std::string unit =
        builds.size() >= 2 ? fmt::format("{} VM builds, the build the unit", units.size())
                           : fmt::format("one VM build, its {} conversions the units: the noise between builds is "
                                         "not in it",
                                         units.size());
    r.notes.push_back(std::isfinite(bound)
                          ? fmt::format("{}: make_shared {:.3g}% of the to-shared conversion; a share above {:.3g}% "
                                        "is excluded (95%; {})",
                                        case_name, stats::summarize(units).mean, bound, unit)
                          : fmt::format("{}: one conversion: no bound on make_shared's share", case_name));
  }
  return r;
}

}  // namespace kvmbench::suites::make_shared
