#include "analysis/table.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace kvmbench {

void Table::add_row(std::vector<std::string> cells) {
  if (cells.size() != columns.size())
    throw std::logic_error(fmt::format("table '{}': row has {} cells, {} columns", title, cells.size(),
                                       columns.size()));
  rows.push_back(std::move(cells));
}

Format parse_format(std::string_view name) {
  if (name == "text") return Format::text;
  if (name == "md" || name == "markdown") return Format::md;
  if (name == "csv") return Format::csv;
  if (name == "json") return Format::json;
  if (name == "html") return Format::html;
  throw std::invalid_argument(fmt::format("unknown format '{}' (text, md, csv, json, html)", name));
}

namespace {

// The rows text and Markdown print: all, or the head and tail around a gap
// of `omitted` rows (which the caller reports where the gap is).
struct ShownRows {
  std::size_t head, tail, omitted;
};

ShownRows shown_rows(const Table& t) {
  const std::size_t n = t.rows.size();
  if (t.max_text_rows == 0 || n <= t.max_text_rows) return {n, 0, 0};
  const std::size_t tail = std::min<std::size_t>(5, t.max_text_rows / 4);
  const std::size_t head = t.max_text_rows - tail;
  return {head, tail, n - head - tail};
}

std::string omitted_line(std::size_t omitted) {
  return fmt::format("... {} more rows (--format csv or json lists them all) ...", omitted);
}

}  // namespace

// Display width in columns: counts UTF-8 code points, not bytes.
static std::size_t width(std::string_view s) {
  std::size_t w = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++w;
  return w;
}

static std::string pad(std::string_view s, std::size_t w, Align a) {
  std::size_t sw = width(s);
  std::string fill(w > sw ? w - sw : 0, ' ');
  return a == Align::left ? std::string(s) + fill : fill + std::string(s);
}

// A note as lines of at most 80 columns, broken at spaces; continuation
// lines indented by two (a word longer than a line stays whole).
static std::string wrapped_note(std::string_view note) {
  constexpr std::size_t kWidth = 80;
  std::string out, line;
  std::size_t pos = 0;
  while (pos < note.size()) {
    std::size_t end = note.find(' ', pos);
    if (end == std::string_view::npos) end = note.size();
    const std::string_view word = note.substr(pos, end - pos);
    pos = end + 1;
    if (word.empty()) continue;
    if (!line.empty() && width(line) + 1 + width(word) > kWidth) {
      out += line + "\n";
      line = "  ";
    } else if (!line.empty() && line != "  ") {
      line += ' ';
    }
    line += word;
  }
  return out + line + "\n";
}

std::string render_text(const Table& t) {
  const ShownRows shown = shown_rows(t);
  auto is_shown = [&](std::size_t r) { return r < shown.head || r >= t.rows.size() - shown.tail; };
  std::vector<std::size_t> w(t.columns.size(), 0);
  for (std::size_t c = 0; c < t.columns.size(); ++c) {
    w[c] = width(t.columns[c].header);
    for (std::size_t r = 0; r < t.rows.size(); ++r)
      if (is_shown(r)) w[c] = std::max(w[c], width(t.rows[r][c]));
  }
  std::string out;
  if (!t.title.empty()) out += t.title + "\n";
  if (!t.source.empty()) out += "source: " + t.source + "\n";
  auto line = [&](const std::vector<std::string>& cells, bool header) {
    std::string l;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      if (c) l += t.column_gap;
      l += pad(cells[c], w[c], header ? t.columns[c].align : t.columns[c].align);
    }
    while (!l.empty() && l.back() == ' ') l.pop_back();
    out += l + "\n";
  };
  std::vector<std::string> hdr;
  for (auto& c : t.columns) hdr.push_back(c.header);
  line(hdr, true);
  if (t.rule_under_header) {
    std::string l;
    for (std::size_t c = 0; c < w.size(); ++c) {
      if (c) l += t.column_gap;
      l += std::string(w[c], '-');
    }
    out += l + "\n";
  }
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    if (shown.omitted && r == shown.head) out += omitted_line(shown.omitted) + "\n";
    if (is_shown(r)) line(t.rows[r], false);
  }
  for (auto& n : t.notes) out += wrapped_note(n);
  return out;
}

static std::string md_escape(std::string_view s) {
  std::string o;
  for (char ch : s) {
    if (ch == '|') o += "\\|";
    else o += ch;
  }
  return o;
}

std::string render_markdown(const Table& t) {
  std::string out;
  if (!t.title.empty()) out += "**" + md_escape(t.title) + "**\n\n";
  if (!t.source.empty()) out += "source: `" + t.source + "`\n\n";
  out += "|";
  for (auto& c : t.columns) out += " " + md_escape(c.header) + " |";
  out += "\n|";
  for (auto& c : t.columns) out += c.align == Align::right ? "---:|" : ":---|";
  out += "\n";
  const ShownRows shown = shown_rows(t);
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    if (shown.omitted && r == shown.head) {
      out += "| " + md_escape(omitted_line(shown.omitted)) + " |";
      for (std::size_t c = 1; c < t.columns.size(); ++c) out += " |";
      out += "\n";
    }
    if (r >= shown.head && r < t.rows.size() - shown.tail) continue;
    out += "|";
    for (auto& cell : t.rows[r]) out += " " + md_escape(cell) + " |";
    out += "\n";
  }
  if (!t.notes.empty()) {
    out += "\n";
    for (auto& n : t.notes) out += md_escape(n) + "\n";
  }
  return out;
}

static std::string csv_field(std::string_view s) {
  if (s.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(s);
  std::string o = "\"";
  for (char ch : s) {
    if (ch == '"') o += '"';
    o += ch;
  }
  return o + "\"";
}

std::string render_csv(const Table& t) {
  std::string out;
  for (std::size_t c = 0; c < t.columns.size(); ++c) out += (c ? "," : "") + csv_field(t.columns[c].header);
  out += "\n";
  for (auto& r : t.rows) {
    for (std::size_t c = 0; c < r.size(); ++c) out += (c ? "," : "") + csv_field(r[c]);
    out += "\n";
  }
  return out;
}

nlohmann::json render_json(const Table& t) {
  nlohmann::json j = {{"title", t.title}, {"source", t.source}};
  j["columns"] = nlohmann::json::array();
  for (auto& c : t.columns) j["columns"].push_back(c.header);
  j["rows"] = t.rows;
  j["notes"] = t.notes;
  return j;
}

std::string render(const Table& t, Format f) {
  switch (f) {
    case Format::text: return render_text(t);
    case Format::md: return render_markdown(t);
    case Format::csv: return render_csv(t);
    case Format::json: return render_json(t).dump(2) + "\n";
    case Format::html: throw std::invalid_argument("html is rendered by the report module");
  }
  return {};
}

}  // namespace kvmbench
