// The results database on both engines: every test runs once on a SQLite
// file and once on a throwaway PostgreSQL server the test starts itself
// (tests/support/postgres_server.h), so the same calls must give the same
// answers on both; one test compares them directly.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <optional>
#include <thread>
#include <fstream>
#include <limits>
#include <sstream>

#include "analysis/store/db/db_dump.h"
#include "analysis/store/db/db_schema.h"
#include "analysis/store/db/db_location.h"
#include "analysis/store/machine_fingerprint.h"
#include "analysis/store/db/results_db.h"
#include "analysis/store/run_record.h"
#include "analysis/store/run_store.h"
#include "analysis/model/sample_jsonl.h"
#include "tests/support/postgres_server.h"
#include "tests/support/run_command.h"
#include "tests/support/synthetic_lab.h"

using namespace kvmbench;
using namespace kvmbench::db;
namespace fs = std::filesystem;

namespace {

const fs::path kHosts = fs::path(KVMBENCH_TEST_DATA) / "hosts";

// Twelve days of the synthetic lab (36 runs, 3 machines, 36 samples each),
// written once for the whole test program.
const std::vector<fs::path>& lab_runs() {
  static test_support::TempDir dir;
  static const auto year = test_support::write_synthetic_year(dir.path / "runs", kHosts, 12);
  return year.runs;
}

std::unique_ptr<SqlConnection> new_connection(Backend b, const fs::path& tmp) {
  if (b == Backend::sqlite) return open_sqlite((tmp / "kvmbench.db").string(), Access::create);
  if (auto why = test_support::PostgresServer::missing_package_reason(); !why.empty()) throw std::logic_error(why);
  const std::string url = test_support::PostgresServer::shared().fresh_database_url();
  return connect_postgresql(url, url);
}

class ResultsDbTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    if (GetParam() == Backend::postgresql) {
      if (auto why = test_support::PostgresServer::missing_package_reason(); !why.empty()) GTEST_SKIP() << why;
      url_ = test_support::PostgresServer::shared().fresh_database_url();
    }
  }
  // A connection to this test's database (the same one each call).
  std::unique_ptr<ResultsDb> open(int schema = kSchemaVersion) {
    auto c = GetParam() == Backend::sqlite ? open_sqlite((tmp.path / "kvmbench.db").string(), Access::create)
                                           : connect_postgresql(url_, url_);
    return std::make_unique<ResultsDb>(std::move(c), schema);
  }
  test_support::TempDir tmp;
  std::string url_;
};

// A query's answer as text: what both engines must agree on.
std::string answers(ResultsDb& db) {
  std::string out;
  const auto c = db.counts();
  out += fmt::format("counts {} {} {}\n", c.runs, c.samples, c.machines);
  RunQuery q;
  q.suite = "directmap";
  for (const auto& r : db.runs(q))
    out += fmt::format("run {} {} {} {} {} {}\n", r.run_key, r.kernel_release, r.start_time, r.machine, r.parameters,
                       r.n_samples);
  for (const auto& m : db.machines()) out += fmt::format("machine {} {} {} {} {}\n", m.fingerprint, m.hostname,
                                                          m.first_seen, m.last_seen, m.runs);
  RunQuery newest;
  newest.suite = "directmap";
  newest.machine = db.runs(q).at(0).machine;
  newest.newest_first = true;
  newest.limit = 3;
  std::vector<std::int64_t> ids;
  for (const auto& r : db.runs(newest)) ids.push_back(r.id);
  for (const auto& s : db.samples(ids, {"faultin_rate"}))
    out += fmt::format("sample {} {} {} {} {:.17g} {} {}\n", s.seq, s.case_name, s.variant, s.metric, s.value,
                       s.iteration, s.warmup);
  return out;
}

}  // namespace

INSTANTIATE_TEST_SUITE_P(Engines, ResultsDbTest, ::testing::Values(Backend::sqlite, Backend::postgresql),
                         [](const auto& info) { return info.param == Backend::sqlite ? "sqlite" : "postgresql"; });

