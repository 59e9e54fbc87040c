#include "analysis/parse/kmsg_record.h"

#include <charconv>

#include <fmt/format.h>

namespace kvmbench {

namespace {

template <typename T>
bool parse_num(std::string_view s, T& out) {
  if (s.empty()) return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size();
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string unescape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && s[i + 1] == 'x' && hex_digit(s[i + 2]) >= 0 &&
        hex_digit(s[i + 3]) >= 0) {
      out.push_back(static_cast<char>(hex_digit(s[i + 2]) * 16 + hex_digit(s[i + 3])));
      i += 3;
    } else {
      out.push_back(s[i]);
    }
  }
  return out;
}

std::string escape(std::string_view s) {
  std::string out;
  for (unsigned char c : s) {
    if (c < ' ' || c == 0x7f || c == '\\')
      out += fmt::format("\\x{:02x}", c);
    else
      out.push_back(static_cast<char>(c));
  }
  return out;
}

}  // namespace

std::optional<KmsgRecord> parse_kmsg_record(std::string_view text) {
  auto nl = text.find('\n');
  auto header_line = text.substr(0, nl);
  auto semi = header_line.find(';');
  if (semi == std::string_view::npos) return std::nullopt;
  auto header = header_line.substr(0, semi);
  KmsgRecord r;
  // prefix,seq,ts,flags[,more fields the kernel may add]
  std::string_view fields[4];
  std::size_t nf = 0, pos = 0;
  while (nf < 4) {
    auto comma = header.find(',', pos);
    fields[nf++] = header.substr(pos, comma == std::string_view::npos ? header.size() - pos : comma - pos);
    if (comma == std::string_view::npos) break;
    pos = comma + 1;
  }
  if (nf < 3) return std::nullopt;
  int prefix = 0;
  if (!parse_num(fields[0], prefix) || !parse_num(fields[1], r.seq) ||
      !parse_num(fields[2], r.timestamp_us))
    return std::nullopt;
  if (prefix < 0) return std::nullopt;
  r.priority = prefix & 7;
  r.facility = prefix >> 3;
  r.flags = nf >= 4 && !fields[3].empty() ? fields[3][0] : '-';
  r.message = unescape(header_line.substr(semi + 1));
  if (!r.message.empty() && r.message.back() == '\r') r.message.pop_back();
  // Dictionary lines start with a space.
  while (nl != std::string_view::npos) {
    auto start = nl + 1;
    nl = text.find('\n', start);
    auto line = text.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
    if (line.size() < 2 || line[0] != ' ') continue;
    line.remove_prefix(1);
    auto eq = line.find('=');
    if (eq == std::string_view::npos) continue;
    r.dict.emplace_back(std::string(line.substr(0, eq)), unescape(line.substr(eq + 1)));
  }
  return r;
}

std::string format_kmsg_record(const KmsgRecord& r) {
  std::string s = fmt::format("{},{},{},{};{}\n", r.facility * 8 + r.priority, r.seq,
                              r.timestamp_us, r.flags, escape(r.message));
  for (auto& [k, v] : r.dict) s += fmt::format(" {}={}\n", k, escape(v));
  return s;
}

std::string to_kmsg_text(const std::vector<KmsgRecord>& records) {
  std::string s;
  for (auto& r : records) s += format_kmsg_record(r);
  return s;
}

}  // namespace kvmbench
