#include "suites/engine/render_tables.h"

#include <fmt/format.h>

#include "suites/framework/errors.h"

namespace kvmbench::cli {

Format parse_table_format(const std::string& name) {
  Format f;
  try {
    f = parse_format(name);
  } catch (const std::invalid_argument& e) {
    usage_error(e.what());
  }
  if (f == Format::html) usage_error("--format html is not available for this command yet (text, md, csv, json)");
  return f;
}

nlohmann::json tables_json(const std::vector<Table>& tables) {
  nlohmann::json a = nlohmann::json::array();
  for (auto& t : tables) a.push_back(render_json(t));
  return a;
}

std::string render_tables(const std::vector<Table>& tables, Format f) {
  if (f == Format::json) return tables_json(tables).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
  std::string out;
  for (std::size_t i = 0; i < tables.size(); ++i) {
    if (i) out += "\n";
    if (f == Format::csv) {
      out += fmt::format("# {}\n# source: {}\n", data_title(tables[i]), tables[i].source);
    }
    out += render(tables[i], f);
  }
  return out;
}

}  // namespace kvmbench::cli

namespace kvmbench::cli {

std::string wrap_text(const std::string& text, std::size_t width, const std::string& indent) {
  std::string out, line;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t sp = text.find(' ', pos);
    if (sp == std::string::npos) sp = text.size();
    std::string word = text.substr(pos, sp - pos);
    pos = sp + 1;
    if (word.empty()) continue;
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      out += line + "\n";
      line = indent;
    }
    if (!line.empty() && line != indent) line += ' ';
    line += word;
  }
  if (!line.empty()) out += line + "\n";
  return out;
}

}  // namespace kvmbench::cli