TEST_P(ResultsDbTest, ImportKeepsEverySampleAndAllOfMeta) {
  auto db = open();
  const RunRecord r = read_run_record(lab_runs().at(0));
  // 3 backings x (1 warm-up + 5 repetitions) x 2 metrics = 36 lines.
  ASSERT_EQ(r.samples.size(), 36u);
  const ImportResult res = db->import_run(r);
  ASSERT_EQ(res.outcome, ImportResult::Outcome::added);
  EXPECT_EQ(db->counts().runs, 1);
  EXPECT_EQ(db->counts().samples, 36);
  EXPECT_EQ(db->counts().machines, 1);
  // meta.json to the byte, and the indexed columns taken from it.
  EXPECT_EQ(db->meta_text(res.run_id), read_file(lab_runs().at(0) / "meta.json"));
  const auto runs = db->runs({});
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].suite, "directmap");
  EXPECT_EQ(runs[0].preset, "host");
  EXPECT_EQ(runs[0].source, "hardware");
  EXPECT_EQ(runs[0].status, "complete");
  EXPECT_EQ(runs[0].kernel_release, test_support::kernel_of(0));
  EXPECT_EQ(runs[0].hostname, "lab-snp-1");
  EXPECT_EQ(runs[0].machine, machine_identity(nlohmann::json::parse(r.meta_text)).fingerprint);
  // Every sample, warm-ups included, each with its line as written.
  const auto samples = db->samples({res.run_id});
  ASSERT_EQ(samples.size(), 36u);
  const std::string lines = read_file(lab_runs().at(0) / "samples.jsonl");
  std::size_t warmups = 0;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    EXPECT_EQ(samples[i].seq, static_cast<std::int64_t>(i));
    EXPECT_EQ(samples[i].value, r.samples[i].sample.value) << i;  // the same bits
    warmups += samples[i].warmup;
  }
  EXPECT_EQ(warmups, 6u);  // one per backing and metric
  std::string dumped;
  db->for_each_record([&](const RunRecord& x) {
    for (auto& s : x.samples) dumped += s.line + "\n";
  });
  EXPECT_EQ(dumped, lines);
}

TEST_P(ResultsDbTest, ImportingAgainAddsNothingAndAChangedCopyIsRefusedWithWhatDiffers) {
  auto db = open();
  const RunRecord r = read_run_record(lab_runs().at(1));
  ASSERT_EQ(db->import_run(r).outcome, ImportResult::Outcome::added);
  const ImportResult again = db->import_run(read_run_record(lab_runs().at(1)));
  EXPECT_EQ(again.outcome, ImportResult::Outcome::already_present);
  EXPECT_EQ(db->counts().runs, 1);
  EXPECT_EQ(db->counts().samples, 36);

  // The same run directory with its status changed: same key, other content.
  test_support::TempDir t;
  const fs::path copy = t.path / r.dir_name;
  fs::copy(lab_runs().at(1), copy, fs::copy_options::recursive);
  auto meta = nlohmann::json::parse(read_file(copy / "meta.json"));
  meta["status"] = "interrupted";
  write_file_atomic(copy / "meta.json", meta.dump(2) + "\n", false);
  const ImportResult conflict = db->import_run(read_run_record(copy));
  EXPECT_EQ(conflict.outcome, ImportResult::Outcome::conflict);
  EXPECT_NE(conflict.message.find("status (\"complete\" stored, \"interrupted\" here)"), std::string::npos)
      << conflict.message;
  // One sample line less (n_samples adjusted so that the run reads).
  meta["status"] = "complete";
  meta["n_samples"] = 35;
  write_file_atomic(copy / "meta.json", meta.dump(2) + "\n", false);
  std::string s = read_file(copy / "samples.jsonl");
  s.erase(s.rfind('\n', s.size() - 2) + 1);
  write_file_atomic(copy / "samples.jsonl", s, false);
  const ImportResult shorter = db->import_run(read_run_record(copy));
  EXPECT_EQ(shorter.outcome, ImportResult::Outcome::conflict);
  EXPECT_NE(shorter.message.find("36 samples stored, 35 here"), std::string::npos) << shorter.message;
  EXPECT_EQ(db->counts().runs, 1);
  EXPECT_EQ(db->counts().samples, 36);
}

