#include "analysis/model/sample_jsonl.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "analysis/parse/kernel_log.h"

using namespace kvmbench;

namespace {

// The fast line must hold exactly what to_json would, and read back to the
// same sample.
void expect_same_as_to_json(const Sample& s) {
  std::string line;
  append_sample_line(line, s);
  ASSERT_FALSE(line.empty());
  EXPECT_EQ(line.back(), '\n');
  EXPECT_EQ(line.find('\n'), line.size() - 1) << line;  // one line
  const nlohmann::json j = nlohmann::json::parse(line);
  EXPECT_EQ(j, to_json(s)) << line;
  const Sample back = sample_from_json(j);
  EXPECT_EQ(back.case_name, s.case_name);
  EXPECT_EQ(back.variant, s.variant);
  EXPECT_EQ(back.metric, s.metric);
  EXPECT_EQ(back.unit, s.unit);
  EXPECT_EQ(back.value, s.value);  // bit for bit: shortest round-trip text
  EXPECT_EQ(back.iteration, s.iteration);
  EXPECT_EQ(back.warmup, s.warmup);
}

}  // namespace

TEST(SampleJsonl, SameMembersAsToJson) {
  expect_same_as_to_json({"nr_pages=1", "", "total_cycles", "cycles", 39278, 0, false, {}});
  expect_same_as_to_json({"anon-4k", "pinned-node0", "faultin_rate", "GB/s", 0.1, 4, true, {{"cpu", 3}}});
  // Doubles whose shortest text is awkward: tiny, huge, negative, integral.
  for (double v : {1e-300, 1.7976931348623157e308, -2.5, 1e21, 123456789012345678.0, 0.0, -0.0,
                   std::nextafter(1.0, 2.0), 5e-324})
    expect_same_as_to_json({"c", "v", "m", "u", v, 1, false, {}});
  // Extras of every kind; a key that collides with a core field is left out
  // by both.
  expect_same_as_to_json({"c", "", "m", "ns", 7, 2, false,
                          {{"s", "x"}, {"i", -3}, {"u", 18446744073709551615ull}, {"d", 0.25}, {"whole", 2.0},
                           {"b", true}, {"n", nullptr}, {"arr", {1, 2}}, {"obj", {{"k", "v"}}}, {"value", 99}}});
}

// The line's bytes, as runs on disk have them: the core members in their
// order, the extras, then the caller's members; numbers as the shortest text
// that reads back, whole ones with ".0".
TEST(SampleJsonl, LineBytesAsStored) {
  std::string line;
  nlohmann::ordered_json more = {{"line", 7}, {"group", 2}, {"uptime_s", 49.913402}, {"file", "k.log"}};
  append_sample_line(line, {"range=2T", "", "sweep_time", "ns", 391600000, 3, false,
                            {{"range_start", "0x0"}, {"range_end", "0x20000000000"}, {"cpus", "all cpus"}}},
                     json_members(more));
  EXPECT_EQ(line,
            R"({"case":"range=2T","variant":"","metric":"sweep_time","unit":"ns","value":391600000.0,"iteration":3,)"
            R"("cpus":"all cpus","range_end":"0x20000000000","range_start":"0x0",)"
            R"("line":7,"group":2,"uptime_s":49.913402,"file":"k.log"})"
            "\n");
  line.clear();
  append_sample_line(line, {"nr_pages=1", "v", "make_shared_pct", "%", 100.0 * 930 / 39278, 0, true, {}});
  EXPECT_EQ(line, R"({"case":"nr_pages=1","variant":"v","metric":"make_shared_pct","unit":"%",)"
                  R"("value":2.3677376648505524,"iteration":0,"warmup":true})"
                  "\n");
  // A long label and extreme numbers and iterations.
  expect_same_as_to_json({std::string(10000, 'x'), "v\"q", std::string(300, 'm'), "u\\", -2.2250738585072014e-308,
                          std::numeric_limits<int>::min(), true, {}});
  expect_same_as_to_json({"c", "", "m", "u", -1.7976931348623157e308, std::numeric_limits<int>::max(), true, {}});
}

