// `kvmbench db dump` / `db load`: a whole results database as one text
// file, to move it between SQLite and PostgreSQL with nothing lost. JSON
// Lines: a header line, then one line per run in run-key order:
//   {"format":"kvmbench-results-db","version":1,"schema_version":2,"runs":N}
//   {"run_key":...,"dir_name":...,"content_sha256":...,"imported_from":...,
//    "imported_at":...,"meta":"<meta.json text>","samples":["<line>",...]}
// meta.json and each sample line travel as strings, so their text is kept
// to the byte (a number is not re-written); the indexed columns are made
// again from them on load, by the code import uses. So a dump of a
// database, loaded into another and dumped again, is the same file.
#pragma once

#include <cstddef>
#include <filesystem>
#include <istream>
#include <ostream>
#include <string>

#include "analysis/store/db/results_db.h"

namespace kvmbench::db {

// Writes the dump; returns the number of runs.
std::size_t write_dump(ResultsDb& from, std::ostream& out);

// Writes the dump to `file` through FILE.partial, renamed over it at the
// end: never half a dump under its name, and, where it cannot be written
// whole (a full disk), no FILE.partial left either. Returns the number of
// runs; throws std::runtime_error naming the file.
std::size_t write_dump_file(ResultsDb& from, const std::filesystem::path& file);

struct LoadSummary {
  std::size_t added = 0, already_present = 0;
  std::vector<std::string> conflicts;  // messages of runs refused
};

// Reads a whole dump as load_dump does, without a database: what `db load`
// does first, so that a dump it would refuse loads nothing (and creates no
// database file). Returns the number of runs; throws as load_dump does.
std::size_t check_dump(std::istream& in, const std::string& where);

// Loads a dump run by run (each atomic, as an import). Throws
// std::runtime_error naming the line for a file that is not a dump, a
// damaged line, a run whose content does not match its hash, or fewer runs
// than its header says; the runs before it stay loaded.
LoadSummary load_dump(std::istream& in, ResultsDb& into, const std::string& where);

}  // namespace kvmbench::db