// Two imports of one run at once: the second, which looked before the
// first committed and then waits for it, counts the run as there (or
// refuses another content under its key), instead of failing on the key
// (PostgreSQL said "duplicate key value violates unique constraint
// runs_run_key_key"; SQLite's write lock makes the second wait earlier).
TEST_P(ResultsDbTest, TwoImportsOfOneRunAtOnce) {
  auto first = open();
  auto second = open();
  auto watch = open();
  const RunRecord r = read_run_record(lab_runs().at(2));
  for (const std::string& content : {r.content_sha256, std::string(64, '0')}) {
    SCOPED_TRACE(content == r.content_sha256 ? "same content" : "other content");
    SqlConnection& c = first->connection();
    begin_write(c);
    // What an import writes first, its run row, by a transaction still open.
    c.query("INSERT INTO runs (run_key, dir_name, content_sha256, suite, preset, source, status, start_time, "
            "end_time, hostname, kernel_release, machine, tool_version, parameters, n_samples, imported_from, "
            "imported_at, meta) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, "
            "$18)",
            {r.run_key, r.dir_name, content, r.suite, r.preset, r.source, r.status, r.start_time, r.end_time,
             r.hostname, r.kernel_release, r.machine, r.tool_version, r.parameters,
             static_cast<std::int64_t>(r.samples.size()), r.imported_from, std::string("2026-01-01T00:00:00Z"),
             r.meta_text});
    std::optional<ImportResult> got;
    std::string error;
    std::thread importer([&] {
      try {
        got = second->import_run(r);
      } catch (const std::exception& e) {
        error = e.what();
      }
    });
    // The second import is waiting for the first: on PostgreSQL at its
    // INSERT, which pg_stat_activity shows; on SQLite at its BEGIN.
    if (GetParam() == Backend::postgresql) {
      for (int i = 0; i < 1000; ++i) {
        const auto w = watch->connection().query(
            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()");
        if (w.at(0).integer(0) > 0) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
    c.exec("COMMIT");
    importer.join();
    ASSERT_TRUE(got) << error;
    EXPECT_EQ(got->outcome, content == r.content_sha256 ? ImportResult::Outcome::already_present
                                                        : ImportResult::Outcome::conflict)
        << got->message;
    EXPECT_EQ(watch->counts().runs, 1);
    watch->connection().exec("DELETE FROM runs");
  }
}

TEST_P(ResultsDbTest, NaNAndInfinityAreKept) {
  auto db = open();
  // As the writers store them (JSON has neither): null, with value_text
  // for an infinity.
  const std::string lines =
      "{\"case\":\"a\",\"variant\":\"\",\"metric\":\"m\",\"unit\":\"ns\",\"value\":null,\"iteration\":0,"
      "\"warmup\":false}\n"
      "{\"case\":\"a\",\"variant\":\"\",\"metric\":\"m\",\"unit\":\"ns\",\"value\":null,\"value_text\":"
      "\"Infinity\",\"iteration\":1,\"warmup\":false}\n";
  const RunRecord r = run_record_from_text("x-1", R"({"suite":"x","source":"replay","hostname":"h"})", lines, "x");
  const auto res = db->import_run(r);
  ASSERT_EQ(res.outcome, ImportResult::Outcome::added);
  const auto s = db->samples({res.run_id});
  ASSERT_EQ(s.size(), 2u);
  EXPECT_TRUE(std::isnan(s[0].value));
  EXPECT_EQ(s[1].value, std::numeric_limits<double>::infinity());
}

TEST_P(ResultsDbTest, AFailedImportLeavesNothingOfTheRun) {
  auto db = open();
  ASSERT_EQ(db->import_run(read_run_record(lab_runs().at(0))).outcome, ImportResult::Outcome::added);
  // The machines row is written last, after the run and its samples: with
  // that table gone the import fails at its end, and must take back the
  // rest.
  db->connection().exec("DROP TABLE machines");
  EXPECT_THROW(db->import_run(read_run_record(lab_runs().at(3))), DbError);
  EXPECT_EQ(db->runs({}).size(), 1u);
  EXPECT_EQ(db->connection().query("SELECT count(*) FROM samples").at(0).integer(0), 36);
}

TEST_P(ResultsDbTest, QueriesSelectOrderAndLimit) {
  auto db = open();
  for (const auto& d : lab_runs()) ASSERT_NE(db->import_run(read_run_record(d)).outcome, ImportResult::Outcome::conflict);
  EXPECT_EQ(db->counts().runs, 36);
  EXPECT_EQ(db->counts().samples, 36 * 36);
  const auto machines = db->machines();
  ASSERT_EQ(machines.size(), 3u);
  for (const auto& m : machines) {
    EXPECT_EQ(m.runs, 12);
    // Each machine ran at its own hour of 2026-01-01 .. 2026-01-12.
    EXPECT_EQ(m.first_seen.substr(0, 11), "2026-01-01T");
    EXPECT_EQ(m.last_seen.substr(0, 11), "2026-01-12T");
    EXPECT_NE(m.identity.find("cpu.family="), std::string::npos);
  }
  RunQuery q;
  q.machine = machines[0].fingerprint;
  q.newest_first = true;
  q.limit = 2;
  const auto newest = db->runs(q);
  ASSERT_EQ(newest.size(), 2u);
  EXPECT_GT(newest[0].start_time, newest[1].start_time);
  EXPECT_EQ(newest[0].start_time.substr(0, 10), "2026-01-12");
  RunQuery by_kernel;
  by_kernel.kernel_release = test_support::kernel_of(0);  // days 0..11 all run 6.8.0
  EXPECT_EQ(db->runs(by_kernel).size(), 36u);
  by_kernel.kernel_release = "6.9.0";
  EXPECT_TRUE(db->runs(by_kernel).empty());
  RunQuery by_params;
  by_params.parameters = newest[0].parameters;
  EXPECT_EQ(db->runs(by_params).size(), 36u);
  by_params.parameters = "{}";
  EXPECT_TRUE(db->runs(by_params).empty());
  // One metric of two runs: 3 backings x 6 repetitions each.
  EXPECT_EQ(db->samples({newest[0].id, newest[1].id}, {"faultin_rate"}).size(), 36u);
}

TEST_P(ResultsDbTest, AnOlderSchemaIsMigratedWithItsRuns) {
  {
    auto v1 = open(1);
    EXPECT_EQ(schema_version(v1->connection()), 1);
    // Version 1 has no machines table: a run goes in by hand, as a
    // version-1 kvmbench wrote it.
    const RunRecord r = read_run_record(lab_runs().at(12));  // lab-tdx-1 day 0
    v1->connection().query(
        "INSERT INTO runs (run_key, dir_name, content_sha256, suite, preset, source, status, start_time, end_time, "
        "hostname, kernel_release, machine, tool_version, parameters, n_samples, imported_from, imported_at, meta) "
        "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, 0, '', '', $15)",
        {r.run_key, r.dir_name, r.content_sha256, r.suite, r.preset, r.source, r.status, r.start_time, r.end_time,
         r.hostname, r.kernel_release, r.machine, r.tool_version, r.parameters, r.meta_text});
  }
  auto v2 = open();
  EXPECT_EQ(schema_version(v2->connection()), kSchemaVersion);
  const auto m = v2->machines();
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].hostname, "lab-tdx-1");
  EXPECT_EQ(m[0].runs, 1);
}

TEST_P(ResultsDbTest, ADatabaseOfANewerKvmbenchIsRefused) {
  auto db = open();
  db->connection().exec("INSERT INTO kvmbench_schema (version, description, applied_at) VALUES (99, 'future', 'x')");
  try {
    migrate(db->connection());
    FAIL() << "a newer schema was accepted";
  } catch (const DbError& e) {
    EXPECT_NE(std::string(e.what()).find("schema version 99 is newer"), std::string::npos) << e.what();
  }
}

TEST_P(ResultsDbTest, DumpLoadRoundTripIsByteEqual) {
  auto db = open();
  for (const auto& d : lab_runs()) db->import_run(read_run_record(d));
  std::stringstream dump1;
  EXPECT_EQ(write_dump(*db, dump1), 36u);
  // Into the other engine and back out.
  test_support::TempDir t2;
  const Backend other = GetParam() == Backend::sqlite ? Backend::postgresql : Backend::sqlite;
  if (other == Backend::postgresql && !test_support::PostgresServer::missing_package_reason().empty())
    GTEST_SKIP() << test_support::PostgresServer::missing_package_reason();
  ResultsDb into(new_connection(other, t2.path));
  std::istringstream in(dump1.str());
  const LoadSummary sum = load_dump(in, into, "dump");
  EXPECT_EQ(sum.added, 36u);
  EXPECT_TRUE(sum.conflicts.empty());
  std::stringstream dump2;
  write_dump(into, dump2);
  EXPECT_EQ(dump1.str(), dump2.str());
  EXPECT_EQ(answers(*db), answers(into));
  // Loading it again adds nothing.
  std::istringstream again(dump1.str());
  EXPECT_EQ(load_dump(again, into, "dump").already_present, 36u);
  EXPECT_EQ(into.counts().runs, 36);
}

TEST_P(ResultsDbTest, ADamagedDumpIsRefusedNamingTheLine) {
  auto db = open();
  db->import_run(read_run_record(lab_runs().at(0)));
  std::stringstream dump;
  write_dump(*db, dump);
  std::string text = dump.str();
  // A changed digit in a sample value: its hash no longer matches.
  const auto at = text.find("\\\"value\\\":");
  ASSERT_NE(at, std::string::npos);
  std::string bad = text;
  char& digit = bad[at + 10];
  digit = digit == '1' ? '2' : '1';
  test_support::TempDir t;
  ResultsDb into(open_sqlite((t.path / "x.db").string(), Access::create));
  std::istringstream in(bad);
  try {
    load_dump(in, into, "d.jsonl");
    FAIL() << "a changed dump loaded";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("d.jsonl:2: run "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("does not match its hash"), std::string::npos) << e.what();
  }
  EXPECT_EQ(into.counts().runs, 0);
  std::istringstream not_a_dump("{\"hello\":1}\n");
  EXPECT_THROW(load_dump(not_a_dump, into, "x"), std::runtime_error);
}

TEST(ResultsDbBothEngines, SameQueriesSameAnswers) {
  if (auto why = test_support::PostgresServer::missing_package_reason(); !why.empty()) GTEST_SKIP() << why;
  test_support::TempDir t;
  ResultsDb lite(new_connection(Backend::sqlite, t.path));
  ResultsDb pg(new_connection(Backend::postgresql, t.path));
  // In another order on each: the answers are ordered by the queries.
  for (const auto& d : lab_runs()) lite.import_run(read_run_record(d));
  for (auto it = lab_runs().rbegin(); it != lab_runs().rend(); ++it) pg.import_run(read_run_record(*it));
  const std::string a = answers(lite), b = answers(pg);
  EXPECT_NE(a.find("counts 36 1296 3"), std::string::npos) << a;
  EXPECT_EQ(a, b);
}

TEST(DbLocation, FlagThenEnvironmentThenDefault) {
  EXPECT_EQ(resolve_db_location(std::nullopt, nullptr).target, "results/kvmbench.db");
  EXPECT_EQ(resolve_db_location(std::nullopt, "").target, "results/kvmbench.db");
  EXPECT_EQ(resolve_db_location(std::nullopt, "/srv/lab.db").target, "/srv/lab.db");
  EXPECT_EQ(resolve_db_location(std::string("x.db"), "/srv/lab.db").target, "x.db");
  EXPECT_EQ(parse_db_location("sqlite:/a/b.db").target, "/a/b.db");
  const DbLocation pg = parse_db_location("postgresql://lab:s3cret@db.example/kvmbench");
  EXPECT_EQ(pg.backend, Backend::postgresql);
  EXPECT_EQ(pg.target, "postgresql://lab:s3cret@db.example/kvmbench");
  EXPECT_EQ(pg.display, "host=db.example dbname=kvmbench user=lab password=***");
  EXPECT_EQ(parse_db_location("postgres://db/k").backend, Backend::postgresql);
  // A password in the URL's query or in a key=value string is masked too
  // (every form: connection_string_test.cpp).
  EXPECT_EQ(parse_db_location("postgresql://lab@db/k?sslmode=require&password=s3cret").display,
            "host=db dbname=k user=lab password=*** sslmode=require");
  EXPECT_EQ(parse_db_location("postgresql:///k?password=s3cret&host=/run/pg").display,
            "host=/run/pg dbname=k password=***");
  EXPECT_EQ(parse_db_location("host=db dbname=k password='s3 cr\\'et' user=lab").display,
            "host=db dbname=k user=lab password=***");
  EXPECT_EQ(parse_db_location("host=db password=s3cret").display, "host=db password=***");
  // One libpq cannot read is refused before anything connects, showing none of it.
  try {
    parse_db_location("postgresql://lab:s3%zzcret@db/k");
    FAIL();
  } catch (const DbError& e) {
    EXPECT_EQ(std::string(e.what()).find("s3"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("libpq cannot read it"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_db_location(""), DbError);
  EXPECT_THROW(parse_db_location("sqlite:"), DbError);
  try {
    parse_db_location("mysql://u:pw@h/d");
    FAIL();
  } catch (const DbError& e) {
    EXPECT_NE(std::string(e.what()).find("unknown database URL scheme 'mysql'"), std::string::npos);
    EXPECT_EQ(std::string(e.what()).find("pw"), std::string::npos) << "the password is not shown";
  }
}

// A libpq key=value connection string names PostgreSQL (it was taken for a
// SQLite file's name, and its password shown in "SQLite database host=...
// password=...: no such file").
TEST(DbLocation, KeyValueConnectionStringIsPostgresql) {
  const DbLocation kv = parse_db_location("host=/run/nothing-listens dbname=k password=s3cret");
  EXPECT_EQ(kv.backend, Backend::postgresql);
  EXPECT_EQ(kv.target, "host=/run/nothing-listens dbname=k password=s3cret");
  EXPECT_EQ(kv.display, "host=/run/nothing-listens dbname=k password=***");
  EXPECT_EQ(parse_db_location("  dbname = k").backend, Backend::postgresql);
  // A path with an '=' in it, and a file named like a connection string on
  // purpose. Written as key=value words, with an option libpq does not know
  // ("hostname"), it is a mistyped connection string: refused, for its
  // other words may hold a password.
  EXPECT_EQ(parse_db_location("results/a=b.db").backend, Backend::sqlite);
  EXPECT_THROW(parse_db_location("hostname=x.db"), DbError);
  EXPECT_EQ(parse_db_location("sqlite:hostname=x.db").target, "hostname=x.db");
  const DbLocation file = parse_db_location("sqlite:host=x.db");
  EXPECT_EQ(file.backend, Backend::sqlite);
  EXPECT_EQ(file.target, "host=x.db");
  try {
    connect(kv, Access::read);
    FAIL() << "connected to nothing";
  } catch (const DbError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("PostgreSQL database host=/run/nothing-listens dbname=k password=***: cannot connect"),
              std::string::npos)
        << what;
    EXPECT_EQ(what.find("s3cret"), std::string::npos) << what;
  }
}

TEST(DbLocation, BadDatabasesAreClearErrors) {
  test_support::TempDir t;
  try {
    connect(parse_db_location((t.path / "none.db").string()), Access::write);
    FAIL();
  } catch (const DbError& e) {
    EXPECT_NE(std::string(e.what()).find("no such file"), std::string::npos) << e.what();
  }
  write_file_atomic(t.path / "junk.db", std::string(4096, 'x'), false);
  try {
    ResultsDb::open(parse_db_location((t.path / "junk.db").string()), Access::write);
    FAIL();
  } catch (const DbError& e) {
    EXPECT_NE(std::string(e.what()).find("not a database"), std::string::npos) << e.what();
  }
  // A socket directory nothing listens in: refused at once, not after the
  // 10 s connect timeout.
  try {
    connect(parse_db_location("postgresql:///kvmbench?host=" + t.path.string()), Access::write);
    FAIL();
  } catch (const DbError& e) {
    EXPECT_NE(std::string(e.what()).find("cannot connect"), std::string::npos) << e.what();
  }
}

TEST(RunRecord, RefusesWhatIsNotAWholeRun) {
  const std::string meta = R"({"suite":"directmap","source":"hardware","n_samples":2})";
  std::string two;
  Sample s;
  s.case_name = "thp";
  s.metric = "faultin_rate";
  s.unit = "GB/s";
  s.value = 9.5;
  append_sample_line(two, s);
  append_sample_line(two, s);
  EXPECT_EQ(run_record_from_text("d", meta, two, "d").samples.size(), 2u);
  auto why = [&](const std::string& m, const std::string& samples) {
    try {
      run_record_from_text("d", m, samples, "d");
      return std::string("accepted");
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
  };
  EXPECT_NE(why(meta, two.substr(0, two.size() - 1)).find("samples.jsonl:2: truncated last line"), std::string::npos);
  EXPECT_NE(why(meta, two.substr(0, two.find('\n') + 1)).find("1 samples, but meta.json says 2"), std::string::npos);
  EXPECT_NE(why(R"({"source":"hardware"})", "").find("no 'suite'"), std::string::npos);
  EXPECT_NE(why(R"({"suite":"x","source":"guess"})", "").find("unknown 'source'"), std::string::npos);
  EXPECT_NE(why("[1]", "").find("not a JSON object"), std::string::npos);
  std::string latin1 = two;
  latin1.replace(latin1.find("thp"), 3, "th\xe9");
  EXPECT_NE(why(meta, latin1).find("is not UTF-8"), std::string::npos);
  // Without a CPU in its metadata a run is known by its host name.
  const RunRecord r = run_record_from_text("d", R"({"suite":"x","source":"replay","hostname":"h"})", "", "d");
  EXPECT_EQ(r.machine, "unknown:h");
  EXPECT_EQ(r.run_key, "unknown:h/d");
}
