// Each kvmbench subcommand lives in its own cmd_<name>.cpp and registers
// itself on the CLI11 app here. A callback ends normally for exit 0 and
// throws ExitError (suites/framework/errors.h) for anything else.
#pragma once

#include <CLI/CLI.hpp>

#include <string>
#include <vector>

namespace kvmbench::cli {

void add_help_command(CLI::App& app);  // kvmbench help [COMMAND...]
// The commands of `parent` that help lists (not the hidden ones), by name.
std::vector<std::string> command_names(const CLI::App& parent);
// Where argv names no command at a place that needs one (its first word,
// or the word after a command that has commands of its own, such as `db`):
// "unknown command 'rnu'; did you mean 'run'? (`kvmbench help` lists
// them)", the closest names offered where one is close. "" when argv
// names commands all the way (the parser then says what else is wrong).
std::string unknown_command_in(const CLI::App& app, int argc, const char* const* argv);
// For an option the command does not have and one of its options is close
// to: "unknown option '--formt' of `kvmbench compare`; did you mean
// '--format'? (...)". "" when no option word is unknown or none is close
// (CLI11's own message then stands).
std::string unknown_option_hint(const CLI::App& app, int argc, const char* const* argv);
void add_version_command(CLI::App& app);
void add_complete_command(CLI::App& app);  // hidden, for the shell's completion
void add_probe_command(CLI::App& app);
void add_restore_command(CLI::App& app);
void add_test_hold_knob_command(CLI::App& app);  // hidden, for the integration tests
void add_test_guest_command(CLI::App& app);      // hidden, for the lab tests
void add_test_error_command(CLI::App& app);      // hidden, for the exit status tests
void add_summarize_command(CLI::App& app);
void add_reproduce_command(CLI::App& app);
void add_ingest_command(CLI::App& app);
void add_report_command(CLI::App& app);
void add_compare_command(CLI::App& app);
void add_gate_command(CLI::App& app);
void add_export_command(CLI::App& app);
void add_merge_command(CLI::App& app);
void add_model_command(CLI::App& app);
void add_list_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_lab_command(CLI::App& app);
void add_db_command(CLI::App& app);       // cmd_db.cpp: db import|dump|load|info
void add_history_command(CLI::App& app);
void add_bisect_run_command(CLI::App& app);  // cmd_bisect_run.cpp, for git bisect run
void add_ab_command(CLI::App& app);          // cmd_ab.cpp: one verdict across boots
void add_plan_command(CLI::App& app);        // cmd_plan.cpp: boots x repetitions from a pilot
void add_fleet_command(CLI::App& app);       // cmd_fleet.cpp: one run on every matching LAVA device

}  // namespace kvmbench::cli
