#include "analysis/report/table.h"

#include <fmt/format.h>

#include <stdexcept>

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

std::vector<std::size_t> columns_for(const Table& t, Readers readers) {
  std::vector<std::size_t> out;
  for (std::size_t c = 0; c < t.columns.size(); ++c)
    if (t.columns[c].readers == Readers::all || t.columns[c].readers == readers ||
        (readers == Readers::text && t.columns[c].readers == Readers::people))
      out.push_back(c);
  return out;
}

std::string_view data_header(const Table& t, std::size_t c) {
  const Column& col = t.columns.at(c);
  return col.data_header.empty() ? std::string_view(col.header) : std::string_view(col.data_header);
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

std::string source_line(std::string_view source) {
  if (source == "emulated") return "source: emulated (QEMU TCG: a functional check, not a performance figure)";
  return "source: " + std::string(source);
}

}  // namespace kvmbench
