#include "analysis/report/table.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "analysis/model/text_wrap.h"

namespace kvmbench {

Cell Cell::number(double value, std::string unit, std::string text) {
  Cell c(std::move(text));
  c.value = value;
  c.unit = std::move(unit);
  return c;
}

Cell Cell::interval(double low, double high, std::string unit, std::string text) {
  Cell c(std::move(text));
  c.low = low;
  c.high = high;
  c.unit = std::move(unit);
  return c;
}

void Table::add_row(std::vector<Cell> cells) {
  if (cells.size() != columns.size())
    throw std::logic_error(fmt::format("table '{}': row has {} cells, {} columns", title, cells.size(),
                                       columns.size()));
  rows.push_back(std::move(cells));
}

std::vector<std::vector<std::string>> text_rows(const Table& t) {
  std::vector<std::vector<std::string>> out;
  out.reserve(t.rows.size());
  for (auto& r : t.rows) {
    auto& texts = out.emplace_back();
    for (auto& c : r) texts.push_back(c.text);
  }
  return out;
}

std::string_view plain_title(const Table& t) {
  std::string_view s = t.title;
  while (!s.empty() && s.front() == '#') s.remove_prefix(1);
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  return s;
}

std::string_view data_title(const Table& t) { return t.data_title ? std::string_view(*t.data_title) : plain_title(t); }

Format parse_format(std::string_view name) {
  if (name == "text") return Format::text;
  if (name == "md" || name == "markdown") return Format::md;
  if (name == "csv") return Format::csv;
  if (name == "json") return Format::json;
  if (name == "html") return Format::html;
  if (name == "mail") return Format::mail;
  if (name == "junit") return Format::junit;
  throw std::invalid_argument(fmt::format("unknown format '{}' (text, mail, md, csv, json, html, junit)", name));
}

std::string_view to_string(Format f) {
  switch (f) {
    case Format::text: return "text";
    case Format::md: return "md";
    case Format::csv: return "csv";
    case Format::json: return "json";
    case Format::html: return "html";
    case Format::mail: return "mail";
    case Format::junit: return "junit";
  }
  return "?";
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

static const std::string& text_of(const std::string& s) { return s; }
static const std::string& text_of(const Cell& c) { return c.text; }

static std::string pad(std::string_view s, std::size_t w, Align a) {
  std::size_t sw = display_width(s);
  std::string fill(w > sw ? w - sw : 0, ' ');
  return a == Align::left ? std::string(s) + fill : fill + std::string(s);
}

// A note or title, line by line: a "# " line wraps into "#   " lines.
static std::string wrapped_note(std::string_view note) {
  std::string out;
  std::size_t pos = 0;
  while (pos <= note.size()) {
    std::size_t end = note.find('\n', pos);
    if (end == std::string_view::npos) end = note.size();
    const std::string_view one = note.substr(pos, end - pos);
    // A "# " comment line wraps into lines that stay comments.
    out += one.empty() ? "\n" : wrap_text(one, 80, one.starts_with("#") ? "#   " : "  ");
    pos = end + 1;
  }
  return out;
}

std::string source_line(std::string_view source) {
  if (source == "emulated") return "source: emulated (QEMU TCG: a functional check, not a performance figure)";
  return "source: " + std::string(source);
}

std::string render_text(const Table& t) {
  const ShownRows shown = shown_rows(t);
  auto is_shown = [&](std::size_t r) { return r < shown.head || r >= t.rows.size() - shown.tail; };
  std::vector<std::size_t> w(t.columns.size(), 0);
  for (std::size_t c = 0; c < t.columns.size(); ++c) {
    w[c] = display_width(t.columns[c].header);
    for (std::size_t r = 0; r < t.rows.size(); ++r)
      if (is_shown(r)) w[c] = std::max(w[c], display_width(t.rows[r][c].text));
  }
  std::string out;
  // A long title (a suite's, with "[PARTIAL: ...]" in front) is broken
  // like a note: every line of a text report fits 80 columns.
  if (!t.title.empty()) out += wrapped_note(t.title);
  if (!t.source.empty()) out += source_line(t.source) + "\n";
  auto line = [&](const auto& cells) {
    std::string l;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      if (c) l += t.column_gap;
      l += pad(text_of(cells[c]), w[c], t.columns[c].align);
    }
    while (!l.empty() && l.back() == ' ') l.pop_back();
    out += l + "\n";
  };
  std::vector<std::string> hdr;
  for (auto& c : t.columns) hdr.push_back(c.header);
  line(hdr);
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
    if (is_shown(r)) line(t.rows[r]);
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
  if (!plain_title(t).empty()) out += "#### " + md_escape(plain_title(t)) + "\n\n";
  if (!t.source.empty()) out += md_escape(source_line(t.source)) + "\n\n";
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
    for (auto& cell : t.rows[r]) out += " " + md_escape(cell.text) + " |";
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

// A number as CSV holds it: every digit the double has, no unit.
static std::string csv_number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return fmt::format("{}", v);
}

static bool is_interval_column(const Table& t, std::size_t c) {
  for (auto& r : t.rows)
    if (r[c].low) return true;
  return false;
}

// The unit every number of column `c` has, or "" when they differ (or
// there is none).
static std::string column_unit(const Table& t, std::size_t c) {
  std::optional<std::string> unit;
  for (auto& r : t.rows) {
    if (!r[c].value && !r[c].low) continue;
    if (unit && *unit != r[c].unit) return "";
    unit = r[c].unit;
  }
  return unit.value_or("");
}

// CSV is built from the data: a number is its value in full, the unit goes
// into the header when the whole column has one, else beside the value; an
// interval column is two columns, its low and high ends.
std::string render_csv(const Table& t) {
  std::vector<std::string> units;
  std::vector<bool> split;
  for (std::size_t c = 0; c < t.columns.size(); ++c) {
    units.push_back(column_unit(t, c));
    split.push_back(is_interval_column(t, c));
  }
  std::vector<std::string> fields;
  auto line = [&] {
    std::string l;
    for (std::size_t i = 0; i < fields.size(); ++i) {
      if (i) l += ',';
      l += csv_field(fields[i]);
    }
    fields.clear();
    l += '\n';
    return l;
  };
  for (std::size_t c = 0; c < t.columns.size(); ++c) {
    // Without the spaces that pad a text layout's header to its width.
    std::string_view h = t.columns[c].header;
    while (!h.empty() && h.front() == ' ') h.remove_prefix(1);
    while (!h.empty() && h.back() == ' ') h.remove_suffix(1);
    const std::string unit = units[c].empty() ? "" : " (" + units[c] + ")";
    if (split[c]) {
      fields.push_back(std::string(h) + " low" + unit);
      fields.push_back(std::string(h) + " high" + unit);
    } else {
      fields.push_back(std::string(h) + (h.empty() ? unit.empty() ? "" : unit.substr(1) : unit));
    }
  }
  std::string out = line();
  auto number = [&](double v, const Cell& cell, std::size_t c) {
    std::string s = csv_number(v);
    if (units[c].empty() && !cell.unit.empty()) s += " " + cell.unit;
    return s;
  };
  for (auto& r : t.rows) {
    for (std::size_t c = 0; c < r.size(); ++c) {
      const Cell& cell = r[c];
      if (split[c]) {
        fields.push_back(cell.low ? number(*cell.low, cell, c) : cell.text);
        fields.push_back(cell.high ? number(*cell.high, cell, c) : cell.text);
      } else {
        fields.push_back(cell.value ? number(*cell.value, cell, c) : cell.text);
      }
    }
    out += line();
  }
  return out;
}

nlohmann::json render_json(const Table& t) {
  nlohmann::json j = {{"title", data_title(t)}, {"source", t.source}};
  j["columns"] = nlohmann::json::array();
  for (auto& c : t.columns) j["columns"].push_back(c.header);
  // A number is an object {value, unit, text}: the value in full (null
  // when not finite: JSON has no NaN), its unit, and the text as printed;
  // an interval {low, high, unit, text}.
  j["rows"] = nlohmann::json::array();
  for (auto& r : t.rows) {
    nlohmann::json row = nlohmann::json::array();
    auto finite = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); };
    for (auto& cell : r) {
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

std::string render(const Table& t, Format f) {
  switch (f) {
    case Format::text:
    case Format::mail: return render_text(t);
    case Format::md: return render_markdown(t);
    case Format::csv: return render_csv(t);
    case Format::json: return render_json(t).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    case Format::html:
    case Format::junit:
      throw std::invalid_argument(fmt::format("{} is a document's format (report/render/renderer.h)", to_string(f)));
  }
  return {};
}

}  // namespace kvmbench
