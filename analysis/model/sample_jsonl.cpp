#include "analysis/model/sample_jsonl.h"

#include "analysis/model/json_input.h"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <iterator>

namespace kvmbench {

using namespace std::string_view_literals;

// The members are written one by one, scalars by hand and anything else by
// nlohmann: a JSON object built and dumped per line was most of the time
// of ingesting a dense log (the commit that wrote this has the figures).
// Numbers go through fmt with the format compiled (FMT_COMPILE): the same
// text, without parsing "{}" again for each of millions of numbers.
namespace {

constexpr auto kReplace = nlohmann::json::error_handler_t::replace;

void append_string(std::string& out, std::string_view text) {
  // Nearly every text (labels, provenance) needs no escape: it is copied.
  if (std::all_of(text.begin(), text.end(), [](char c) {
        const auto u = static_cast<unsigned char>(c);
        return u >= 0x20 && u < 0x80 && c != '"' && c != '\\';
      })) {
    const std::size_t at = out.size();  // one append of the quoted text, not three
    out.append(text.size() + 2, '"');
    std::copy(text.begin(), text.end(), out.begin() + static_cast<std::ptrdiff_t>(at) + 1);
    return;
  }
  out += nlohmann::json(text).dump(-1, ' ', false, kReplace);
}

// The shortest text that reads back to v, with ".0" on whole numbers (as
// nlohmann marks a float), null where JSON has no number.
void append_double(std::string& out, double v) {
  if (!std::isfinite(v)) {
    out += "null";
    return;
  }
  // Most values are counts (cycles, ns): whole numbers, which fmt writes
  // as the integer ("{}" keeps fixed notation below 1e16) and an integer
  // is much faster to write; -0 keeps its sign through fmt.
  if (std::fabs(v) < 1e15 && std::nearbyint(v) == v && !std::signbit(v)) {
    fmt::format_to(std::back_inserter(out), FMT_COMPILE("{}.0"), static_cast<std::int64_t>(v));
    return;
  }
  const std::size_t at = out.size();
  fmt::format_to(std::back_inserter(out), FMT_COMPILE("{}"), v);
  if (out.find_first_of(".e", at) == std::string::npos) out += ".0";
}

template <typename Json>
void append_value(std::string& out, const Json& v) {
  if (v.is_string()) append_string(out, v.template get_ref<const std::string&>());
  else if (v.is_number_float()) append_double(out, v.template get<double>());
  else if (v.is_number_unsigned())
    fmt::format_to(std::back_inserter(out), FMT_COMPILE("{}"), v.template get<std::uint64_t>());
  else if (v.is_number_integer())
    fmt::format_to(std::back_inserter(out), FMT_COMPILE("{}"), v.template get<std::int64_t>());
  else out += v.dump(-1, ' ', false, kReplace);
}

// ',"key":', which the member's value follows.
void append_key(std::string& out, std::string_view key) {
  out += ',';
  append_string(out, key);
  out += ':';
}

template <typename Json>
void append_member(std::string& out, std::string_view key, const Json& v) {
  append_key(out, key);
  append_value(out, v);
}

bool is_core_key(std::string_view k) {
  return k == "case" || k == "variant" || k == "metric" || k == "unit" || k == "value" || k == "iteration" ||
         k == "warmup";
}

}  // namespace

void append_sample_line(std::string& out, const Sample& s, std::string_view more) {
  out += "{\"case\":"sv;
  append_string(out, s.case_name);
  out += ",\"variant\":"sv;
  append_string(out, s.variant);
  out += ",\"metric\":"sv;
  append_string(out, s.metric);
  out += ",\"unit\":"sv;
  append_string(out, s.unit);
  out += ",\"value\":"sv;
  append_double(out, s.value);
  out += ",\"iteration\":"sv;
  fmt::format_to(std::back_inserter(out), FMT_COMPILE("{}"), s.iteration);
  if (s.warmup) out += ",\"warmup\":true"sv;
  for (const auto& [k, v] : s.extra.items())
    if (!is_core_key(k)) append_member(out, k, v);
  out += more;
  out += "}\n"sv;
}

std::string json_members(const nlohmann::ordered_json& object) {
  std::string out;
  for (const auto& [k, v] : object.items()) append_member(out, k, v);
  return out;
}

void append_json_member(std::string& out, std::string_view key, std::string_view value) {
  append_key(out, key);
  append_string(out, value);
}

void append_json_member(std::string& out, std::string_view key, double value) {
  append_key(out, key);
  append_double(out, value);
}

void append_json_member(std::string& out, std::string_view key, std::int64_t value) {
  append_key(out, key);
  fmt::format_to(std::back_inserter(out), FMT_COMPILE("{}"), value);
}

// Length of the valid UTF-8 sequence at s[i], or 0 when it is not one
// (overlong forms, surrogates and code points above U+10FFFF are invalid).
static std::size_t utf8_sequence(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  std::size_t n;
  std::uint32_t cp;
  if (c >= 0xC2 && c <= 0xDF) n = 2, cp = c & 0x1F;
  else if (c >= 0xE0 && c <= 0xEF) n = 3, cp = c & 0x0F;
  else if (c >= 0xF0 && c <= 0xF4) n = 4, cp = c & 0x07;
  else return 0;
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(i + k) & 0x3F);
  }
  if ((n == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
    return 0;
  return n;
}

std::size_t first_invalid_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    if (static_cast<unsigned char>(text[i]) < 0x80) {
      ++i;
      continue;
    }
    const std::size_t n = utf8_sequence(text, i);
    if (n == 0) return i;
    i += n;
  }
  return std::string_view::npos;
}

Sample parse_sample_line(std::string_view line, bool keep_provenance) {
  nlohmann::json j;
  try {
    j = parse_json_input(line);
  } catch (const JsonInputError& e) {
    // One line of a JSON-lines file: its reader names the file and line.
    throw std::runtime_error(e.reason);
  }
  Sample s = sample_from_json(j);
  if (!keep_provenance && s.extra.is_object()) {
    for (std::string_view k : kProvenanceMembers) s.extra.erase(std::string(k));
    if (s.extra.empty()) s.extra = nullptr;
  }
  return s;
}

}  // namespace kvmbench
