// kvmbench db import RUN_DIR|TARBALL... | db dump [FILE] | db load FILE | db info
// [--db DB]: the results database (analysis/store/db/results_db.h). Import takes run
// directories, directories of runs (results/runs/) and tarballs of them;
// each run is imported whole or not at all, a run already there is left
// as it is, and a different run under the same name is refused with what
// differs (exit 2 at the end, after the others are in).
#include <fmt/format.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <vector>

#include "analysis/store/db/db_dump.h"
#include "analysis/store/run_record.h"
#include "hostlib/os/interrupt.h"
#include "hostlib/os/tarball.h"
#include "analysis/model/busy_error.h"
#include "suites/kvmbench/commands.h"
#include "suites/kvmbench/db_option.h"
#include "suites/framework/errors.h"
#include "hostlib/os/scoped_temp_dir.h"

namespace kvmbench::cli {

namespace fs = std::filesystem;

namespace {

struct ImportTally {
  std::size_t added = 0, present = 0, refused = 0, unreadable = 0;
  std::int64_t samples = 0;
};

void import_runs_below(db::ResultsDb& rdb, const fs::path& root, const std::string& label, ImportTally& t) {
  const auto dirs = find_run_directories(root);
  if (dirs.empty()) {
    fmt::print(stderr, "kvmbench: {}: no run directories (no meta.json) in it\n", label);
    ++t.unreadable;
    return;
  }
  for (const auto& dir : dirs) {
    // Between runs, each in whole or not at all: what is in stays in.
    if (host::interrupted())
      throw ExitError(kExitInterrupted, fmt::format("interrupted: {} runs imported before it, the others not", t.added));
    db::RunRecord r;
    try {
      r = db::read_run_record(dir);
    } catch (const std::exception& e) {
      if (!is_bad_input(std::current_exception())) throw;  // a bug ends the import
      fmt::print(stderr, "kvmbench: not imported: {}\n", e.what());
      ++t.unreadable;
      continue;
    }
    db::ImportResult res;
    try {
      res = rdb.import_run(r);
    } catch (const db::DbError& e) {
      // The database itself failed (disk full, server gone): the runs
      // before this one are in, this one is not; nothing later will be.
      usage_error(fmt::format("{} (after {} runs imported)", e.what(), t.added));
    }
    switch (res.outcome) {
      case db::ImportResult::Outcome::added:
        ++t.added;
        t.samples += static_cast<std::int64_t>(r.samples.size());
        break;
      case db::ImportResult::Outcome::already_present: ++t.present; break;
      case db::ImportResult::Outcome::conflict:
        fmt::print(stderr, "kvmbench: {}\n", res.message);
        ++t.refused;
        break;
    }
  }
}

void add_import(CLI::App* db_cmd) {
  struct Opts {
    std::vector<std::string> inputs;
    std::optional<std::string> db;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = db_cmd->add_subcommand("import", "Import run directories, directories of runs or tarballs of them");
  cmd->add_option("INPUT", o->inputs, "run directory, directory of runs (results/runs) or tarball")->required();
  add_db_option(cmd, o->db);
  cmd->callback([o] {
    for (const auto& in : o->inputs) {
      std::error_code ec;
      if (!fs::exists(in, ec)) usage_error(fmt::format("{}: no such file or directory", in));
    }
    host::install_interrupt_handlers();  // Ctrl-C, SIGTERM: stop after the run being imported
    db::ResultsDb rdb = open_results_db(o->db, db::Access::create);
    const auto t0 = std::chrono::steady_clock::now();
    ImportTally t;
    for (const auto& in : o->inputs) {
      std::error_code ec;
      if (fs::is_directory(in, ec)) {
        import_runs_below(rdb, in, in, t);
        continue;
      }
      const host::ScopedTempDir tmp("kvmbench-import");
      try {
        extract_tarball(in, tmp.path());
      } catch (const std::exception& e) {
        if (!is_bad_input(std::current_exception())) throw;
        fmt::print(stderr, "kvmbench: not imported: {}\n", e.what());
        ++t.unreadable;
        continue;
      }
      import_runs_below(rdb, tmp.path(), in, t);
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    fmt::print("{} runs imported ({} samples), {} already there, {} refused, {} unreadable, in {:.1f} s: {}\n", t.added,
               t.samples, t.present, t.refused, t.unreadable, s, rdb.name());
    if (t.refused || t.unreadable) throw ExitError(kExitUsage, "");
  });
}

void add_dump(CLI::App* db_cmd) {
  struct Opts {
    std::string file = "-";
    std::optional<std::string> db;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = db_cmd->add_subcommand("dump", "Write the whole database as one file (JSON lines) for db load");
  cmd->add_option("FILE", o->file, "where to write it ('-': standard output)")->capture_default_str();
  add_db_option(cmd, o->db);
  cmd->callback([o] {
    db::ResultsDb rdb = open_results_db(o->db, db::Access::read);
    try {
      if (o->file == "-") {
        db::write_dump(rdb, std::cout);
        return;
      }
      const std::size_t n = db::write_dump_file(rdb, o->file);
      fmt::print(stderr, "{} runs written to {}\n", n, o->file);
    } catch (...) {
      rethrow_naming_bad_input(std::current_exception(), "");
    }
  });
}

void add_load(CLI::App* db_cmd) {
  struct Opts {
    std::string file;
    std::optional<std::string> db;
  };
  auto o = std::make_shared<Opts>();
  auto* cmd = db_cmd->add_subcommand("load", "Load a db dump into this database (runs already there are kept)");
  cmd->add_option("FILE", o->file, "a db dump ('-': standard input)")->required();
  add_db_option(cmd, o->db);
  cmd->callback([o] {
    // The whole dump is read once before the database is opened: a dump
    // that would be refused loads nothing and creates no database. Standard
    // input is kept in a temporary file for the second reading.
    const bool from_stdin = o->file == "-";
    const std::string where = from_stdin ? "(stdin)" : o->file;
    std::optional<host::ScopedTempDir> spool;
    fs::path path = o->file;
    if (from_stdin) {
      spool.emplace("kvmbench-load");
      path = spool->path() / "dump.jsonl";
      std::ofstream copy(path, std::ios::binary);
      std::vector<char> buf(1 << 20);
      while (std::cin.read(buf.data(), static_cast<std::streamsize>(buf.size())) || std::cin.gcount() > 0)
        copy.write(buf.data(), std::cin.gcount());
      if (!copy.flush())
        usage_error(fmt::format("cannot keep standard input in {} to read it twice: {}", path.string(),
                                std::strerror(errno)));
    }
    std::ifstream file(path, std::ios::binary);
    if (!file) usage_error(fmt::format("{}: cannot read", o->file));
    try {
      db::check_dump(file, where);
    } catch (const std::exception& e) {
      if (!is_bad_input(std::current_exception())) throw;
      usage_error(fmt::format("{}; nothing loaded", e.what()));
    }
    file.clear();
    file.seekg(0);
    db::ResultsDb rdb = open_results_db(o->db, db::Access::create);
    const db::LoadSummary sum = naming_bad_input("", [&] { return db::load_dump(file, rdb, where); });
    for (const auto& c : sum.conflicts) fmt::print(stderr, "kvmbench: {}\n", c);
    fmt::print("{} runs loaded, {} already there, {} refused: {}\n", sum.added, sum.already_present,
               sum.conflicts.size(), rdb.name());
    if (!sum.conflicts.empty()) throw ExitError(kExitUsage, "");
  });
}

void add_info(CLI::App* db_cmd) {
  auto db = std::make_shared<std::optional<std::string>>();
  auto* cmd = db_cmd->add_subcommand("info", "Runs, samples and machines in the database");
  add_db_option(cmd, *db);
  cmd->callback([db] {
    db::ResultsDb rdb = open_results_db(*db, db::Access::read);
    const auto c = rdb.counts();
    fmt::print("{}: schema version {}, {} runs, {} samples, {} machines\n", rdb.name(),
               db::schema_version(rdb.connection()), c.runs, c.samples, c.machines);
    if (c.machines) fmt::print("\n{:<16}  {:<20}  {:>6}  {:<20}  {}\n", "machine", "host", "runs", "first", "last");
    for (const auto& m : rdb.machines())
      fmt::print("{:<16}  {:<20}  {:>6}  {:<20}  {}\n", m.fingerprint, m.hostname, m.runs, m.first_seen, m.last_seen);
  });
}

}  // namespace

void add_db_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("db", "The results database: import runs, dump and load it, what it holds");
  cmd->footer("Exit status: 0 done; 2 a bad option, input that cannot be read or a database that cannot "
              "be opened; 130 interrupted (what was imported before it is kept and said).");
  cmd->require_subcommand(1);
  add_import(cmd);
  add_dump(cmd);
  add_load(cmd);
  add_info(cmd);
}

}  // namespace kvmbench::cli
