// A member of another type than kvmbench writes, in a --host file or a
// run's meta.json, and a path whose bytes are not UTF-8: each reached the
// user as the JSON library's own message ("[json.exception.type_error.302]
// type must be string, but is number"), naming no file and no member.
// Each is now bad input naming both, or (the path) shown with U+FFFD.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/store/run_store.h"
#include "tests/support/export_runs.h"
#include "tests/support/run_command.h"

using kvmbench::test_support::private_state_dir_env;
using kvmbench::test_support::run_kvmbench;
using kvmbench::test_support::TempDir;
namespace fs = std::filesystem;

TEST(JsonTypeErrorsCli, AHostFileMemberOfAnotherTypeIsNamed) {
  TempDir t;
  const nlohmann::json snp = nlohmann::json::parse(kvmbench::read_file(fs::path(KVMBENCH_TEST_DATA) / "hosts" / "snp.json"));
  struct Case {
    const char* member;
    nlohmann::json::json_pointer at;
    nlohmann::json value;
    std::string says;
  };
  for (const auto& c : std::vector<Case>{
           {"hostname", nlohmann::json::json_pointer("/hostname"), 5, "\"hostname\" is number where a string belongs"},
           {"kvm_modules", nlohmann::json::json_pointer("/kvm_modules"), "kvm_amd",
            "\"kvm_modules\" is string where an object belongs"},
           {"page_kb", nlohmann::json::json_pointer("/hugepages/0/page_kb"), "2048",
            "\"hugepages\"[0].\"page_kb\" is string where a number belongs"},
           {"ram_end_from", nlohmann::json::json_pointer("/memory/ram_end_from"), nullptr,
            "\"memory\".\"ram_end_from\" is null where a string belongs"}}) {
    SCOPED_TRACE(c.member);
    nlohmann::json host = snp;
    host[c.at] = c.value;
    const fs::path file = t.path / (std::string(c.member) + ".json");
    kvmbench::test_support::write_text(file, host.dump(2));
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"run", "all", "--dry-run", "--host", file.string()},
          std::vector<std::string>{"probe", "--host", file.string()},
          std::vector<std::string>{"probe", "--host", file.string(), "--labels"}}) {
      const auto r = run_kvmbench(args, 60, "", {private_state_dir_env()});
      EXPECT_EQ(r.exit_code, 2) << args[0] << ": " << r.err;
      EXPECT_NE(r.err.find("--host " + file.string() + ": " + c.says), std::string::npos) << r.err;
      EXPECT_EQ(r.err.find("json.exception"), std::string::npos) << r.err;
    }
  }
}

TEST(JsonTypeErrorsCli, ANullWhereARunHoldsTextIsNamed) {
  TempDir t;
  for (const char* member : {"status", "suite"}) {
    SCOPED_TRACE(member);
    const fs::path run = kvmbench::test_support::write_export_run(t.path / member, "rmpopt-20260102T030405.000001Z-lab-7");
    nlohmann::json meta = kvmbench::test_support::export_run_meta("complete");
    meta[member] = nullptr;
    kvmbench::test_support::write_text(run / "meta.json", meta.dump(2));
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"report", run.string()}, std::vector<std::string>{"compare", run.string(), run.string()},
          std::vector<std::string>{"export", run.string(), "--to", "kcidb"},
          std::vector<std::string>{"merge", run.string()}}) {
      const auto r = run_kvmbench(args);
      EXPECT_EQ(r.exit_code, 2) << args[0] << ": " << r.err;
      EXPECT_NE(r.err.find((run / "meta.json").string() + ": \"" + member + "\" is null where a string belongs"),
                std::string::npos)
          << r.err;
      EXPECT_EQ(r.err.find("json.exception"), std::string::npos) << r.err;
    }
  }
}

TEST(JsonTypeErrorsCli, APathThatIsNotUtf8IsShownNotRefused) {
  TempDir t;
  const fs::path run =
      kvmbench::test_support::write_export_run(t.path / "lab-\xff\xfe", "rmpopt-20260102T030405.000001Z-lab-7");
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"report", run.string(), "--format", "json"},
        std::vector<std::string>{"report", run.string(), "--format", "text"}}) {
    const auto r = run_kvmbench(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.err.find("json.exception"), std::string::npos) << r.err;
  }
  const auto r = run_kvmbench({"report", run.string(), "--format", "json"});
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_NE(j["run"].get<std::string>().find("lab-\xef\xbf\xbd\xef\xbf\xbd"), std::string::npos) << r.out;
}
