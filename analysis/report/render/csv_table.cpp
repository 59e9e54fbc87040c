#include "analysis/report/render/csv_table.h"

#include <fmt/format.h>

#include <cmath>
#include <optional>
#include <vector>

namespace kvmbench {

namespace {

std::string csv_field(std::string_view s) {
  if (s.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(s);
  std::string o = "\"";
  for (char ch : s) {
    if (ch == '"') o += '"';
    o += ch;
  }
  return o + "\"";
}

// A number as CSV holds it: every digit the double has, no unit.
std::string csv_number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return fmt::format("{}", v);
}

bool is_interval_column(const Table& t, std::size_t c) {
  for (auto& r : t.rows)
    if (r[c].low) return true;
  return false;
}

// The unit every number of column `c` has, or "" when they differ (or
// there is none).
std::string column_unit(const Table& t, std::size_t c) {
  std::optional<std::string> unit;
  for (auto& r : t.rows) {
    if (!r[c].value && !r[c].low) continue;
    if (unit && *unit != r[c].unit) return "";
    unit = r[c].unit;
  }
  return unit.value_or("");
}

}  // namespace

std::string render_csv(const Table& t) {
  const std::vector<std::size_t> cols = columns_for(t, Readers::programs);
  std::vector<std::string> units(t.columns.size());
  std::vector<bool> split(t.columns.size());
  for (std::size_t c : cols) {
    units[c] = column_unit(t, c);
    split[c] = is_interval_column(t, c);
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
  for (std::size_t c : cols) {
    // Without the spaces that pad a text layout's header to its width.
    std::string_view h = data_header(t, c);
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
    for (std::size_t c : cols) {
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

}  // namespace kvmbench
