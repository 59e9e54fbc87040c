// The job templates of lab-jobs/ (its README): every kvmbench command line
// in them goes through the real binary's parser (KVMBENCH_PARSE_ONLY=1, in a
// shell whose PATH holds nothing but kvmbench, so no other command of a
// template runs here), so that a renamed option or subcommand fails this
// test; the labels they ask their engines for are labels `probe --labels`
// prints; the LAVA files validate with LAVA's own schemas (Debian's
// lava-common); the GitLab, GitHub and Jenkins files hold the structure
// their engines need (no validator of theirs is packaged in Debian:
// tests/support/ci_template_structure.py says what is checked); the
// Jenkinsfile's Groovy syntax is checked only where a Groovy is installed.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "tests/support/run_command.h"

using kvmbench::test_support::read_text;
using kvmbench::test_support::run_command;
using kvmbench::test_support::TempDir;
using kvmbench::test_support::write_text;

namespace {

const std::string kSource = KVMBENCH_SOURCE_DIR;
// Debian's Python: lava-common and python3-yaml are its packages.
const std::string kPython = "/usr/bin/python3";

std::string support(const std::string& script) { return kSource + "/tests/support/" + script; }
std::string lab_job(const std::string& file) { return kSource + "/lab-jobs/" + file; }

// Why the helper scripts cannot run here, or "".
std::string python_missing() {
  if (::access(kPython.c_str(), X_OK) != 0) return kPython + " missing";
  auto r = run_command({kPython, "-c", "import yaml"});
  return r.exit_code == 0 ? "" : "python3-yaml missing (scripts/bootstrap.sh: lava-common depends on it)";
}

struct TemplateSteps {
  std::vector<std::string> steps;
  std::map<std::string, std::string> vars;
  std::vector<std::string> labels;
};

TemplateSteps steps_of(const std::string& file) {
  auto r = run_command({kPython, support("job_template_steps.py"), lab_job(file)});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  TemplateSteps t;
  if (r.exit_code != 0) return t;
  const auto j = nlohmann::json::parse(r.out);
  t.steps = j.at("steps").get<std::vector<std::string>>();
  t.vars = j.at("vars").get<std::map<std::string, std::string>>();
  t.labels = j.at("labels").get<std::vector<std::string>>();
  return t;
}

// Whether a step runs kvmbench (not: names kvmbench.deb or a .git URL), or
// with `command` "kvmbench run ", that command (not: quotes it in a message).
bool runs_kvmbench(const std::string& step, const std::string& command = "kvmbench ") {
  for (std::size_t at = step.find(command); at != std::string::npos; at = step.find(command, at + 1)) {
    const bool word_start = at == 0 || std::string(" \t;&|({").find(step[at - 1]) != std::string::npos;
    if (word_start) return true;
  }
  return false;
}

// A CI workspace stand-in: bin/kvmbench runs the real binary parse-only and
// logs each invocation's exit status; runs/ holds one (empty) run directory
// so that `test -d runs` and `runs/*` read as after a run.
class ParseOnlyShell {
 public:
  ParseOnlyShell() {
    std::filesystem::create_directories(t_.path / "bin");
    std::filesystem::create_directories(t_.path / "runs/rmpopt-20260101T000000Z-lab1");
    const auto wrapper = t_.path / "bin/kvmbench";
    const std::string real = KVMBENCH_BINARY;
    const std::string errors = (t_.path / "parse-errors").string();
    const std::string log = (t_.path / "invocations").string();
    write_text(wrapper, "#!/bin/sh\n"
                        "KVMBENCH_PARSE_ONLY=1 '" + real + "' \"$@\" >/dev/null 2>>'" + errors + "'\n"
                        "rc=$?\n"
                        "echo \"$rc kvmbench $*\" >> '" + log + "'\n"
                        "exit $rc\n");
    ::chmod(wrapper.c_str(), 0755);
  }

