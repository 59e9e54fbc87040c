// A table: a title, the source of its numbers, columns, rows of cells
// (text as printed, and the number it stands for), notes, and how its text
// layout reads. report/render/ writes it in each format; renderers never
// compute anything.
#pragma once

#include <concepts>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace kvmbench {

enum class Align { left, right };

// Who a column is for. People read text, mail, Markdown and HTML: a column
// that joins two figures into one text ("5/3") is theirs. Programs read CSV
// and JSON tables: a figure the people's layout leaves out for its width
// (each side's n, the p-values behind p(Holm)) is theirs. The text layout
// alone (text, mail) has a divider such as the document's " | " between
// two groups of columns: no data, and Markdown and HTML draw their own.
enum class Readers { all, people, programs, text };

struct Column {
  std::string header;
  Align align = Align::right;
  Readers readers = Readers::all;
  // The header CSV and JSON use where the people's one would be ambiguous
  // there (LKP's "%stddev" twice); empty: `header`.
  std::string data_header = "";
};

// What a cell's figure says for the reader, where it says something: HTML
// colours it (a regression red), text has the words.
enum class Tone { plain, better, worse };

// One cell: the text as printed and, for a number, the value it stands for
// in its own unit (e.g. 1234567 "ns" printed as "1.23 ms"), which is what
// JSON, CSV and HTML charts use: they never parse the text back.
struct Cell {
  std::string text;
  std::optional<double> value;
  // An interval (a 95% CI): its ends, in `unit`; `value` is then empty.
  std::optional<double> low, high;
  std::string unit;
  Tone tone = Tone::plain;

  Cell() = default;
  Cell(std::string t) : text(std::move(t)) {}
  Cell(const char* t) : text(t) {}
  static Cell number(double value, std::string unit, std::string text);
  static Cell interval(double low, double high, std::string unit, std::string text);

  friend bool operator==(const Cell& a, std::string_view b) { return a.text == b; }
  friend std::ostream& operator<<(std::ostream& o, const Cell& c) { return o << c.text; }
};

// What a chart of a table shows (HTML): one bar per row, labelled by the
// text of column `label`, the number of column `value`, and whiskers from
// the interval of column `interval` when there is one (what it is goes in
// `interval_name`, e.g. "95% CI of the mean").
struct TableChart {
  std::size_t label = 0;
  std::size_t value = 1;
  std::optional<std::size_t> interval;
  std::string interval_name = "95% CI of the mean";
};

struct Table {
  std::string title;                 // printed first, e.g. "# Average fault-in rate ..."
  // The title of CSV and JSON, whose numbers are in their own unit (the
  // columns say which), when `title` names the unit the text reads in
  // ("# real_time (ms)" over values in ns): unset, the title.
  std::optional<std::string> data_title;
  std::string source;                // "hardware" | "replay" | "emulated" | "model"
  std::vector<Column> columns;
  std::vector<std::vector<Cell>> rows;
  std::vector<std::string> notes;    // printed under the table
  // Text layout: separator line of dashes under the header (as in the
  // make_shared document) unless false.
  bool rule_under_header = true;
  std::string column_gap = "  ";
  // Text fits 80 columns: where a line of the table would pass them, one
  // space between columns instead of column_gap (narrow_gap_when_wide),
  // then the cell of column `stacked_label` (a long series name) on a line
  // of its own above the rest of its row. The other formats keep it a
  // column.
  bool narrow_gap_when_wide = false;
  std::optional<std::size_t> stacked_label;
  // Text and Markdown print at most this many rows (0: all): the first ones,
  // a line saying how many were left out, and the last few, so that a
  // listing of a months-long log still reads as a table. CSV and JSON
  // always hold every row.
  std::size_t max_text_rows = 40;
  // Set when the table's rows are comparable quantities worth a chart.
  std::optional<TableChart> chart;

  void add_row(std::vector<Cell> cells);
  // A row of text only (no cell is a number). A template so that a braced
  // list always means cells.
  template <class S>
    requires std::same_as<S, std::string>
  void add_row(const std::vector<S>& cells) {
    add_row(std::vector<Cell>(cells.begin(), cells.end()));
  }
};

// The indices of the columns that `readers` read (Readers::all columns
// and their own), in order.
std::vector<std::size_t> columns_for(const Table& t, Readers readers);
// The header CSV and JSON print for column `c`.
std::string_view data_header(const Table& t, std::size_t c);

// The rows as printed (what a test or a caller that wants text compares).
std::vector<std::vector<std::string>> text_rows(const Table& t);

// The title as a heading (Markdown, HTML, JSON, CSV): without the "# " that
// the text layout of the documents puts in front of it.
std::string_view plain_title(const Table& t);
// The source line of text and Markdown: "source: emulated (QEMU TCG: a
// functional check, not a performance figure)", so that no table of the
// emulated lab or a TCG guest reads as a measurement, whichever suite made it.
std::string source_line(std::string_view source);
// The title of CSV and JSON: data_title, else plain_title.
std::string_view data_title(const Table& t);

}  // namespace kvmbench
