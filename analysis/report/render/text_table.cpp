#include "analysis/report/render/text_table.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "analysis/model/text_wrap.h"
#include "analysis/report/render/shown_rows.h"

namespace kvmbench {

namespace {

std::string pad(std::string_view s, std::size_t w, Align a) {
  std::size_t sw = display_width(s);
  std::string fill(w > sw ? w - sw : 0, ' ');
  return a == Align::left ? std::string(s) + fill : fill + std::string(s);
}

// A note or title, line by line: a "# " comment line wraps into "#   "
// lines ("#3: ..." is a note about row 3, no comment).
std::string wrapped_note(std::string_view note) {
  std::string out;
  std::size_t pos = 0;
  while (pos <= note.size()) {
    std::size_t end = note.find('\n', pos);
    if (end == std::string_view::npos) end = note.size();
    const std::string_view one = note.substr(pos, end - pos);
    // A "# " comment line wraps into lines that stay comments.
    out += one.empty() ? "\n" : wrap_text(one, 80, one.starts_with("# ") || one == "#" ? "#   " : "  ");
    pos = end + 1;
  }
  return out;
}

// The header, the rule and the rows of `t` in columns `cols` (indices into
// t.columns, of widths `w`) a `gap` apart; with `label`, that column's cell
// on a line of its own above each row.
std::string body(const Table& t, const std::vector<std::size_t>& cols, const std::vector<std::size_t>& w,
                 const std::string& gap, std::optional<std::size_t> label) {
  const ShownRows shown = shown_rows(t);
  std::string out;
  auto line = [&](auto&& text_at) {
    std::string l;
    for (std::size_t k = 0; k < cols.size(); ++k) {
      if (k) l += gap;
      l += pad(text_at(cols[k]), w[cols[k]], t.columns[cols[k]].align);
    }
    while (!l.empty() && l.back() == ' ') l.pop_back();
    out += l + "\n";
  };
  line([&](std::size_t c) -> const std::string& { return t.columns[c].header; });
  if (t.rule_under_header) {
    std::string l;
    for (std::size_t k = 0; k < cols.size(); ++k) l += (k ? gap : "") + std::string(w[cols[k]], '-');
    out += l + "\n";
  }
  for (std::size_t r = 0; r < t.rows.size(); ++r) {
    if (shown.omitted && r == shown.head) out += omitted_line(shown.omitted) + "\n";
    if (!shown.shown(r, t.rows.size())) continue;
    // A label longer than a line breaks at its spaces, as a note does.
    if (label) {
      const std::string& l = t.rows[r][*label].text;
      out += display_width(l) > 80 ? wrap_text(l) : l + "\n";
    }
    line([&](std::size_t c) -> const std::string& { return t.rows[r][c].text; });
  }
  return out;
}

std::size_t widest_line(std::string_view text) {
  std::size_t most = 0;
  for (std::size_t pos = 0; pos < text.size();) {
    std::size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    most = std::max(most, display_width(text.substr(pos, end - pos)));
    pos = end + 1;
  }
  return most;
}

}  // namespace

std::string render_text(const Table& t) {
  const ShownRows shown = shown_rows(t);
  std::vector<std::size_t> w(t.columns.size(), 0);
  for (std::size_t c = 0; c < t.columns.size(); ++c) {
    w[c] = display_width(t.columns[c].header);
    for (std::size_t r = 0; r < t.rows.size(); ++r)
      if (shown.shown(r, t.rows.size())) w[c] = std::max(w[c], display_width(t.rows[r][c].text));
  }
  std::string out;
  // A long title (a suite's, with "[PARTIAL: ...]" in front) is broken
  // like a note: every line of a text report fits 80 columns.
  if (!t.title.empty()) out += wrapped_note(t.title);
  if (!t.source.empty()) out += source_line(t.source) + "\n";
  // The layouts the table allows, tried in order until one fits 80
  // columns (else the last): as it is, with one space between columns,
  // with the label above its row, both.
  const std::vector<std::size_t> cols = columns_for(t, Readers::text);
  std::vector<std::size_t> without_label;
  for (std::size_t c : cols)
    if (c != t.stacked_label) without_label.push_back(c);
  const bool can_stack = t.stacked_label && without_label.size() < cols.size();
  std::string laid = body(t, cols, w, t.column_gap, std::nullopt);
  for (int attempt = 1; attempt < 4 && widest_line(laid) > 80; ++attempt) {
    const bool narrow = attempt != 2, stacked = attempt >= 2;
    if ((narrow && !t.narrow_gap_when_wide) || (stacked && !can_stack)) continue;
    laid = stacked ? body(t, without_label, w, narrow ? " " : t.column_gap, t.stacked_label)
                   : body(t, cols, w, " ", std::nullopt);
  }
  out += laid;
  for (auto& n : t.notes) out += wrapped_note(n);
  return out;
}

}  // namespace kvmbench
