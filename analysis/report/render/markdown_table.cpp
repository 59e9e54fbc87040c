#include "analysis/report/render/markdown_table.h"

#include <vector>

#include "analysis/report/render/shown_rows.h"

namespace kvmbench {

std::string md_escape(std::string_view s) {
  std::string o;
  for (char ch : s) {
    if (ch == '|') o += "\\|";
    else o += ch;
  }
  return o;
}

std::string markdown_lines(const std::vector<std::string>& lines) {
  std::string out;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    std::string l = md_escape(lines[i]);
    // "# parameters: ..." is a comment of the text layout, not a heading.
    if (l.starts_with("#") && l.find_first_not_of('#') != std::string::npos && l[l.find_first_not_of('#')] == ' ')
      l = "\\" + l;
    const bool more = i + 1 < lines.size() && !lines[i + 1].empty() && !l.empty();
    out += l + (more ? "  \n" : "\n");
  }
  return out;
}

std::string render_markdown(const Table& t) {
  std::string out;
  if (!plain_title(t).empty()) out += "#### " + md_escape(plain_title(t)) + "\n\n";
  if (!t.source.empty()) out += md_escape(source_line(t.source)) + "\n\n";
  const std::vector<std::size_t> cols = columns_for(t, Readers::people);
  out += "|";
  for (std::size_t c : cols) out += " " + md_escape(t.columns[c].header) + " |";
  out += "\n|";
  for (std::size_t c : cols) out += t.columns[c].align == Align::right ? "---:|" : ":---|";
  out += "\n";
  const ShownRows shown = shown_rows(t);
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    if (shown.omitted && r == shown.head) {
      out += "| " + md_escape(omitted_line(shown.omitted)) + " |";
      for (std::size_t k = 1; k < cols.size(); ++k) out += " |";
      out += "\n";
    }
    if (!shown.shown(r, t.rows.size())) continue;
    out += "|";
    for (std::size_t c : cols) out += " " + md_escape(t.rows[r][c].text) + " |";
    out += "\n";
  }
  if (!t.notes.empty()) out += "\n" + markdown_lines(t.notes);
  return out;
}

}  // namespace kvmbench
