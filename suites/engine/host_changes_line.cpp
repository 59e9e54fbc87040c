#include "suites/engine/host_changes_line.h"

#include <fmt/format.h>

#include <vector>

namespace kvmbench::engine {

namespace {

// "2026-12-02T10:15:02Z" -> "10:15:02".
std::string clock_of(const std::string& iso) {
  const auto t = iso.find('T');
  return t == std::string::npos ? iso : iso.substr(t + 1, 8);
}

struct Group {
  std::string kind, path, old_value, new_value, first_set, last_back;
  int times = 0, not_back = 0;
};

}  // namespace

std::string host_changes_line(const nlohmann::json& meta) {
  if (!meta.is_object() || !meta.contains("host_changes") || !meta["host_changes"].is_array()) return "";
  const auto& changes = meta["host_changes"];
  if (changes.empty()) return "host changes: none";
  std::vector<Group> groups;
  int not_back = 0;
  for (const auto& c : changes) {
    if (!c.is_object()) continue;
    const std::string kind = c.value("kind", ""), path = c.value("path", ""), old_value = c.value("old", ""),
                      new_value = c.value("new", "");
    Group* g = nullptr;
    for (auto& x : groups)
      if (x.kind == kind && x.path == path && x.old_value == old_value && x.new_value == new_value) g = &x;
    if (!g) {
      groups.push_back({kind, path, old_value, new_value, c.value("set_at", ""), "", 0, 0});
      g = &groups.back();
    }
    ++g->times;
    if (c.contains("restored_at")) g->last_back = c.value("restored_at", "");
    else {
      ++g->not_back;
      ++not_back;
    }
  }
  std::string line = "host changes: ";
  for (std::size_t i = 0; i < groups.size(); ++i) {
    const Group& g = groups[i];
    if (i) line += "; ";
    line += fmt::format("{} {} {} -> {}", g.path, g.kind == "module_reload" ? "reloaded" : "set", g.old_value,
                        g.new_value);
    if (g.times > 1) line += fmt::format(" x{}", g.times);
    line += g.last_back.empty() ? fmt::format(" ({} UTC)", clock_of(g.first_set))
                                : fmt::format(" ({} .. {} UTC)", clock_of(g.first_set), clock_of(g.last_back));
  }
  line += not_back == 0 ? ", all put back" : fmt::format(", {} NOT put back (`kvmbench restore`)", not_back);
  return line;
}

}  // namespace kvmbench::engine
