// The rooms' include rules (README, "Where things are"): data flows one way,
// so a folder includes only the folders below it. A new include that breaks
// a rule fails here with the file, the include and the rule, before it
// becomes a cycle that someone has to untangle.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct Include {
  std::string file;     // "analysis/stats/adaptive.cpp"
  std::string target;   // "analysis/model/flatten_json.h"
};

std::vector<Include> includes_under(const std::string& top) {
  std::vector<Include> out;
  const fs::path root = KVMBENCH_SOURCE_DIR;
  const std::regex line(R"(^\s*#\s*include\s+"((analysis|hostlib|suites|guests)/[^"]+)\")");
  for (const auto& e : fs::recursive_directory_iterator(root / top)) {
    const auto ext = e.path().extension();
    if (!e.is_regular_file() || (ext != ".h" && ext != ".cpp")) continue;
    std::ifstream in(e.path());
    const std::string file = fs::relative(e.path(), root).generic_string();
    for (std::string text; std::getline(in, text);) {
      std::smatch m;
      if (std::regex_search(text, m, line)) out.push_back({file, m[1]});
    }
  }
  return out;
}

std::string room_of(const std::string& path) { return fs::path(path).parent_path().generic_string(); }

// The rooms of analysis/, each with the rooms it may include besides itself.
const std::map<std::string, std::set<std::string>>& analysis_rules() {
  static const std::map<std::string, std::set<std::string>> rules = {
      {"analysis/model", {}},
      {"analysis/stats", {"analysis/model"}},
      {"analysis/series", {"analysis/model", "analysis/stats"}},
      {"analysis/parse", {"analysis/model"}},
      {"analysis/store", {"analysis/model"}},
      {"analysis/report", {"analysis/model", "analysis/series", "analysis/stats"}},
      {"analysis/store/db", {"analysis/model", "analysis/store"}},
      {"analysis/verdicts",
       {"analysis/model", "analysis/parse", "analysis/report", "analysis/series", "analysis/stats", "analysis/store",
        "analysis/store/db"}},
      {"analysis/report/render",
       {"analysis/model", "analysis/parse", "analysis/report", "analysis/series", "analysis/stats", "analysis/store",
        "analysis/store/db", "analysis/verdicts"}},
  };
  return rules;
}

std::string list(const std::set<std::string>& rooms) {
  std::string s;
  for (const auto& r : rooms) s += (s.empty() ? "" : ", ") + r;
  return s.empty() ? "nothing outside itself" : s;
}

}  // namespace

TEST(IncludeRules, TheScanFindsTheIncludes) {
  // A scan that finds nothing would pass every rule below.
  EXPECT_GT(includes_under("analysis").size(), 200u);
  EXPECT_GT(includes_under("hostlib").size(), 100u);
  EXPECT_GT(includes_under("suites").size(), 200u);
}

TEST(IncludeRules, AnalysisIsPureAndItsRoomsIncludeOnlyTheRoomsBelowThem) {
  for (const auto& i : includes_under("analysis")) {
    const std::string from = room_of(i.file), to = room_of(i.target);
    ASSERT_EQ(i.target.rfind("analysis/", 0), 0u)
        << i.file << " includes " << i.target << ": analysis/ is pure, it includes nothing of the host or the suites";
    const auto rule = analysis_rules().find(from);
    ASSERT_NE(rule, analysis_rules().end()) << from << " is a room the include rules do not know: add it here";
    if (to == from) continue;
    EXPECT_TRUE(rule->second.count(to))
        << i.file << " includes " << i.target << ": " << from << " may include only " << list(rule->second);
  }
}

TEST(IncludeRules, HostlibIncludesNoSuite) {
  for (const auto& i : includes_under("hostlib"))
    EXPECT_NE(i.target.rfind("suites/", 0), 0u)
        << i.file << " includes " << i.target << ": hostlib/ touches the host for the suites, never the reverse";
}

TEST(IncludeRules, ASuiteIncludesNoOtherSuiteAndNotTheCommandLine) {
  const std::set<std::string> suites = {"suites/asid", "suites/directmap", "suites/make_shared", "suites/rmpopt"};
  for (const auto& i : includes_under("suites")) {
    const std::string from = room_of(i.file), to = room_of(i.target);
    // The command line is the top: only itself includes its files.
    if (from != "suites/kvmbench") {
      EXPECT_NE(to, "suites/kvmbench") << i.file << " includes " << i.target
                                       << ": nothing below the command line includes it (errors and exit codes are "
                                          "in suites/framework/errors.h)";
    }
    // A suite is closed in its folder, and the framework and engine know
    // suites only through the registry (suites/framework/suite.cpp).
    if (suites.count(to) && from != to && from != "suites/kvmbench" && i.file != "suites/framework/suite.cpp")
      ADD_FAILURE() << i.file << " includes " << i.target << ": only the registry and the command line name a suite";
  }
}

TEST(IncludeRules, TheFrameworkIncludesNotTheEngineThatRunsIt) {
  // The engine runs suites through the framework's types; text helpers and
  // renderers the framework needs are in analysis/.
  for (const auto& i : includes_under("suites/framework"))
    EXPECT_NE(i.target.rfind("suites/engine/", 0), 0u)
        << i.file << " includes " << i.target << ": suites/framework is below suites/engine";
}
