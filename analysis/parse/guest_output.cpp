#include "analysis/parse/guest_output.h"
#include "analysis/model/json_input.h"

#include <charconv>

namespace kvmbench::parsers {

namespace {

// "key=value" in a marker's text, "" when absent.
std::string field(std::string_view text, std::string_view key) {
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find(' ', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view word = text.substr(pos, end - pos);
    if (word.size() > key.size() && word.substr(0, key.size()) == key && word[key.size()] == '=')
      return std::string(word.substr(key.size() + 1));
    pos = end + 1;
  }
  return "";
}

std::string at_line(std::size_t n, std::string_view text) {
  return "line " + std::to_string(n) + ": " + std::string(text);
}

}  // namespace

std::string GuestOutput::failure() const {
  if (ok()) return "";
  if (kernel_panic) return "guest kernel panic: " + panic_line;
  if (!malformed.empty()) return "malformed result output (" + malformed.front() + ")";
  if (!began) {
    if (!errors.empty()) return "guest error before the workload started (" + errors.front() + ")";
    return "the workload never started (no KVMBENCH-BEGIN on the console)";
  }
  if (!ended) return "workload '" + workload + "' started but never finished";
  if (!errors.empty()) return "workload '" + workload + "' reported an error (" + errors.front() + ")";
  if (exit_status != 0)
    return "workload '" + workload + "' exited with status " +
           (exit_status ? std::to_string(*exit_status) : std::string("?"));
  return "unknown failure";
}

GuestOutput parse_guest_output(std::string_view text) {
  GuestOutput out;
  out.result.format = "guest-output";
  std::size_t line_no = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
    pos = nl == std::string_view::npos ? text.size() : nl + 1;
    ++line_no;
    out.result.lines_read = line_no;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.remove_suffix(1);
    if (line.empty()) continue;

    if (line.find("Kernel panic - not syncing") != std::string_view::npos && !out.kernel_panic) {
      out.kernel_panic = true;
      out.panic_line = std::string(line);
    }
    std::size_t at = line.find("KVMBENCH-");
    if (at == std::string_view::npos) {
      ++out.result.lines_ignored;
      continue;
    }
    std::string_view marker = line.substr(at);
    // A bare marker word ("KVMBENCH-BEGIN" and nothing else) is the marker
    // with empty text, reported below as malformed.
    std::string padded;
    if (marker.find(' ') == std::string_view::npos) {
      padded = std::string(marker) + " ";
      marker = padded;
    }
    if (marker.substr(0, kGuestResultPrefix.size()) == kGuestResultPrefix) {
      std::string_view body = marker.substr(kGuestResultPrefix.size());
      nlohmann::json j;
      try {
        j = parse_json_input(body);
      } catch (const JsonInputError& e) {
        out.malformed.push_back(at_line(line_no, "result refused: " + e.reason));
        continue;
      } catch (const nlohmann::json::exception&) {
        out.malformed.push_back(at_line(line_no, "result is not valid JSON: " + std::string(body.substr(0, 120))));
        continue;
      }
      try {
        Sample s = sample_from_json(j);
        s.extra["line"] = line_no;
        if (!out.began)
          out.result.warnings.push_back(at_line(line_no, "result before KVMBENCH-BEGIN"));
        else if (out.ended)
          out.result.warnings.push_back(at_line(line_no, "result after KVMBENCH-END"));
        out.result.samples.push_back(std::move(s));
        ++out.result.records;
      } catch (const std::exception& e) {
        out.malformed.push_back(at_line(line_no, e.what()));
      }
    } else if (marker.substr(0, kGuestBeginPrefix.size()) == kGuestBeginPrefix) {
      std::string name = field(marker.substr(kGuestBeginPrefix.size()), "workload");
      if (name.empty()) {
        out.malformed.push_back(at_line(line_no, "KVMBENCH-BEGIN without workload="));
      } else if (out.began) {
        out.result.warnings.push_back(at_line(line_no, "second KVMBENCH-BEGIN ignored"));
      } else {
        out.began = true;
        out.workload = name;
      }
      ++out.result.records;
    } else if (marker.substr(0, kGuestEndPrefix.size()) == kGuestEndPrefix) {
      std::string_view rest = marker.substr(kGuestEndPrefix.size());
      std::string name = field(rest, "workload");
      std::string status = field(rest, "status");
      int code = 0;
      auto [p, ec] = std::from_chars(status.data(), status.data() + status.size(), code);
      if (name.empty() || status.empty() || ec != std::errc() || p != status.data() + status.size()) {
        out.malformed.push_back(at_line(line_no, "KVMBENCH-END needs workload= and a numeric status="));
      } else if (!out.began || name != out.workload) {
        out.malformed.push_back(at_line(line_no, "KVMBENCH-END for '" + name + "' that did not begin"));
      } else {
        out.ended = true;
        out.exit_status = code;
      }
      ++out.result.records;
    } else if (marker.rfind("KVMBENCH-LISTENING ", 0) == 0) {
      ++out.result.records;  // informational: the host's peer may connect
    } else if (marker.substr(0, kGuestErrorPrefix.size()) == kGuestErrorPrefix) {
      out.errors.push_back(at_line(line_no, marker.substr(kGuestErrorPrefix.size())));
      ++out.result.records;
    } else {
      // "KVMBENCH-" in some other text (e.g. the kernel echoing its command
      // line): noise, not a marker.
      ++out.result.lines_ignored;
    }
  }
  return out;
}

}  // namespace kvmbench::parsers
