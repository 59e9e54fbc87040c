#include <fmt/format.h>

#include <algorithm>
#include <cctype>
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

std::string unknown_option_hint(const CLI::App& app, int argc, const char* const* argv) {
  // The command the words name, as far as they name commands.
  const CLI::App* at = &app;
  std::string path;
  int i = 1;
  for (; i < argc; ++i) {
    const std::string word = argv[i];
    if (word == "--") return "";
    const CLI::App* sub = word.empty() || word[0] == '-' ? nullptr : command_named(*at, word);
    if (!sub) break;
    at = sub;
    path += " " + word;
  }
  std::vector<std::string> names;
  for (const CLI::Option* opt : at->get_options()) {
    for (const std::string& l : opt->get_lnames()) names.push_back("--" + l);
    for (const std::string& s : opt->get_snames()) names.push_back("-" + s);
  }
  // The first option word of this command that it does not have.
  for (; i < argc; ++i) {
    std::string word = argv[i];
    if (word == "--") break;
    if (!word.starts_with("-") || word == "-" || std::isdigit(static_cast<unsigned char>(word[1]))) continue;
    if (const auto eq = word.find('='); eq != std::string::npos) word.resize(eq);
    if (!word.starts_with("--") && word.size() > 2) word.resize(2);  // -r5: -r with its value
    if (std::find(names.begin(), names.end(), word) != names.end()) continue;
    const std::string hint = did_you_mean(word, names);
    if (hint.empty()) return "";
    return fmt::format("unknown option '{}' of `kvmbench{}`; {} (`kvmbench{} --help` lists them)", word, path, hint,
                       path);
  }
  return "";
}

void add_help_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("help", "Print the help of kvmbench, or of a command (kvmbench help db import)");
  cmd->footer("Exit status: 0 printed; 2 an unknown command.");
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
