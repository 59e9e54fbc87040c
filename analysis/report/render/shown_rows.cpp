#include "analysis/report/render/shown_rows.h"

#include <fmt/format.h>

#include <algorithm>

namespace kvmbench {

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

}  // namespace kvmbench
