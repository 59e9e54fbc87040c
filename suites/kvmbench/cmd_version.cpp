#include <fmt/format.h>

#include "kvmbench_version.h"
#include "suites/kvmbench/commands.h"

namespace kvmbench::cli {

void add_version_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("version", "Print the kvmbench version (git describe)");
  cmd->footer("Exit status: 0.");
  cmd->callback([] { fmt::print("kvmbench {}\n", KVMBENCH_VERSION); });
}

}  // namespace kvmbench::cli
