// kvmbench's LAVA job on a real LAVA dispatcher: Debian's lava-dispatcher
// runs lab-jobs/lava/kvmbench-qemu-job.yaml with `lava-run`, as a LAVA
// worker does, on a QEMU device whose configuration is lab-jobs/lava/
// qemu-device.jinja2 rendered with lava-server's device-type templates. The
// device boots the guest kernel of .cache/guest-kernel with a Debian root
// file system built by mmdebstrap (tests/support/lava/rootfs.sh, cached in
// .cache/lava); the test definition fetches the .deb this build makes
// (CPack) from the worker over HTTP, installs it, checks the labels, runs
// rmpopt's host preset and exports it --to lava, and LAVA's test shell
// records the cases. The test reads what the dispatcher recorded (its
// `results` log records, what a LAVA server stores): a case per primary
// metric with its measurement and units, and the job passing; a device
// without a required label failing the job with the labels named; a test
// definition with a renamed option failing it with the option named.
//
// Needs root (lava-run refuses anything else), lava-dispatcher and
// mmdebstrap (scripts/bootstrap.sh), the guest kernel, and the Debian
// archive the first time (the root file system and lava-server's
// templates); it skips with the reason otherwise.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "tests/support/run_command.h"
#include "tests/support/lava_kit.h"

namespace fs = std::filesystem;
using namespace kvmbench::test_support;  // the LAVA kit (lava_kit.h)

namespace {

struct JobOutcome {
  int exit_code = -1;
  double limit_s = 0;  // when the test cancels it
  nlohmann::json results = nlohmann::json::array();  // the `msg` of each results record
  std::string log;                                   // the dispatcher's log, one YAML record a line
  double seconds = 0;

  // The results record of `definition` / `case`, null when there is none.
  nlohmann::json find(const std::string& definition, const std::string& name,
                      const std::string& set = "") const {
    for (const auto& r : results)
      if (r.value("definition", "") == definition && r.value("case", "") == name && r.value("set", "") == set)
        return r;
    return nullptr;
  }
  // What went on in the guest, for a failure's message: the last lines the
  // device printed.
  std::string device_tail(std::size_t lines = 40) const {
    std::vector<std::string> target;
    for (const auto& l : kvmbench::test_support::lines_of(log))
      if (l.find("\"lvl\": \"target\"") != std::string::npos || l.find("\"lvl\": \"error\"") != std::string::npos)
        target.push_back(l);
    std::string out;
    for (std::size_t i = target.size() > lines ? target.size() - lines : 0; i < target.size(); ++i)
      out += target[i].substr(0, 300) + "\n";
    return out;
  }
};

double number(const nlohmann::json& v) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) return std::stod(v.get<std::string>());
  return NAN;
}

LavaKit* kit = nullptr;

