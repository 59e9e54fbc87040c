#include "analysis/store/db/results_db.h"

#include "analysis/model/busy_error.h"
#include "analysis/model/json_input.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <map>
#include <optional>
#include <set>

#include "analysis/store/run_store.h"

namespace kvmbench::db {

namespace {

constexpr const char* kRunColumns =
    "id, run_key, dir_name, suite, preset, source, status, start_time, end_time, hostname, kernel_release, "
    "machine, tool_version, parameters, n_samples";

RunRow run_row(const SqlRow& r) {
  RunRow x;
  x.id = r.integer(0);
  x.run_key = r.text(1);
  x.dir_name = r.text(2);
  x.suite = r.text(3);
  x.preset = r.text(4);
  x.source = r.text(5);
  x.status = r.text(6);
  x.start_time = r.text(7);
  x.end_time = r.text(8);
  x.hostname = r.text(9);
  x.kernel_release = r.text(10);
  x.machine = r.text(11);
  x.tool_version = r.text(12);
  x.parameters = r.text(13);
  x.n_samples = r.integer(14);
  return x;
}

// Why a stored run and a new copy under the same key differ, in a line.
std::string conflict_reason(const std::string& stored_meta, std::int64_t stored_samples, const RunRecord& r) {
  std::vector<std::string> why;
  nlohmann::json a, b;
  try {
    a = parse_json_input(stored_meta);
    b = parse_json_input(r.meta_text);
  } catch (const std::exception&) {
  }
  if (a.is_object() && b.is_object()) {
    std::set<std::string> keys;
    for (auto& [k, v] : a.items()) keys.insert(k);
    for (auto& [k, v] : b.items()) keys.insert(k);
    std::vector<std::string> differ;
    for (auto& k : keys)
      if (!a.contains(k) || !b.contains(k) || a[k] != b[k]) differ.push_back(k);
    if (!differ.empty()) {
      std::string list;
      for (std::size_t i = 0; i < differ.size() && i < 6; ++i) {
        const auto& k = differ[i];
        std::string detail;
        if (a.contains(k) && b.contains(k) && a[k].is_primitive() && b[k].is_primitive())
          detail = fmt::format(" ({} stored, {} here)", a[k].dump(), b[k].dump());
        list += (i ? ", " : "") + k + detail;
      }
      if (differ.size() > 6) list += fmt::format(" and {} more", differ.size() - 6);
      why.push_back("meta.json differs in " + list);
    }
  } else if (stored_meta != r.meta_text) {
    why.push_back("meta.json differs");
  }
  if (stored_samples != static_cast<std::int64_t>(r.samples.size()))
    why.push_back(fmt::format("{} samples stored, {} here", stored_samples, r.samples.size()));
  else if (why.empty())
    why.push_back(fmt::format("the samples differ (both {} lines)", stored_samples));
  std::string out;
  for (std::size_t i = 0; i < why.size(); ++i) out += (i ? "; " : "") + why[i];
  return out;
}

}  // namespace

ResultsDb ResultsDb::open(const DbLocation& where, Access access) {
  std::unique_ptr<SqlConnection> c = connect(where, access);
  if (access == Access::read) {
    const int at = schema_version(*c);
    // A file without kvmbench's tables (an empty one, another program's
    // database) holds no results: to read it is no reason to make them in
    // it (history, db info and db dump turned an empty file into a
    // database).
    if (at == 0 && c->backend() == Backend::sqlite)
      throw DbError(fmt::format("{}: not a kvmbench results database (no kvmbench tables in it); import runs into "
                                "it first: kvmbench db import RUN_DIR...",
                                c->name()));
    if (at < kSchemaVersion) try {
        c = connect(where, Access::write);
      } catch (const DbError& e) {
        throw DbError(fmt::format("{}: schema version {} is older than this kvmbench's ({}), and the database "
                                  "cannot be opened to bring it up to date: {}",
                                  c->name(), at, kSchemaVersion, e.what()));
      }
  }
  return ResultsDb(std::move(c));
}

ResultsDb::ResultsDb(std::unique_ptr<SqlConnection> c, int schema_target) : conn_(std::move(c)) {
  migrate(*conn_, schema_target);
}

ImportResult ResultsDb::import_run(const RunRecord& r) {
  SqlConnection& c = *conn_;
  begin_write(c);
  try {
    ImportResult out;
    // The run already there under its key: the same one, or another.
    auto already_there = [&]() -> std::optional<ImportResult> {
      const auto existing =
          c.query("SELECT id, content_sha256, meta, n_samples FROM runs WHERE run_key = $1", {r.run_key});
      if (existing.empty()) return std::nullopt;
      c.exec("ROLLBACK");
      out.run_id = existing[0].integer(0);
      if (existing[0].text(1) == r.content_sha256) {
        out.outcome = ImportResult::Outcome::already_present;
        out.message = fmt::format("{}: already in the database (same content)", r.dir_name);
      } else {
        out.outcome = ImportResult::Outcome::conflict;
        out.message = fmt::format("{}: refused: the database holds a run of this machine with this name and other "
                                  "content ({})",
                                  r.dir_name, conflict_reason(existing[0].text(2), existing[0].integer(3), r));
      }
      return out;
    };
    if (auto there = already_there()) return *there;
    const std::string imported_at = r.imported_at.empty() ? utc_timestamp_iso() : r.imported_at;
    // ON CONFLICT: another import of the same run that committed after the
    // look above (PostgreSQL lets two importers write at once; SQLite's
    // write lock does not) leaves no row here, instead of an error: the run
    // is then looked at again, now that it is there.
    const auto id = c.query(R"(INSERT INTO runs (run_key, dir_name, content_sha256, suite, preset, source, status,
  start_time, end_time, hostname, kernel_release, machine, tool_version, parameters, n_samples, imported_from,
  imported_at, meta)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
ON CONFLICT (run_key) DO NOTHING RETURNING id)",
                            {r.run_key, r.dir_name, r.content_sha256, r.suite, r.preset, r.source, r.status,
                             r.start_time, r.end_time, r.hostname, r.kernel_release, r.machine, r.tool_version,
                             r.parameters, static_cast<std::int64_t>(r.samples.size()), r.imported_from, imported_at,
                             r.meta_text});
    if (id.empty()) {
      if (auto there = already_there()) return *there;
      throw DbError(fmt::format("{}: the run's key {} was taken and is gone again", name(), r.run_key));
    }
    out.run_id = id.at(0).integer(0);
    std::vector<std::vector<SqlValue>> rows;
    rows.reserve(r.samples.size());
    for (std::size_t i = 0; i < r.samples.size(); ++i) {
      const Sample& s = r.samples[i].sample;
      // NaN as NULL on both engines: SQLite would store it as NULL anyway.
      const SqlValue value = std::isnan(s.value) ? SqlValue(nullptr) : SqlValue(s.value);
      rows.push_back({out.run_id, static_cast<std::int64_t>(i), s.case_name, s.variant, s.metric,
                      s.unit, value, static_cast<std::int64_t>(s.iteration),
                      static_cast<std::int64_t>(s.warmup ? 1 : 0), r.samples[i].line});
    }
    c.insert_rows("samples",
                  {"run_id", "seq", "case_name", "variant", "metric", "unit", "value", "iteration", "warmup", "sample"},
                  rows);
    c.query(R"(INSERT INTO machines (fingerprint, identity, first_seen, last_seen, hostname)
VALUES ($1, $2, $3, $3, $4)
ON CONFLICT (fingerprint) DO UPDATE SET
  first_seen = CASE WHEN excluded.first_seen < machines.first_seen THEN excluded.first_seen ELSE machines.first_seen END,
  hostname = CASE WHEN excluded.last_seen >= machines.last_seen THEN excluded.hostname ELSE machines.hostname END,
  last_seen = CASE WHEN excluded.last_seen > machines.last_seen THEN excluded.last_seen ELSE machines.last_seen END)",
            {r.machine, r.machine_identity, r.start_time, r.hostname});
    c.exec("COMMIT");
    return out;
  } catch (const std::exception& e) {
    try {
      c.exec("ROLLBACK");
    } catch (...) {
    }
    if (dynamic_cast<const BusyError*>(&e)) throw;  // busy stays busy: try again later
    throw DbError(fmt::format("{}: not imported (nothing of it is in the database): {}", r.dir_name, e.what()));
  }
}

