#include "analysis/report/number_format.h"

#include <charconv>

namespace kvmbench {

std::string format_fixed(double v, int decimals) {
  char buf[352];  // the longest fixed text of a double (1.8e308) and 17 decimals
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, decimals);
  return std::string(buf, r.ptr);
}

}  // namespace kvmbench