// Runs the QEMU job template through lava-run, with the test definition of
// this tree (edited by `edit_testdef`) in a git repository of its own and
// the job edited by `edit_job`.
JobOutcome run_job(const std::string& name, const std::function<std::string(std::string)>& edit_job,
                   const std::function<std::string(std::string)>& edit_testdef, double timeout_s) {
  JobOutcome o;
  const fs::path dir = kit->dir.path / name;
  const fs::path repo = dir / "repo";
  const std::string job = kit_job(*kit, repo, edit_testdef(read_text(lab_job("kvmbench-testdef.yaml"))), name);
  write_text(dir / "job.yaml", edit_job(job));

  auto device = run_command({kPython, lava_support("render_device.py"), lab_job("qemu-device.jinja2"),
                             (dir / "job.yaml").string(), kit->device_types.string()});
  EXPECT_EQ(device.exit_code, 0) << device.err;
  write_text(dir / "device.yaml", device.out);
  // The worker's address for the device (no default route needed), and a
  // prefix that keeps this job's files in /var/lib/lava/dispatcher/tmp
  // apart from another's.
  write_text(dir / "dispatcher.yaml",
             "dispatcher_ip: 127.0.0.1\nprefix: kvmbench-test-" + std::to_string(::getpid()) + "-\n");

  static int jobs = 0;
  const std::string job_id = std::to_string(::getpid() % 100000 * 10 + ++jobs);
  const auto started = std::chrono::steady_clock::now();
  rusage before{}, after{};
  ::getrusage(RUSAGE_CHILDREN, &before);
  // Past its time the job is canceled as a LAVA server cancels one (SIGTERM:
  // lava-run stops QEMU and cleans up), and killed a minute later.
  auto run = run_command({"/usr/bin/lava-run", "--job-id", job_id, "--output-dir", (dir / "out").string(), "--device",
                          (dir / "device.yaml").string(), "--dispatcher", (dir / "dispatcher.yaml").string(),
                          (dir / "job.yaml").string()},
                         timeout_s + 60, "", {}, SIGTERM, timeout_s);
  o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  // CPU time of lava-run and what it waited for (QEMU above all): on a busy
  // machine a better measure of the job's cost than its wall time.
  ::getrusage(RUSAGE_CHILDREN, &after);
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec / 1e6; };
  const double cpu = seconds(after.ru_utime) - seconds(before.ru_utime) + seconds(after.ru_stime) -
                     seconds(before.ru_stime);
  o.exit_code = run.exit_code;
  o.limit_s = timeout_s;
  o.log = run.err + run.out;
  write_text(dir / "lava.log", o.log);
  auto parsed = run_command({kPython, lava_support("job_results.py"), (dir / "lava.log").string()});
  EXPECT_EQ(parsed.exit_code, 0) << parsed.err;
  if (parsed.exit_code == 0) o.results = nlohmann::json::parse(parsed.out);
  std::cout << "lava-run " << name << ": exit " << o.exit_code << " after " << static_cast<int>(o.seconds)
            << " s (CPU " << static_cast<int>(cpu) << " s), " << o.results.size() << " results records\n";
  return o;
}

std::string unchanged(std::string s) { return s; }

// The job template's RUN_ARGS (what its `kvmbench run` adds to the preset).
std::string template_run_args() {
  const std::string job = read_text(lab_job("kvmbench-qemu-job.yaml"));
  const std::string key = "RUN_ARGS: ";
  const auto at = job.find(key);
  EXPECT_NE(at, std::string::npos) << "no RUN_ARGS in the job template";
  if (at == std::string::npos) return "";
  return job.substr(at + key.size(), job.find('\n', at) - at - key.size());
}

// The test cases (outside any test set) that `kvmbench export --to lava`
// writes for a run like the job's, made here on the host: what the
// dispatcher must have recorded, name by name, with their units.
std::map<std::string, std::string> expected_cases(const std::string& run_args) {
  TempDir t;
  std::vector<std::string> run = {KVMBENCH_BINARY, "run", "rmpopt", "--preset", "host", "--out", (t.path / "runs").string()};
  std::istringstream words(run_args);
  for (std::string w; words >> w;) run.push_back(w);
  const std::vector<std::string> env = {kvmbench::test_support::private_state_dir_env()};
  auto r = run_command(run, 120, "", env);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::string> exp = {KVMBENCH_BINARY, "export"};
  for (const auto& e : fs::directory_iterator(t.path / "runs")) exp.push_back(e.path().string());
  exp.insert(exp.end(), {"--to", "lava"});
  auto x = run_command(exp, 60, "", env);
  EXPECT_EQ(x.exit_code, 0) << x.err;
  std::map<std::string, std::string> cases;
  bool in_set = false;
  for (const auto& line : kvmbench::test_support::lines_of(x.out)) {
    if (line.rfind("lava-test-set start", 0) == 0) in_set = true;
    if (line.rfind("lava-test-set stop", 0) == 0) in_set = false;
    if (in_set || line.rfind("lava-test-case '", 0) != 0) continue;
    const auto end = line.find('\'', 16);
    const std::string name = line.substr(16, end - 16);
    const auto u = line.find("--units '");
    cases[name] = u == std::string::npos ? "" : line.substr(u + 9, line.find('\'', u + 9) - u - 9);
  }
  return cases;
}

