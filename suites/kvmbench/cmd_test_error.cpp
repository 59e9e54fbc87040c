// Hidden, test-only: `kvmbench test-error bug|bad-input` throws, from
// inside a reader's naming_bad_input (suites/framework/errors.h), what a
// bug in kvmbench throws (a std::logic_error) or what a file the user
// named does (a std::runtime_error). The integration tests check that the
// real binary ends the first with 70 and says it is a bug, and the second
// with 2 naming the file: the one error policy from the throw to the exit
// status, which no real input can reach for a bug.
#include <stdexcept>

#include "suites/framework/errors.h"
#include "suites/kvmbench/commands.h"

namespace kvmbench::cli {

void add_test_error_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("test-error", "test only: end with a bug's or bad input's error");
  cmd->group("");  // hidden from --help
  auto kind = std::make_shared<std::string>();
  cmd->add_option("kind", *kind)->required()->check(CLI::IsMember({"bug", "bad-input"}));
  cmd->callback([kind] {
    naming_bad_input("test-error.txt: ", [&] {
      if (*kind == "bug") throw std::logic_error("test-error: an invariant that does not hold");
      throw std::runtime_error("line 3: not a number");
    });
  });
}

}  // namespace kvmbench::cli
