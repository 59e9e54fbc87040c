// The rooms' include rules (README, "Where things are"): data flows one way,
// so a folder includes only the folders below it, in every layer
// (analysis < hostlib < suites; guests/ is reached through guests/protocol
// alone). A new include that breaks a rule fails here with the file, the
// include and the rule, before it becomes a cycle that someone has to
// untangle; and the rooms' graph, read from the includes themselves, has no
// loop, whatever the tables say.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
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

using Rules = std::map<std::string, std::set<std::string>>;

// The rooms of analysis/, each with the rooms it may include besides itself:
// the model; statistics, parsers and storage on it; series; tables and
// Documents (report); verdicts; the builders of each command's Document
// (views); the format renderers (report/render) beside them.
const Rules& analysis_rules() {
  static const Rules rules = {
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
      // The renderers know a Document and its tables, nothing of what a
      // command says in them; the builders of Documents (views) know no
      // renderer, so that none of them can choose by format.
      {"analysis/report/render", {"analysis/model", "analysis/report"}},
      {"analysis/views",
       {"analysis/model", "analysis/report", "analysis/series", "analysis/stats", "analysis/store",
        "analysis/verdicts"}},
  };
  return rules;
}

// hostlib/: the ground (os: files, processes, signals, CPU lists), KVM, the
// host's facts and the measurement kit, QEMU, the lab; state (what a run
// changes) on the ground alone; describe (the whole host: its metadata and
// labels) on top. Of analysis/ only the result model and the readers of
// what the host prints: hostlib never computes a statistic.
const Rules& hostlib_rules() {
  static const std::set<std::string> analysis = {"analysis/model", "analysis/parse", "analysis/store"};
  auto with = [&](std::set<std::string> rooms) {
    rooms.insert(analysis.begin(), analysis.end());
    return rooms;
  };
  static const Rules rules = {
      {"hostlib/os", with({})},
      {"hostlib/kvm", with({"hostlib/os"})},
      {"hostlib/facts", with({"hostlib/os", "hostlib/kvm"})},
      {"hostlib/measure", with({"hostlib/os", "hostlib/kvm"})},
      {"hostlib/monitor", with({"hostlib/os", "hostlib/kvm"})},
      // A lab engine's server (LAVA's REST API over HTTP): the network, not
      // this host's kernel.
      {"hostlib/lava", with({"hostlib/os"})},
      {"hostlib/state", with({"hostlib/os"})},
      {"hostlib/qemu", with({"hostlib/os", "hostlib/kvm", "hostlib/facts", "hostlib/measure", "guests/protocol"})},
      {"hostlib/lab", with({"hostlib/os", "hostlib/kvm", "hostlib/facts", "hostlib/measure", "hostlib/qemu"})},
      {"hostlib/describe",
       with({"hostlib/os", "hostlib/kvm", "hostlib/facts", "hostlib/measure", "hostlib/qemu", "hostlib/state"})},
  };
  return rules;
}

// suites/: the framework (what a suite is), the collector seam, the suites,
// the engine that runs them, the command line on top. A suite is closed in
// its folder: only the registry (framework/suite.cpp) and the command line
// (the rmpopt model's command) name one.
const Rules& suites_rules() {
  static const std::set<std::string> below = {"analysis/model",  "analysis/parse",  "analysis/stats",
                                              "analysis/series", "analysis/store",  "analysis/store/db",
                                              "analysis/report", "analysis/verdicts", "analysis/report/render",
                                              "analysis/views",
                                              "hostlib/os",      "hostlib/kvm",     "hostlib/facts",
                                              "hostlib/measure", "hostlib/state",   "hostlib/qemu",
                                              "hostlib/lab",     "hostlib/describe", "hostlib/monitor",
                                              "hostlib/lava"};
  auto with = [&](std::set<std::string> rooms) {
    rooms.insert(below.begin(), below.end());
    return rooms;
  };
  const std::set<std::string> suite_below = {"suites/framework", "suites/collect"};
  static const Rules rules = {
      {"suites/framework", with({})},
      {"suites/collect", with({"suites/framework"})},
      {"suites/asid", with(suite_below)},
      {"suites/directmap", with(suite_below)},
      {"suites/make_shared", with(suite_below)},
      {"suites/rmpopt", with(suite_below)},
      {"suites/engine", with(suite_below)},
      {"suites/kvmbench", with({"suites/framework", "suites/collect", "suites/engine", "suites/rmpopt"})},
  };
  return rules;
}

// guests/: programs that run in a guest (and natively), built static with
// libc alone; they share one header with the host side.
const Rules& guests_rules() {
  static const Rules rules = {
      {"guests/protocol", {}},
      {"guests/workloads", {"guests/protocol"}},
      {"guests/image", {}},
  };
  return rules;
}

std::string list(const std::set<std::string>& rooms) {
  std::string s;
  for (const auto& r : rooms) s += (s.empty() ? "" : ", ") + r;
  return s.empty() ? "nothing outside itself" : s;
}

// Each include of `top` against its layer's table: a room the table does
// not know, or an include of a room the table does not allow, fails with
// the file and the rule.
void expect_rules(const std::string& top, const Rules& rules) {
  for (const auto& i : includes_under(top)) {
    const std::string from = room_of(i.file), to = room_of(i.target);
    const auto rule = rules.find(from);
    ASSERT_NE(rule, rules.end()) << from << " is a room the include rules do not know: add it to " << top
                                 << "'s table";
    if (to == from) continue;
    EXPECT_TRUE(rule->second.count(to))
        << i.file << " includes " << i.target << ": " << from << " may include only " << list(rule->second);
  }
}

