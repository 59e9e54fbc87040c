// post 001's table from results/reference/directmap_faultin.json: the
// published summaries only (mean, sd, n), so the t-test works from those.
#include <fmt/format.h>

#include <nlohmann/json.hpp>
#include <stdexcept>

#include "analysis/model/json_input.h"
#include "analysis/store/run_store.h"
#include "analysis/verdicts/published_change.h"
#include "suites/directmap/report.h"

namespace kvmbench::suites::directmap {

Reproduction reproduce_document(const std::filesystem::path& dir, const ReproduceOptions&) {
  Reproduction r{"directmap", "post 001 (Roth, directmap pre-split, 2024)", {}, {}, {}};
  const std::filesystem::path f = dir / "directmap_faultin.json";
  r.files.push_back(f.string());
  nlohmann::json j;
  try {
    j = parse_json_input(read_file(f));
  } catch (const JsonInputError& e) {
    throw std::runtime_error(json_input_message(e, f.string()));
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(fmt::format("{}: malformed JSON: {}", f.string(), e.what()));
  }
  std::vector<Cell> cells;
  try {
    const std::size_t n = j.at("n").get<std::size_t>();
    for (const auto& c : j.at("cells"))
      cells.push_back({c.at("case").get<std::string>(), c.at("variant").get<std::string>(),
                       stats::summary_from_moments(c.at("mean").get<double>(), c.at("stddev").get<double>(), n)});
    r.tables = tables_from_cells(
        cells, j.at("unit").get<std::string>(), kReplaySource,
        fmt::format("# Average fault-in rate across {} runs, measured in {}", n, j.at("unit").get<std::string>()));
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(fmt::format("{}: missing or bad field: {}", f.string(), e.what()));
  }
  r.notes.push_back("only the aggregated table exists (mean, sd, n = 3, rounded to 0.1 GB/s): the t-test uses "
                    "those summaries");
  // What the published summaries exclude: the candidate (pre-split) against
  // today's kernel in each column (Fieller's interval: summaries only).
  for (const Cell& base : cells) {
    if (base.case_name != kBase) continue;
    for (const Cell& cand : cells) {
      if (cand.case_name != kCandidate || cand.variant != base.variant) continue;
      ChangeModel m;
      m.geometric = false;
      m.direction = Direction::higher_is_better;
      m.base = base.summary;
      m.cand = cand.summary;
      r.notes.push_back(published_change_sentence(
          published_change(m, 0.95), 0.95,
          fmt::format("{} against {}, {}, {} runs a side (means)", kCandidate, kBase, base.variant, base.summary.n)));
    }
  }
  return r;
}

}  // namespace kvmbench::suites::directmap
