// `kvmbench fleet` against a real LAVA server: Debian's lava-server and
// lava-dispatcher (2023.01) started on this machine by
// tests/support/lava/server.sh (PostgreSQL of its own, gunicorn, the
// scheduler, the publisher, a worker with two QEMU devices: kvmbench-qemu-01
// tagged kvmbench-a and emulated, kvmbench-qemu-02 tagged kvmbench-b). fleet
// submits kvmbench's QEMU job (lab-jobs/lava, pointed at this build's .deb,
// the guest kernel and a Debian root file system as the dispatcher's test
// does) through the REST API; LAVA's scheduler picks the device by its tags,
// the worker boots it under TCG, the test definition installs the .deb, runs
// rmpopt's host preset and publishes the run in the job's log; fleet reads
// it back through the API, keeps it, imports it and prints one report.
//
// Needs root, lava-server, lava-dispatcher, mmdebstrap (scripts/bootstrap.sh
// lava-server), the guest kernel and the Debian archive the first time; it
// skips with the reason otherwise.
#include <gtest/gtest.h>

#include <regex>
#include <thread>

#include "tests/support/lava_kit.h"

namespace {

using namespace kvmbench::test_support;


struct Server {
  std::string skip, failure;
  LavaKit kit;
  TempDir state;
  std::string url, token_file;
  fs::path job;  // the job template fleet is given
  bool started = false;
};

Server* server = nullptr;

void start_server(Server& s) {
  make_lava_kit(s.kit, {"/usr/bin/lava-server", "/usr/bin/lava-worker", "/usr/bin/lava-run"});
  if (!s.kit.skip.empty() || !s.kit.failure.empty()) {
    s.skip = s.kit.skip;
    s.failure = s.kit.failure;
    return;
  }
  const auto r = run_command({"/bin/sh", lava_support("server.sh"), "start", (s.state.path / "server").string()}, 900);
  if (r.exit_code == 77) {
    s.skip = "a LAVA server cannot run here: " + r.err;
    return;
  }
  s.started = true;
  if (r.exit_code != 0) {
    s.failure = "server.sh start: exit " + std::to_string(r.exit_code) + "\n" + r.out + r.err;
    return;
  }
  for (const auto& line : lines_of(r.out)) {
    if (line.rfind("url=", 0) == 0) s.url = line.substr(4);
    if (line.rfind("token_file=", 0) == 0) s.token_file = line.substr(11);
  }
  if (s.url.empty() || s.token_file.empty()) {
    s.failure = "server.sh start printed no url= or token_file=: " + r.out;
    return;
  }
  s.job = s.state.path / "job.yaml";
  write_text(s.job, kit_job(s.kit, s.state.path / "repo", read_text(lab_job("kvmbench-testdef.yaml")), "fleet"));
}

// What the server's API says at `path` (JSON), asked with the token as
// fleet asks, through Python's urllib (LAVA's own language, on the worker).
std::string api_get(const std::string& path) {
  const std::string token = read_text(server->token_file);
  const std::string script =
      "import sys, urllib.request\n"
      "r = urllib.request.Request(sys.argv[1], headers={'Authorization': 'Token ' + sys.argv[2].strip()})\n"
      "print(urllib.request.urlopen(r, timeout=30).read().decode())\n";
  const auto r = run_command({"/usr/bin/python3", "-c", script, server->url + "/api/v0.2/" + path, token});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

std::vector<std::string> fleet_args(const std::string& labels, const std::string& token_file,
                                    const fs::path& out) {
  return {"fleet",        "--labels", labels, "--server", server->url, "--token-file", token_file,
          "--job",        server->job.string(), "--out", out.string(), "--db", (out / "results.db").string(),
          "--poll",       "2", "--timeout", "1500"};
}

}  // namespace

class LavaServer : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    server = new Server;
    start_server(*server);
  }
  static void TearDownTestSuite() {
    if (server->started) run_command({"/bin/sh", lava_support("server.sh"), "stop", (server->state.path / "server").string()}, 120);
    delete server;
    server = nullptr;
  }
  void SetUp() override {
    if (!server->failure.empty()) FAIL() << server->failure;
    if (!server->skip.empty()) GTEST_SKIP() << server->skip;
  }
};

