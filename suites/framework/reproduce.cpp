#include "suites/framework/reproduce.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "analysis/parse/kernel_log.h"
#include "analysis/store/run_store.h"
#include "hostlib/os/install_layout.h"
#include "suites/framework/suite.h"

namespace kvmbench::suites {

namespace fs = std::filesystem;

std::vector<Sample> reference_kernel_log(const fs::path& file) {
  const std::string text = read_file(file);
  auto parsed = parsers::parse_kernel_log(text);
  if (parsed.samples.empty())
    throw std::runtime_error(fmt::format("{}:1: no kernel log record found", file.string()));
  return parsed.samples;
}

fs::path default_reference_dir() { return host::data_dir() / "reference"; }

std::vector<std::string> reproducible_suites() {
  std::vector<std::string> out;
  for (const auto& s : registry())
    if (s.reproduce) out.push_back(s.name);
  return out;
}

Reproduction reproduce(std::string_view suite, const fs::path& dir, const ReproduceOptions& options) {
  if (options.tsc_ghz && !(std::isfinite(*options.tsc_ghz) && *options.tsc_ghz > 0))
    throw std::invalid_argument(fmt::format("--tsc-ghz must be a positive number of GHz, not {}", *options.tsc_ghz));
  const Suite* s = find_suite(suite);
  if (!s || !s->reproduce)
    throw std::invalid_argument(unknown_suite_message(suite, [](const Suite& x) { return bool(x.reproduce); }, true));
  return s->reproduce(dir, options);
}

}  // namespace kvmbench::suites