TEST(SampleJsonl, EscapesStringsAsJsonRequires) {
  // Quote, backslash, control characters, and valid UTF-8 (kept as is).
  Sample s{"a\"b\\c\n\t\x01", "caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80", "m", "u", 1, 0, false, {{"k\x1f", "v"}}};
  expect_same_as_to_json(s);
  std::string line;
  append_sample_line(line, s);
  EXPECT_NE(line.find(R"("a\"b\\c\n\t\u0001")"), std::string::npos) << line;
  EXPECT_NE(line.find("caf\xC3\xA9"), std::string::npos) << line;
}

TEST(SampleJsonl, InvalidUtf8BecomesReplacementCharacter) {
  // A stray continuation byte, an overlong '/' and a surrogate: each bad
  // byte becomes U+FFFD; a sequence cut short at the end becomes one (its
  // maximal subpart, as Unicode recommends); the line stays JSON.
  Sample s{"x\x80y", "\xE2\x82", "\xC0\xAF", "\xED\xA0\x80", 1, 0, false, {}};
  std::string line;
  append_sample_line(line, s);
  const nlohmann::json j = nlohmann::json::parse(line);
  EXPECT_EQ(j["case"], "x\xEF\xBF\xBDy");
  EXPECT_EQ(j["variant"], "\xEF\xBF\xBD");
  EXPECT_EQ(j["metric"], "\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(j["unit"], "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
}

// JSON has no NaN or infinity: such a value is stored as null (and reads
// back as NaN).
// Whole numbers (counts of cycles, ns) are written as integers: the text
// must be what fmt writes for the double, with nlohmann's ".0", on both
// sides of the bound where they go back to fmt.
TEST(SampleJsonl, WholeNumbersAsFmtWritesThem) {
  for (double v : {0.0, -0.0, 1.0, -1.0, 60.0, 525533.0, 1048576.0, -2500.0, 1e14, 1e15 - 1, 1e15, 1e15 + 2, 1e16, 1e17,
                   9007199254740993.0, -1e15, 0.5, 12.25, 2.796944}) {
    std::string line;
    append_sample_line(line, {"c", "", "m", "u", v, 0, false, {}});
    std::string want = fmt::format("{}", v);
    if (want.find_first_of(".e") == std::string::npos) want += ".0";
    EXPECT_NE(line.find("\"value\":" + want + ","), std::string::npos) << v << ": " << line;
    EXPECT_EQ(parse_sample_line(line.substr(0, line.size() - 1)).value, v) << line;
  }
}

TEST(SampleJsonl, NonFiniteNumbersAreNull) {
  for (double v : {std::numeric_limits<double>::quiet_NaN(), -std::numeric_limits<double>::infinity()}) {
    std::string line;
    append_sample_line(line, {"c", "", "m", "u", v, 0, false, {}});
    EXPECT_NE(line.find(R"("value":null)"), std::string::npos) << line;
    EXPECT_TRUE(std::isnan(parse_sample_line(line.substr(0, line.size() - 1)).value));
  }
}

TEST(SampleJsonl, MoreMembersGoInsideTheObject) {
  std::string line;
  append_sample_line(line, {"c", "", "m", "u", 1.5, 0, false, {{"a", 1}}},
                     json_members({{"line", 12}, {"file", "k.log"}}));
  const nlohmann::json j = nlohmann::json::parse(line);
  EXPECT_EQ(j["a"], 1);
  EXPECT_EQ(j["line"], 12);
  EXPECT_EQ(j["file"], "k.log");
  EXPECT_EQ(j["value"], 1.5);
}

// Ingest's path (provenance from the record, record_provenance) must store
// exactly what the live runs' path puts into Sample::extra.
TEST(SampleJsonl, KernelProvenanceByRecordMatchesExtra) {
  const std::string log =
      "[   49.913402] guest_memfd to_shared: nr_pages=1, make_shared=930\n"
      "cycles, total=39278 cycles\n"
      "[Thu Mar  5 11:22:33 2026] SEV-SNP: RMPOPT largest cycles 1811\n"
      "[Thu Mar  5 11:22:33 2026] SEV-SNP: RMPOPT smallest cycles 60\n"
      "\n"
      "6,1234,49913402,-;SEV-SNP: RMPOPT execution time 391600000 ns for physical address range "
      "0x0000000000000000 - 0x0000020000000000 on all cpus\n"
      "> guest_memfd to_shared: nr_pages=262144, make_shared=1000 cycles, total=400000 cycles\n";
  const auto full = parsers::parse_kernel_log_records(log, parsers::Provenance::in_extra);
  const auto lean = parsers::parse_kernel_log_records(log, parsers::Provenance::by_record);
  ASSERT_EQ(full.result.samples.size(), 9u);
  ASSERT_EQ(lean.result.samples.size(), full.result.samples.size());
  ASSERT_EQ(lean.sample_record.size(), lean.result.samples.size());
  for (std::size_t i = 0; i < full.result.samples.size(); ++i) {
    std::string a, b;
    append_sample_line(a, full.result.samples[i]);
    append_sample_line(b, lean.result.samples[i],
                       json_members(parsers::record_provenance(lean.records[lean.sample_record[i]])));
    EXPECT_EQ(nlohmann::json::parse(a), nlohmann::json::parse(b)) << a << b;
  }
  // What the lean samples keep in extra is what was measured, not where it
  // was printed: the sweep's range, no line numbers.
  const Sample& sweep = lean.result.samples[5];
  EXPECT_EQ(sweep.metric, "sweep_time");
  EXPECT_EQ(sweep.extra.value("range_end", ""), "0x0000020000000000");
  EXPECT_FALSE(sweep.extra.contains("line"));
  // A to_shared sample's key (what its case name shows) comes with its
  // record, as its provenance does; the full parse puts it in extra.
  EXPECT_TRUE(lean.result.samples[0].extra.is_null());
  EXPECT_EQ(full.result.samples[0].extra["keys"], nlohmann::json({{"nr_pages", 1}}));
  // The cycle stats after the first conversion are the log's second group.
  EXPECT_EQ(full.result.samples[3].case_name, "group=2");
  EXPECT_EQ(full.result.samples[3].extra["keys"], nlohmann::json({{"group", 2}}));
  // Ingest writes keys and provenance as text, byte for byte the object's
  // members: wrapped (lines), uptime, wall clock, neither.
  ASSERT_EQ(lean.records.size(), 5u);
  for (const auto& r : lean.records) {
    std::string text;
    parsers::append_record_provenance(text, r);
    EXPECT_EQ(text, json_members(parsers::record_provenance(r)));
  }
}

// What the writer writes reads back as the same sample; left out on
// request, the provenance members go (and an extra of nothing else with
// them).
TEST(SampleJsonl, ReadsWhatItWrites) {
  const std::vector<Sample> samples = {
      {"nr_pages=1", "", "total_cycles", "cycles", 39278, 0, false, {}},
      {"anon-4k", "pinned-node0", "faultin_rate", "GB/s", 0.1, 4, true, {{"cpu", 3}, {"note", "a\"b\\c\nd\t"}}},
      {"c", "v", "m", "u", -1e-300, 7, false, {{"i", -3}, {"u", 18446744073709551615ull}, {"d", 0.25}, {"w", 2.0},
                                               {"b", false}, {"n", nullptr}, {"s", "caf\xC3\xA9"}}},
      {"a\"b", "v\\w", "m\tx", "u/\r", 2, 1, false, {{"k\"ey", "v"}, {"line\n", 3}}},
  };
  for (const auto& s : samples) {
    std::string line;
    append_sample_line(line, s, json_members({{"line", 12}, {"uptime_s", 49.913402}, {"file", "k.log"}}));
    line.pop_back();  // the newline
    const Sample back = parse_sample_line(line);
    EXPECT_EQ(back.series_key(), s.series_key());
    EXPECT_EQ(back.unit, s.unit);
    EXPECT_EQ(back.value, s.value);
    EXPECT_EQ(back.iteration, s.iteration);
    EXPECT_EQ(back.warmup, s.warmup);
    EXPECT_EQ(back.extra["file"], "k.log");
    const Sample lean = parse_sample_line(line, /*keep_provenance=*/false);
    EXPECT_EQ(lean.extra, s.extra) << line;
  }
  EXPECT_THROW(parse_sample_line(R"({"case":"c","metric":"m","unit":"u"})"), std::runtime_error);  // no value
  EXPECT_THROW(parse_sample_line(R"({"case":"c","metric":"m","unit":"u","value":1)"), nlohmann::json::exception);
}
