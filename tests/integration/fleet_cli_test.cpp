// `kvmbench fleet` through the real binary, before anything reaches a
// device: options, an unreachable server, an answer that is not LAVA's, no
// device with the labels, and the job each matching device would get
// (--dry-run). The server here serves recorded answers of LAVA 2023.01's
// REST API as files (busybox httpd); the real server, its scheduler and a
// device running the job are tests/integration/lava_server_test.cpp's.
#include <gtest/gtest.h>

#include "tests/support/run_command.h"
#include "tests/support/static_http_server.h"

namespace {

namespace fs = std::filesystem;
using kvmbench::test_support::free_port;
using kvmbench::test_support::HttpServer;
using kvmbench::test_support::run_kvmbench;
using kvmbench::test_support::TempDir;
using kvmbench::test_support::write_text;

const std::string kToken = "9f1c2e-never-printed-token";
const std::string kJob = std::string(KVMBENCH_SOURCE_DIR) + "/lab-jobs/lava/kvmbench-qemu-job.yaml";

// Three devices as LAVA 2023.01's /api/v0.2/devices/ lists them (tags by
// id, their names under /api/v0.2/tags/): one with both labels, one
// without, one retired with them.
const char* kDevices = R"({"count": 3, "next": null, "previous": null, "results": [
 {"hostname": "qemu-01", "device_type": "qemu", "tags": [1, 2], "health": "Good", "state": "Idle", "worker_host": "worker-1", "is_synced": true},
 {"hostname": "qemu-02", "device_type": "qemu", "tags": [3], "health": "Good", "state": "Idle", "worker_host": "worker-1", "is_synced": true},
 {"hostname": "qemu-03", "device_type": "qemu", "tags": [2, 1], "health": "Retired", "state": "Idle", "worker_host": "worker-1", "is_synced": true}]})";
const char* kTags = R"({"count": 3, "next": null, "previous": null, "results": [
 {"id": 1, "name": "emulated", "description": null}, {"id": 2, "name": "kvmbench-a", "description": null},
 {"id": 3, "name": "kvmbench-b", "description": null}]})";

struct RecordedServer {
  TempDir dir;
  std::unique_ptr<HttpServer> http;
  std::string url;
  std::string token_file;
  RecordedServer(bool lava = true) {
    const fs::path www = dir.path / "www";
    fs::create_directories(www);
    if (lava) {
      fs::create_directories(www / "api/v0.2/system/version");
      fs::create_directories(www / "api/v0.2/devices");
      fs::create_directories(www / "api/v0.2/tags");
      write_text(www / "api/v0.2/tags/index.html", kTags);
      write_text(www / "api/v0.2/system/version/index.html", R"({"version": "2023.01"})");
      write_text(www / "api/v0.2/devices/index.html", kDevices);
    } else {
      write_text(www / "index.html", "<html><body>It works!</body></html>");
    }
    http = std::make_unique<HttpServer>(www);
    url = "http://127.0.0.1:" + std::to_string(http->port()) + "/";
    token_file = (dir.path / "token").string();
    write_text(token_file, kToken + "\n");
  }
};

std::vector<std::string> fleet(const std::string& url, const std::string& token_file, std::vector<std::string> more) {
  std::vector<std::string> args = {"fleet", "--labels", "emulated,kvmbench-a", "--server", url, "--token-file",
                                   token_file, "--job", kJob};
  args.insert(args.end(), more.begin(), more.end());
  return args;
}

void expect_no_token(const kvmbench::test_support::CommandResult& r) {
  EXPECT_EQ(r.out.find(kToken), std::string::npos) << r.out;
  EXPECT_EQ(r.err.find(kToken), std::string::npos) << r.err;
}

