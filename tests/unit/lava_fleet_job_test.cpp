// The job `kvmbench fleet` submits for a device (suites/engine/lava_fleet_job.h).
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include <utility>

#include <fstream>
#include <sstream>

#include "suites/engine/lava_fleet_job.h"

namespace kvmbench::engine {
namespace {

std::string shipped_template() {
  std::ifstream in(std::string(KVMBENCH_SOURCE_DIR) + "/lab-jobs/lava/kvmbench-qemu-job.yaml");
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(LavaFleetJob, TheCommandBecomesTheTestDefinitionsParameters) {
  const auto p = testdef_parameters({"run", "rmpopt", "--preset", "host", "--set", "ram=1G", "-r", "3"});
  EXPECT_EQ(p.at("SUITE"), "rmpopt");
  EXPECT_EQ(p.at("PRESET"), "host");
  EXPECT_EQ(p.at("RUN_ARGS"), "--set ram=1G -r 3");
  EXPECT_EQ(testdef_parameters({"run", "asid", "--preset=lab"}).at("PRESET"), "lab");
  EXPECT_EQ(testdef_parameters({"run", "asid"}).count("PRESET"), 0u);  // the template's stays
}

TEST(LavaFleetJob, WhatTheTestDefinitionCannotCarryIsRefused) {
  EXPECT_THROW(testdef_parameters({}), std::invalid_argument);
  EXPECT_THROW(testdef_parameters({"compare", "a", "b"}), std::invalid_argument);
  EXPECT_THROW(testdef_parameters({"run"}), std::invalid_argument);
  EXPECT_THROW(testdef_parameters({"run", "--preset", "host"}), std::invalid_argument);
  EXPECT_THROW(testdef_parameters({"run", "rmpopt", "--preset"}), std::invalid_argument);
  EXPECT_THROW(testdef_parameters({"run", "rmpopt", "--out", "x"}), std::invalid_argument);
  EXPECT_THROW(testdef_parameters({"run", "rmpopt", "--replay=x"}), std::invalid_argument);
  EXPECT_THROW(testdef_parameters({"run", "rmpopt", "--set", "layouts=a b"}), std::invalid_argument);
  EXPECT_THROW(testdef_parameters({"run", "rmpopt", "--set", "x=$(reboot)"}), std::invalid_argument);
}

TEST(LavaFleetJob, ATemplateWithoutTheKvmbenchDefinitionIsRefused) {
  EXPECT_THROW(parse_fleet_job_template("device_type: qemu\nactions: []\n", "j.yaml"), std::invalid_argument);
  EXPECT_THROW(parse_fleet_job_template("actions: []\n", "j.yaml"), std::invalid_argument);
  EXPECT_THROW(parse_fleet_job_template("device_type: [qemu\n", "j.yaml"), std::invalid_argument);
  EXPECT_THROW(parse_fleet_job_template("- a list\n", "j.yaml"), std::invalid_argument);
  try {
    parse_fleet_job_template("device_type: qemu\nactions:\n- test:\n    definitions:\n    - name: other\n", "j.yaml");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("j.yaml: no test action runs the kvmbench test definition"), std::string::npos)
        << e.what();
  }
}

TEST(LavaFleetJob, TheShippedTemplateGetsTheLabelsAndParameters) {
  const auto t = parse_fleet_job_template(shipped_template(), "kvmbench-qemu-job.yaml");
  EXPECT_EQ(t.device_type, "qemu");
  const std::string job = render_fleet_job(t, {"emulated", "kvmbench-a"}, "kvmbench fleet: run asid (1 of 2)",
                                           {{"SUITE", "asid"}, {"RUN_ARGS", "-r 2"}, {"REQUIRE", "emulated"}});
  const YAML::Node j = YAML::Load(job);
  EXPECT_EQ(j["job_name"].as<std::string>(), "kvmbench fleet: run asid (1 of 2)");
  ASSERT_EQ(j["tags"].size(), 2u);
  EXPECT_EQ(j["tags"][0].as<std::string>(), "emulated");
  EXPECT_EQ(j["tags"][1].as<std::string>(), "kvmbench-a");
  EXPECT_EQ(j["device_type"].as<std::string>(), "qemu");
  YAML::Node params;
  for (const auto& action : j["actions"])
    if (action["test"]) params = action["test"]["definitions"][0]["parameters"];
  ASSERT_TRUE(params.IsMap());
  EXPECT_EQ(params["SUITE"].as<std::string>(), "asid");
  EXPECT_EQ(params["RUN_ARGS"].as<std::string>(), "-r 2");
  EXPECT_EQ(params["REQUIRE"].as<std::string>(), "emulated");
  // What the command does not set stays as the template has it.
  EXPECT_EQ(params["PRESET"].as<std::string>(), "host");
  EXPECT_NE(params["DEB_URL"].as<std::string>().find(".deb"), std::string::npos);
}

TEST(LavaFleetJob, AbTakesTwoKernelUrlsAndTheVerdictsOptions) {
  const auto c = parse_fleet_command({"ab", "--base", "file:///k/base", "--cand", "https://ci/cand", "-n", "2",
                                      "--max-regression", "20", "--", "run", "rmpopt", "-r", "2"});
  ASSERT_TRUE(c.ab);
  EXPECT_EQ(c.ab->base_kernel, "file:///k/base");
  EXPECT_EQ(c.ab->cand_kernel, "https://ci/cand");
  EXPECT_EQ(c.ab->n, 2);
  EXPECT_EQ(c.ab->max_regression_pct, 20);
  EXPECT_EQ(c.parameters.at("SUITE"), "rmpopt");
  EXPECT_EQ(c.parameters.at("RUN_ARGS"), "-r 2");
  EXPECT_FALSE(parse_fleet_command({"run", "rmpopt"}).ab);
}

TEST(LavaFleetJob, AbRefusesWhatLavaCannotDo) {
  const std::vector<std::string> run = {"--", "run", "rmpopt"};
  auto ab = [&](std::vector<std::string> opts) {
    opts.insert(opts.begin(), "ab");
    opts.insert(opts.end(), run.begin(), run.end());
    return opts;
  };
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {ab({"--base", "file:///a", "--cand", "file:///b", "-n", "auto"}), "-n auto through LAVA"},
      {ab({"--base", "file:///a", "--cand", "file:///b", "--cand-append", "kvm_amd.npt=0"}), "owns the kernel command line"},
      {ab({"--base", "running", "--cand", "file:///b"}), "give --base and --cand as URLs"},
      {ab({"--base", "file:///a", "--cand", "file:///b", "-n", "1"}), "from 2 to 50"},
      {ab({"--base", "file:///a", "--cand", "file:///b", "--order", "random"}), "ab --order through LAVA"},
      {ab({"--base", "file:///a", "--cand", "file:///b", "--base-modules", "file:///m"}), "go together"},
      {{"ab", "--base", "file:///a", "--cand", "file:///b"}, "without `-- run SUITE"},
      {ab({"--base", "file:///a", "--cand", "file:///b", "--alpha", "x"}), "not a number"},
  };
  for (const auto& [command, says] : cases) {
    try {
      parse_fleet_command(command);
      ADD_FAILURE() << "accepted: " << says;
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(says), std::string::npos) << e.what();
    }
  }
}

