// The job `kvmbench fleet` submits for a device (suites/engine/lava_fleet_job.h).
#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

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

}  // namespace
}  // namespace kvmbench::engine
