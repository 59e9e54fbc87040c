// A Google Benchmark row whose members are of another type than the
// library writes is bad input, said as such: nlohmann's value() and get()
// threw their own type_error, whose raw message reached the user (found by
// fuzzing, tests/data/fuzz/gbench_json/).
#include <gtest/gtest.h>

#include <string>

#include "analysis/parse/gbench_json.h"

using namespace kvmbench::parsers;

TEST(GbenchJsonMemberTypes, AMemberOfAnotherTypeIsAParseError) {
  const std::string row = R"("name": "BM_x", "run_type": "iteration", "real_time": 5, "cpu_time": 5)";
  for (const std::string member :
       {R"("run_name": 5)", R"("time_unit": [])", R"("error_occurred": "no")", R"("skipped": 1.5)"}) {
    const std::string text = "{\"benchmarks\": [{" + row + ", " + member + "}]}";
    try {
      parse_gbench_json(text);
      ADD_FAILURE() << "accepted " << member;
    } catch (const ParseError& e) {
      EXPECT_NE(std::string(e.what()).find("of another type than Google Benchmark writes"), std::string::npos)
          << e.what();
      EXPECT_EQ(std::string(e.what()).find("json.exception"), std::string::npos) << e.what();
    }
  }
}

// A name registered twice (two family_index values) and a row of it without
// its family_index: read as a row of neither (the row's missing member was
// read through const operator[], undefined behaviour).
TEST(GbenchJsonMemberTypes, ARowWithoutItsFamilyIndexIsRead) {
  const GbenchParse g = parse_gbench_json(
      R"({"benchmarks": [{"name": "BM_x", "family_index": 0, "real_time": 1, "time_unit": "ns"},
                         {"name": "BM_x", "family_index": 1, "real_time": 2, "time_unit": "ns"},
                         {"name": "BM_x", "real_time": 3, "time_unit": "ns"}]})");
  ASSERT_EQ(g.result.samples.size(), 3u);
  EXPECT_EQ(g.result.samples[0].case_name, "BM_x (1 of 2)");
  EXPECT_EQ(g.result.samples[1].case_name, "BM_x (2 of 2)");
  EXPECT_EQ(g.result.samples[2].case_name, "BM_x");
}
