#include "analysis/report/render/json_table.h"

#include <cmath>
#include <vector>

namespace kvmbench {

nlohmann::json render_json(const Table& t) {
  nlohmann::json j = {{"title", data_title(t)}, {"source", t.source}};
  j["columns"] = nlohmann::json::array();
  const std::vector<std::size_t> cols = columns_for(t, Readers::programs);
  for (std::size_t c : cols) j["columns"].push_back(data_header(t, c));
  j["rows"] = nlohmann::json::array();
  auto finite = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); };
  for (auto& r : t.rows) {
    nlohmann::json row = nlohmann::json::array();
    for (std::size_t c : cols) {
      const Cell& cell = r[c];
      if (cell.value) {
        row.push_back({{"value", finite(*cell.value)}, {"unit", cell.unit}, {"text", cell.text}});
      } else if (cell.low) {
        row.push_back({{"low", finite(*cell.low)}, {"high", finite(cell.high.value_or(NAN))}, {"unit", cell.unit},
                       {"text", cell.text}});
      } else {
        row.push_back(cell.text);
      }
    }
    j["rows"].push_back(std::move(row));
  }
  j["notes"] = t.notes;
  return j;
}

}  // namespace kvmbench
