// A run directory whose meta.json or samples.jsonl was written by someone
// else (edited, damaged, made to hurt): a value nested deeper than any
// reader takes (100,000 levels: deep enough to overflow the stack of a
// recursive copy), a key given twice or a NUL byte. Every command that reads a run
// refuses it the same way, naming the file and line (analysis/model/json_input.h),
// with exit 2: report, compare (as base and as candidate), merge, every
// export and db import (which stores nothing of it).
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "analysis/store/run_store.h"
#include "tests/support/run_command.h"

using kvmbench::test_support::run_kvmbench;
using kvmbench::test_support::TempDir;
namespace fs = std::filesystem;

namespace {

const std::string kReference = std::string(KVMBENCH_SOURCE_DIR) + "/results/reference/";

std::string nested(std::size_t levels) { return std::string(levels, '[') + std::string(levels, ']'); }

struct Hostile {
  std::string name;
  std::string file;    // meta.json or samples.jsonl
  std::string where;   // "meta.json:3" (file and line named in the message)
  std::string reason;  // what the message says
};

// A good run (ingested), and copies of it made hostile in one way each.
struct HostileRuns {
  TempDir t;
  fs::path good;
  std::vector<std::pair<Hostile, fs::path>> runs;

  HostileRuns() {
    auto r = run_kvmbench({"ingest", kReference + "make_shared_to_shared.log", "--out", (t.path / "good").string()});
    if (r.exit_code != 0) throw std::runtime_error("ingest failed: " + r.err);
    good = fs::directory_iterator(t.path / "good")->path();
    const std::string meta = kvmbench::read_file(good / "meta.json");
    const std::string samples = kvmbench::read_file(good / "samples.jsonl");
    const std::size_t second_line = samples.find('\n') + 1;
    const std::string deep = "JSON nested more than 100 levels deep";
    // meta.json: `{\n  "inputs": ...`: a member added on line 2.
    make({"meta-deep", "meta.json", "meta.json:2", deep},
         "{\n  \"x\": " + nested(100000) + ",\n" + meta.substr(2), samples);
    // A "suite" on line 2: the run's own, one line further down, is the
    // second.
    const auto own_suite = static_cast<std::size_t>(std::count(meta.begin(), meta.begin() + meta.find("\"suite\""), '\n'));
    make({"meta-twice", "meta.json", fmt::format("meta.json:{}", own_suite + 2), "key \"suite\" given twice"},
         "{\n  \"suite\": \"directmap\",\n" + meta.substr(2), samples);
    // samples.jsonl: its second line, a member added at its start.
    make({"sample-deep", "samples.jsonl", "samples.jsonl:2", deep}, meta,
         samples.substr(0, second_line) + "{\"x\":" + nested(100000) + "," + samples.substr(second_line + 1));
    make({"sample-twice", "samples.jsonl", "samples.jsonl:2", "key \"metric\" given twice"}, meta,
         samples.substr(0, second_line) + "{\"metric\":\"m\"," + samples.substr(second_line + 1));
    // A NUL byte after a whole document: nlohmann ends the input there, so
    // what follows went unread and the run was taken as it was before it.
    const auto meta_lines = static_cast<std::size_t>(std::count(meta.begin(), meta.end(), '\n'));
    make({"meta-nul", "meta.json", fmt::format("meta.json:{}", meta_lines + 1),
          fmt::format("a NUL byte at offset {} (column 1)", meta.size())},
         meta + std::string(1, '\0') + "{\"suite\": \"rmpopt\"}\n", samples);
    const std::size_t third_line = samples.find('\n', second_line) + 1;
    make({"sample-nul", "samples.jsonl", "samples.jsonl:2",
          fmt::format("a NUL byte at offset {0} (column {1})", third_line - 1 - second_line, third_line - second_line)},
         meta, samples.substr(0, third_line - 1) + std::string(1, '\0') + "junk" + samples.substr(third_line - 1));
  }

  void make(const Hostile& h, const std::string& meta, const std::string& samples) {
    const fs::path dir = t.path / h.name / good.filename();
    fs::create_directories(dir.parent_path());
    fs::copy(good, dir, fs::copy_options::recursive);
    kvmbench::write_file_atomic(dir / "meta.json", meta, false);
    kvmbench::write_file_atomic(dir / "samples.jsonl", samples, false);
    runs.emplace_back(h, dir);
  }
};

}  // namespace

TEST(HostileRunFiles, EveryReaderRefusesThemNamingFileAndLine) {
  HostileRuns h;
  ASSERT_EQ(h.runs.size(), 6u);
  for (const auto& [what, dir] : h.runs) {
    SCOPED_TRACE(what.name);
    const std::string d = dir.string(), good = h.good.string();
    const std::string db = (h.t.path / (what.name + ".db")).string();
    const std::vector<std::vector<std::string>> commands = {
        {"report", d},
        {"report", d, "--format", "json"},
        {"compare", good, d},
        {"compare", d, good},
        {"gate", good, d},
        {"merge", good, d},
        {"export", d, "--to", "junit"},
        {"export", d, "--to", "lava"},
        {"export", d, "--to", "kcidb"},
        {"export", d, "--to", "markdown"},
        {"db", "import", d, "--db", db},
    };
    for (const auto& args : commands) {
      SCOPED_TRACE(fmt::format("{}", fmt::join(args, " ")));
      const auto r = run_kvmbench(args);
      EXPECT_EQ(r.signal, 0) << r.err;
      EXPECT_EQ(r.exit_code, 2) << r.err;
      const std::string err = kvmbench::test_support::unwrapped(r.err);
      EXPECT_NE(err.find((dir / what.where).string() + ": " + what.reason), std::string::npos) << err;
    }
    // Nothing of it was stored.
    const auto info = run_kvmbench({"db", "info", "--db", db});
    EXPECT_NE(info.out.find("0 runs, 0 samples"), std::string::npos) << info.out << info.err;
  }
}
