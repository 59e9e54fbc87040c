#include "analysis/parse/lava_job_log.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <sstream>

#include "analysis/model/sha256.h"

namespace kvmbench {

namespace {

std::string without_cr(std::string s) {
  while (!s.empty() && (s.back() == '\r' || s.back() == '\n' || s.back() == ' ')) s.pop_back();
  // A console line may carry carriage returns inside (the shell redrawing).
  const auto cr = s.rfind('\r');
  return cr == std::string::npos ? s : s.substr(cr + 1);
}

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// How deep a line's flow collections nest, outside quoted scalars. yaml-cpp
// parses nesting by recursion: a line of a hundred thousand '[' (a
// damaged or hostile log) would overflow the stack. A record nests three
// deep ("- {msg: {extra: {...}}}").
bool nests_too_deep(const std::string& line) {
  int depth = 0;
  char quote = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote == '"') {
      if (c == '\\') ++i;
      else if (c == '"') quote = 0;
    } else if (quote == '\'') {
      if (c == '\'') quote = 0;  // '' inside is two quotes in a row: leaves and re-enters
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '[' || c == '{') {
      if (++depth > 32) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}

}  // namespace

LavaLog parse_lava_log(const std::string& text) {
  LavaLog log;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line == "---") continue;
    if (nests_too_deep(line)) {
      ++log.unreadable_lines;
      continue;
    }
    // Each record is "- {dt: ..., lvl: ..., msg: ...}": a one-item sequence.
    try {
      const YAML::Node node = YAML::Load(line);
      const YAML::Node record = node.IsSequence() && node.size() == 1 ? node[0] : node;
      if (!record.IsMap() || !record["lvl"]) {
        ++log.unreadable_lines;
        continue;
      }
      LavaLogRecord r;
      r.level = record["lvl"].as<std::string>();
      const YAML::Node msg = record["msg"];
      if (msg && msg.IsScalar()) {
        r.text = msg.as<std::string>();
      } else if (msg) {
        if (msg.IsMap() && msg["error_msg"] && msg["error_msg"].IsScalar()) r.error = msg["error_msg"].as<std::string>();
        YAML::Emitter e;
        e << YAML::Flow << msg;
        r.text = e.c_str();
      }
      log.records.push_back(std::move(r));
    } catch (const YAML::Exception&) {
      ++log.unreadable_lines;
    }
  }
  return log;
}

std::optional<std::string> base64_decoded(const std::string& text) {
  auto value = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  if (text.size() % 4 != 0) return std::nullopt;
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (std::size_t i = 0; i < text.size(); i += 4) {
    int v[4];
    int pad = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = text[i + k];
      if (c == '=') {
        // Padding only at the end of the last quantum, at most two.
        if (i + 4 != text.size() || k < 2) return std::nullopt;
        v[k] = 0;
        ++pad;
      } else {
        if (pad) return std::nullopt;
        v[k] = value(c);
        if (v[k] < 0) return std::nullopt;
      }
    }
    const unsigned bits = (v[0] << 18) | (v[1] << 12) | (v[2] << 6) | v[3];
    out += static_cast<char>((bits >> 16) & 0xff);
    if (pad < 2) out += static_cast<char>((bits >> 8) & 0xff);
    if (pad < 1) out += static_cast<char>(bits & 0xff);
  }
  return out;
}

std::vector<PublishedRuns> all_published_runs(const LavaLog& log, std::vector<std::string>& damaged) {
  std::vector<PublishedRuns> out;
  bool inside = false;
  std::string sha, step, body;
  std::size_t bytes = 0;
  for (const auto& r : log.records) {
    if (r.level != "target") continue;
    const std::string line = without_cr(r.text);
    if (starts_with(line, kRunsBeginMarker)) {
      if (inside) damaged.push_back(fmt::format("a publication{} is cut (a second {} line before its end)",
                                                step.empty() ? "" : " of step " + step, kRunsBeginMarker));
      std::istringstream words(line.substr(std::string(kRunsBeginMarker).size()));
      std::string size;
      words >> sha >> size;
      std::getline(words >> std::ws, step);
      inside = sha.size() == 64 && !size.empty() && size.size() < 16 &&
               size.find_first_not_of("0123456789") == std::string::npos;
      bytes = inside ? std::stoul(size) : 0;
      body.clear();
      if (!inside) damaged.push_back(fmt::format("a damaged {} line: '{}'", kRunsBeginMarker, line));
      continue;
    }
    if (!inside) continue;
    if (starts_with(line, kRunsEndMarker)) {
      inside = false;
      const std::string of = step.empty() ? "" : " of step " + step;
      const auto decoded = base64_decoded(body);
      if (!decoded) {
        damaged.push_back(fmt::format("the published runs{} are damaged (not base64: a console line was lost or "
                                      "garbled)", of));
        continue;
      }
      if (decoded->size() != bytes || sha256_hex(*decoded) != sha) {
        damaged.push_back(fmt::format(
            "the published runs{} are damaged ({} bytes, {} announced, or their SHA-256 differs)", of,
            decoded->size(), bytes));
        continue;
      }
      out.push_back(PublishedRuns{*decoded, sha, step});
      continue;
    }
    // The shell's trace of a command ("+ base64 ...") and kernel messages
    // are not data; a data line is base64's alphabet only.
    if (line.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=") ==
            std::string::npos)
      body += line;
  }
  if (inside)
    damaged.push_back(fmt::format("the published runs{} are cut (no {} line: the log ends first)",
                                  step.empty() ? "" : " of step " + step, kRunsEndMarker));
  return out;
}

std::optional<PublishedRuns> published_runs(const LavaLog& log, std::string& why) {
  std::vector<std::string> damaged;
  auto all = all_published_runs(log, damaged);
  if (!all.empty()) return all.back();
  why = damaged.empty() ? "the job's log has no published runs (no " + std::string(kRunsBeginMarker) +
                              " line: the test definition did not get that far, or is older than kvmbench fleet)"
                        : damaged.back();
  return std::nullopt;
}

std::vector<std::string> error_messages(const LavaLog& log) {
  std::vector<std::string> out;
  for (const auto& r : log.records)
    if (r.level == "error" && !r.text.empty()) out.push_back(r.text);
    else if (!r.error.empty()) out.push_back(r.error);
  return out;
}

}  // namespace kvmbench
