// The results database: every run of every lab machine, each sample kept
// (not a folded value), meta.json whole. One schema (db_schema.h) on SQLite
// or PostgreSQL (sql_connection.h); the same SQL on both, so a query gives
// the same answer on either (tests/db/).
//
// Import is atomic per run (one transaction: the run and all its samples,
// or nothing) and idempotent: a run is known by its machine and directory
// name (RunRecord::run_key); importing it again with the same content adds
// nothing, and a different content under the same key is refused with what
// differs.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "analysis/store/db/db_location.h"
#include "analysis/store/db/db_schema.h"
#include "analysis/store/run_record.h"
#include "analysis/store/db/sql_connection.h"

namespace kvmbench::db {

struct RunRow {
  std::int64_t id = 0;
  std::string run_key, dir_name, suite, preset, source, status, start_time, end_time, hostname, kernel_release,
      machine, tool_version, parameters;
  std::int64_t n_samples = 0;
};

// Which runs; an empty text matches anything. Ordered by start time (then
// run key), oldest first unless newest_first.
struct RunQuery {
  std::string suite, machine, preset, source, status, kernel_release;
  std::optional<std::string> parameters;  // compact JSON as RunRecord::parameters
  std::string exclude_run_key;
  bool newest_first = false;
  std::size_t limit = 0;  // 0: all
};

struct SampleRow {
  std::int64_t run_id = 0;
  std::int64_t seq = 0;
  std::string case_name, variant, metric, unit;
  double value = 0;  // NaN where the sample's value is NaN
  std::int64_t iteration = 0;
  bool warmup = false;
};

struct MachineRow {
  std::string fingerprint, identity, first_seen, last_seen, hostname;
  std::int64_t runs = 0;
};

struct ImportResult {
  enum class Outcome { added, already_present, conflict } outcome = Outcome::added;
  std::int64_t run_id = 0;
  std::string message;  // for already_present and conflict: why
};

struct DbCounts {
  std::int64_t runs = 0, samples = 0, machines = 0;
};

class ResultsDb {
 public:
  // Opens the database at `where` and brings its schema up to date
  // (creating a SQLite file with Access::create). To read, a database whose
  // schema is up to date is opened read-only; an older one is brought up
  // to date first, which needs a connection that may write; a SQLite file
  // without kvmbench's tables (empty) is a DbError, and stays as it was.
  // A lock another process holds past the wait (10 s) is a BusyError
  // (busy_error.h), on open or on any query.
  static ResultsDb open(const DbLocation& where, Access access);
  // Over an open connection, migrated to `schema_target` (tests build an
  // older database this way).
  explicit ResultsDb(std::unique_ptr<SqlConnection> c, int schema_target = kSchemaVersion);

  SqlConnection& connection() { return *conn_; }
  const std::string& name() const { return conn_->name(); }

  ImportResult import_run(const RunRecord& r);

  std::vector<RunRow> runs(const RunQuery& q);
  // The samples of these runs, in the order of run_ids and by line within
  // a run, optionally of some metrics only.
  std::vector<SampleRow> samples(const std::vector<std::int64_t>& run_ids, const std::vector<std::string>& metrics = {});
  std::string meta_text(std::int64_t run_id);
  std::vector<MachineRow> machines();
  DbCounts counts();
  // One run as a record (meta text, sample lines, key, import
  // provenance; the parsed samples left empty). Throws DbError for an id
  // the database does not have.
  RunRecord record(std::int64_t run_id);
  // Every run as a record, by run key: what `db dump` writes.
  void for_each_record(const std::function<void(const RunRecord&)>& f);

 private:
  std::unique_ptr<SqlConnection> conn_;
};

}  // namespace kvmbench::db
