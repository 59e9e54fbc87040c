#include "analysis/verdicts/compare.h"
#include "analysis/report/render/renderer.h"
#include "analysis/verdicts/configuration_keys.h"

#include <gtest/gtest.h>

#include <fmt/format.h>

#include <cmath>

#include "analysis/report/numbers.h"
#include "analysis/views/comparison_json.h"
#include "analysis/views/compare_view.h"

using namespace kvmbench;

namespace {

Sample smp(std::string c, std::string m, std::string unit, double v, int it, bool warm = false) {
  Sample s;
  s.case_name = std::move(c);
  s.metric = std::move(m);
  s.unit = std::move(unit);
  s.value = v;
  s.iteration = it;
  s.warmup = warm;
  return s;
}

ComparisonSide side(std::string label, std::vector<Sample> samples, nlohmann::json meta = nlohmann::json::object(),
                    Source src = Source::hardware) {
  ComparisonSide s;
  s.label = std::move(label);
  s.source = src;
  s.meta = std::move(meta);
  s.series = group_series(samples);
  return s;
}

std::size_t max_line_width(const std::string& text) {
  std::size_t col = 0, w = 0;
  for (unsigned char ch : text) {
    if (ch == '\n') col = 0;
    else if ((ch & 0xC0) != 0x80) w = std::max(w, ++col);
  }
  return w;
}

}  // namespace

TEST(GroupSeries, DropsWarmupAndKeepsOrder) {
  auto s = group_series({smp("a", "t", "ns", 100, 0, true), smp("a", "t", "ns", 1, 1), smp("b", "r", "GB/s", 5, 0),
                         smp("a", "t", "ns", 2, 2)});
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].key.name(), "a/t");
  ASSERT_EQ(s[0].observations.size(), 2u);
  EXPECT_EQ(s[0].observations[0].value, 1);
  EXPECT_EQ(s[0].observations[1].value, 2);
  EXPECT_EQ(s[0].observations[1].repetition, 2);
  EXPECT_EQ(s[0].warmups_dropped, 1u);
  EXPECT_EQ(s[1].key.name(), "b/r");
}

TEST(GroupSeries, MixedTimeUnitsConvertOthersThrow) {
  auto s = group_series({smp("a", "t", "ns", 1, 0), smp("a", "t", "us", 1, 1)});
  EXPECT_EQ(s[0].key.unit, "ns");
  EXPECT_DOUBLE_EQ(s[0].observations[1].value, 1000);
  EXPECT_THROW(group_series({smp("a", "t", "ns", 1, 0), smp("a", "t", "cycles", 1, 1)}), std::runtime_error);
}

TEST(MetaDifferences, ConfigurationOnly) {
  nlohmann::json a = {{"suite", "directmap"},
                      {"start_time", "2026-01-01T00:00:00Z"},
                      {"status", "complete"},
                      {"stability_warnings", {"anon-4k/faultin_rate: high variation, CV 13.2% (> 5%)"}},
                      {"host",
                       {{"kernel", {{"release", "6.8.0"}}},
                        {"thp", {{"enabled", "always [madvise] never"}}},
                        {"memory", {{"meminfo", {{"MemFree", 16900694016}}}}},
                        {"kvm", {{"reason", "the long-mode loop crawls (221793 iterations, 4.4e+05/s)"}}},
                        {"kvm_modules", {{"kvm_amd", {{"parameters", {{"npt", "Y"}}}}}}}}}};
  nlohmann::json b = a;
  b["start_time"] = "2026-02-02T00:00:00Z";
  b["status"] = "interrupted";
  b["stability_warnings"] = nlohmann::json::array();
  b["host"]["memory"]["meminfo"]["MemFree"] = 123;
  b["host"]["kvm"]["reason"] = "the long-mode loop crawls (228577 iterations, 4.6e+05/s)";
  b["host"]["kernel"]["release"] = "6.9.0-rc1";
  b["host"]["kvm_modules"]["kvm_amd"]["parameters"]["npt"] = "N";
  b["host"]["cpu"]["microcode"] = "0xa0011d1";
  auto d = meta_differences(a, b);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].key, "host.kernel.release");
  EXPECT_EQ(d[0].base, "6.8.0");
  EXPECT_EQ(d[0].cand, "6.9.0-rc1");
  EXPECT_EQ(d[1].key, "host.kvm_modules.kvm_amd.parameters.npt");
  EXPECT_EQ(d[2].key, "host.cpu.microcode");
  EXPECT_EQ(d[2].base, "(absent)");
}

TEST(MetaDifferences, LongCmdlineShowsOnlyDifferingWords) {
  auto cmdline = [](const char* mitigations) {
    return nlohmann::json{{"host", {{"kernel", {{"cmdline", fmt::format("BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro quiet "
                                                                          "mitigations={} kvm_amd.sev=1", mitigations)}}}}}};
  };
  auto d = meta_differences(cmdline("off"), cmdline("auto"));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].base, "only here: mitigations=off");
  EXPECT_EQ(d[0].cand, "only here: mitigations=auto");
}

