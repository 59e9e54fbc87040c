#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/run_command.h"

using kvmbench::test_support::run_kvmbench;

TEST(Probe, JsonHasTheContractKeysAndExitsZero) {
  auto r = run_kvmbench({"probe", "--json"}, 60);
  ASSERT_FALSE(r.timed_out) << "probe hung";
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  for (auto* path : {"/kvm/present", "/kvm/runs_guests", "/kvm/reason", "/kvm/guest_memfd_flags", "/cpu/vendor",
                     "/cpu/features", "/memory/total_bytes", "/memory/directmap", "/numa/nodes", "/tsc_hz",
                     "/qemu/version", "/qemu/accels"})
    EXPECT_TRUE(j.contains(nlohmann::json::json_pointer(path))) << path;
  EXPECT_TRUE(j["cpu"]["features"].is_array());
  EXPECT_TRUE(j["qemu"]["accels"].is_array());
  EXPECT_TRUE(j["numa"]["nodes"].is_array());
  EXPECT_GE(j["numa"]["nodes"].size(), 1u);
  EXPECT_GT(j["memory"]["total_bytes"].get<double>(), 0);
  EXPECT_TRUE(j["kvm"]["reason"].is_string());
  EXPECT_FALSE(j["kvm"]["reason"].get<std::string>().empty());
  // When KVM cannot run a guest the probe must say why, not just "no".
  if (j["kvm"]["runs_guests"] == false) { EXPECT_NE(j["kvm"]["reason"], "ok"); }
}

TEST(Probe, TextFitsIn80ColumnsAndExplainsKvm) {
  auto r = run_kvmbench({"probe"}, 60);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::size_t pos = 0;
  while (pos < r.out.size()) {
    auto eol = r.out.find('\n', pos);
    if (eol == std::string::npos) eol = r.out.size();
    EXPECT_LE(eol - pos, 80u) << r.out.substr(pos, eol - pos);
    EXPECT_EQ(r.out.substr(pos, eol - pos).find('\t'), std::string::npos);
    pos = eol + 1;
  }
  EXPECT_NE(r.out.find("KVM"), std::string::npos);
  EXPECT_NE(r.out.find("why:"), std::string::npos);
  EXPECT_NE(r.out.find("source: hardware"), std::string::npos);
}
