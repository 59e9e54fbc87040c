#include "analysis/report/render/junit_xml.h"

#include <fmt/format.h>

namespace kvmbench {

std::string xml_escape(std::string_view s) {
  std::string o;
  o.reserve(s.size());
  for (unsigned char ch : s) {
    switch (ch) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&apos;"; break;
      case '\t': case '\n': case '\r': o += static_cast<char>(ch); break;
      default:
        // XML 1.0 has no way to write other C0 controls, not even escaped.
        if (ch < 0x20) o += "?";
        else o += static_cast<char>(ch);
    }
  }
  return o;
}

namespace {

struct Counts {
  std::size_t tests = 0, failures = 0, errors = 0, skipped = 0;
  void add(const JunitSuite& s) {
    for (const auto& c : s.cases) {
      ++tests;
      failures += c.result == JunitCase::Result::failure;
      errors += c.result == JunitCase::Result::error;
      skipped += c.result == JunitCase::Result::skipped;
    }
  }
};

void render_case(std::string& out, const JunitCase& c) {
  out += fmt::format("    <testcase classname=\"{}\" name=\"{}\">\n", xml_escape(c.classname), xml_escape(c.name));
  switch (c.result) {
    case JunitCase::Result::failure:
      out += fmt::format("      <failure message=\"{}\" type=\"{}\"/>\n", xml_escape(c.message), xml_escape(c.type));
      break;
    case JunitCase::Result::error:
      out += fmt::format("      <error message=\"{}\" type=\"{}\"/>\n", xml_escape(c.message), xml_escape(c.type));
      break;
    case JunitCase::Result::skipped:
      out += fmt::format("      <skipped message=\"{}\"/>\n", xml_escape(c.message));
      break;
    case JunitCase::Result::pass: break;
  }
  if (!c.system_out.empty()) out += fmt::format("      <system-out>{}</system-out>\n", xml_escape(c.system_out));
  out += "    </testcase>\n";
}

}  // namespace

std::string render_junit(std::string_view name, const std::vector<JunitSuite>& suites) {
  Counts all;
  for (const auto& s : suites) all.add(s);
  std::string out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  out += fmt::format("<testsuites name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\">\n", xml_escape(name),
                     all.tests, all.failures, all.errors);
  for (const auto& s : suites) {
    Counts n;
    n.add(s);
    out += fmt::format("  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\"",
                       xml_escape(s.name), n.tests, n.failures, n.errors, n.skipped);
    if (!s.timestamp.empty()) out += fmt::format(" timestamp=\"{}\"", xml_escape(s.timestamp));
    if (!s.hostname.empty()) out += fmt::format(" hostname=\"{}\"", xml_escape(s.hostname));
    out += ">\n";
    if (!s.properties.empty()) {
      out += "    <properties>\n";
      for (const auto& [k, v] : s.properties)
        out += fmt::format("      <property name=\"{}\" value=\"{}\"/>\n", xml_escape(k), xml_escape(v));
      out += "    </properties>\n";
    }
    for (const auto& c : s.cases) render_case(out, c);
    out += "  </testsuite>\n";
  }
  out += "</testsuites>\n";
  return out;
}

}  // namespace kvmbench