  // "" when `step` ran kvmbench at least once and every invocation parsed;
  // else what went wrong.
  std::string check(const std::string& step, std::map<std::string, std::string> vars) {
    std::filesystem::remove(t_.path / "invocations");
    std::filesystem::remove(t_.path / "parse-errors");
    // The secrets a lab sets (a database URL, GitHub's summary file).
    vars["KVMBENCH_DB"] = "postgresql://ci@db.invalid/kvmbench";
    vars["GITHUB_STEP_SUMMARY"] = (t_.path / "summary.md").string();
    std::vector<std::string> env = {"PATH=" + (t_.path / "bin").string()};
    for (const auto& [k, v] : vars) env.push_back(k + "=" + v);
    run_command({"/bin/sh", "-c", "cd '" + t_.path.string() + "' || exit 99\n" + step}, 30, "", env);
    const std::string log = read_text(t_.path / "invocations");
    if (log.empty()) return "no kvmbench command ran in: " + step;
    std::istringstream lines(log);
    std::string line, failed;
    while (std::getline(lines, line))
      if (line.rfind("0 ", 0) != 0) failed += "\n  exit " + line;
    if (failed.empty()) return "";
    return "in: " + step + failed + "\n" + read_text(t_.path / "parse-errors");
  }

 private:
  TempDir t_;
};

}  // namespace

TEST(JobTemplates, EveryKvmbenchLineParses) {
  if (auto why = python_missing(); !why.empty()) GTEST_SKIP() << why;
  ParseOnlyShell shell;
  for (const char* file : {"lava/kvmbench-testdef.yaml", "gitlab-ci.yml", "Jenkinsfile", "github-self-hosted.yml"}) {
    SCOPED_TRACE(file);
    const auto t = steps_of(file);
    int checked = 0;
    for (const auto& step : t.steps) {
      if (!runs_kvmbench(step)) continue;
      EXPECT_EQ(shell.check(step, t.vars), "");
      ++checked;
    }
    // probe --labels, probe --require, run, and export or gate at least.
    EXPECT_GE(checked, 4);
  }
}

// A job that lands on a machine where another kvmbench run measures waits
// for it: `run` exits 75 (busy) without --wait-lock, which no engine may
// take for "this machine cannot" (GitLab's allowed exit codes: 77 only,
// checked by ci_template_structure.py).
TEST(JobTemplates, EveryRunWaitsForTheRunLock) {
  if (auto why = python_missing(); !why.empty()) GTEST_SKIP() << why;
  for (const char* file : {"lava/kvmbench-testdef.yaml", "gitlab-ci.yml", "Jenkinsfile", "github-self-hosted.yml"}) {
    SCOPED_TRACE(file);
    int runs = 0;
    for (const auto& step : steps_of(file).steps) {
      if (!runs_kvmbench(step, "kvmbench run ")) continue;
      EXPECT_NE(step.find(" --wait-lock"), std::string::npos) << step;
      ++runs;
    }
    EXPECT_EQ(runs, 1);
  }
}

// The check is not a formality: a renamed option, a missing argument and a
// line whose kvmbench never runs each fail it.
TEST(JobTemplates, TheCheckCatchesARenamedOption) {
  ParseOnlyShell shell;
  EXPECT_EQ(shell.check("kvmbench export runs/* --to lava --out x", {}), "");
  EXPECT_NE(shell.check("kvmbench export runs/* --to lava --output x", {}).find("--output"), std::string::npos);
  EXPECT_NE(shell.check("kvmbench gate --baseline-db db runs/*", {}), "");
  EXPECT_NE(shell.check("kvmbench export runs/*", {}).find("--to is required"), std::string::npos);
  EXPECT_NE(shell.check("kvmbench probe --require", {}), "");
  EXPECT_NE(shell.check("kvmbench rn rmpopt", {}), "");
  EXPECT_NE(shell.check("test -d nowhere && kvmbench probe --labels", {}).find("no kvmbench command ran"),
            std::string::npos);
}

