// kvmbench list: every suite, its presets and parameters, and whether each
// can run on this host (and why not). Fits 80 columns.
#include <fmt/format.h>

#include <memory>
#include <sstream>

#include "analysis/model/text_wrap.h"
#include "suites/kvmbench/commands.h"
#include "suites/framework/param_check.h"
#include "suites/framework/suite.h"

namespace kvmbench::cli {

namespace {

// `text` word-wrapped to 80 columns, every line indented by `indent`.
std::string indented(const std::string& text, std::size_t indent) {
  std::istringstream lines(wrap_text(text, 80 - indent, ""));
  std::string line, out;
  while (std::getline(lines, line)) out += std::string(indent, ' ') + line + "\n";
  return out;
}

}  // namespace

void add_list_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("list", "List suites, presets and whether each can run here");
  cmd->footer("Exit status: 0 listed (a suite that cannot run here is listed with its reason); 2 a bad "
              "option.");
  auto params = std::make_shared<bool>(false);
  cmd->add_flag("--params", *params, "Also list each preset's parameters and defaults");
  cmd->callback([params] {
    const suites::HostCaps caps = suites::probe_host_caps();
    for (const auto& suite : suites::registry()) {
      fmt::print("{}: {}\n", suite.name, suite.description);
      for (const auto& preset : suite.presets) {
        const std::string reason = suites::why_not_here(preset, caps, {});
        fmt::print("  {:<9} [{}]\n{}", preset.name, preset.for_emulated_lab ? "emulated" : to_string(preset.source), indented(preset.description, 4));
        fmt::print("{}", indented(reason.empty() ? "can run here" : "cannot run here: " + reason, 4));
        if (*params)
          for (const auto& p : preset.params)
            fmt::print("{}", indented(fmt::format("--set {}={}  ({})", p.name, p.default_value, p.help), 6));
      }
    }
  });
}

}  // namespace kvmbench::cli
