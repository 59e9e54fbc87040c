// The --db option every command that reads or writes the results database
// takes, and opening it: --db, else $KVMBENCH_DB, else results/kvmbench.db.
// A database that cannot be opened (missing file, not a database, bad URL,
// server unreachable) ends the command with its reason and exit 2.
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>

#include "analysis/store/db/results_db.h"

namespace kvmbench::cli {

void add_db_option(CLI::App* cmd, std::optional<std::string>& db);

// Access::create: a missing SQLite file is made (import, load); otherwise it
// is an error that says to import first. Access::read: opened read-only
// (db_location.h).
db::ResultsDb open_results_db(const std::optional<std::string>& db, db::Access access);

}  // namespace kvmbench::cli
