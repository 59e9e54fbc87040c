// A NUL byte in a JSON file someone else wrote: nlohmann's lexer takes it
// for the end of the input, so the document ended there and what followed
// went unread, with exit 0. Every reader parses through
// analysis/model/json_input.h, which refuses it with the byte's offset:
// exit 2, the file named. (Run directories: hostile_run_files_test.cpp.)
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "analysis/store/run_store.h"
#include "tests/support/run_command.h"

using kvmbench::test_support::private_state_dir_env;
using kvmbench::test_support::run_kvmbench;
using kvmbench::test_support::TempDir;
namespace fs = std::filesystem;

namespace {

// `text` with a NUL byte and a second document after it.
std::string with_nul_after(const std::string& text) { return text + std::string(1, '\0') + "{\"x\": 1}\n"; }

}  // namespace

TEST(JsonNulByteCli, EveryReaderRefusesItWithTheOffset) {
  TempDir t;
  const fs::path data = KVMBENCH_TEST_DATA;
  const std::string host = kvmbench::read_file(data / "hosts" / "snp.json");
  kvmbench::test_support::write_text(t.path / "host.json", with_nul_after(host));
  const std::string gbench = kvmbench::read_file(data / "gbench" / "one_sample_base.json");
  kvmbench::test_support::write_text(t.path / "bench.json", with_nul_after(gbench));
  // A dump of a database of one run, a NUL byte after its last line.
  ASSERT_EQ(run_kvmbench({"ingest", std::string(KVMBENCH_SOURCE_DIR) + "/results/reference/make_shared_to_shared.log",
                          "--out", (t.path / "runs").string()})
                .exit_code,
            0);
  const std::string db = (t.path / "one.db").string();
  ASSERT_EQ(run_kvmbench({"db", "import", (t.path / "runs").string(), "--db", db}).exit_code, 0);
  ASSERT_EQ(run_kvmbench({"db", "dump", (t.path / "one.jsonl").string(), "--db", db}).exit_code, 0);
  const std::string dump = kvmbench::read_file(t.path / "one.jsonl");
  kvmbench::test_support::write_text(t.path / "one.jsonl", with_nul_after(dump));
  fs::create_directories(t.path / "ab");
  kvmbench::test_support::write_text(t.path / "ab" / "state.json",
                                     with_nul_after(kvmbench::read_file(data / "ab" / "leaving-for-step-1.json")));
  struct Case {
    std::vector<std::string> args;
    std::string file;
    std::size_t offset;
  };
  const std::vector<Case> cases = {
      {{"run", "all", "--dry-run", "--host", (t.path / "host.json").string()}, "host.json", host.size()},
      {{"compare", (data / "gbench" / "one_sample_base.json").string(), (t.path / "bench.json").string()}, "bench.json",
       gbench.size()},
      {{"db", "load", (t.path / "one.jsonl").string(), "--db", (t.path / "two.db").string()}, "one.jsonl", 0},
      {{"ab", "--status", "--state", (t.path / "ab").string()}, "state.json",
       kvmbench::read_file(data / "ab" / "leaving-for-step-1.json").size()},
  };
  for (const auto& c : cases) {
    const auto r = run_kvmbench(c.args, 120, "", {private_state_dir_env()});
    EXPECT_EQ(r.exit_code, 2) << c.file << "\n" << r.out << r.err;
    const std::string err = kvmbench::test_support::unwrapped(r.err);
    EXPECT_NE(err.find(c.file), std::string::npos) << err;
    EXPECT_NE(err.find("a NUL byte at offset " + std::to_string(c.offset)), std::string::npos) << err;
  }
  EXPECT_FALSE(fs::exists(t.path / "two.db")) << "a dump refused loads nothing";
}
