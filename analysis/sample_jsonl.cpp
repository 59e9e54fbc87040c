#include "analysis/sample_jsonl.h"

#include <fmt/compile.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdint>
#include <iterator>
#include <vector>

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

char* write_json_number(char* p, double v) {
  if (!std::isfinite(v)) return std::copy_n("null", 4, p);
  // Counts (cycles, ns, pages) are most values: whole numbers well inside
  // 2^53 print as the integer and ".0", which is what the shortest form
  // below gives for them, at a fraction of the cost.
  if (v == std::trunc(v) && std::fabs(v) < 1e15 && !(v == 0 && std::signbit(v))) {
    p = std::to_chars(p, p + 24, static_cast<std::int64_t>(v)).ptr;
    return std::copy_n(".0", 2, p);
  }
  // Decimals of a few places (a dmesg uptime, 49.913402) print as their
  // digits: with k places the smallest that reads back to v, and at most
  // 15 digits in all, no shorter text reads back to v and no other of as
  // many digits does, so this is the text of the shortest form below.
  // m = a * 10^k rounded is that decimal's integer when one exists (the
  // product errs by far less than 1/2 below 1e15); m / 10^k == a checks it
  // (m and 10^k exact, one rounding).
  if (const double a = std::fabs(v); a >= 1e-3 && a < 1e9) {
    static constexpr double kScale[] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6};
    static constexpr std::uint64_t kDivisor[] = {1, 10, 100, 1000, 10000, 100000, 1000000};
    for (int k = 1; k <= 6; ++k) {
      const double m = std::nearbyint(a * kScale[k]);
      if (m / kScale[k] != a) continue;
      const auto digits = static_cast<std::uint64_t>(m);
      if (v < 0) *p++ = '-';
      p = std::to_chars(p, p + 20, digits / kDivisor[k]).ptr;
      *p++ = '.';
      std::uint64_t places = digits % kDivisor[k];
      for (int d = k - 1; d >= 0; --d) {
        p[d] = static_cast<char>('0' + places % 10);
        places /= 10;
      }
      return p + k;
    }
  }
  char* end = fmt::format_to(p, FMT_COMPILE("{}"), v);
  if (std::find_if(p, end, [](char c) { return c == '.' || c == 'e'; }) == end) end = std::copy_n(".0", 2, end);
  return end;
}

namespace {

char* write_text(char* p, std::string_view t) { return std::copy_n(t.data(), t.size(), p); }

}  // namespace

void append_json_number(std::string& out, double v) {
  char buf[kJsonNumberRoom];
  out.append(buf, write_json_number(buf, v));
}

void append_sample_line(std::string& out, const Sample& s, std::string_view more_members) {
  // Each label's JSON literal was made when the label was.
  const std::string_view case_json = s.case_name.json(), variant_json = s.variant.json(),
                         metric_json = s.metric.json(), unit_json = s.unit.json();
  static constexpr std::string_view k_case = "{\"case\":", k_variant = ",\"variant\":", k_metric = ",\"metric\":",
                                    k_unit = ",\"unit\":", k_value = ",\"value\":", k_iteration = ",\"iteration\":",
                                    k_warmup = ",\"warmup\":true";
  // The line is written by pointer into a buffer with room for it, and
  // appended at once (a few dozen small appends per line were most of the
  // cost of storing a long log's samples); s.extra's members, rare in
  // bulk, are appended after.
  const std::size_t room = k_case.size() + case_json.size() + k_variant.size() + variant_json.size() +
                           k_metric.size() + metric_json.size() + k_unit.size() + unit_json.size() + k_value.size() +
                           kJsonNumberRoom + k_iteration.size() + 12 + k_warmup.size() + 1 + more_members.size() + 2;
  thread_local std::vector<char> buffer(4096);
  if (buffer.size() < room) buffer.resize(room);
  char* p = buffer.data();
  p = write_text(p, k_case);
  p = write_text(p, case_json);
  p = write_text(p, k_variant);
  p = write_text(p, variant_json);
  p = write_text(p, k_metric);
  p = write_text(p, metric_json);
  p = write_text(p, k_unit);
  p = write_text(p, unit_json);
  p = write_text(p, k_value);
  p = write_json_number(p, s.value);
  p = write_text(p, k_iteration);
  p = std::to_chars(p, p + 12, s.iteration).ptr;
  if (s.warmup) p = write_text(p, k_warmup);
  if (!s.extra.is_object() || s.extra.empty()) {
    if (!more_members.empty()) {
      *p++ = ',';
      p = write_text(p, more_members);
    }
    *p++ = '}';
    *p++ = '\n';
    out.append(buffer.data(), p);
    return;
  }
  out.append(buffer.data(), p);
  for (auto& [k, v] : s.extra.items()) {
    if (is_core_key(k)) continue;
    out += ',';
    append_json_string(out, k);
    out += ':';
    if (v.is_string()) append_json_string(out, v.get_ref<const std::string&>());
    else if (v.is_number_float()) append_json_number(out, v.get<double>());
    else out += v.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  }
  if (!more_members.empty()) {
    out += ',';
    out += more_members;
  }
  out += "}\n";
}

