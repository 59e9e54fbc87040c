// The results database's schema, one for both engines, and its versioned
// migrations. Version 1: runs (meta.json whole plus indexed columns) and
// samples (each samples.jsonl line whole plus indexed columns). Version 2:
// machines (fingerprint, its stable fields, first and last run, latest host
// name), filled from the runs already there. Each migration runs in one
// transaction with the row that records it in kvmbench_schema, so a
// database is at one version or the next, never between.
//
// Dialects differ only in column types: the run id (SQLite's INTEGER
// PRIMARY KEY, PostgreSQL's identity column) and text, which is COLLATE "C"
// on PostgreSQL so that both order text byte by byte.
#pragma once

#include "analysis/store/db/sql_connection.h"

namespace kvmbench::db {

inline constexpr int kSchemaVersion = 2;

// The version a database is at (0: no kvmbench tables yet).
int schema_version(SqlConnection& c);

// Brings the database to `target` (at most kSchemaVersion). Throws DbError
// for a database whose version is newer than this kvmbench knows, or one
// whose tables are not kvmbench's.
void migrate(SqlConnection& c, int target = kSchemaVersion);

// Starts a transaction that writes: SQLite takes the write lock at once
// (BEGIN IMMEDIATE), so that two importers wait for each other instead of
// failing at their first write; PostgreSQL a plain BEGIN.
void begin_write(SqlConnection& c);

// "runs" and "samples" DDL pieces by dialect, for the migrations.
const char* text_type(Backend b);

}  // namespace kvmbench::db
