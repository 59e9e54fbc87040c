// `kvmbench export RUN... --to ...` through the real binary: JUnit checked
// with xmllint against the Jenkins JUnit schema (tests/data/junit/), KCIDB
// checked with Debian's jsonschema (python3-jsonschema, the validator
// kcidb-io itself uses) against KCIDB's v5.0 schema (tests/data/kcidb/),
// and the exit codes: 0, 1 for a failed run, 3 inconclusive, 2 bad input.
#include <gtest/gtest.h>
#include <unistd.h>

#include "tests/support/export_runs.h"
#include "tests/support/run_command.h"

using kvmbench::test_support::read_text;
using kvmbench::test_support::run_command;
using kvmbench::test_support::run_kvmbench;
using kvmbench::test_support::TempDir;
using kvmbench::test_support::write_export_run;
using kvmbench::test_support::write_text;

namespace {

const std::string kData = KVMBENCH_TEST_DATA;
std::vector<std::string> env() { return {kvmbench::test_support::private_state_dir_env()}; }

}  // namespace

TEST(ExportCli, JunitValidatesAgainstTheJenkinsSchema) {
  if (::access("/usr/bin/xmllint", X_OK) != 0) GTEST_SKIP() << "xmllint missing (libxml2-utils; scripts/bootstrap.sh)";
  TempDir t;
  const auto ok = write_export_run(t.path, "ok");
  const auto failed = write_export_run(t.path, "failed", "failed");
  const auto out = t.path / "junit.xml";
  auto r = run_kvmbench({"export", ok.string(), failed.string(), "--to", "junit", "--out", out.string()}, 30, "",
                        env());
  EXPECT_EQ(r.exit_code, 1) << r.err;  // a failed run among them
  auto v = run_command({"/usr/bin/xmllint", "--noout", "--schema", kData + "/junit/junit-10.xsd", out.string()});
  EXPECT_EQ(v.exit_code, 0) << v.err << read_text(out);
  // The gate's JUnit is the same writer's: it validates too.
  const auto gate_xml = t.path / "gate.xml";
  run_kvmbench({"gate", ok.string(), ok.string(), "--junit", gate_xml.string()}, 30, "", env());
  auto g = run_command({"/usr/bin/xmllint", "--noout", "--schema", kData + "/junit/junit-10.xsd", gate_xml.string()});
  EXPECT_EQ(g.exit_code, 0) << g.err << read_text(gate_xml);
  // And a report that breaks the schema is refused: the check can fail.
  write_text(t.path / "bad.xml", "<testsuites skipped=\"1\"><testsuite name=\"x\"/></testsuites>");
  auto bad = run_command({"/usr/bin/xmllint", "--noout", "--schema", kData + "/junit/junit-10.xsd",
                          (t.path / "bad.xml").string()});
  EXPECT_NE(bad.exit_code, 0);
}

TEST(ExportCli, KcidbValidatesAgainstTheKcidbSchema) {
  if (::access("/usr/bin/jsonschema", X_OK) != 0)
    GTEST_SKIP() << "jsonschema missing (python3-jsonschema; scripts/bootstrap.sh)";
  TempDir t;
  const auto ok = write_export_run(t.path, "ok");
  const auto one = write_export_run(t.path, "one", "complete", 1);
  const auto out = t.path / "kcidb.json";
  auto r = run_kvmbench({"export", ok.string(), one.string(), "--to", "kcidb", "--origin", "lab_7", "--out",
                         out.string()}, 30, "", env());
  EXPECT_EQ(r.exit_code, 3) << r.err;  // one repetition: inconclusive
  const std::string schema = kData + "/kcidb/kcidb.v5.0.schema.json";
  auto v = run_command({"/usr/bin/jsonschema", "--instance", out.string(), schema});
  EXPECT_EQ(v.exit_code, 0) << v.out << v.err << read_text(out);
  // A test path KCIDB does not allow is refused: the check can fail.
  auto doc = nlohmann::json::parse(read_text(out));
  doc["tests"][0]["path"] = "not a path";
  write_text(t.path / "bad.json", doc.dump());
  auto bad = run_command({"/usr/bin/jsonschema", "--instance", (t.path / "bad.json").string(), schema});
  EXPECT_NE(bad.exit_code, 0);
}

TEST(ExportCli, LavaAndMarkdownToStdout) {
  TempDir t;
  const auto ok = write_export_run(t.path, "ok");
  auto lava = run_kvmbench({"export", ok.string(), "--to", "lava"}, 30, "", env());
  EXPECT_EQ(lava.exit_code, 0) << lava.err;
  EXPECT_NE(lava.out.find("lava-test-case 'rmpopt.ram_64G.layout_last.emulated_sweep_wall' --result pass "
                          "--measurement 10.2 --units 'ms'"),
            std::string::npos)
      << lava.out;
  auto md = run_kvmbench({"export", ok.string(), "--to", "markdown"}, 30, "", env());
  EXPECT_EQ(md.exit_code, 0) << md.err;
  EXPECT_EQ(md.out.rfind("kvmbench export: 1 run, ok", 0), 0u) << md.out;
  auto interrupted = run_kvmbench({"export", write_export_run(t.path, "int", "interrupted").string(), "--to",
                                   "markdown"}, 30, "", env());
  EXPECT_EQ(interrupted.exit_code, 3);
  EXPECT_NE(interrupted.err.find("inconclusive"), std::string::npos) << interrupted.err;
}

TEST(ExportCli, BadInputIsExit2WithNothingWritten) {
  TempDir t;
  const auto ok = write_export_run(t.path, "ok");
  const auto cut = write_export_run(t.path, "cut");
  write_text(cut / "meta.json", "{\"suite\": \"rmpopt\", \"sta");
  const auto emptied = write_export_run(t.path, "emptied");
  auto emptied_meta = nlohmann::json::parse(read_text(emptied / "meta.json"));
  emptied_meta["n_samples"] = 12;  // what a finished run records; the file then lost them
  write_text(emptied / "meta.json", emptied_meta.dump(2));
  write_text(emptied / "samples.jsonl", "");
  const auto out = t.path / "out.xml";
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"export", (t.path / "absent").string(), "--to", "junit", "--out", out.string()},
           {"export", ok.string(), cut.string(), "--to", "junit", "--out", out.string()},
           {"export", ok.string(), emptied.string(), "--to", "junit", "--out", out.string()},
           {"export", ok.string(), "--to", "xunit", "--out", out.string()},
           {"export", ok.string(), "--to", "kcidb", "--origin", "Not-An-Origin", "--out", out.string()}}) {
    auto r = run_kvmbench(args, 30, "", env());
    EXPECT_EQ(r.exit_code, 2) << args[1] << " " << args[3] << "\n" << r.err;
    EXPECT_FALSE(r.err.empty());
    EXPECT_FALSE(std::filesystem::exists(out));
  }
}
