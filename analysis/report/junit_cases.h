// Test cases as a command reports them (gate: a case per gated metric;
// export: a case per primary metric, the run's status, each skipped part):
// what a Document holds for --format junit. The XML is written by
// report/render/junit_xml.h.
#pragma once

#include <string>
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

}  // namespace kvmbench
