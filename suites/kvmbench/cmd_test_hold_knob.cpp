// Hidden, test-only: `kvmbench test-hold-knob --root DIR PATH VALUE` changes
// one knob under a (fake) root through a KnobSet, prints "holding", then
// waits up to 60 s for SIGINT/SIGTERM. The integration tests SIGKILL it to
// check that `kvmbench restore` puts the knob back from the journal, and
// SIGTERM it to check the scope-exit restore. With --module M, PATH VALUE
// are a parameter of module M and its value: the module is reloaded with it
// (KnobSet::reload_module; modprobe is $KVMBENCH_MODPROBE in the tests).
#include <fmt/format.h>

#include <chrono>
#include <thread>

#include "hostlib/os/interrupt.h"
#include "hostlib/state/knobs.h"
#include "suites/kvmbench/commands.h"

namespace kvmbench::cli {

void add_test_hold_knob_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("test-hold-knob", "test only: change a knob and wait to be killed");
  cmd->group("");  // hidden from --help
  auto root = std::make_shared<std::string>("/");
  auto path = std::make_shared<std::string>();
  auto value = std::make_shared<std::string>();
  auto module = std::make_shared<std::string>();
  cmd->add_option("--root", *root, "knob root (a fake sysfs tree)");
  cmd->add_option("--module", *module, "reload this module with PATH=VALUE instead");
  cmd->add_option("path", *path)->required();
  cmd->add_option("value", *value)->required();
  cmd->callback([root, path, value, module] {
    host::install_interrupt_handlers();
    host::KnobSet knobs(*root);
    if (module->empty())
      knobs.set(*path, *value);
    else
      knobs.reload_module(*module, {{*path, *value}});
    fmt::print("holding {} (was '{}')\n", *path, knobs.changes().back().old_value);
    std::fflush(stdout);
    auto end = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!host::interrupted() && std::chrono::steady_clock::now() < end)
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    // KnobSet's destructor puts the knob back.
  });
}

}  // namespace kvmbench::cli
