#include "analysis/sample_jsonl.h"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <iterator>

namespace kvmbench {

namespace {

// Length of the valid UTF-8 sequence at s[i], or 0 when it is not one
// (overlong forms, surrogates and code points above U+10FFFF are invalid).
std::size_t utf8_sequence(std::string_view s, std::size_t i) {
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

bool is_core_key(std::string_view k) {
  return k == "case" || k == "variant" || k == "metric" || k == "unit" || k == "value" || k == "iteration" ||
         k == "warmup";
}

}  // namespace

void append_json_string(std::string& out, std::string_view text) {
  out += '"';
  std::size_t plain = 0;  // start of the run of bytes copied as they are
  for (std::size_t i = 0; i < text.size();) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
      ++i;
      continue;
    }
    if (c >= 0x80) {
      if (std::size_t n = utf8_sequence(text, i)) {
        i += n;
        continue;
      }
    }
    out.append(text.data() + plain, i - plain);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (c < 0x20) fmt::format_to(std::back_inserter(out), "\\u{:04x}", c);
        else out += "\xEF\xBF\xBD";  // a byte that is not UTF-8: U+FFFD
    }
    plain = ++i;
  }
  out.append(text.data() + plain, text.size() - plain);
  out += '"';
}

void append_json_number(std::string& out, double v) {
  if (!std::isfinite(v)) {
    out += "null";
    return;
  }
  const std::size_t start = out.size();
  fmt::format_to(std::back_inserter(out), FMT_COMPILE("{}"), v);
  if (out.find_first_of(".e", start) == std::string::npos) out += ".0";
}

namespace {

// The line's first members, case to unit, escaped: a few distinct ones
// repeat over a long log's samples, so the last few are kept (a thread's own
// cache: ingest writes from one thread, live runs from another).
struct HeadCache {
  struct Entry {
    std::string case_name, variant, metric, unit, json;
  };
  static constexpr std::size_t kSize = 8;
  Entry entries[kSize];
  std::size_t next = 0;

  const std::string& head(const Sample& s) {
    for (auto& e : entries)
      if (!e.json.empty() && e.metric == s.metric && e.case_name == s.case_name && e.variant == s.variant &&
          e.unit == s.unit)
        return e.json;
    Entry& e = entries[next];
    next = (next + 1) % kSize;
    e.case_name = s.case_name;
    e.variant = s.variant;
    e.metric = s.metric;
    e.unit = s.unit;
    e.json = "{\"case\":";
    append_json_string(e.json, s.case_name);
    e.json += ",\"variant\":";
    append_json_string(e.json, s.variant);
    e.json += ",\"metric\":";
    append_json_string(e.json, s.metric);
    e.json += ",\"unit\":";
    append_json_string(e.json, s.unit);
    return e.json;
  }
};

}  // namespace

void append_sample_line(std::string& out, const Sample& s, std::string_view more_members) {
  thread_local HeadCache cache;
  out += cache.head(s);
  out += ",\"value\":";
  append_json_number(out, s.value);
  fmt::format_to(std::back_inserter(out), FMT_COMPILE(",\"iteration\":{}"), s.iteration);
  if (s.warmup) out += ",\"warmup\":true";
  if (s.extra.is_object()) {
    for (auto& [k, v] : s.extra.items()) {
      if (is_core_key(k)) continue;
      out += ',';
      append_json_string(out, k);
      out += ':';
      if (v.is_string()) append_json_string(out, v.get_ref<const std::string&>());
      else if (v.is_number_float()) append_json_number(out, v.get<double>());
      else out += v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
    }
  }
  if (!more_members.empty()) {
    out += ',';
    out += more_members;
  }
  out += "}\n";
}

}  // namespace kvmbench