std::vector<RunRow> ResultsDb::runs(const RunQuery& q) {
  std::string sql = fmt::format("SELECT {} FROM runs WHERE 1 = 1", kRunColumns);
  std::vector<SqlValue> params;
  auto where = [&](const char* column, const std::string& value) {
    params.emplace_back(value);
    sql += fmt::format(" AND {} = ${}", column, params.size());
  };
  if (!q.suite.empty()) where("suite", q.suite);
  if (!q.machine.empty()) where("machine", q.machine);
  if (!q.preset.empty()) where("preset", q.preset);
  if (!q.source.empty()) where("source", q.source);
  if (!q.status.empty()) where("status", q.status);
  if (!q.kernel_release.empty()) where("kernel_release", q.kernel_release);
  if (q.parameters) where("parameters", *q.parameters);
  if (!q.exclude_run_key.empty()) {
    params.emplace_back(q.exclude_run_key);
    sql += fmt::format(" AND run_key <> ${}", params.size());
  }
  sql += q.newest_first ? " ORDER BY start_time DESC, run_key DESC" : " ORDER BY start_time, run_key";
  if (q.limit) {
    params.emplace_back(static_cast<std::int64_t>(q.limit));
    sql += fmt::format(" LIMIT ${}", params.size());
  }
  std::vector<RunRow> out;
  for (const auto& r : conn_->query(sql, params)) out.push_back(run_row(r));
  return out;
}

