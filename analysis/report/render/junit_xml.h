// JUnit XML as Jenkins reads it: the schema of the xunit plugin
// (junit-10.xsd; tests/data/junit/junit-10.xsd is written from it), which
// GitLab's and GitHub's readers accept too. Its <testcase> has no
// <properties> and its <testsuites> no skipped count, so per-case figures go
// in the suite's properties and the case's system-out. Used by `gate
// --junit` and `export --to junit`.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kvmbench {

struct JunitCase {
  enum class Result { pass, failure, error, skipped };
  std::string classname, name;
  Result result = Result::pass;
  std::string type;     // of a failure or error ("regression", "unusable input")
  std::string message;  // of a failure, error or skip
  std::string system_out;
};

struct JunitSuite {
  std::string name;
  std::string timestamp, hostname;  // left out when empty
  std::vector<std::pair<std::string, std::string>> properties;
  std::vector<JunitCase> cases;
};

// The whole document; the counts are the cases'.
std::string render_junit(std::string_view name, const std::vector<JunitSuite>& suites);

}  // namespace kvmbench
