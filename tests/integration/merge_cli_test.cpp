// kvmbench merge through the real binary: runs of the three made-up lab
// machines (tests/support/synthetic_lab.h) in one table, one row per
// machine named by its fingerprint; an interrupted run counted and left out
// of the values; bad input (no runs, a truncated meta.json) exit 2.
#include <gtest/gtest.h>

#include <fstream>

#include <nlohmann/json.hpp>

#include "analysis/store/run_store.h"
#include "tests/support/run_command.h"
#include "tests/support/synthetic_lab.h"

using kvmbench::test_support::run_kvmbench;
using kvmbench::test_support::TempDir;
using kvmbench::test_support::occurrences;
using kvmbench::test_support::unwrapped;
namespace fs = std::filesystem;

namespace {

const fs::path kHosts = fs::path(KVMBENCH_TEST_DATA) / "hosts";

}  // namespace

TEST(MergeCli, OneRowPerMachineWithItsRunsAsTheUnits) {
  TempDir t;
  const auto lab = kvmbench::test_support::write_synthetic_year(t.path / "runs", kHosts, 3);
  ASSERT_EQ(lab.runs.size(), 9u);
  // One run of lab-plain-1 interrupted: counted, no value.
  fs::path interrupted;
  for (const auto& r : lab.runs)
    if (r.filename().string().find("lab-plain-1") != std::string::npos) interrupted = r;
  ASSERT_FALSE(interrupted.empty());
  auto meta = nlohmann::json::parse(kvmbench::read_file(interrupted / "meta.json"));
  meta["status"] = "interrupted";
  std::ofstream(interrupted / "meta.json") << meta.dump();

  auto r = run_kvmbench({"merge", (t.path / "runs").string(), "--format", "csv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(occurrences(r.out, "lab-snp-1"), 1u) << r.out;
  EXPECT_EQ(occurrences(r.out, "lab-tdx-1"), 1u) << r.out;
  EXPECT_EQ(occurrences(r.out, "lab-plain-1"), 1u) << r.out;
  EXPECT_NE(r.out.find(",3,"), std::string::npos) << r.out;    // three complete runs a machine
  EXPECT_NE(r.out.find(",2+1,"), std::string::npos) << r.out;  // lab-plain-1: 2 complete, 1 other
  EXPECT_NE(r.out.find("(n=3)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(n=2)"), std::string::npos) << r.out;

  // Text: the machines by fingerprint (16 hex digits), the notes.
  auto text = run_kvmbench({"merge", (t.path / "runs").string()});
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("# directmap / host: 3 machines"), std::string::npos) << text.out;
  EXPECT_NE(unwrapped(text.out).find("n counts its runs"), std::string::npos) << text.out;
  EXPECT_NE(unwrapped(text.out).find("only complete runs give values"), std::string::npos) << text.out;

  // A single run: its repetitions are the units, and the note says what that leaves out.
  auto one = run_kvmbench({"merge", lab.runs.front().string()});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_NE(one.out.find("(n=5)"), std::string::npos) << one.out;
  EXPECT_NE(unwrapped(one.out).find("the noise between runs is not in its CI"), std::string::npos) << one.out;
}

TEST(MergeCli, BadInputIsExit2WithTheReason) {
  TempDir t;
  fs::create_directories(t.path / "empty");
  auto empty = run_kvmbench({"merge", (t.path / "empty").string()});
  EXPECT_EQ(empty.exit_code, 2);
  EXPECT_NE(empty.err.find("no run directories"), std::string::npos) << empty.err;
  EXPECT_EQ(empty.out, "");

  auto absent = run_kvmbench({"merge", (t.path / "absent").string()});
  EXPECT_EQ(absent.exit_code, 2);
  EXPECT_NE(absent.err.find("not a directory"), std::string::npos) << absent.err;

  const auto lab = kvmbench::test_support::write_synthetic_year(t.path / "runs", kHosts, 1);
  // An emptied samples.jsonl (meta.json still counts its samples) is no run with nothing measured.
  std::ofstream(lab.runs.front() / "samples.jsonl", std::ios::trunc).close();
  auto emptied = run_kvmbench({"merge", (t.path / "runs").string()});
  EXPECT_EQ(emptied.exit_code, 2);
  EXPECT_NE(emptied.err.find("samples"), std::string::npos) << emptied.err;
  EXPECT_EQ(emptied.out, "");
  std::ofstream(lab.runs.back() / "meta.json") << "{\"suite\": \"directmap\", \"host\": {";
  auto cut = run_kvmbench({"merge", (t.path / "runs").string()});
  EXPECT_EQ(cut.exit_code, 2);
  EXPECT_NE(cut.err.find("meta.json"), std::string::npos) << cut.err;
  EXPECT_EQ(cut.out, "") << "no table that leaves a machine out without a word";
}