namespace {

// A cursor over one line; every reader returns false where the line leaves
// the plain shape.
struct LineReader {
  std::string_view s;
  std::size_t i = 0;

  void blanks() {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r')) ++i;
  }
  bool eat(char c) {
    blanks();
    if (i < s.size() && s[i] == c) {
      ++i;
      return true;
    }
    return false;
  }
  bool string(std::string& out) {
    blanks();
    if (i >= s.size() || s[i] != '"') return false;
    out.clear();
    // Runs of plain bytes are found with local pointers (the member index
    // in the loop cost ~20 instructions a byte) and appended at once.
    const char* p = s.data() + i + 1;
    const char* const end = s.data() + s.size();
    while (true) {
      const char* run = p;
      while (p < end && *p != '"' && *p != '\\' && static_cast<unsigned char>(*p) >= 0x20) ++p;
      out.append(run, static_cast<std::size_t>(p - run));
      if (p >= end || static_cast<unsigned char>(*p) < 0x20) return false;
      if (*p == '"') {
        i = static_cast<std::size_t>(p + 1 - s.data());
        return true;
      }
      if (++p >= end) return false;  // after a backslash
      switch (*p) {
        case '"': out += '"'; break;
        case '\\': out += '\\'; break;
        case '/': out += '/'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        default: return false;  // \u and anything else: nlohmann reads it
      }
      ++p;
    }
  }
  // A string's text: a view into the line when it has no escapes (nearly
  // always: no copy), else unescaped into `scratch` and viewed there.
  bool text(std::string_view& out, std::string& scratch) {
    blanks();
    if (i >= s.size() || s[i] != '"') return false;
    const char* const begin = s.data() + i + 1;
    const char* const end = s.data() + s.size();
    const char* p = begin;
    while (p < end && *p != '"' && *p != '\\' && static_cast<unsigned char>(*p) >= 0x20) ++p;
    if (p < end && *p == '"') {
      out = std::string_view(begin, static_cast<std::size_t>(p - begin));
      i = static_cast<std::size_t>(p + 1 - s.data());
      return true;
    }
    if (!string(scratch)) return false;
    out = scratch;
    return true;
  }
  // A JSON number, typed as nlohmann types it: unsigned, signed or float.
  bool number(nlohmann::json& out) {
    blanks();
    const std::size_t start = i;
    if (i < s.size() && s[i] == '-') ++i;
    if (i >= s.size() || s[i] < '0' || s[i] > '9') return false;
    bool is_float = false;
    while (i < s.size() && ((s[i] >= '0' && s[i] <= '9') || s[i] == '.' || s[i] == 'e' || s[i] == 'E' ||
                            s[i] == '+' || s[i] == '-')) {
      is_float |= s[i] == '.' || s[i] == 'e' || s[i] == 'E';
      ++i;
    }
    const char* b = s.data() + start;
    const char* e = s.data() + i;
    if (!is_float) {
      if (*b == '-') {
        std::int64_t v = 0;
        auto [p, ec] = std::from_chars(b, e, v);
        if (ec != std::errc() || p != e) return false;
        out = v;
      } else {
        std::uint64_t v = 0;
        auto [p, ec] = std::from_chars(b, e, v);
        if (ec != std::errc() || p != e) return false;
        out = v;
      }
      return true;
    }
    double v = 0;
    auto [p, ec] = std::from_chars(b, e, v);
    if (ec != std::errc() || p != e || !std::isfinite(v)) return false;
    out = v;
    return true;
  }
  bool literal(std::string_view word) {
    blanks();
    if (s.substr(i, word.size()) != word) return false;
    i += word.size();
    return true;
  }
  bool value(nlohmann::json& out, std::string& scratch) {
    blanks();
    if (i >= s.size()) return false;
    switch (s[i]) {
      case '"':
        if (!string(scratch)) return false;
        out = scratch;
        return true;
      case 't': out = true; return literal("true");
      case 'f': out = false; return literal("false");
      case 'n': out = nullptr; return literal("null");
      default: return number(out);
    }
  }
};

}  // namespace

