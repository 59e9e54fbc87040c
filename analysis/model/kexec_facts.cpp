#include "analysis/model/kexec_facts.h"

#include "analysis/model/text_lines.h"

namespace kvmbench::ab {

std::string lockdown_mode(std::string_view text) {
  const auto lb = text.find('[');
  const auto rb = text.find(']', lb == std::string_view::npos ? 0 : lb);
  if (lb != std::string_view::npos && rb != std::string_view::npos) return std::string(text.substr(lb + 1, rb - lb - 1));
  std::string word;
  for_each_word(text, [&](std::string_view w) {
    if (word.empty()) word = w;
  });
  return word;
}

}  // namespace kvmbench::ab