// A case name without the source part that the export puts after the suite
// for results not measured on hardware (rmpopt.emulated.x -> rmpopt.x).
std::string without_source(const std::string& name, const std::string& source) {
  const auto dot = name.find('.');
  if (dot == std::string::npos || name.compare(dot + 1, source.size() + 1, source + ".") != 0) return name;
  return name.substr(0, dot + 1) + name.substr(dot + 2 + source.size());
}

}  // namespace

class LavaDispatcher : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    kit = new LavaKit;
    make_lava_kit(*kit, {"/usr/bin/lava-run"});
  }
  static void TearDownTestSuite() {
    delete kit;
    kit = nullptr;
  }
  void SetUp() override {
    if (!kit->failure.empty()) FAIL() << kit->failure;
    if (!kit->skip.empty()) GTEST_SKIP() << kit->skip;
  }
};

// The job as the template has it: installed, labels checked, rmpopt's host
// preset run and exported; the dispatcher records a case per primary metric
// with its measurement and units, each with its statistics in a test set,
// and the job passes.
TEST_F(LavaDispatcher, JobRecordsACasePerPrimaryMetric) {
  const auto o = run_job("pass", unchanged, unchanged, 600);
  ASSERT_LT(o.seconds, o.limit_s) << "canceled after " << o.limit_s << " s\n" << o.device_tail();
  EXPECT_EQ(o.exit_code, 0) << o.device_tail();
  const auto job = o.find("lava", "job");
  ASSERT_FALSE(job.is_null()) << o.device_tail();
  EXPECT_EQ(job.value("result", ""), "pass") << job.dump() << "\n" << o.device_tail();
  const auto definition = o.find("lava", "0_kvmbench");
  ASSERT_FALSE(definition.is_null());
  EXPECT_EQ(definition.value("result", ""), "pass") << definition.dump();
  EXPECT_EQ(o.find("0_kvmbench", "labels").value("result", ""), "pass");

  // Inside the TCG guest kvmbench measures nothing of hardware: its cases
  // say `emulated` after the suite.
  std::map<std::string, nlohmann::json> recorded;
  for (const auto& r : o.results)
    if (r.value("definition", "") == "0_kvmbench" && !r.contains("set") && r.value("case", "") != "labels")
      recorded[r.value("case", "")] = r;
  ASSERT_FALSE(recorded.empty()) << o.device_tail();
  for (const auto& [name, r] : recorded) EXPECT_EQ(name.rfind("rmpopt.emulated.", 0), 0u) << name;

  // Exactly the cases an export of the same run writes here, each metric's
  // with its measurement and units and its statistics in its set.
  auto expected = expected_cases(template_run_args());
  const std::string host_source = expected.count("rmpopt.emulated.run-status") ? "emulated" : "";
  std::set<std::string> want, got;
  for (const auto& [name, units] : expected) want.insert(host_source.empty() ? name : without_source(name, host_source));
  for (const auto& [name, r] : recorded) got.insert(without_source(name, "emulated"));
  EXPECT_EQ(got, want);
  // The template's `-r N`: each metric's n (3: with 2 the CI of a time is
  // often none, and the export inconclusive).
  const std::string args = template_run_args();
  const auto r_at = args.find("-r ");
  ASSERT_NE(r_at, std::string::npos) << args;
  const double repetitions = std::stod(args.substr(r_at + 3));
  int metrics = 0;
  for (const auto& [name, r] : recorded) {
    SCOPED_TRACE(name);
    EXPECT_EQ(r.value("result", ""), "pass") << r.dump();
    if (name == "rmpopt.emulated.run-status") continue;
    ++metrics;
    const double measurement = number(r.value("measurement", nlohmann::json()));
    EXPECT_TRUE(std::isfinite(measurement) && measurement > 0) << r.dump();
    const std::string host_name = host_source.empty() ? without_source(name, "emulated") : name;
    EXPECT_EQ(r.value("units", ""), expected[host_name]) << r.dump();
    const auto mean = o.find("0_kvmbench", "mean", name);
    const auto n = o.find("0_kvmbench", "n", name);
    ASSERT_FALSE(mean.is_null() || n.is_null()) << "no statistics set " << name;
    EXPECT_EQ(number(mean.value("measurement", nlohmann::json())), measurement);
    EXPECT_EQ(number(n.value("measurement", nlohmann::json())), repetitions) << "the template's -r";
  }
  EXPECT_GE(metrics, 1);
  // What a LAVA server would show as the job's results.
  std::cout << "dispatcher results: lava/job " << job.value("result", "") << ", lava/0_kvmbench "
            << definition.value("result", "") << ", 0_kvmbench/labels "
            << o.find("0_kvmbench", "labels").value("result", "") << "\n";
  for (const auto& [name, r] : recorded) {
    std::cout << "  0_kvmbench/" << name << " " << r.value("result", "");
    if (r.contains("measurement")) std::cout << " " << r["measurement"].dump() << " " << r.value("units", "");
    std::cout << "\n";
  }
  std::cout << "  (" << metrics << " primary metrics, each with its statistics in a set; " << o.results.size()
            << " results records in all)\n";
}

