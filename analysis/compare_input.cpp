#include "analysis/compare_input.h"

#include <fmt/format.h>

#include <stdexcept>

#include "analysis/parsers/gbench_json.h"
#include "analysis/run_store.h"

namespace kvmbench {

namespace fs = std::filesystem;

ComparisonSide load_comparison_side(const fs::path& path) {
  std::error_code ec;
  if (!fs::exists(path, ec))
    throw std::runtime_error(fmt::format("{}: no such file or directory", path.string()));
  if (fs::is_directory(path, ec)) {
    if (!fs::exists(path / "meta.json", ec))
      throw std::runtime_error(fmt::format("{}: not a run directory (no meta.json)", path.string()));
    return side_from_run(load_run(path, SampleProvenance::drop), path.string());
  }
  std::string text = read_file(path);
  if (!parsers::looks_like_gbench_json(text))
    throw std::runtime_error(fmt::format(
        "{}: neither a run directory nor Google Benchmark JSON (an object with \"benchmarks\")",
        path.string()));
  parsers::GbenchParse parsed;
  try {
    parsed = parsers::parse_gbench_json(text);
  } catch (const parsers::ParseError& e) {
    throw std::runtime_error(fmt::format("{}:{}: {}", path.string(), e.line, e.what()));
  }
  ComparisonSide side;
  side.label = path.string();
  side.source = Source::replay;  // measured elsewhere, parsed here
  side.meta["context"] = parsed.context.is_null() ? nlohmann::json::object() : parsed.context;
  side.series = group_series(parsed.result.samples);
  return side;
}

}  // namespace kvmbench
