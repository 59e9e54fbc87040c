#include "analysis/parsers/gbench_json.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace kvmbench::parsers {

namespace {

// 1-based line of byte offset `pos`.
std::size_t line_of(std::string_view text, std::size_t pos) {
  pos = std::min(pos, text.size());
  return 1 + static_cast<std::size_t>(std::count(text.begin(), text.begin() + static_cast<long>(pos), '\n'));
}

// Fields of a benchmark row that are not user counters.
const std::set<std::string>& known_fields() {
  static const std::set<std::string> k = {
      "name", "family_index", "per_family_instance_index", "run_name", "run_type", "repetitions",
      "repetition_index", "threads", "iterations", "real_time", "cpu_time", "time_unit",
      "aggregate_name", "aggregate_unit", "error_occurred", "error_message", "label", "big_o",
      "rms", "complexity_n", "skipped", "skip_message"};
  return k;
}

bool valid_time_unit(const std::string& u) { return u == "ns" || u == "us" || u == "ms" || u == "s"; }

std::string counter_unit(const std::string& name) {
  if (name.size() > 11 && name.ends_with("_per_second")) return name.substr(0, name.size() - 11) + "/s";
  return "";
}


}  // namespace

bool looks_like_gbench_json(std::string_view text) {
  std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || text[first] != '{') return false;
  return text.find("\"benchmarks\"") != std::string_view::npos;
}

nlohmann::json to_json(const GbenchAggregate& a) {
  return {{"case", a.case_name}, {"aggregate", a.aggregate_name}, {"metric", a.metric},
          {"unit", a.unit},      {"value", a.value},               {"line", a.line}};
}

GbenchParse parse_gbench_json(std::string_view text) {
  GbenchParse out;
  ParseResult& res = out.result;
  res.format = "gbench-json";
  res.lines_read = text.empty() ? 0 : line_of(text, text.size()) - (text.ends_with('\n') ? 1 : 0);

  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    const std::size_t line = line_of(text, e.byte == 0 ? 0 : e.byte - 1);
    const bool at_end = e.byte >= text.size();
    throw ParseError(line, at_end ? "truncated JSON (the document ends before it is complete)"
                                  : fmt::format("malformed JSON: {}", e.what()));
  }
  if (!doc.is_object() || !doc.contains("benchmarks") || !doc["benchmarks"].is_array())
    throw ParseError(1, "JSON without a \"benchmarks\" array (not Google Benchmark output)");
  if (doc.contains("context")) out.context = doc["context"];

  // Row line numbers: a second pass that records the offset of each row.
  // nlohmann's SAX has no position callback, so scan braces ourselves:
  // the rows are the objects directly inside the "benchmarks" array.
  std::vector<std::size_t> row_lines;
  {
    std::size_t k = text.find("\"benchmarks\"");
    std::size_t open = k == std::string_view::npos ? k : text.find('[', k);
    int depth = 0;
    bool in_string = false, escaped = false;
    for (std::size_t p = open; p != std::string_view::npos && p < text.size(); ++p) {
      char c = text[p];
      if (in_string) {
        if (escaped) escaped = false;
        else if (c == '\\') escaped = true;
        else if (c == '"') in_string = false;
        continue;
      }
      if (c == '"') in_string = true;
      else if (c == '[' || c == '{') {
        if (c == '{' && depth == 1) row_lines.push_back(line_of(text, p));
        ++depth;
      } else if (c == ']' || c == '}') {
        if (--depth == 0) break;
      }
    }
  }

  const auto& rows = doc["benchmarks"];
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& row = rows[i];
    const std::size_t line = i < row_lines.size() ? row_lines[i] : 0;
    if (!row.is_object() || !row.contains("name") || !row["name"].is_string())
      throw ParseError(line, "benchmark row without a \"name\"");
    const std::string name = row["name"].get<std::string>();
    const std::string run_name = row.value("run_name", name);
    const std::string time_unit = row.value("time_unit", std::string("ns"));
    if (!valid_time_unit(time_unit))
      throw ParseError(line, fmt::format("benchmark '{}': unknown time_unit '{}'", name, time_unit));
    if (row.value("error_occurred", false) || row.value("skipped", false)) {
      res.warnings.push_back(fmt::format("line {}: benchmark '{}' skipped: {}", line, name,
                                         row.value("error_message", row.value("skip_message", std::string()))));
      continue;
    }
    ++res.records;
    const std::string run_type = row.value("run_type", std::string("iteration"));
    if (run_type == "aggregate") {
      const std::string agg = row.value("aggregate_name", std::string());
      const bool percentage = row.value("aggregate_unit", std::string("time")) == "percentage";
      for (const char* m : {"real_time", "cpu_time"}) {
        if (!row.contains(m) || !row[m].is_number()) continue;
        out.aggregates.push_back({run_name, agg, m, percentage ? "" : time_unit, row[m].get<double>(), line});
      }
      for (auto& [k, v] : row.items())
        if (!known_fields().count(k) && v.is_number())
          out.aggregates.push_back({run_name, agg, k, counter_unit(k), v.get<double>(), line});
      continue;
    }
    const int rep = row.value("repetition_index", 0);
    nlohmann::json extra = {{"line", line}};
    if (row.contains("iterations")) extra["iterations"] = row["iterations"];
    if (row.contains("threads")) extra["threads"] = row["threads"];
    auto add = [&](const std::string& metric, const std::string& unit, double v) {
      Sample s;
      s.case_name = run_name;
      s.metric = metric;
      s.unit = unit;
      s.value = v;
      s.iteration = rep;
      s.extra = extra;
      res.samples.push_back(std::move(s));
    };
    for (const char* m : {"real_time", "cpu_time"}) {
      if (!row.contains(m)) continue;
      if (!row[m].is_number()) throw ParseError(line, fmt::format("benchmark '{}': {} is not a number", name, m));
      add(m, time_unit, row[m].get<double>());
    }
    for (auto& [k, v] : row.items())
      if (!known_fields().count(k) && v.is_number()) add(k, counter_unit(k), v.get<double>());
  }
  return out;
}

}  // namespace kvmbench::parsers
