#include "suites/kvmbench/db_option.h"

#include <cstdlib>

#include "suites/framework/errors.h"

namespace kvmbench::cli {

void add_db_option(CLI::App* cmd, std::optional<std::string>& db) {
  cmd->add_option("--db", db,
                  "results database: a SQLite file or postgresql://... (default: $KVMBENCH_DB, else "
                  "results/kvmbench.db)");
}

db::ResultsDb open_results_db(const std::optional<std::string>& where, db::Access access) {
  try {
    return db::ResultsDb::open(db::resolve_db_location(where, std::getenv("KVMBENCH_DB")), access);
  } catch (const db::DbError& e) {
    usage_error(e.what());
  }
}

}  // namespace kvmbench::cli
