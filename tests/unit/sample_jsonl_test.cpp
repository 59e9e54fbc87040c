#include "analysis/sample_jsonl.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "analysis/parsers/kernel_log.h"
#include "tests/unit/test_rng.h"

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

// The line is written by pointer into room computed up front: the longest
// pieces (a long label, the longest number text, the widest iteration, a
// warm-up flag) must fit, and plain and escaped labels mix in one line.
TEST(SampleJsonl, LongestPiecesFitTheLine) {
  const std::string long_case(10000, 'x');
  expect_same_as_to_json({long_case, "v\"q", std::string(300, 'm'), "u\\", -2.2250738585072014e-308,
                          std::numeric_limits<int>::min(), true, {}});
  expect_same_as_to_json({"c", "", "m", "u", -1.7976931348623157e308, std::numeric_limits<int>::max(), true, {}});
  std::string out;
  append_json_number(out, -2.2250738585072014e-308);
  EXPECT_LE(out.size(), kJsonNumberRoom);
  EXPECT_EQ(out, "-2.2250738585072014e-308");
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
  // A stray continuation byte, a truncated sequence at the end, an overlong
  // '/', and a surrogate: each bad byte becomes U+FFFD; the line stays JSON.
  Sample s{"x\x80y", "\xE2\x82", "\xC0\xAF", "\xED\xA0\x80", 1, 0, false, {}};
  std::string line;
  append_sample_line(line, s);
  const nlohmann::json j = nlohmann::json::parse(line);
  EXPECT_EQ(j["case"], "x\xEF\xBF\xBDy");
  EXPECT_EQ(j["variant"], "\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(j["metric"], "\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(j["unit"], "\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST(SampleJsonl, NonFiniteNumbersAreNull) {
  std::string out;
  append_json_number(out, std::numeric_limits<double>::quiet_NaN());
  out += ' ';
  append_json_number(out, -std::numeric_limits<double>::infinity());
  out += ' ';
  append_json_number(out, 3.0);
  out += ' ';
  append_json_number(out, 1e300);
  EXPECT_EQ(out, "null null 3.0 1e+300");
}

// Whole numbers take a short cut; it must print what the shortest form
// prints (digits, then ".0"), up to where that switches to an exponent.
TEST(SampleJsonl, WholeNumbersPrintAsTheShortestFormDoes) {
  for (double v : {0.0, 1.0, -12.0, 39278.0, 65538287.0, 26215174904.0, 999999999999999.0, 1e15, 1e16, -1e15,
                   123456789012345.0, 4503599627370497.0}) {
    std::string out;
    append_json_number(out, v);
    std::string want = fmt::format("{}", v);
    if (want.find_first_of(".e") == std::string::npos) want += ".0";
    EXPECT_EQ(out, want) << v;
    EXPECT_EQ(nlohmann::json::parse(out).get<double>(), v) << v;
  }
}

TEST(SampleJsonl, MoreMembersGoInsideTheObject) {
  std::string line;
  append_sample_line(line, {"c", "", "m", "u", 1.5, 0, false, {{"a", 1}}}, "\"line\":12,\"file\":\"k.log\"");
  const nlohmann::json j = nlohmann::json::parse(line);
  EXPECT_EQ(j["a"], 1);
  EXPECT_EQ(j["line"], 12);
  EXPECT_EQ(j["file"], "k.log");
  EXPECT_EQ(j["value"], 1.5);
}

// The bulk path (provenance by record, written by append_record_provenance)
// must store exactly what the ordinary path puts into Sample::extra.
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
  EXPECT_TRUE(full.sample_record.empty());
  for (std::size_t i = 0; i < full.result.samples.size(); ++i) {
    std::string a, b, prov;
    append_sample_line(a, full.result.samples[i]);
    parsers::append_record_provenance(prov, lean.records[lean.sample_record[i]]);
    append_sample_line(b, lean.result.samples[i], prov);
    EXPECT_EQ(nlohmann::json::parse(a), nlohmann::json::parse(b)) << a << b;
  }
  // What the lean samples keep in extra is what was measured, not where it
  // was printed: the sweep's range, no line numbers.
  const Sample& sweep = lean.result.samples[5];
  EXPECT_EQ(sweep.metric, "sweep_time");
  EXPECT_EQ(sweep.extra.value("range_end", ""), "0x0000020000000000");
  EXPECT_FALSE(sweep.extra.contains("line"));
  EXPECT_TRUE(lean.result.samples[0].extra.is_null());
}

// The fast reader gives what sample_from_json gives, for the lines the
// writer produces, and declines (nullopt) what it does not handle, so that
// the caller falls back to nlohmann.
TEST(SampleJsonl, FastReaderAgreesWithNlohmann) {
  const std::vector<Sample> samples = {
      {"nr_pages=1", "", "total_cycles", "cycles", 39278, 0, false, {}},
      {"anon-4k", "pinned-node0", "faultin_rate", "GB/s", 0.1, 4, true, {{"cpu", 3}, {"note", "a\"b\\c\nd\t"}}},
      {"c", "v", "m", "u", -1e-300, 7, false, {{"i", -3}, {"u", 18446744073709551615ull}, {"d", 0.25}, {"w", 2.0},
                                               {"b", false}, {"n", nullptr}, {"s", "caf\xC3\xA9"}}},
      // Escapes in labels and keys (read through the unescaping path).
      {"a\"b", "v\\w", "m\tx", "u/\r", 2, 1, false, {{"k\"ey", "v"}, {"line\n", 3}}},
  };
  for (const auto& s : samples) {
    std::string line;
    append_sample_line(line, s, "\"line\":12,\"uptime_s\":49.913402,\"file\":\"k.log\"");
    line.pop_back();  // the newline
    const auto fast = read_sample_line(line);
    ASSERT_TRUE(fast.has_value()) << line;
    const Sample slow = sample_from_json(nlohmann::json::parse(line));
    EXPECT_EQ(to_json(*fast), to_json(slow)) << line;
    EXPECT_EQ(fast->value, slow.value);
    EXPECT_EQ(fast->warmup, slow.warmup);
    // Types as nlohmann has them (unsigned / signed / float).
    EXPECT_EQ(fast->extra, slow.extra) << line;
  }
}

TEST(SampleJsonl, FastReaderDeclinesWhatItDoesNotHandle) {
  for (const char* line : {
           R"({"case":"c","metric":"m","unit":"u","value":1,"extra":{"nested":1}})",  // nested object
           R"({"case":"c","metric":"m","unit":"u","value":1,"a":[1,2]})",             // array
           R"({"case":"\u0063","metric":"m","unit":"u","value":1})",                  // \u escape
           R"({"case":"c","case":"d","metric":"m","unit":"u","value":1})",           // repeated key
           R"({"case":"c","metric":"m","unit":"u"})",                                 // no value
           R"({"case":"c","metric":"m","unit":"u","value":"1"})",                     // value not a number
           R"({"case":"c","metric":"m","unit":"u","value":1,"iteration":1.5})",       // iteration not an int
           R"({"case":"c","metric":"m","unit":"u","value":1} x)",                     // trailing text
           R"({"case":"c","metric":"m","unit":"u","value":NaN})",                     // not JSON
           R"({"case":"c","metric":"m","unit":"u","value":1)",                        // cut short
           "",
       })
    EXPECT_FALSE(read_sample_line(line).has_value()) << line;
  // Spacing as other JSON writers put it is fine.
  auto s = read_sample_line(R"( { "case" : "c" , "metric":"m", "unit":"u", "value": 2.5e3, "warmup": true } )");
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->value, 2500);
  EXPECT_TRUE(s->warmup);
  EXPECT_TRUE(s->extra.is_null());
}