// The labels the templates ask their engines for are ones the probe
// prints: those of the SNP host description the unit tests use.
TEST(JobTemplates, LabelsAreOnesTheProbePrints) {
  if (auto why = python_missing(); !why.empty()) GTEST_SKIP() << why;
  auto r = run_command({KVMBENCH_BINARY, "probe", "--labels", "--host", kSource + "/tests/data/hosts/snp.json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::set<std::string> names;
  std::istringstream lines(r.out);
  for (std::string l; std::getline(lines, l);) names.insert(l.substr(0, l.find('=')));
  for (const char* file : {"lava/kvmbench-job.yaml", "gitlab-ci.yml", "Jenkinsfile", "github-self-hosted.yml"}) {
    SCOPED_TRACE(file);
    const auto t = steps_of(file);
    EXPECT_FALSE(t.labels.empty());
    for (const auto& l : t.labels) EXPECT_TRUE(names.count(l.substr(0, l.find('=')))) << l << " is not a label";
  }
}

TEST(JobTemplates, LavaFilesValidateWithLava) {
  if (auto why = python_missing(); !why.empty()) GTEST_SKIP() << why;
  auto job = run_command({kPython, support("lava_validate.py"), "job", lab_job("lava/kvmbench-job.yaml"), kSource});
  if (job.exit_code == 77) GTEST_SKIP() << job.out;
  EXPECT_EQ(job.exit_code, 0) << job.out << job.err;
  // The QEMU device's job (tests/integration/lava_dispatcher_test.cpp runs it).
  job = run_command({kPython, support("lava_validate.py"), "job", lab_job("lava/kvmbench-qemu-job.yaml"), kSource});
  EXPECT_EQ(job.exit_code, 0) << job.out << job.err;
  auto testdef = run_command({kPython, support("lava_validate.py"), "testdef", lab_job("lava/kvmbench-testdef.yaml")});
  EXPECT_EQ(testdef.exit_code, 0) << testdef.out << testdef.err;

  // LAVA's schema rejects what LAVA would: a kernel type it does not know,
  // a test definition without its format line, a parameter the test
  // definition does not declare.
  TempDir t;
  std::string text = read_text(lab_job("lava/kvmbench-job.yaml"));
  const auto at = text.find("type: zimage");
  ASSERT_NE(at, std::string::npos);
  write_text(t.path / "bad-job.yaml", std::string(text).replace(at, 12, "type: bzimage"));
  auto bad = run_command({kPython, support("lava_validate.py"), "job", (t.path / "bad-job.yaml").string(), kSource});
  EXPECT_EQ(bad.exit_code, 1) << bad.out;
  EXPECT_NE(bad.out.find("type"), std::string::npos) << bad.out;
  const auto param = text.find("PRESET: host");
  ASSERT_NE(param, std::string::npos);
  write_text(t.path / "bad-param.yaml", std::string(text).replace(param, 12, "PRESETS: host"));
  bad = run_command({kPython, support("lava_validate.py"), "job", (t.path / "bad-param.yaml").string(), kSource});
  EXPECT_EQ(bad.exit_code, 1) << bad.out;
  EXPECT_NE(bad.out.find("PRESETS"), std::string::npos) << bad.out;
  text = read_text(lab_job("lava/kvmbench-testdef.yaml"));
  const auto format = text.find("format: Lava-Test Test Definition 1.0");
  ASSERT_NE(format, std::string::npos);
  write_text(t.path / "bad-testdef.yaml", std::string(text).replace(format, 37, "format: Lava-Test 2.0"));
  bad = run_command({kPython, support("lava_validate.py"), "testdef", (t.path / "bad-testdef.yaml").string()});
  EXPECT_EQ(bad.exit_code, 1) << bad.out;
}

TEST(JobTemplates, CiFilesHoldTheirEnginesStructure) {
  if (auto why = python_missing(); !why.empty()) GTEST_SKIP() << why;
  for (const auto& [kind, file] : std::vector<std::pair<std::string, std::string>>{
           {"gitlab", "gitlab-ci.yml"}, {"github", "github-self-hosted.yml"}, {"jenkins", "Jenkinsfile"}}) {
    auto r = run_command({kPython, support("ci_template_structure.py"), kind, lab_job(file)});
    EXPECT_EQ(r.exit_code, 0) << kind << ": " << r.out << r.err;
  }
  // And it fails where the engine would: the pre-check's exit 77 not
  // allowed, a busy run lock's 75 allowed, a brace lost.
  TempDir t;
  std::string gitlab = read_text(lab_job("gitlab-ci.yml"));
  const auto at = gitlab.find("    - 77");
  ASSERT_NE(at, std::string::npos);
  write_text(t.path / "gitlab-ci.yml", gitlab.replace(at, 8, "    - 78"));
  auto r = run_command({kPython, support("ci_template_structure.py"), "gitlab", (t.path / "gitlab-ci.yml").string()});
  EXPECT_EQ(r.exit_code, 1) << r.out;
  // Exit 75 (busy) allowed would skip a collided run unseen.
  gitlab = read_text(lab_job("gitlab-ci.yml"));
  write_text(t.path / "gitlab-ci.yml", gitlab.replace(gitlab.find("    - 77"), 8, "    - 77\n    - 75"));
  r = run_command({kPython, support("ci_template_structure.py"), "gitlab", (t.path / "gitlab-ci.yml").string()});
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("75"), std::string::npos) << r.out;
  std::string jenkins = read_text(lab_job("Jenkinsfile"));
  write_text(t.path / "Jenkinsfile", jenkins.substr(0, jenkins.rfind('}')));
  r = run_command({kPython, support("ci_template_structure.py"), "jenkins", (t.path / "Jenkinsfile").string()});
  EXPECT_EQ(r.exit_code, 1) << r.out;
}

// Groovy's own parser, where one is installed (Debian's groovy needs a
// Java runtime, some 200 MB: not in scripts/bootstrap.sh). Parsing checks
// the Groovy syntax, not Jenkins's declarative rules.
TEST(JobTemplates, JenkinsfileParsesAsGroovy) {
  if (::access("/usr/bin/groovy", X_OK) != 0)
    GTEST_SKIP() << "no Groovy parser (Debian's groovy package and a JRE): the Jenkinsfile's Groovy syntax is not "
                    "checked, only its structure (CiFilesHoldTheirEnginesStructure)";
  // groovy's launcher looks for /usr/lib/jvm/default-java (default-jre);
  // a JRE installed under another name is given to it as JAVA_HOME.
  std::vector<std::string> env;
  std::error_code ec;
  if (!std::getenv("JAVA_HOME") && !std::filesystem::exists("/usr/lib/jvm/default-java/bin/java", ec))
    for (const auto& jvm : std::filesystem::directory_iterator("/usr/lib/jvm", ec))
      if (std::filesystem::exists(jvm.path() / "bin/java", ec)) {
        env = {"JAVA_HOME=" + jvm.path().string()};
        break;
      }
  const std::string parse = "new GroovyShell().parse(new File(args[0]))";
  auto r = run_command({"/usr/bin/groovy", "-e", parse, lab_job("Jenkinsfile")}, 120, "", env);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  TempDir t;
  std::string jenkins = read_text(lab_job("Jenkinsfile"));
  write_text(t.path / "Jenkinsfile", jenkins.substr(0, jenkins.rfind('}')));
  r = run_command({"/usr/bin/groovy", "-e", parse, (t.path / "Jenkinsfile").string()}, 120, "", env);
  EXPECT_NE(r.exit_code, 0) << "a lost brace parsed";
}
