// A table of strings with a title, a source line and notes, rendered as
// plain text for mail (spaces, <= 80 columns where the data allows),
// Markdown, CSV or JSON. Renderers never compute anything.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace kvmbench {

enum class Align { left, right };

struct Column {
  std::string header;
  Align align = Align::right;
};

struct Table {
  std::string title;                 // printed first, e.g. "# Average fault-in rate ..."
  std::string source;                // "hardware" | "replay" | "emulated" | "model"
  std::vector<Column> columns;
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> notes;    // printed under the table
  // Text layout: separator line of dashes under the header (as in the
  // make_shared document) unless false.
  bool rule_under_header = true;
  std::string column_gap = "  ";
  // Text and Markdown print at most this many rows (0: all): the first ones,
  // a line saying how many were left out, and the last few, so that a
  // listing of a months-long log still reads as a table. CSV and JSON
  // always hold every row.
  std::size_t max_text_rows = 40;

  void add_row(std::vector<std::string> cells);
};

enum class Format { text, md, csv, json, html };
// Throws std::invalid_argument for an unknown name.
Format parse_format(std::string_view name);

std::string render_text(const Table& t);
std::string render_markdown(const Table& t);
std::string render_csv(const Table& t);
nlohmann::json render_json(const Table& t);
// text/md/csv/json; html is rendered by the report module.
std::string render(const Table& t, Format f);

}  // namespace kvmbench
