#include "suites/collect/capture.h"

#include <fmt/format.h>

#include <cmath>
#include <sstream>

#include "analysis/parse/kernel_log.h"
#include "suites/framework/errors.h"

namespace kvmbench::suites {

std::string meminfo_csv_field(const std::string& text) {
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    constexpr std::string_view pre = "t_s,", suf = "_bytes";
    if (line.size() > pre.size() + suf.size() && line.starts_with(pre) && line.ends_with(suf))
      return line.substr(pre.size(), line.size() - pre.size() - suf.size());
    return "";
  }
  return "";
}

void parse_meminfo_csv(const std::string& text, const std::string& field, const std::string& origin,
                       std::vector<double>& t, std::vector<double>& v) {
  t.clear();
  v.clear();
  std::istringstream in(text);
  std::string line;
  std::size_t no = 0;
  bool header = false;
  const std::string want = "t_s," + field + "_bytes";
  while (std::getline(in, line)) {
    ++no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    if (!header) {
      if (line != want)
        usage_error(fmt::format("{}: line {}: header '{}', expected '{}' (the meminfo field this preset "
                                "follows; see --set meminfo-field / confidential)",
                                origin, no, line, want));
      header = true;
      continue;
    }
    auto comma = line.find(',');
    double a = 0, b = 0;
    bool good = comma != std::string::npos;
    if (good) {
      try {
        std::size_t ua = 0, ub = 0;
        const std::string sa = line.substr(0, comma), sb = line.substr(comma + 1);
        a = std::stod(sa, &ua);
        b = std::stod(sb, &ub);
        good = ua == sa.size() && ub == sb.size() && std::isfinite(a) && std::isfinite(b);
      } catch (const std::exception&) {
        good = false;
      }
    }
    if (!good) usage_error(fmt::format("{}: line {}: expected 't_s,bytes', got '{}'", origin, no, line));
    t.push_back(a);
    v.push_back(b);
  }
  if (!header) usage_error(fmt::format("{}: no '{}' header", origin, want));
}

std::string meminfo_csv(const std::string& field, const std::vector<double>& t, const std::vector<double>& v) {
  std::string out = "t_s," + field + "_bytes\n";
  for (std::size_t i = 0; i < t.size() && i < v.size(); ++i) out += fmt::format("{},{}\n", t[i], v[i]);
  return out;
}

std::vector<Sample> kernel_log_samples(RunContext& ctx, const std::string& text, const std::string& raw_name) {
  parsers::ParseResult parsed = parsers::parse_kernel_log(text, parsers::BadRecords::skip);
  constexpr std::string_view skipped = "inconsistent record skipped: ";
  for (const auto& w : parsed.warnings) {
    const std::size_t at = w.find(skipped);
    if (at == std::string::npos) continue;
    // "line N: inconsistent record skipped: reason"
    ctx.note_skip(fmt::format("kernel log record, raw/{}:{}", raw_name, w.substr(5, w.find(':') - 5)),
                  w.substr(at + skipped.size()));
  }
  return std::move(parsed.samples);
}

}  // namespace kvmbench::suites