std::vector<SampleRow> ResultsDb::samples(const std::vector<std::int64_t>& run_ids, const std::vector<std::string>& metrics) {
  std::vector<SampleRow> out;
  // In slices: a year of runs is more parameters than one statement should
  // carry.
  constexpr std::size_t kSlice = 200;
  for (std::size_t at = 0; at < run_ids.size(); at += kSlice) {
    std::vector<SqlValue> params;
    std::string ids, names;
    for (std::size_t i = at; i < std::min(run_ids.size(), at + kSlice); ++i) {
      params.emplace_back(run_ids[i]);
      ids += fmt::format("{}${}", ids.empty() ? "" : ", ", params.size());
    }
    for (const auto& m : metrics) {
      params.emplace_back(m);
      names += fmt::format("{}${}", names.empty() ? "" : ", ", params.size());
    }
    std::string sql = "SELECT run_id, seq, case_name, variant, metric, unit, value, iteration, warmup FROM samples "
                      "WHERE run_id IN (" + ids + ")";
    if (!names.empty()) sql += " AND metric IN (" + names + ")";
    sql += " ORDER BY run_id, seq";
    for (const auto& r : conn_->query(sql, params)) {
      SampleRow s;
      s.run_id = r.integer(0);
      s.seq = r.integer(1);
      s.case_name = r.text(2);
      s.variant = r.text(3);
      s.metric = r.text(4);
      s.unit = r.text(5);
      s.value = r.is_null(6) ? NAN : r.real(6);
      s.iteration = r.integer(7);
      s.warmup = r.integer(8) != 0;
      out.push_back(std::move(s));
    }
  }
  // In the order the runs were asked for (ids depend on the order runs
  // were imported, which differs between two copies of one history).
  std::map<std::int64_t, std::size_t> position;
  for (std::size_t i = 0; i < run_ids.size(); ++i) position.emplace(run_ids[i], i);
  std::stable_sort(out.begin(), out.end(), [&](const SampleRow& a, const SampleRow& b) {
    const auto pa = position[a.run_id], pb = position[b.run_id];
    return pa != pb ? pa < pb : a.seq < b.seq;
  });
  return out;
}

std::string ResultsDb::meta_text(std::int64_t run_id) {
  const auto rows = conn_->query("SELECT meta FROM runs WHERE id = $1", {run_id});
  if (rows.empty()) throw DbError(fmt::format("{}: no run with id {}", name(), run_id));
  return rows[0].text(0);
}

std::vector<MachineRow> ResultsDb::machines() {
  std::vector<MachineRow> out;
  for (const auto& r : conn_->query(
           "SELECT m.fingerprint, m.identity, m.first_seen, m.last_seen, m.hostname, "
           "(SELECT count(*) FROM runs WHERE runs.machine = m.fingerprint) FROM machines m ORDER BY m.fingerprint"))
    out.push_back({r.text(0), r.text(1), r.text(2), r.text(3), r.text(4), r.integer(5)});
  return out;
}

DbCounts ResultsDb::counts() {
  const auto r = conn_->query(
      "SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM samples), (SELECT count(*) FROM machines)");
  return {r.at(0).integer(0), r.at(0).integer(1), r.at(0).integer(2)};
}

RunRecord ResultsDb::record(std::int64_t run_id) {
  const auto rows = conn_->query(
      "SELECT run_key, dir_name, content_sha256, imported_from, imported_at, meta FROM runs WHERE id = $1", {run_id});
  if (rows.empty()) throw DbError(fmt::format("{}: no run with id {}", name(), run_id));
  RunRecord r;
  r.run_key = rows[0].text(0);
  r.dir_name = rows[0].text(1);
  r.content_sha256 = rows[0].text(2);
  r.imported_from = rows[0].text(3);
  r.imported_at = rows[0].text(4);
  r.meta_text = rows[0].text(5);
  for (const auto& s : conn_->query("SELECT sample FROM samples WHERE run_id = $1 ORDER BY seq", {run_id}))
    r.samples.push_back({Sample{}, s.text(0)});
  return r;
}

void ResultsDb::for_each_record(const std::function<void(const RunRecord&)>& f) {
  for (const auto& idrow : conn_->query("SELECT id FROM runs ORDER BY run_key")) f(record(idrow.integer(0)));
}

}  // namespace kvmbench::db