// The TSC rate is calibrated: 2,596,124,385 Hz and 2,596,124,387 Hz are one
// machine (0.1 % is 2.6 MHz); 2.6 GHz against 3.0 GHz is not. The copies
// of it under host.tsc are not listed at all.
TEST(MetaDifferences, MeasuredConfigurationWithinItsTolerance) {
  auto tsc = [](double hz) {
    return nlohmann::json{{"host", {{"tsc_hz", hz}, {"tsc", {{"hz", hz}, {"calibrated_hz", hz}}}}}};
  };
  EXPECT_TRUE(meta_differences(tsc(2596124385), tsc(2596124387)).empty());
  EXPECT_TRUE(meta_differences(tsc(2596124385), tsc(2598000000)).empty());  // 0.072 %
  auto d = meta_differences(tsc(2596124385), tsc(3000000000));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].key, "host.tsc_hz");
}

TEST(ConfigurationKeys, PatternsMatchFlattenedKeys) {
  EXPECT_TRUE(key_matches("host.hugepages[*].nr_hugepages", "host.hugepages[1].nr_hugepages"));
  EXPECT_FALSE(key_matches("host.hugepages[*].nr_hugepages", "host.hugepages[1].free_hugepages"));
  EXPECT_TRUE(key_matches("parameters.*", "parameters.bytes"));
  EXPECT_FALSE(key_matches("parameters.*", "parameters"));
  EXPECT_TRUE(key_matches("a*b*c", "abc"));
  EXPECT_FALSE(key_matches("a*b*c", "acb"));
  EXPECT_NE(configuration_key("host.kvm_modules.kvm_amd.parameters.sev_snp"), nullptr);
  EXPECT_EQ(configuration_key("host.kvm_modules.kvm_amd.writable"), nullptr);
  EXPECT_EQ(configuration_key("host.memory.directmap.4k"), nullptr);
}

TEST(Compare, SlowerTimeFasterRateAndHolm) {
  std::vector<Sample> b, c;
  // t: lower is better; cand +10% -> slower. r: higher is better; cand +10% -> faster.
  // flat: same values -> no significant difference.
  double base_t[] = {100, 101, 99, 100.5, 99.5, 100.2}, base_r[] = {50, 50.5, 49.5, 50.2, 49.8, 50.1};
  for (int i = 0; i < 6; ++i) {
    b.push_back(smp("k", "t", "ns", base_t[i], i));
    c.push_back(smp("k", "t", "ns", base_t[i] * 1.1, i));
    b.push_back(smp("k", "r", "GB/s", base_r[i], i));
    c.push_back(smp("k", "r", "GB/s", base_r[i] * 1.1, i));
    b.push_back(smp("k", "flat", "cycles", base_t[i], i));
    c.push_back(smp("k", "flat", "cycles", base_t[(i + 3) % 6], i));
  }
  c.push_back(smp("k", "t", "ns", 5000, 99, true));  // a warm-up outlier is ignored
  auto cmp = compare(side("A", b), side("B", c));
  ASSERT_EQ(cmp.metrics.size(), 3u);
  auto& t = cmp.metrics[0];
  EXPECT_EQ(t.key.name(), "k/t");
  EXPECT_EQ(t.cand.n, 6u);
  EXPECT_NEAR(t.change.pct, 10.0, 1e-9);
  EXPECT_LT(t.change.ci95_low, 10.0);
  EXPECT_GT(t.change.ci95_high, 10.0);
  EXPECT_EQ(t.verdict, stats::Verdict::slower);
  EXPECT_EQ(cmp.metrics[1].verdict, stats::Verdict::faster);
  EXPECT_EQ(cmp.metrics[2].verdict, stats::Verdict::no_significant_difference);
  // Holm: the smallest p is multiplied by 3 (or capped by a later step).
  double pmin = std::min(t.p_welch, cmp.metrics[1].p_welch);
  double hmin = std::min(t.p_holm, cmp.metrics[1].p_holm);
  EXPECT_NEAR(hmin, std::min(1.0, 3 * pmin), 1e-15);
  EXPECT_NEAR(cmp.metrics[2].p_holm, cmp.metrics[2].p_welch, 1e-15);  // the largest: times 1, or monotone
  EXPECT_FALSE(std::isnan(t.p_mann_whitney));
}

TEST(Compare, MissingSideAndTooFewSamples) {
  auto cmp = compare(side("A", {smp("k", "t", "ns", 1, 0), smp("k", "t", "ns", 2, 1), smp("k", "only", "ns", 1, 0)}),
                     side("B", {smp("k", "t", "ns", 1, 0), smp("k", "new", "ns", 3, 0)}));
  ASSERT_EQ(cmp.metrics.size(), 3u);
  EXPECT_EQ(cmp.metrics[0].verdict, stats::Verdict::not_enough_data);
  EXPECT_EQ(cmp.metrics[0].status, MetricStatus::change_only);
  // The change of the means (1 vs 1.5) is there; no CI and no p.
  EXPECT_NEAR(cmp.metrics[0].change.pct, -100.0 / 3, 1e-12);
  EXPECT_TRUE(std::isnan(cmp.metrics[0].change.ci95_low));
  EXPECT_TRUE(std::isnan(cmp.metrics[0].p_welch));
  EXPECT_NE(cmp.metrics[0].note.find("n = 2 vs 1 units: the change only (no CI, no p"), std::string::npos)
      << cmp.metrics[0].note;
  EXPECT_EQ(cmp.metrics[1].note, "only in base");
  EXPECT_EQ(cmp.metrics[2].note, "only in cand");
  EXPECT_EQ(cmp.metrics[1].status, MetricStatus::one_side);
  EXPECT_FALSE(cmp.metrics[1].tested);
}

