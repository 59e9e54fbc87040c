#include <fmt/format.h>

#include <memory>
#include <string>
#include <vector>

#include "suites/kvmbench/commands.h"
#include "suites/kvmbench/exit.h"

namespace kvmbench::cli {

void add_help_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("help", "Print the help of kvmbench, or of a command (kvmbench help db import)");
  auto path = std::make_shared<std::vector<std::string>>();
  cmd->add_option("command", *path, "the command, and its subcommand");
  cmd->callback([&app, path] {
    const CLI::App* target = &app;
    std::string usage_name = app.get_name();  // "kvmbench db import"
    for (const std::string& name : *path) {
      try {
        target = target->get_subcommand(name);
      } catch (const CLI::OptionNotFound&) {
        usage_error(fmt::format("help: `{}` has no command '{}' (`kvmbench help{}` lists them)", usage_name, name,
                                usage_name.substr(app.get_name().size())));
      }
      usage_name += " " + name;
    }
    // The formatter itself: App::help() would describe the selected
    // subcommand, which is this one.
    fmt::print("{}", target->get_formatter()->make_help(target, usage_name, CLI::AppFormatMode::Normal));
  });
}

}  // namespace kvmbench::cli
