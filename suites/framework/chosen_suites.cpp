#include "suites/framework/chosen_suites.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "analysis/model/closest_names.h"
#include "suites/framework/errors.h"

namespace kvmbench::suites {

std::vector<const Suite*> chosen_suites(const std::string& target, const std::string& preset,
                                        const std::map<std::string, std::string>& overrides) {
  std::vector<const Suite*> chosen;
  if (target == "all") {
    for (auto& s : registry()) chosen.push_back(&s);
  } else if (const Suite* s = find_suite(target)) {
    chosen.push_back(s);
  } else {
    usage_error(unknown_suite_message(target, [](const Suite&) { return true; }, true));
  }
  // The presets and parameters a name could have meant, each once, in the
  // order `kvmbench list` shows them.
  auto add = [](std::vector<std::string>& names, const std::string& n) {
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  };
  if (!preset.empty()) {
    std::vector<std::string> presets;
    for (auto* s : chosen)
      for (auto& p : s->presets) add(presets, p.name);
    if (std::find(presets.begin(), presets.end(), preset) == presets.end()) {
      const std::string hint = did_you_mean(preset, presets);
      usage_error(fmt::format("no chosen suite has a preset '{}'{}{} (presets: {})", preset, hint.empty() ? "" : "; ",
                              hint, fmt::join(presets, ", ")));
    }
  }
  std::vector<std::string> params;
  for (auto* s : chosen)
    for (auto& p : s->presets)
      if (preset.empty() || p.name == preset)
        for (auto& d : p.params) add(params, d.name);
  for (auto& [k, v] : overrides)
    if (std::find(params.begin(), params.end(), k) == params.end()) {
      // Spelled right but for another preset (guest-mem of document, not
      // host): that preset is the correction.
      std::vector<std::string> elsewhere;
      for (auto* s : chosen)
        for (auto& p : s->presets)
          if (std::any_of(p.params.begin(), p.params.end(), [&](const auto& d) { return d.name == k; }))
            add(elsewhere, p.name);
      std::string hint = did_you_mean(k, params);
      if (!elsewhere.empty())
        hint = fmt::format("it is a parameter of preset{} {}", elsewhere.size() > 1 ? "s" : "",
                           fmt::join(elsewhere, ", "));
      usage_error(fmt::format("'{}' is not a parameter of the chosen preset(s){}{} (`kvmbench list --params` shows "
                              "them all)",
                              k, hint.empty() ? "" : "; ", hint));
    }
  return chosen;
}

}  // namespace kvmbench::suites