// The A/B job of the QEMU template: its deploy, boot and test once per
// boot in ABBA order (n = 2: base cand cand base), each deploy with its
// side's kernel, each test told its step, the job's timeout four times the
// template's 30 minutes.
TEST(LavaFleetJob, TheAbJobBootsEachSideInAbbaOrder) {
  const auto t = parse_fleet_job_template(shipped_template(), "kvmbench-qemu-job.yaml");
  FleetAb ab;
  ab.base_kernel = "file:///kernels/base";
  ab.cand_kernel = "file:///kernels/cand";
  ab.n = 2;
  const YAML::Node j = YAML::Load(render_fleet_ab_job(t, {"emulated"}, "ab", {{"SUITE", "rmpopt"}}, ab));
  std::vector<std::string> kinds, kernels, steps, names;
  for (const auto& action : j["actions"]) {
    for (const auto& kv : action) kinds.push_back(kv.first.as<std::string>());
    if (action["deploy"]) kernels.push_back(action["deploy"]["images"]["kernel"]["url"].as<std::string>());
    if (action["test"]) {
      const auto p = action["test"]["definitions"][0]["parameters"];
      steps.push_back(p["FLEET_STEP"].as<std::string>());
      names.push_back(action["test"]["definitions"][0]["name"].as<std::string>());
      EXPECT_EQ(p["SUITE"].as<std::string>(), "rmpopt");
    }
  }
  EXPECT_EQ(kinds, (std::vector<std::string>{"deploy", "boot", "test", "deploy", "boot", "test", "deploy", "boot",
                                             "test", "deploy", "boot", "test"}));
  EXPECT_EQ(kernels, (std::vector<std::string>{"file:///kernels/base", "file:///kernels/cand", "file:///kernels/cand",
                                               "file:///kernels/base"}));
  EXPECT_EQ(steps, (std::vector<std::string>{"1 base", "2 cand", "3 cand", "4 base"}));
  // LAVA refuses a job whose test definition names repeat.
  EXPECT_EQ(names, (std::vector<std::string>{"kvmbench-1-base", "kvmbench-2-cand", "kvmbench-3-cand",
                                             "kvmbench-4-base"}));
  EXPECT_EQ(j["timeouts"]["job"]["minutes"].as<int>(), 120);
  // The ramdisk (the root file system) is the template's in every deploy.
  EXPECT_EQ(j["actions"][9]["deploy"]["images"]["ramdisk"]["url"].as<std::string>(),
            j["actions"][0]["deploy"]["images"]["ramdisk"]["url"].as<std::string>());
}