TEST(FleetCli, DryRunGivesEachMatchingDeviceItsJob) {
  RecordedServer s;
  ASSERT_TRUE(s.http->up());
  const auto r = run_kvmbench(fleet(s.url, s.token_file, {"--dry-run", "--param", "DEB_URL=http://10.0.2.2/k.deb",
                                                          "--", "run", "rmpopt", "--preset", "host", "-r", "3"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_no_token(r);
  // qemu-01 only: qemu-02 lacks the labels, qemu-03 is retired (and said so).
  EXPECT_NE(r.out.find("# the job for qemu-01"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("qemu-02"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("# the job for qemu-03"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("not used: qemu-03 (health Retired)"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("tags:\n  - emulated\n  - kvmbench-a"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("SUITE: rmpopt"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("RUN_ARGS: -r 3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("REQUIRE: emulated kvmbench-a"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("DEB_URL: http://10.0.2.2/k.deb"), std::string::npos) << r.out;
}

// fleet -- ab: the job each device would get boots base and candidate in
// ABBA order, each boot's test told its step.
TEST(FleetCli, DryRunOfAbShowsTheAbbaBoots) {
  RecordedServer s;
  const auto r = run_kvmbench(fleet(s.url, s.token_file,
                                    {"--dry-run", "--", "ab", "--base", "https://ci/base/bzImage", "--cand",
                                     "https://ci/cand/bzImage", "-n", "2", "--", "run", "rmpopt", "-r", "2"}));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string job = r.out.substr(r.out.find("# the job for qemu-01"));
  std::size_t at = 0;
  std::vector<std::string> kernels;
  while ((at = job.find("bzImage", at)) != std::string::npos) {
    kernels.push_back(job.substr(job.rfind("https://ci/", at), at - job.rfind("https://ci/", at)));
    ++at;
  }
  EXPECT_EQ(kernels, (std::vector<std::string>{"https://ci/base/", "https://ci/cand/", "https://ci/cand/",
                                               "https://ci/base/"}))
      << job;
  for (const char* step : {"FLEET_STEP: 1 base", "FLEET_STEP: 2 cand", "FLEET_STEP: 3 cand", "FLEET_STEP: 4 base"})
    EXPECT_NE(job.find(step), std::string::npos) << step << "\n" << job;
  const auto refused = run_kvmbench(fleet(s.url, s.token_file,
                                          {"--", "ab", "--base", "https://a", "--cand", "https://b", "--cand-append",
                                           "kvm_amd.npt=0", "--", "run", "rmpopt"}));
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_NE(refused.err.find("owns the kernel command line"), std::string::npos) << refused.err;
  EXPECT_EQ(refused.err.find("LAVA 2023.01"), std::string::npos) << "asked the server first: " << refused.err;
}

TEST(FleetCli, NoDeviceWithTheLabelsIsExit2) {
  RecordedServer s;
  auto args = fleet(s.url, s.token_file, {"--", "run", "rmpopt"});
  args[2] = "kvmbench-c";
  const auto r = run_kvmbench(args);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("no qemu device of " + s.url + " has the tags kvmbench-c"), std::string::npos) << r.err;
  expect_no_token(r);
}

TEST(FleetCli, AnUnreachableServerOrOneThatIsNotLavaIsExit2) {
  TempDir dir;
  write_text(dir.path / "token", kToken);
  const auto r = run_kvmbench(fleet("http://127.0.0.1:" + std::to_string(free_port()) + "/", (dir.path / "token").string(),
                                    {"--", "run", "rmpopt"}));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("cannot reach the LAVA server"), std::string::npos) << r.err;
  expect_no_token(r);

  RecordedServer not_lava(false);
  const auto n = run_kvmbench(fleet(not_lava.url, not_lava.token_file, {"--", "run", "rmpopt"}));
  EXPECT_EQ(n.exit_code, 2) << n.err;
  EXPECT_NE(n.err.find("HTTP 404"), std::string::npos) << n.err;
  expect_no_token(n);
}

TEST(FleetCli, BadOptionsAreRefusedBeforeTheServerIsAsked) {
  RecordedServer s;
  struct Case {
    std::vector<std::string> more;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"--", "compare", "a", "b"}, "`compare` after `--`"},
      {{}, "no command after `--`"},
      {{"--", "run", "rmpopt", "--out", "x"}, "--out after `--`"},
      {{"--", "run", "rmpopt", "--set", "layouts=a b"}, "cannot hold white space"},
      {{"--param", "NOEQUALS", "--", "run", "rmpopt"}, "--param NOEQUALS: not KEY=VALUE"},
  };
  for (const auto& c : cases) {
    const auto r = run_kvmbench(fleet(s.url, s.token_file, c.more));
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find(c.says), std::string::npos) << r.err;
    EXPECT_EQ(r.err.find("LAVA 2023.01"), std::string::npos) << "asked the server first: " << r.err;
  }
  auto missing_token = fleet(s.url, (s.dir.path / "absent").string(), {"--", "run", "rmpopt"});
  auto r = run_kvmbench(missing_token);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--token-file"), std::string::npos) << r.err;
  write_text(s.dir.path / "two-words", "a b\n");
  r = run_kvmbench(fleet(s.url, (s.dir.path / "two-words").string(), {"--", "run", "rmpopt"}));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("not one API token"), std::string::npos) << r.err;
  write_text(s.dir.path / "job.yaml", "device_type: qemu\nactions: []\n");
  auto bad_job = fleet(s.url, s.token_file, {"--", "run", "rmpopt"});
  bad_job[8] = (s.dir.path / "job.yaml").string();
  r = run_kvmbench(bad_job);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no test action runs the kvmbench test definition"), std::string::npos) << r.err;
}

}  // namespace
