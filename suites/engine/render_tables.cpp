#include "suites/engine/render_tables.h"

#include <fmt/format.h>

#include "analysis/report/render/renderer.h"
#include "suites/framework/errors.h"

namespace kvmbench::cli {

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