// The x86 template deploys modules with its kernel (tftp): they change
// with the kernel, or the job is refused.
TEST(LavaFleetJob, AKernelsModulesChangeWithIt) {
  std::ifstream in(std::string(KVMBENCH_SOURCE_DIR) + "/lab-jobs/lava/kvmbench-job.yaml");
  std::ostringstream text;
  text << in.rdbuf();
  const auto t = parse_fleet_job_template(text.str(), "kvmbench-job.yaml");
  FleetAb ab;
  ab.base_kernel = "https://ci/base/bzImage";
  ab.cand_kernel = "https://ci/cand/bzImage";
  ab.n = 2;
  EXPECT_THROW(render_fleet_ab_job(t, {"sev-snp"}, "ab", {}, ab), std::invalid_argument);
  ab.base_modules = "https://ci/base/modules.tar.xz";
  ab.cand_modules = "https://ci/cand/modules.tar.xz";
  const YAML::Node j = YAML::Load(render_fleet_ab_job(t, {"sev-snp"}, "ab", {}, ab));
  EXPECT_EQ(j["actions"][3]["deploy"]["kernel"]["url"].as<std::string>(), "https://ci/cand/bzImage");
  EXPECT_EQ(j["actions"][3]["deploy"]["modules"]["url"].as<std::string>(), "https://ci/cand/modules.tar.xz");
  EXPECT_EQ(j["actions"][9]["deploy"]["modules"]["url"].as<std::string>(), "https://ci/base/modules.tar.xz");
  EXPECT_EQ(j["timeouts"]["job"]["minutes"].as<int>(), 720);  // 3 hours x 4 boots
}

// A template that deploys no kernel by URL gives ab nothing to replace.
TEST(LavaFleetJob, AbNeedsATemplateThatDeploysAKernel) {
  const std::string yaml =
      "device_type: qemu\nactions:\n- deploy:\n    to: tmpfs\n    images:\n      rootfs:\n        url: file:///r\n"
      "- test:\n    definitions:\n    - name: kvmbench\n      path: lab-jobs/lava/kvmbench-testdef.yaml\n";
  FleetAb ab;
  ab.base_kernel = "file:///a";
  ab.cand_kernel = "file:///b";
  EXPECT_THROW(render_fleet_ab_job(parse_fleet_job_template(yaml, "j.yaml"), {"x"}, "ab", {}, ab),
               std::invalid_argument);
}

}  // namespace
}  // namespace kvmbench::engine