// Decimals of up to six places (dmesg uptimes, shares) take a short cut; it
// must print exactly what the shortest form prints: checked on the texts
// dmesg writes read back as doubles, on awkward neighbours (0.1, 0.3, the
// edges of the short cut's range, values one ulp off a short decimal) and
// on random doubles across the range.
TEST(SampleJsonl, DecimalsPrintAsTheShortestFormDoes) {
  auto shortest = [](double v) {
    std::string want = fmt::format("{}", v);
    if (want.find_first_of(".e") == std::string::npos) want += ".0";
    return want;
  };
  std::vector<double> values = {0.1,   0.2,         0.3,        1e-3,     0.0015,      999999999.999999, 123456.1,
                                 -2.5,  -0.001,      49.913402,  61.538401, 1e9 - 0.5,  0.000999999, 1.000001,
                                 5e-324, 0.1 + 0.2,  1.0 / 3.0, 2.675,    100.000001, 12345678.9,
                                 // Below the short cut's range the shortest form may switch to an exponent.
                                 1e-5, 2e-5, 1e-6, 0.0001, 0.0009, 0.000123};
  kvmbench::testing::TestRng rng(99);
  for (int i = 0; i < 50000; ++i) {
    // A dmesg uptime "[%5lu.%06lu]" as the parser reads it.
    const std::string text = fmt::format("{}.{:06}", rng.below(100000000), rng.below(1000000));
    values.push_back(std::stod(text));
    // Fewer places, and one ulp either side.
    const double d = static_cast<double>(rng.below(1000000)) / 1000.0;
    values.push_back(d);
    values.push_back(std::nextafter(d, 0.0));
    values.push_back(std::nextafter(d, 1e9));
    // Anything in the range, and out of it.
    values.push_back(std::ldexp(static_cast<double>(rng.next()), -static_cast<int>(rng.below(60))));
  }
  for (double v : values) {
    std::string out;
    append_json_number(out, v);
    ASSERT_EQ(out, shortest(v)) << fmt::format("{:.17g}", v);
  }
}
