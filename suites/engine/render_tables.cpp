#include "suites/engine/render_tables.h"

#include <fmt/format.h>

#include "analysis/report/render/json_table.h"
#include "analysis/report/render/renderer.h"
#include "suites/framework/errors.h"

namespace kvmbench::engine {

Format parse_table_format(const std::string& name) {
  Format f;
  try {
    f = parse_format(name);
  } catch (const std::invalid_argument& e) {
    usage_error(e.what());
  }
  if (f == Format::html || f == Format::junit)
    usage_error(fmt::format("--format {} is not available for this command (text, mail, md, csv, json)", name));
  return f;
}

nlohmann::json tables_json(const std::vector<Table>& tables) {
  nlohmann::json a = nlohmann::json::array();
  for (auto& t : tables) a.push_back(render_json(t));
  return a;
}

std::string render_tables(const std::vector<Table>& tables, Format f) {
  Document d;
  d.tables = tables;
  return render(d, f);
}

}  // namespace kvmbench::engine