TEST(CompareRender, TextFitsEightyColumnsAndShowsSource) {
  std::vector<Sample> b, c;
  for (int i = 0; i < 10; ++i) {
    b.push_back(smp("nr_pages=262144", "total_cycles_with_a_rather_long_name", "cycles", 1234567 + i * 1000, i));
    c.push_back(smp("nr_pages=262144", "total_cycles_with_a_rather_long_name", "cycles", 1296000 + i * 1000, i));
  }
  // A version too long for one line (one word: not diffed by words): cut,
  // each side to its half.
  const std::string long_a = "7.2.22-Debian-1:7.2+dfsg-7+deb12u18+b3-with-the-lab-patches-applied";
  const std::string long_b = "8.2.0-Debian-1:8.2+dfsg-1+deb13u2-with-the-other-lab-patches-applied";
  nlohmann::json ma = {{"host", {{"kernel", {{"release", "6.8.0"}}}, {"qemu", {{"version", long_a}}}}}},
                 mb = {{"host", {{"kernel", {{"release", "6.9.0"}}}, {"qemu", {{"version", long_b}}}}}};
  auto cmp = compare(side("base-run", b, ma), side("cand-run", c, mb, Source::replay));
  const Document d = comparison_document(cmp);
  std::string text = render(d, Format::text);
  EXPECT_LE(max_line_width(text), 80u) << text;
  EXPECT_NE(text.find("source: base hardware, cand replay"), std::string::npos) << text;
  EXPECT_NE(text.find("  host.kernel.release: 6.8.0 -> 6.9.0\n"), std::string::npos) << text;
  // 80 - len("  host.qemu.version: ") - len(" -> ") = 55: 27 columns a side,
  // 24 of the value and "...".
  EXPECT_NE(text.find("  host.qemu.version: " + long_a.substr(0, 24) + "... -> " + long_b.substr(0, 24) + "...\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("slower"), std::string::npos) << text;
  EXPECT_EQ(text.find('\t'), std::string::npos);
  auto j = comparison_to_json(cmp);
  EXPECT_EQ(j["metrics"][0]["verdict"], "slower");
  EXPECT_TRUE(j["metrics"][0]["change_pct"].is_number());
  EXPECT_EQ(j["metrics"][0]["base"]["values"].size(), 10u);
  std::string csv = render(d, Format::csv);
  EXPECT_NE(csv.find("\nmetric,unit,direction"), std::string::npos) << csv;
  std::string md = render(d, Format::md);
  EXPECT_NE(md.find("  host.kernel.release: 6.8.0 -> 6.9.0  \n"), std::string::npos) << md;
  // The lead is the same in every format, cut to 80 columns; the JSON has
  // the values whole.
  bool whole = false;
  for (const auto& diff : j["meta_differences"]) whole = whole || (diff["key"] == "host.qemu.version" && diff["base"] == long_a);
  EXPECT_TRUE(whole) << j["meta_differences"].dump();
}

TEST(CompareRender, NumberFormats) {
  EXPECT_EQ(format_number(1234567), "1234567");
  EXPECT_EQ(format_number(12.3456), "12.35");
  EXPECT_EQ(format_number(0.00043211), "0.0004321");
  EXPECT_EQ(format_number(0), "0");
  EXPECT_EQ(format_pct(5.034), "+5.03%");
  EXPECT_EQ(format_pct(NAN), "n/a");
  EXPECT_EQ(format_pct(9999.994), "+9999.99%");
  EXPECT_EQ(format_pct(4402880119739.05), "+4.4e+12%");
  EXPECT_EQ(format_p(1.23e-5), "1.2e-05");
  EXPECT_EQ(format_p(0.0312), "0.031");
}

// A metric whose unit gives no direction is never called faster or slower
// (result_model.h): a significant change is "different", with the reason.
TEST(Compare, UnknownDirectionIsDifferentNotFasterOrSlower) {
  std::vector<Sample> a, b;
  for (int i = 0; i < 6; ++i) {
    a.push_back({"c", "", "widgets", "widgets", 10.0 + 0.1 * i, i, false, {}});
    b.push_back({"c", "", "widgets", "widgets", 20.0 + 0.1 * i, i, false, {}});
  }
  const Comparison c = compare(side("A", a), side("B", b));
  ASSERT_EQ(c.metrics.size(), 1u);
  EXPECT_EQ(c.metrics[0].direction, Direction::unknown);
  EXPECT_EQ(c.metrics[0].verdict, stats::Verdict::different);
  EXPECT_NE(c.metrics[0].note.find("direction unknown (unit 'widgets')"), std::string::npos);
}
