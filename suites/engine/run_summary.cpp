#include "suites/engine/run_summary.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "analysis/model/text_wrap.h"

namespace kvmbench::engine {

void RunSummary::ran(const std::string& suite, const std::string& preset, const std::string& outcome,
                     const std::filesystem::path& dir, double seconds) {
  lines_.push_back({fmt::format("{} / {}: {}, {:.1f} s", suite, preset, outcome, seconds), dir});
}

void RunSummary::warn(const std::string& kind, const std::string& text) {
  auto it = std::find_if(warnings_.begin(), warnings_.end(), [&](const Kind& k) { return k.kind == kind; });
  if (it == warnings_.end()) it = warnings_.insert(warnings_.end(), {kind, text, 0});
  ++it->count;
}

void RunSummary::other_boot(const std::string& setting, const std::string& what) {
  auto it = std::find_if(other_boots_.begin(), other_boots_.end(), [&](const auto& b) { return b.first == setting; });
  if (it == other_boots_.end()) it = other_boots_.insert(other_boots_.end(), {setting, {}});
  if (std::find(it->second.begin(), it->second.end(), what) == it->second.end()) it->second.push_back(what);
}

std::vector<std::string> RunSummary::render(double wall_s) const {
  std::vector<std::string> out;
  out.push_back(fmt::format("kvmbench: summary (wall time {:.1f} s):", wall_s));
  // Runs share their parent as a rule (--out): named once, then each run
  // by its directory's name so that its line stays within 80 columns.
  std::set<std::filesystem::path> parents;
  for (const auto& l : lines_)
    if (!l.dir.empty()) parents.insert(l.dir.parent_path());
  const bool one_parent = parents.size() == 1;
  for (const auto& l : lines_) {
    const std::string line = "  " + l.text;
    const std::string dir = l.dir.empty() ? "" : " -> " + (one_parent ? l.dir.filename() : l.dir).string();
    // The directory on the preset's line where both fit, else under it.
    if (display_width(line) + display_width(dir) <= 80) {
      out.push_back(line + dir);
    } else {
      // Wrapped, not cut: a reason often ends in the one useful hint ("run
      // it in the emulated lab: ..."), and a cut path names nothing.
      for (auto& w : wrap_lines(l.text, "  ", 80, "  ")) out.push_back(std::move(w));
      if (!dir.empty()) out.push_back("   " + dir);
    }
  }
  if (one_parent) out.push_back("  runs in " + parents.begin()->string());
  for (const auto& [setting, what] : other_boots_)
    for (auto& l : wrap_lines(fmt::format("on another boot, with {} on the kernel command line: {}", setting,
                                          fmt::join(what, ", ")),
                              "  "))
      out.push_back(std::move(l));
  if (!warnings_.empty()) {
    out.push_back("kvmbench: warnings, each kind once (all: `kvmbench report --verbose DIR`):");
    for (const auto& w : warnings_) {
      if (w.first_text.rfind(w.kind + ": ", 0) == 0) {
        // A host setting's warning names its kind first and says the same
        // for every run: once, counted.
        for (auto& l : wrap_lines(fmt::format("{} ({}x)", w.first_text, w.count), "  ", 80, "  "))
          out.push_back(std::move(l));
        continue;
      }
      for (auto& l : wrap_lines(fmt::format("{} ({}x), e.g.:", w.kind, w.count), "  ")) out.push_back(std::move(l));
      for (auto& l : wrap_lines(w.first_text, "    ")) out.push_back(std::move(l));
    }
  }
  return out;
}

}  // namespace kvmbench::engine
