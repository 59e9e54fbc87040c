// JUnit XML as Jenkins reads it: the schema of the xunit plugin
// (junit-10.xsd; tests/data/junit/junit-10.xsd is written from it), which
// GitLab's and GitHub's readers accept too. Its <testcase> has no
// <properties> and its <testsuites> no skipped count, so per-case figures go
// in the suite's properties and the case's system-out. What `gate --junit`
// and `export --to junit` write of their Document's test cases.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analysis/report/junit_cases.h"

namespace kvmbench {

// The whole document; the counts are the cases'.
std::string render_junit(std::string_view name, const std::vector<JunitSuite>& suites);

// Escapes text for XML content and attribute values (& < > " '), and
// replaces control characters XML 1.0 cannot carry.
std::string xml_escape(std::string_view s);

}  // namespace kvmbench