// Which core member `key` is (0 case, 1 variant, 2 metric, 3 unit, 4 value,
// 5 iteration, 6 warmup), 7 for none: by its first letter, then one compare.
static std::size_t core_key_index(std::string_view key) {
  if (key.empty()) return 7;
  switch (key[0]) {
    case 'c': return key == "case" ? 0 : 7;
    case 'v': return key == "variant" ? 1 : key == "value" ? 4 : 7;
    case 'm': return key == "metric" ? 2 : 7;
    case 'u': return key == "unit" ? 3 : 7;
    case 'i': return key == "iteration" ? 5 : 7;
    case 'w': return key == "warmup" ? 6 : 7;
    default: return 7;
  }
}

std::size_t provenance_member_index(std::string_view key) {
  std::size_t i = 0;
  // The first byte rules out all but one or two (this runs per member of
  // every line of a long run).
  while (i < std::size(kProvenanceMembers) &&
         (key.empty() || kProvenanceMembers[i][0] != key[0] || kProvenanceMembers[i] != key))
    ++i;
  return i;
}

std::optional<Sample> read_sample_line(std::string_view line, bool keep_provenance) {
  LineReader r{line};
  if (!r.eat('{')) return std::nullopt;
  Sample smp;
  bool have_case = false, have_metric = false, have_unit = false, have_value = false;
  unsigned seen = 0;     // bit per core key, to refuse repeats
  unsigned dropped = 0;  // bit per provenance member left out, likewise
  std::string key_scratch, scratch;
  std::string_view key, label;
  nlohmann::json v;
  if (!r.eat('}')) {
    do {
      if (!r.text(key, key_scratch) || !r.eat(':')) return std::nullopt;
      const std::size_t k = core_key_index(key);
      if (k < 7) {
        if (seen & (1u << k)) return std::nullopt;
        seen |= 1u << k;
      }
      // The text members straight into the sample (no JSON value between).
      switch (k) {
        case 0: if (!r.text(label, scratch)) return std::nullopt; smp.case_name = label; have_case = true; continue;
        case 1: if (!r.text(label, scratch)) return std::nullopt; smp.variant = label; continue;
        case 2: if (!r.text(label, scratch)) return std::nullopt; smp.metric = label; have_metric = true; continue;
        case 3: if (!r.text(label, scratch)) return std::nullopt; smp.unit = label; have_unit = true; continue;
        default: break;
      }
      if (!r.value(v, scratch)) return std::nullopt;
      switch (k) {
        case 4: if (!v.is_number()) return std::nullopt; smp.value = v.get<double>(); have_value = true; break;
        case 5:
          if (!v.is_number_integer() || v.get<std::int64_t>() < INT32_MIN || v.get<std::int64_t>() > INT32_MAX)
            return std::nullopt;
          smp.iteration = v.get<int>();
          break;
        case 6: if (!v.is_boolean()) return std::nullopt; smp.warmup = v.get<bool>(); break;
        default:
          if (const std::size_t bit = provenance_member_index(key);
              !keep_provenance && bit < std::size(kProvenanceMembers)) {
            if (dropped & (1u << bit)) return std::nullopt;
            dropped |= 1u << bit;
            break;
          }
          if (smp.extra.is_object() && smp.extra.contains(key)) return std::nullopt;
          smp.extra[key] = std::move(v);
      }
    } while (r.eat(','));
    if (!r.eat('}')) return std::nullopt;
  }
  r.blanks();
  if (r.i != line.size() || !have_case || !have_metric || !have_unit || !have_value) return std::nullopt;
  return smp;
}

Sample parse_sample_line(std::string_view line, bool keep_provenance) {
  if (auto s = read_sample_line(line, keep_provenance)) return std::move(*s);
  Sample s = sample_from_json(nlohmann::json::parse(line));
  if (!keep_provenance && s.extra.is_object())
    for (std::string_view k : kProvenanceMembers) s.extra.erase(std::string(k));
  return s;
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

}  // namespace kvmbench
