// One error policy, through the real binary (suites/framework/errors.h): bad
// input (a file that cannot be read or parsed) is exit 2 with a message
// that names the file; a bug in kvmbench is exit 70 and says it is one, so
// that a lab engine never reads a bug as a wrong command line.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/support/run_command.h"

using namespace kvmbench::test_support;
namespace fs = std::filesystem;

namespace {

const std::string kData = std::string(KVMBENCH_TEST_DATA) + "/ingest/";

TEST(ErrorPolicy, ABugIsExit70AndSaysSo) {
  // A std::logic_error thrown where a reader reads a file (the hidden
  // `test-error`): not turned into bad input on its way out.
  auto r = run_kvmbench({"test-error", "bug"});
  EXPECT_EQ(r.exit_code, 70) << r.err;
  EXPECT_NE(r.err.find("kvmbench: internal error (a bug in kvmbench; please report it with this line): test-error: "
                       "an invariant that does not hold"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("test-error.txt"), std::string::npos) << r.err;
}

TEST(ErrorPolicy, BadInputIsExit2NamingTheFile) {
  auto r = run_kvmbench({"test-error", "bad-input"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err, "kvmbench: test-error.txt: line 3: not a number\n");
}

TEST(ErrorPolicy, CompareOfAMalformedRunIsExit2NamingItsFile) {
  TempDir tmp;
  const fs::path base = tmp.path / "base", cand = tmp.path / "cand";
  write_text(base / "meta.json", "{\"suite\": \"rmpopt\", \"source\": ");  // cut short
  write_text(base / "samples.jsonl", "");
  fs::create_directories(cand);
  auto r = run_kvmbench({"compare", base.string(), cand.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find((base / "meta.json").string()), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");
}

TEST(ErrorPolicy, CompareOfACutGoogleBenchmarkFileIsExit2NamingIt) {
  const std::string cut = kData + "gbench_truncated.json";
  auto r = run_kvmbench({"compare", cut, kData + "gbench_repetitions.json"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err.rfind("kvmbench: " + cut, 0), 0u) << r.err;
  EXPECT_EQ(r.out, "");
}

}  // namespace
