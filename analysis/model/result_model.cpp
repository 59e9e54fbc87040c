#include "analysis/model/result_model.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <limits>
#include <stdexcept>

namespace kvmbench {

std::string_view to_string(Source s) {
  switch (s) {
    case Source::hardware: return "hardware";
    case Source::replay: return "replay";
    case Source::emulated: return "emulated";
    case Source::model: return "model";
  }
  return "unknown";
}

std::optional<Source> parse_source(std::string_view s) {
  for (Source v : {Source::hardware, Source::replay, Source::emulated, Source::model})
    if (to_string(v) == s) return v;
  return std::nullopt;
}

static std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

Direction direction_for_unit(std::string_view unit_in) {
  const std::string unit = lower(unit_in);
  // Anything "per second" is a rate.
  if (unit.find("/s") != std::string::npos || unit.find("per_s") != std::string::npos ||
      unit == "hz" || unit == "ops" || unit == "transactions/s")
    return Direction::higher_is_better;
  static const std::array<std::string_view, 12> lower_units = {
      "ns", "us", "ms", "s", "cycles", "cycle", "seconds", "sec", "%", "pct", "bytes", "b"};
  if (std::find(lower_units.begin(), lower_units.end(), unit) != lower_units.end())
    return Direction::lower_is_better;
  return Direction::unknown;
}

std::string_view to_string(Direction d) {
  switch (d) {
    case Direction::higher_is_better: return "higher is better";
    case Direction::lower_is_better: return "lower is better";
    case Direction::unknown: return "direction unknown";
  }
  return "";
}

nlohmann::json to_json(const Sample& s) {
  nlohmann::json j = {{"case", s.case_name}, {"variant", s.variant}, {"metric", s.metric},
                      {"unit", s.unit},      {"value", s.value},     {"iteration", s.iteration}};
  if (s.warmup) j["warmup"] = true;
  for (auto& [k, v] : s.extra.items())
    if (!j.contains(k)) j[k] = v;
  return j;
}

void set_sample_key(Sample& s, std::string_view name, nlohmann::json value) {
  if (!s.extra.is_object()) s.extra = nlohmann::json::object();
  s.extra["keys"][std::string(name)] = std::move(value);
}

std::optional<long long> sample_key_int(const Sample& s, std::string_view name) {
  if (!s.extra.is_object()) return std::nullopt;
  const auto keys = s.extra.find("keys");
  if (keys == s.extra.end() || !keys->is_object()) return std::nullopt;
  const auto v = keys->find(std::string(name));
  if (v == keys->end() || !v->is_number_integer()) return std::nullopt;
  return v->get<long long>();
}

Sample sample_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw std::runtime_error("sample is not a JSON object");
  auto need_string = [&](const char* key) -> std::string {
    if (!j.contains(key) || !j[key].is_string())
      throw std::runtime_error(std::string("sample lacks string field '") + key + "'");
    return j[key].get<std::string>();
  };
  Sample s;
  s.case_name = need_string("case");
  s.metric = need_string("metric");
  s.unit = need_string("unit");
  if (j.contains("variant")) {
    if (!j["variant"].is_string()) throw std::runtime_error("sample field 'variant' is not a string");
    s.variant = j["variant"].get<std::string>();
  }
  // JSON has no NaN or infinity: such a value is stored as null (what the
  // writers write for it), with value_text saying which where it is known.
  if (j.contains("value") && j["value"].is_null()) {
    const std::string text = j.contains("value_text") && j["value_text"].is_string() ? j["value_text"].get<std::string>() : "";
    s.value = text == "Infinity"    ? std::numeric_limits<double>::infinity()
              : text == "-Infinity" ? -std::numeric_limits<double>::infinity()
                                    : std::numeric_limits<double>::quiet_NaN();
  } else if (!j.contains("value") || !j["value"].is_number()) {
    throw std::runtime_error("sample lacks numeric field 'value'");
  } else {
    s.value = j["value"].get<double>();
  }
  if (j.contains("iteration")) {
    if (!j["iteration"].is_number_integer())
      throw std::runtime_error("sample field 'iteration' is not an integer");
    s.iteration = j["iteration"].get<int>();
  }
  if (j.contains("warmup")) s.warmup = j["warmup"].get<bool>();
  for (auto& [k, v] : j.items())
    if (k != "case" && k != "variant" && k != "metric" && k != "unit" && k != "value" &&
        k != "iteration" && k != "warmup")
      s.extra[k] = v;
  return s;
}

}  // namespace kvmbench
