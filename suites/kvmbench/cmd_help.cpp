#include <fmt/format.h>

#include <memory>
#include <string>
#include <vector>

#include "analysis/model/closest_names.h"
#include "suites/kvmbench/commands.h"
#include "suites/framework/errors.h"

namespace kvmbench::cli {

namespace {

// The command of `parent` that `word` names (hidden ones too), or nullptr.
const CLI::App* command_named(const CLI::App& parent, const std::string& word) {
  for (const CLI::App* sub : parent.get_subcommands([](const CLI::App*) { return true; }))
    if (sub->check_name(word)) return sub;
  return nullptr;
}

}  // namespace

std::vector<std::string> command_names(const CLI::App& parent) {
  std::vector<std::string> names;
  for (const CLI::App* sub : parent.get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); }))
    names.push_back(sub->get_name());
  return names;
}

std::string unknown_command_in(const CLI::App& app, int argc, const char* const* argv) {
  const CLI::App* at = &app;
  std::string path;  // the commands so far: "", "db "
  for (int i = 1; i < argc && at->get_require_subcommand_min() > 0; ++i) {
    const std::string word = argv[i];
    // An option (--help, --version) is the parser's to judge.
    if (word.empty() || word[0] == '-') return "";
    if (const CLI::App* sub = command_named(*at, word)) {
      at = sub;
      path += word + " ";
      continue;
    }
    // The suggestion as it would be typed: "db import", not "import".
    std::vector<std::string> closest = closest_names(word, command_names(*at));
    for (std::string& n : closest) n = path + n;
    const std::string hint = did_you_mean(closest);
    return fmt::format("unknown command '{}{}'{}{} (`kvmbench help{}` lists them)", path, word,
                       hint.empty() ? "" : "; ", hint, path.empty() ? "" : " " + path.substr(0, path.size() - 1));
  }
  return "";
}

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
        const std::string hint = did_you_mean(name, command_names(*target));
        usage_error(fmt::format("help: `{}` has no command '{}'{}{} (`kvmbench help{}` lists them)", usage_name, name,
                                hint.empty() ? "" : "; ", hint, usage_name.substr(app.get_name().size())));
      }
      usage_name += " " + name;
    }
    // The formatter itself: App::help() would describe the selected
    // subcommand, which is this one.
    fmt::print("{}", target->get_formatter()->make_help(target, usage_name, CLI::AppFormatMode::Normal));
  });
}

}  // namespace kvmbench::cli
