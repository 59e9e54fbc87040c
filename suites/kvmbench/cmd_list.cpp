// kvmbench list: every suite, its presets and parameters, and whether each
// can run on this host (and why not).
#include <fmt/format.h>

#include "suites/kvmbench/commands.h"
#include "suites/suite.h"

namespace kvmbench::cli {

void add_list_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("list", "List suites, presets and whether each can run here");
  static bool verbose = false;
  cmd->add_flag("--params", verbose, "Also list each preset's parameters and defaults");
  cmd->callback([] {
    const suites::HostCaps caps = suites::probe_host_caps();
    for (const auto& suite : suites::registry()) {
      fmt::print("{}: {}\n", suite.name, suite.description);
      for (const auto& preset : suite.presets) {
        std::string reason = preset.unsupported_reason ? preset.unsupported_reason(caps) : "";
        fmt::print("  {:<9} [{}] {}\n", preset.name, to_string(preset.source), preset.description);
        if (reason.empty())
          fmt::print("            can run here\n");
        else
          fmt::print("            cannot run here: {}\n", reason);
        if (verbose)
          for (const auto& p : preset.params)
            fmt::print("            --set {}={:<12} {}\n", p.name, p.default_value, p.help);
      }
    }
  });
}

}  // namespace kvmbench::cli
