// The host description's members kvmbench's readers use, checked for the
// type the probe writes them with (analysis/model/host_meta_types.h).
#include "analysis/model/host_meta_types.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>

#include "analysis/model/json_input.h"
#include "analysis/store/run_store.h"

using namespace kvmbench;
namespace fs = std::filesystem;

TEST(HostMetaTypes, EveryHostFileOfTheTestsPasses) {
  int seen = 0;
  for (const auto& e : fs::directory_iterator(fs::path(KVMBENCH_TEST_DATA) / "hosts")) {
    EXPECT_EQ(host_meta_type_problem(parse_json_input(read_file(e.path()))), std::nullopt) << e.path();
    ++seen;
  }
  EXPECT_GE(seen, 3);
}

// Each found by changing one member of a real host file, each of which
// reached the user as "[json.exception.type_error.302] type must be string,
// but is number" (run --dry-run --host, probe --host).
TEST(HostMetaTypes, AMemberOfAnotherTypeIsNamed) {
  const nlohmann::json snp = parse_json_input(read_file(fs::path(KVMBENCH_TEST_DATA) / "hosts" / "snp.json"));
  struct Case {
    std::function<void(nlohmann::json&)> change;
    std::string says;
  };
  for (const auto& c : std::vector<Case>{
           {[](auto& j) { j["hostname"] = 5; }, "\"hostname\" is number where a string belongs"},
           {[](auto& j) { j["hostname"] = nullptr; }, "\"hostname\" is null where a string belongs"},
           {[](auto& j) { j["kvm_modules"] = "kvm_amd"; }, "\"kvm_modules\" is string where an object belongs"},
           {[](auto& j) { j["kvm_modules"]["kvm_amd"]["parameters"]["npt"] = 1; },
            "\"kvm_modules\".\"kvm_amd\".\"parameters\".\"npt\" is number where a string belongs"},
           {[](auto& j) { j["hugepages"][0]["page_kb"] = "2048"; },
            "\"hugepages\"[0].\"page_kb\" is string where a number belongs"},
           {[](auto& j) { j["memory"]["ram_end_from"] = 1; }, "\"memory\".\"ram_end_from\" is number"},
           {[](auto& j) { j["cpu"]["features"][2] = true; }, "\"cpu\".\"features\"[2] is boolean where a string"},
       }) {
    nlohmann::json j = snp;
    c.change(j);
    const auto said = host_meta_type_problem(j);
    ASSERT_TRUE(said) << c.says;
    EXPECT_EQ(said->rfind(c.says, 0), 0u) << *said;
  }
  // Where the probe writes null for what it does not know, null is read.
  nlohmann::json j = snp;
  j["tsc_hz"] = nullptr;
  j["cpu"]["microcode"] = nullptr;
  EXPECT_EQ(host_meta_type_problem(j), std::nullopt);
}
