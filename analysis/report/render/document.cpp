#include "analysis/report/render/document.h"

#include "analysis/model/text_lines.h"

namespace kvmbench {

std::vector<std::string> text_lines(std::string_view text) {
  std::vector<std::string> out;
  for_each_line(text, [&](std::size_t, std::string_view line) { out.emplace_back(line); });
  return out;
}

}  // namespace kvmbench
