// The PostgreSQL side of SqlConnection (libpq). Parameters go as text and
// the server infers their types from the statement; results come back as
// text and are typed by their column's type. Doubles travel as the
// shortest text that reads back to the same bits (extra_float_digits 3),
// so a value loaded into PostgreSQL and dumped again is the value it was.
#include <fmt/format.h>
#include <libpq-fe.h>

#include <charconv>
#include <cstdlib>

#include "analysis/model/busy_error.h"
#include "analysis/store/db/connection_string.h"
#include "analysis/store/db/sql_connection.h"

namespace kvmbench::db {

namespace {

// How long a statement waits for another session's lock (SQLite's wait).
constexpr int kLockTimeoutMs = 10000;

// Type OIDs of PostgreSQL's catalog (pg_type.dat): int2, int4, int8, oid,
// bool; float4, float8, numeric.
bool integer_type(Oid t) { return t == 21 || t == 23 || t == 20 || t == 26 || t == 16; }
bool real_type(Oid t) { return t == 700 || t == 701 || t == 1700; }

std::string first_line(const char* msg) {
  std::string s = msg ? msg : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// COPY's text format: backslash escapes for the characters it uses as
// delimiters, \N for NULL.
void copy_field(std::string& out, const SqlValue& v) {
  if (std::holds_alternative<std::nullptr_t>(v)) {
    out += "\\N";
  } else if (auto* x = std::get_if<std::int64_t>(&v)) {
    out += fmt::format("{}", *x);
  } else if (auto* d = std::get_if<double>(&v)) {
    out += fmt::format("{}", *d);  // shortest round trip
  } else {
    for (char c : std::get<std::string>(v)) {
      switch (c) {
        case '\\': out += "\\\\"; break;
        case '\t': out += "\\t"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        default: out += c;
      }
    }
  }
}

class PostgresConnection final : public SqlConnection {
 public:
  PostgresConnection(const std::string& url, const std::string& display)
      : name_(fmt::format("PostgreSQL database {}", display)) {
    // connect_timeout before dbname: a URL's own connect_timeout wins.
    const char* keys[] = {"connect_timeout", "fallback_application_name", "dbname", nullptr};
    const char* values[] = {"10", "kvmbench", url.c_str(), nullptr};
    conn_ = PQconnectdbParams(keys, values, 1);
    if (!conn_ || PQstatus(conn_) != CONNECTION_OK) {
      // libpq quotes what it read (a host, a port), never a password by
      // design; a secret it quotes all the same is taken out.
      const std::string why =
          conn_ ? without_secrets(first_line(PQerrorMessage(conn_)), read_connection_string(url)) : "out of memory";
      PQfinish(conn_);
      conn_ = nullptr;
      throw DbError(fmt::format("{}: cannot connect: {}", name_, why));
    }
    PQsetNoticeProcessor(conn_, [](void*, const char*) {}, nullptr);  // "relation exists, skipping" and the like
    try {
      // A lock another session holds (an import, a migration, a LOCK TABLE)
      // is waited for as long as SQLite waits for one, then busy.
      exec(fmt::format("SET extra_float_digits = 3; SET client_min_messages = warning; SET client_encoding = 'UTF8'; "
                       "SET lock_timeout = {}",
                       kLockTimeoutMs));
    } catch (...) {
      PQfinish(conn_);
      throw;
    }
  }
  ~PostgresConnection() override { PQfinish(conn_); }

  Backend backend() const override { return Backend::postgresql; }
  const std::string& name() const override { return name_; }

  void exec(const std::string& sql) override {
    PGresult* r = PQexec(conn_, sql.c_str());
    check(r, sql);
    PQclear(r);
  }

  std::vector<SqlRow> query(const std::string& sql, const std::vector<SqlValue>& params) override {
    std::vector<std::string> text(params.size());
    std::vector<const char*> ptrs(params.size());
    for (std::size_t i = 0; i < params.size(); ++i) {
      const SqlValue& v = params[i];
      if (std::holds_alternative<std::nullptr_t>(v)) {
        ptrs[i] = nullptr;
        continue;
      }
      if (auto* x = std::get_if<std::int64_t>(&v)) text[i] = fmt::format("{}", *x);
      else if (auto* d = std::get_if<double>(&v)) text[i] = fmt::format("{}", *d);
      else text[i] = std::get<std::string>(v);
      ptrs[i] = text[i].c_str();
    }
    PGresult* r = PQexecParams(conn_, sql.c_str(), static_cast<int>(params.size()), nullptr, ptrs.data(), nullptr,
                               nullptr, 0);
    check(r, sql);
    std::vector<SqlRow> rows;
    const int n = PQntuples(r), cols = PQnfields(r);
    rows.reserve(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) {
      SqlRow row;
      row.cells.reserve(static_cast<std::size_t>(cols));
      for (int c = 0; c < cols; ++c) {
        if (PQgetisnull(r, i, c)) {
          row.cells.emplace_back(nullptr);
          continue;
        }
        const char* p = PQgetvalue(r, i, c);
        const int len = PQgetlength(r, i, c);
        const Oid type = PQftype(r, c);
        if (type == 16) {
          row.cells.emplace_back(static_cast<std::int64_t>(p[0] == 't'));
        } else if (integer_type(type)) {
          std::int64_t x = 0;
          std::from_chars(p, p + len, x);
          row.cells.emplace_back(x);
        } else if (real_type(type)) {
          row.cells.emplace_back(std::strtod(p, nullptr));
        } else {
          row.cells.emplace_back(std::string(p, static_cast<std::size_t>(len)));
        }
      }
      rows.push_back(std::move(row));
    }
    PQclear(r);
    return rows;
  }

  void insert_rows(const std::string& table, const std::vector<std::string>& columns,
                   const std::vector<std::vector<SqlValue>>& rows) override {
    if (rows.empty()) return;
    std::string sql = fmt::format("COPY {} (", table);
    for (std::size_t i = 0; i < columns.size(); ++i) sql += (i ? ", " : "") + columns[i];
    sql += ") FROM STDIN";
    PGresult* r = PQexec(conn_, sql.c_str());
    if (PQresultStatus(r) != PGRES_COPY_IN) check(r, sql);
    PQclear(r);
    std::string chunk;
    auto flush = [&] {
      if (PQputCopyData(conn_, chunk.data(), static_cast<int>(chunk.size())) != 1)
        throw DbError(fmt::format("{}: COPY into {} failed: {}", name_, table, first_line(PQerrorMessage(conn_))));
      chunk.clear();
    };
    for (const auto& row : rows) {
      for (std::size_t i = 0; i < row.size(); ++i) {
        if (i) chunk += '\t';
        copy_field(chunk, row[i]);
      }
      chunk += '\n';
      if (chunk.size() >= (1u << 20)) flush();
    }
    if (!chunk.empty()) flush();
    if (PQputCopyEnd(conn_, nullptr) != 1)
      throw DbError(fmt::format("{}: COPY into {} failed: {}", name_, table, first_line(PQerrorMessage(conn_))));
    // The COPY's own outcome (a constraint it broke, a type it refused).
    while (PGresult* done = PQgetResult(conn_)) {
      const bool ok = PQresultStatus(done) == PGRES_COMMAND_OK;
      const std::string why = ok ? "" : first_line(PQresultErrorMessage(done));
      PQclear(done);
      if (!ok) throw DbError(fmt::format("{}: COPY into {} failed: {}", name_, table, why));
    }
  }

 private:
  void check(PGresult* r, const std::string& sql) {
    const auto st = PQresultStatus(r);
    if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) return;
    std::string why = r ? first_line(PQresultErrorMessage(r)) : first_line(PQerrorMessage(conn_));
    if (why.empty()) why = PQresStatus(st);
    const char* state = r ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : nullptr;
    const bool lock_timeout = state && std::string_view(state) == "55P03";  // lock_not_available
    PQclear(r);
    if (lock_timeout)
      throw BusyError(fmt::format("{}: locked by another session for more than {} s (an import? a LOCK TABLE?); try "
                                  "again when it has finished",
                                  name_, kLockTimeoutMs / 1000));
    if (PQstatus(conn_) != CONNECTION_OK) why += " (the connection to the server was lost)";
    throw DbError(fmt::format("{}: {} (in: {})", name_, why, sql.substr(0, 200)));
  }

  std::string name_;
  PGconn* conn_ = nullptr;
};

}  // namespace

std::unique_ptr<SqlConnection> connect_postgresql(const std::string& url, const std::string& display) {
  return std::make_unique<PostgresConnection>(url, display);
}

}  // namespace kvmbench::db
