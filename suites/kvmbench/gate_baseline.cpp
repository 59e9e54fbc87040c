#include "suites/kvmbench/gate_baseline.h"

#include <fmt/format.h>

#include <filesystem>

#include "analysis/verdicts/compare_input.h"
#include "analysis/verdicts/history_baseline.h"
#include "analysis/verdicts/machine_check.h"
#include "suites/kvmbench/db_option.h"

namespace kvmbench::cli {

GateResult gate_against_baseline(const std::string& base, const std::string& cand_arg,
                                 const std::optional<std::string>& db, bool cross_machine, const GateOptions& go,
                                 bool from_database) {
  const ComparisonSide cand = load_comparison_sides(cand_arg);
  if (!from_database) {
    const ComparisonSide b = load_comparison_sides(base);
    const MachineCheck mc = check_same_machine(b.meta, cand.meta);
    if (auto problem = gate_machine_problem(mc, cross_machine)) return unusable_gate(base, cand_arg, go, *problem);
    if (mc.outcome == MachineCheck::Outcome::different) fmt::print(stderr, "kvmbench: note: {}\n", mc.message);
    if (const std::string same = same_input_warning(base, cand_arg); !same.empty())
      fmt::print(stderr, "kvmbench: warning: {}\n", same);
    return evaluate_gate(b, cand, go);
  }
  std::vector<std::string> dirs;
  for (std::size_t at = 0; at <= cand_arg.size();) {
    const auto comma = std::min(cand_arg.find(',', at), cand_arg.size());
    std::filesystem::path d = std::filesystem::path(cand_arg.substr(at, comma - at)).lexically_normal();
    if (d.filename().empty()) d = d.parent_path();  // "runs/x/"
    dirs.push_back(d.filename().string());
    at = comma + 1;
  }
  const auto query = parse_baseline_spec(base);
  if (!query) throw std::invalid_argument(fmt::format("--baseline {}: not db or db:QUERY", base));
  db::ResultsDb rdb = open_results_db(db, db::Access::read);
  HistoryBaseline hb = baseline_from_history(rdb, cand, dirs, *query, go.min_n);
  return evaluate_gate(hb.side, cand, go, retest_against_history);
}

}  // namespace kvmbench::cli
