// Keys as sample fields (analysis/model/result_model.h): what a case or variant
// name shows is also data in extra.keys; the reports read that, and fall
// back to the name for samples.jsonl written before keys.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analysis/report/render/text_table.h"
#include "analysis/parse/kernel_log.h"
#include "analysis/model/sample_jsonl.h"
#include "analysis/report/table.h"
#include "suites/directmap/report.h"
#include "suites/make_shared/report.h"

using namespace kvmbench;

namespace {

constexpr const char* kLog =
    "[  396.403818] guest_memfd to_shared: nr_pages=1, make_shared=900 cycles, total=40000 cycles\n"
    "[  396.411818] guest_memfd to_shared: nr_pages=1, make_shared=250 cycles, total=41000 cycles\n"
    "[  396.503818] guest_memfd to_shared: nr_pages=262144, make_shared=15050000 cycles, total=6605000000 cycles\n"
    "[  276.435091] SEV-SNP: RMPOPT largest cycles 90210\n";

std::string text_of(const std::vector<Table>& tables) {
  std::string out;
  for (const auto& t : tables) out += render_text(t);
  return out;
}

// The samples as a samples.jsonl written before keys has them.
std::vector<Sample> without_keys(std::vector<Sample> samples) {
  for (auto& s : samples) s.extra.erase("keys");
  return samples;
}

}  // namespace

TEST(SampleKeys, KernelLogSamplesCarryWhatTheirCaseNameShows) {
  const auto samples = parsers::parse_kernel_log(kLog).samples;
  ASSERT_FALSE(samples.empty());
  for (const auto& s : samples) {
    if (s.case_name.starts_with("nr_pages="))
      EXPECT_EQ("nr_pages=" + std::to_string(sample_key_int(s, "nr_pages").value_or(-1)), s.case_name);
    else if (s.case_name.starts_with("group="))
      EXPECT_EQ("group=" + std::to_string(sample_key_int(s, "group").value_or(-1)), s.case_name);
    else
      ADD_FAILURE() << "unexpected case " << s.case_name;
  }
}

TEST(SampleKeys, KeysRoundTripThroughSamplesJsonlAndAreNotProvenance) {
  Sample s;
  s.case_name = "nr_pages=8";
  s.metric = "total_cycles";
  s.unit = "cycles";
  s.value = 1;
  set_sample_key(s, "nr_pages", 8);
  std::string line;
  append_sample_line(line, s);
  EXPECT_NE(line.find(R"("keys":{"nr_pages":8})"), std::string::npos) << line;
  EXPECT_EQ(sample_key_int(parse_sample_line(line, /*keep_provenance=*/false), "nr_pages"), 8);
  EXPECT_EQ(sample_key_int(Sample{}, "nr_pages"), std::nullopt);
}

TEST(SampleKeys, MakeSharedTablesReadTheKeyAndTheLegacyName) {
  const auto samples = parsers::parse_kernel_log(kLog).samples;
  const std::string with_keys = text_of(suites::make_shared::report_tables(samples, "replay"));
  EXPECT_NE(with_keys.find("262144"), std::string::npos) << with_keys;
  // Older runs: the same tables from the names alone.
  EXPECT_EQ(text_of(suites::make_shared::report_tables(without_keys(samples), "replay")), with_keys);
  // The name is for display only: the number printed is the key's.
  std::vector<Sample> renamed = samples;
  for (auto& s : renamed)
    if (sample_key_int(s, "nr_pages") == 262144) s.case_name = "1G slot";
  EXPECT_EQ(text_of(suites::make_shared::report_tables(renamed, "replay")), with_keys);
}

TEST(SampleKeys, DirectmapColumnNamesTheKeyedNodeElseTheNameOne) {
  auto sample = [](std::string variant, double v) {
    Sample s;
    s.case_name = "vcpus=1/bytes=1G";
    s.variant = std::move(variant);
    s.metric = "host_alloc_rate";
    s.unit = "GB/s";
    s.value = v;
    return s;
  };
  std::vector<Sample> legacy = {sample("unpinned", 10), sample("pinned-node0", 8)};
  const std::string old_text = text_of(suites::directmap::report_tables(legacy, "replay"));
  EXPECT_NE(old_text.find("pinned to NUMA node 0"), std::string::npos) << old_text;
  std::vector<Sample> keyed = legacy;
  set_sample_key(keyed[1], "numa_node", 0);
  EXPECT_EQ(text_of(suites::directmap::report_tables(keyed, "replay")), old_text);
  keyed[1].variant = "pinned";
  set_sample_key(keyed[1], "numa_node", 1);
  EXPECT_NE(text_of(suites::directmap::report_tables(keyed, "replay")).find("pinned to NUMA node 1"),
            std::string::npos);
}