// The whole way: the job goes to the device with the labels, never to the
// other; the run comes back through the API, is kept, imported and reported
// with its machine; the token is never printed.
TEST_F(LavaServer, FleetRunsOnTheLabelledDeviceOnlyAndReportsOnce) {
  TempDir out;
  auto args = fleet_args("emulated", server->token_file, out.path / "runs");
  for (const char* a : {"--", "run", "rmpopt", "--preset", "host", "--set", "ram=1G", "--set", "layouts=random:4", "-r", "3"})
    args.push_back(a);
  const auto r = run_kvmbench(args, 1800);
  std::cout << r.out << r.err;
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const std::string token = read_text(server->token_file);
  EXPECT_EQ((r.out + r.err).find(token.substr(0, token.find_first_of(" \n"))), std::string::npos) << "the token was printed";

  // The report: one job on kvmbench-qemu-01, Complete, one run; the run's
  // table with its machine; the progress lines on stderr.
  EXPECT_NE(r.out.find("fleet: 1 device with the labels emulated on"), std::string::npos) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(kvmbench-qemu-01 +\d+ +Complete +1 )"))) << r.out;
  EXPECT_NE(r.out.find("# rmpopt / host: 1 machine"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("submitted for kvmbench-qemu-01"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Finished, Complete"), std::string::npos) << r.err;

  // The run is kept whole (it reads back as a run) and is in the database.
  const auto dirs = std::vector<fs::directory_entry>(fs::directory_iterator(out.path / "runs"), {});
  std::size_t runs = 0;
  for (const auto& d : dirs)
    if (fs::exists(d.path() / "meta.json")) {
      ++runs;
      const auto rep = run_kvmbench({"report", d.path().string()});
      EXPECT_EQ(rep.exit_code, 0) << rep.err;
      EXPECT_NE(rep.out.find("emulated"), std::string::npos) << rep.out;
    }
  EXPECT_EQ(runs, 1u);
  const auto info = run_kvmbench({"db", "info", "--db", (out.path / "runs/results.db").string()});
  EXPECT_EQ(info.exit_code, 0) << info.err;
  EXPECT_NE(info.out.find("1 run"), std::string::npos) << info.out;

  // The scheduler gave the device without the labels no job.
  const std::string other = api_get("jobs/?actual_device=kvmbench-qemu-02&format=json");
  EXPECT_NE(other.find("\"count\":0"), std::string::npos) << other;
}

TEST_F(LavaServer, ARefusedTokenOrNoDeviceWithTheLabelsSubmitsNothing) {
  TempDir out;
  write_text(out.path / "wrong-token", "0123456789abcdef0123456789abcdef\n");
  auto bad = fleet_args("emulated", (out.path / "wrong-token").string(), out.path / "runs");
  for (const char* a : {"--", "run", "rmpopt"}) bad.push_back(a);
  auto r = run_kvmbench(bad, 120);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("refused the token"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("0123456789abcdef"), std::string::npos) << r.err;

  auto none = fleet_args("kvmbench-c", server->token_file, out.path / "runs");
  for (const char* a : {"--", "run", "rmpopt"}) none.push_back(a);
  r = run_kvmbench(none, 120);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("has the tags kvmbench-c"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out.path / "runs")) << "a refused fleet wrote its --out";
}

// A job that fails on its device (the booted kernel lacks a label the job
// requires: the test definition's `probe --require` stops it with
// lava-test-raise): exit 1, the device's reason in the report, nothing kept.
TEST_F(LavaServer, AFailedJobIsExit1WithTheDevicesReason) {
  TempDir out;
  auto args = fleet_args("emulated", server->token_file, out.path / "runs");
  for (const char* a : {"--param", "REQUIRE=kvm-runs-guests", "--", "run", "rmpopt", "--preset", "host"})
    args.push_back(a);
  const auto r = run_kvmbench(args, 1200);
  std::cout << r.out << r.err;
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(kvmbench-qemu-01 +\d+ +Incomplete +0 )"))) << r.out;
  EXPECT_NE(unwrapped(r.out).find("kvm-runs-guests"), std::string::npos) << r.out;
  EXPECT_NE(unwrapped(r.out).find("(the job: " + server->url + "/scheduler/job/"), std::string::npos) << r.out;
  std::size_t runs = 0;
  std::error_code ec;
  for (const auto& d : fs::directory_iterator(out.path / "runs", ec)) runs += fs::exists(d.path() / "meta.json");
  EXPECT_EQ(runs, 0u);
}

// A fleet that runs out of --timeout, and one interrupted with Ctrl-C:
// the submitted job is cancelled on the server (not left to run on a lab
// machine nobody waits for), what the report says is why, and the exit
// codes are 1 and 130.
TEST_F(LavaServer, TimeoutAndCtrlCCancelTheJobs) {
  TempDir out;
  auto args = fleet_args("emulated", server->token_file, out.path / "runs");
  args[args.size() - 1] = "3";  // --timeout 3: the job cannot have booted
  for (const char* a : {"--", "run", "rmpopt", "--preset", "host"}) args.push_back(a);
  auto r = run_kvmbench(args, 300);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(unwrapped(r.out).find("not finished after 3 s (--timeout): the job was cancelled"), std::string::npos)
      << r.out;
  const auto job = [](const std::string& err) {
    std::smatch m;
    return std::regex_search(err, m, std::regex(R"(job (\d+) submitted)")) ? m[1].str() : std::string();
  };
  const std::string timed_out = job(r.err);
  ASSERT_FALSE(timed_out.empty()) << r.err;

  args[args.size() - 6] = "1500";
  r = run_kvmbench(args, 300, "", {}, SIGINT, 8);
  EXPECT_EQ(r.exit_code, 130) << r.out << r.err;
  EXPECT_NE(r.err.find("interrupted"), std::string::npos) << r.err;
  const std::string interrupted = job(r.err);
  ASSERT_FALSE(interrupted.empty()) << r.err;

  // Both end Canceled on the server (LAVA takes a moment to stop a job
  // that already runs on its device).
  for (const std::string& id : {timed_out, interrupted}) {
    std::string health;
    for (int i = 0; i < 60 && health != "Canceled"; ++i) {
      const std::string j = api_get("jobs/" + id + "/?format=json");
      std::smatch m;
      if (std::regex_search(j, m, std::regex(R"re("health":\s*"(\w+)")re"))) health = m[1].str();
      if (health != "Canceled") std::this_thread::sleep_for(std::chrono::seconds(2));
    }
    EXPECT_EQ(health, "Canceled") << "job " << id;
  }
}

// fleet -- ab: one LAVA job per device boots base and candidate in the ABBA
// order (here the same kernel on both sides, n = 2: four boots), each boot
// publishes its run with its step, and the report gives the device's
// verdict with the boot as the unit, as `kvmbench ab` would. An A/A pair
// may come out either way on a busy host (a false alarm is 1 in 20 at the
// gate's alpha): the test is about the boots and where their runs go.
TEST_F(LavaServer, AbBootsEachSideInOneJobAndGivesTheVerdict) {
  TempDir out;
  auto args = fleet_args("emulated", server->token_file, out.path / "runs");
  const std::string kernel = "file://" + server->kit.kernel.string();
  for (const std::string a : {"--", "ab", "--base", kernel.c_str(), "--cand", kernel.c_str(), "-n", "2", "--", "run",
                              "rmpopt", "--preset", "host", "--set", "ram=1G", "--set", "layouts=random:4", "-r", "2"})
    args.push_back(a);
  const auto r = run_kvmbench(args, 2400);
  std::cout << r.out << r.err;
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1 || r.exit_code == 3) << r.out << r.err;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(kvmbench-qemu-01 +\d+ +Complete +4 )"))) << r.out;
  EXPECT_NE(r.out.find("# Verdicts (the boot as the unit)"), std::string::npos) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(kvmbench-qemu-01 +2/2 +)"))) << r.out;
  EXPECT_NE(r.out.find("kvmbench-qemu-01: base cand cand base"), std::string::npos) << r.out;
  std::size_t runs = 0;
  std::error_code ec;
  for (const auto& d : fs::directory_iterator(out.path / "runs", ec)) runs += fs::exists(d.path() / "meta.json");
  EXPECT_EQ(runs, 4u);
}