// A device that lacks a label the job requires: `probe --require` names
// them, lava-test-raise fails the job with that message, and nothing runs.
TEST_F(LavaDispatcher, MissingLabelFailsTheJobNamingIt) {
  const auto o = run_job(
      "missing-label",
      [](std::string job) { return replaced(job, "REQUIRE: emulated", "REQUIRE: emulated kvm-runs-guests sev-snp"); },
      unchanged, 300);
  ASSERT_LT(o.seconds, o.limit_s) << "canceled after " << o.limit_s << " s\n" << o.device_tail();
  EXPECT_EQ(o.exit_code, 1) << o.device_tail();
  const auto job = o.find("lava", "job");
  ASSERT_FALSE(job.is_null()) << o.device_tail();
  EXPECT_EQ(job.value("result", ""), "fail");
  EXPECT_EQ(job.value("error_type", ""), "Test") << job.dump();
  const std::string message = job.value("error_msg", "");
  EXPECT_NE(message.find("missing capability labels: kvm-runs-guests sev-snp"), std::string::npos) << job.dump();
  EXPECT_EQ(o.find("0_kvmbench", "labels").value("result", ""), "fail");
  for (const auto& r : o.results) EXPECT_EQ(r.value("case", "").rfind("rmpopt.", 0), std::string::npos) << r.dump();
}

// A test definition whose `kvmbench run` has an option kvmbench does not
// know (--out renamed --output): the job fails with kvmbench's message,
// which names it.
TEST_F(LavaDispatcher, RenamedOptionFailsTheJobNamingIt) {
  const auto o = run_job(
      "renamed-option", unchanged,
      [](std::string testdef) {
        return replaced(testdef, "--out /var/tmp/kvmbench-runs 2>&1", "--output /var/tmp/kvmbench-runs 2>&1");
      },
      300);
  ASSERT_LT(o.seconds, o.limit_s) << "canceled after " << o.limit_s << " s\n" << o.device_tail();
  EXPECT_EQ(o.exit_code, 1) << o.device_tail();
  const auto job = o.find("lava", "job");
  ASSERT_FALSE(job.is_null()) << o.device_tail();
  EXPECT_EQ(job.value("result", ""), "fail");
  const std::string message = job.value("error_msg", "");
  EXPECT_NE(message.find("kvmbench run exit 2"), std::string::npos) << job.dump();
  EXPECT_NE(message.find("--output"), std::string::npos) << job.dump();
}
