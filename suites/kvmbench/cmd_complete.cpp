// kvmbench complete [WORD...]: the words that may come next after the
// command line WORD... (the commands of the command it names, its options,
// and after `run`, `list` or `reproduce` the suites), one a line, for the
// shell's completion (scripts/kvmbench.bash-completion). Hidden: a
// program's interface, not a person's.
#include <fmt/format.h>

#include "suites/framework/suite.h"
#include "suites/kvmbench/commands.h"

namespace kvmbench::cli {

void add_complete_command(CLI::App& app) {
  auto words = std::make_shared<std::vector<std::string>>();
  auto* cmd = app.add_subcommand("complete", "the words that may come next (for shell completion)");
  cmd->group("");  // hidden from --help
  cmd->footer("Exit status: 0.");
  cmd->add_option("WORD", *words, "the command line so far, without `kvmbench`");
  cmd->allow_extras();
  cmd->callback([&app, cmd, words] {
    std::vector<std::string> typed = *words;
    for (const auto& x : cmd->remaining()) typed.push_back(x);
    // The command the words name, as far as they name commands.
    const CLI::App* at = &app;
    std::string named;
    for (const auto& w : typed) {
      if (w == "--") return;  // a command of its own follows: not ours to complete
      const CLI::App* sub = nullptr;
      for (const CLI::App* s : at->get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); }))
        if (s->check_name(w)) sub = s;
      if (!sub) continue;
      at = sub;
      named = w;
    }
    for (const std::string& c : command_names(*at)) fmt::print("{}\n", c);
    if (at == &app) return;
    for (const CLI::Option* opt : at->get_options())
      for (const std::string& l : opt->get_lnames()) fmt::print("--{}\n", l);
    if (named == "run" || named == "list" || named == "reproduce") {
      for (const auto& s : suites::registry()) fmt::print("{}\n", s.name);
      if (named == "run") fmt::print("all\n");
    }
  });
}

}  // namespace kvmbench::cli
