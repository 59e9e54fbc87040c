#include "analysis/parse/gbench_json.h"
#include "analysis/model/json_input.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
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
      "rms", "complexity_n", "skipped", "skip_message", "cpu_coefficient", "real_coefficient"};
  return k;
}

bool valid_time_unit(const std::string& u) { return u == "ns" || u == "us" || u == "ms" || u == "s"; }

std::string counter_unit(const std::string& name) {
  if (name.size() > 11 && name.ends_with("_per_second")) return name.substr(0, name.size() - 11) + "/s";
  return "";
}

// The library writes non-finite doubles as the bare words NaN, Infinity and
// -Infinity, which JSON does not have. They become the strings "NaN",
// "Infinity" and "-Infinity" outside of strings (same lines, so every line
// number stays right); number_of() reads them back.
// The literal NaN, Infinity or -Infinity that starts at text[i], or "".
std::string_view non_finite_literal_at(std::string_view text, std::size_t i) {
  for (std::string_view word : {"-Infinity", "Infinity", "NaN"}) {
    if (text.substr(i, word.size()) != word) continue;
    const std::size_t end = i + word.size();
    if (end < text.size() && std::isalnum(static_cast<unsigned char>(text[end]))) continue;
    return word;
  }
  return {};
}

std::string quote_non_finite_literals(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 64);
  bool in_string = false, escaped = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (const std::string_view word = non_finite_literal_at(text, i); !word.empty()) {
      out += '"';
      out += word;
      out += '"';
      i += word.size() - 1;
      continue;
    }
    out += c;
  }
  return out;
}

// A number of a row: a JSON number, or one of the literals above.
std::optional<double> number_of(const nlohmann::json& v) {
  if (v.is_number()) return v.get<double>();
  if (!v.is_string()) return std::nullopt;
  const std::string& t = v.get_ref<const std::string&>();
  if (t == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (t == "Infinity") return std::numeric_limits<double>::infinity();
  if (t == "-Infinity") return -std::numeric_limits<double>::infinity();
  return std::nullopt;
}

std::string non_finite_text(double v) { return std::isnan(v) ? "NaN" : v > 0 ? "Infinity" : "-Infinity"; }


}  // namespace

bool looks_like_gbench_json(std::string_view text) {
  std::size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || text[first] != '{') return false;
  return text.find("\"benchmarks\"") != std::string_view::npos;
}

nlohmann::json to_json(const GbenchAggregate& a) {
  return {{"case", a.case_name}, {"aggregate", a.aggregate_name}, {"metric", a.metric},
          {"unit", a.unit},      {"value", a.value},               {"count", a.count},
          {"line", a.line}};
}