// A loop in a directed graph of rooms, as "a -> b -> ... -> a"; "" when there
// is none.
std::string find_loop(const std::map<std::string, std::set<std::string>>& graph) {
  std::map<std::string, int> state;  // 1 on the path, 2 done
  std::vector<std::string> path;
  std::string loop;
  std::function<bool(const std::string&)> visit = [&](const std::string& room) {
    state[room] = 1;
    path.push_back(room);
    if (const auto out = graph.find(room); out != graph.end())
      for (const auto& next : out->second) {
        if (next == room) continue;
        if (state[next] == 1) {
          auto at = std::find(path.begin(), path.end(), next);
          for (; at != path.end(); ++at) loop += *at + " -> ";
          loop += next;
          return true;
        }
        if (state[next] == 0 && visit(next)) return true;
      }
    path.pop_back();
    state[room] = 2;
    return false;
  };
  for (const auto& [room, _] : graph)
    if (state[room] == 0 && visit(room)) return loop;
  return "";
}

// The include behind each arrow of a loop "a -> b -> a", a line each.
std::string explained(const std::string& loop, std::map<std::pair<std::string, std::string>, std::string>& example) {
  std::string why;
  for (std::size_t at = 0, next; (next = loop.find(" -> ", at)) != std::string::npos; at = next + 4) {
    const std::size_t end = loop.find(" -> ", next + 4);
    why += "\n  " + example[{loop.substr(at, next - at), loop.substr(next + 4, end == std::string::npos ? end : end - next - 4)}];
  }
  return why;
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


TEST(IncludeRules, HostlibsRoomsIncludeOnlyTheRoomsBelowThem) { expect_rules("hostlib", hostlib_rules()); }

TEST(IncludeRules, SuitesRoomsIncludeOnlyTheRoomsBelowThem) { expect_rules("suites", suites_rules()); }

TEST(IncludeRules, GuestsIncludeOnlyTheirProtocol) { expect_rules("guests", guests_rules()); }

TEST(IncludeRules, TheTablesThemselvesAreOneWay) {
  Rules all;
  for (const Rules* r : {&analysis_rules(), &hostlib_rules(), &suites_rules(), &guests_rules()})
    all.insert(r->begin(), r->end());
  EXPECT_EQ(find_loop(all), "") << "the include rules allow a loop of rooms";
}

TEST(IncludeRules, NoRoomsIncludeEachOtherRoundALoop) {
  // From the includes themselves, across the layers: whatever a table
  // allows, the rooms as the code has them form no loop.
  std::map<std::string, std::set<std::string>> graph;
  std::map<std::pair<std::string, std::string>, std::string> example;
  for (const std::string top : {"analysis", "hostlib", "suites", "guests"})
    for (const auto& i : includes_under(top)) {
      graph[room_of(i.file)].insert(room_of(i.target));
      example.emplace(std::pair{room_of(i.file), room_of(i.target)}, i.file + " includes " + i.target);
    }
  const std::string loop = find_loop(graph);
  if (!loop.empty()) ADD_FAILURE() << "rooms include each other round a loop: " << loop << explained(loop, example);
}

TEST(IncludeRules, TheOutputRoomsModulesIncludeNoLoop) {
  // A module is a .cpp with its .h. Rooms one way is not enough: inside
  // report/render/ seven modules once included each other round a loop
  // (compare_render -> compare_mail -> compare_render; renderer ->
  // html_report -> compare_render), which no rule of rooms can see.
  auto module_of = [](const std::string& path) { return fs::path(path).replace_extension().generic_string(); };
  std::map<std::string, std::set<std::string>> graph;
  std::map<std::pair<std::string, std::string>, std::string> example;
  for (const std::string top : {"analysis/report", "analysis/views"})
    for (const auto& i : includes_under(top)) {
      if (!i.target.starts_with("analysis/report/") && !i.target.starts_with("analysis/views/")) continue;
      graph[module_of(i.file)].insert(module_of(i.target));
      example.emplace(std::pair{module_of(i.file), module_of(i.target)}, i.file + " includes " + i.target);
    }
  EXPECT_GT(graph.size(), 20u) << "the scan finds the output rooms' modules";
  const std::string loop = find_loop(graph);
  if (!loop.empty()) ADD_FAILURE() << "modules include each other round a loop: " << loop << explained(loop, example);
  // A loop the scan must see, so that the check above can fail.
  EXPECT_NE(find_loop({{"a", {"b"}}, {"b", {"c"}}, {"c", {"a"}}}), "");
}

TEST(IncludeRules, NothingBelowTheCommandLineIncludesIt) {
  // Errors and exit codes are in suites/framework/errors.h.
  for (const std::string top : {"analysis", "hostlib", "suites"}) {
    for (const auto& i : includes_under(top)) {
      if (room_of(i.file) == "suites/kvmbench") continue;
      EXPECT_NE(room_of(i.target), "suites/kvmbench") << i.file << " includes " << i.target
                                                      << ": nothing below the command line includes it";
    }
  }
}