// (A function-try-block: a member of another type than the library writes
// ("run_name": 5, "time_unit": [], "error_occurred": "no", a fractional
// "family_index"), met by nlohmann's value() or get() anywhere below, is
// bad input, not a raw library error.)
GbenchParse parse_gbench_json(std::string_view original) try {
  GbenchParse out;
  ParseResult& res = out.result;
  res.format = "gbench-json";
  res.lines_read =
      original.empty() ? 0 : line_of(original, original.size()) - (original.ends_with('\n') ? 1 : 0);

  nlohmann::json doc;
  try {
    refuse_nul_bytes(original);  // where the file has it, before the literals are quoted
  } catch (const JsonInputError& e) {
    throw ParseError(e.line, e.reason);
  }
  const std::string quoted = quote_non_finite_literals(original);
  const std::string_view text = quoted;
  try {
    doc = parse_json_input(text);
  } catch (const JsonInputError& e) {
    throw ParseError(e.line, e.reason);
  } catch (const nlohmann::json::parse_error& e) {
    const std::size_t line = line_of(text, e.byte == 0 ? 0 : e.byte - 1);
    const bool at_end = e.byte >= text.size();
    throw ParseError(line, at_end ? "truncated JSON (the document ends before it is complete)"
                                  : fmt::format("malformed JSON: {}", e.what()));
  }
  if (!doc.is_object() || !doc.contains("benchmarks") || !doc["benchmarks"].is_array())
    throw ParseError(1, "JSON without a \"benchmarks\" array (not Google Benchmark output)");
  if (doc.contains("context")) out.context = doc["context"];
  if (out.context.is_object() && out.context.contains("json_schema_version")) {
    const auto& v = out.context["json_schema_version"];
    if (!v.is_number_integer() || v.get<long long>() != kGbenchJsonSchemaVersion)
      throw ParseError(1, fmt::format("context.json_schema_version is {}: this kvmbench reads version {} of "
                                      "Google Benchmark's JSON, and refuses to guess at another",
                                      v.dump(), kGbenchJsonSchemaVersion));
  }

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
  // Names registered more than once: each family_index that uses a name.
  std::map<std::string, std::set<long long>> families;
  for (const auto& row : rows)
    if (row.is_object() && row.contains("family_index") && row["family_index"].is_number_integer())
      families[row.value("run_name", row.value("name", std::string()))].insert(row["family_index"].get<long long>());
  std::set<std::string> not_measured_seen;
  // Names of rows, for aggregates that older libraries name by suffix
  // alone ("BM_x_mean" beside "BM_x", without run_type).
  std::set<std::string> names;
  for (const auto& row : rows)
    if (row.is_object() && row.contains("name") && row["name"].is_string()) names.insert(row["name"].get<std::string>());
  // Repetition numbers used per benchmark, and the rows numbered here in
  // file order (no repetition_index, or one already used): per benchmark
  // its count and first line.
  std::map<std::string, std::set<int>> repetitions_of;
  std::map<std::string, std::pair<int, std::size_t>> numbered_in_order;
  std::set<std::string> complexity_noted;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& row = rows[i];
    const std::size_t line = i < row_lines.size() ? row_lines[i] : 0;
    if (!row.is_object() || !row.contains("name") || !row["name"].is_string())
      throw ParseError(line, "benchmark row without a \"name\"");
    const std::string name = row["name"].get<std::string>();
    std::string run_name = row.value("run_name", name);
    // Numbered by their order of registration (family_index), not by the
    // index itself: a --benchmark_filter shifts the indices, not the order.
    if (auto f = families.find(run_name); f != families.end() && f->second.size() > 1 &&
                                           row.contains("family_index") && row["family_index"].is_number_integer())
      run_name += fmt::format(" ({} of {})",
                              std::distance(f->second.begin(), f->second.find(row["family_index"].get<long long>())) + 1,
                              f->second.size());
    const std::string time_unit = row.value("time_unit", std::string("ns"));
    if (!valid_time_unit(time_unit))
      throw ParseError(line, fmt::format("benchmark '{}': unknown time_unit '{}'", name, time_unit));
    if (row.value("error_occurred", false) || row.value("skipped", false)) {
      const std::string message = row.value("error_message", row.value("skip_message", std::string()));
      res.warnings.push_back(fmt::format("line {}: benchmark '{}' did not measure: {}", line, name, message));
      if (not_measured_seen.insert(run_name).second) out.not_measured.push_back({run_name, message, line});
      continue;
    }
    ++res.records;
    std::string run_type = row.value("run_type", std::string("iteration"));
    std::string agg = row.value("aggregate_name", std::string());
    if (!row.contains("run_type"))
      for (const char* suffix : {"_mean", "_median", "_stddev", "_cv"})
        if (name.ends_with(suffix) && names.count(name.substr(0, name.size() - std::strlen(suffix)))) {
          run_type = "aggregate";
          agg = suffix + 1;
          run_name = name.substr(0, name.size() - std::strlen(suffix));
        }
    // A complexity fit (BigO: coefficient and order; RMS: its error) is
    // no measurement of the benchmark: said, and left out.
    if (agg == "BigO" || agg == "RMS" || row.contains("big_o") || row.contains("rms")) {
      if (complexity_noted.insert(run_name).second)
        res.notes.push_back(fmt::format(
            "line {}: '{}': its complexity fit (BigO{}, RMS) is left out: a curve fitted over the benchmark's "
            "arguments, not a measurement (the rows of each argument are kept)",
            line, run_name, row.contains("big_o") && row["big_o"].is_string() ? " " + row["big_o"].get<std::string>() : ""));
      continue;
    }
    if (run_type == "aggregate") {
      const bool percentage = row.value("aggregate_unit", std::string("time")) == "percentage";
      const std::size_t count =
          row.contains("repetitions") && row["repetitions"].is_number_unsigned() ? row["repetitions"].get<std::size_t>() : 0;
      for (const char* m : {"real_time", "cpu_time"}) {
        if (!row.contains(m)) continue;
        if (auto v = number_of(row[m]))
          out.aggregates.push_back({run_name, agg, m, percentage ? "" : time_unit, *v, count, line});
      }
      for (auto& [k, v] : row.items())
        if (!known_fields().count(k))
          if (auto x = number_of(v)) out.aggregates.push_back({run_name, agg, k, counter_unit(k), *x, count, line});
      continue;
    }
    // Older libraries write no repetition_index, and a hand-merged file may
    // give one twice: such rows are repetitions of their own, numbered in
    // file order, never values of one repetition.
    std::set<int>& used = repetitions_of[run_name];
    int rep = 0;
    if (row.contains("repetition_index") && row["repetition_index"].is_number_integer() &&
        !used.count(row["repetition_index"].get<int>())) {
      rep = row["repetition_index"].get<int>();
    } else {
      rep = used.empty() ? 0 : *used.rbegin() + 1;
      auto& [count, first_line] = numbered_in_order[run_name];
      if (count++ == 0) first_line = line;
    }
    used.insert(rep);
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
      if (!std::isfinite(v)) s.extra["value_text"] = non_finite_text(v);
      res.samples.push_back(std::move(s));
    };
    for (const char* m : {"real_time", "cpu_time"}) {
      if (!row.contains(m)) continue;
      const auto v = number_of(row[m]);
      if (!v) throw ParseError(line, fmt::format("benchmark '{}': {} is not a number", name, m));
      add(m, time_unit, *v);
    }
    for (auto& [k, v] : row.items())
      if (!known_fields().count(k))
        if (auto x = number_of(v)) add(k, counter_unit(k), *x);
  }
  for (const auto& [case_name, numbered] : numbered_in_order)
    if (repetitions_of[case_name].size() > 1 && numbered.first > 0)
      res.notes.push_back(fmt::format(
          "line {}: '{}': {} of its rows give no repetition_index of their own (an older library, or files "
          "merged by hand): each is a repetition, numbered in file order",
          numbered.second, case_name, numbered.first));
  return out;
} catch (const nlohmann::json::type_error& e) {
  const std::string_view what = e.what();  // "[json.exception.type_error.302] type must be ..."
  throw ParseError(0, fmt::format("a member of a \"benchmarks\" row is of another type than Google Benchmark "
                                  "writes: {}",
                                  what.substr(what.find("] ") == std::string_view::npos ? 0 : what.find("] ") + 2)));
}

}  // namespace kvmbench::parsers
