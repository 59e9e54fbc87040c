#include "analysis/compare.h"

#include <gtest/gtest.h>

#include <cmath>

#include "analysis/compare_render.h"

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
  EXPECT_EQ(s[0].key, "a/t");
  ASSERT_EQ(s[0].observations.size(), 2u);
  EXPECT_EQ(s[0].observations[0].value, 1);
  EXPECT_EQ(s[0].observations[1].value, 2);
  EXPECT_EQ(s[0].observations[1].repetition, 2);
  EXPECT_EQ(s[0].warmups_dropped, 1u);
  EXPECT_EQ(s[1].key, "b/r");
}

TEST(GroupSeries, MixedTimeUnitsConvertOthersThrow) {
  auto s = group_series({smp("a", "t", "ns", 1, 0), smp("a", "t", "us", 1, 1)});
  EXPECT_EQ(s[0].unit, "ns");
  EXPECT_DOUBLE_EQ(s[0].observations[1].value, 1000);
  EXPECT_THROW(group_series({smp("a", "t", "ns", 1, 0), smp("a", "t", "cycles", 1, 1)}), std::runtime_error);
}

TEST(MetaDifferences, FlattensNestedAndIgnoresTimes) {
  nlohmann::json a = {{"suite", "x"},
                      {"start_time", "2026-01-01T00:00:00Z"},
                      {"end_time", "2026-01-01T00:01:00Z"},
                      {"status", "complete"},
                      {"host", {{"kernel", {{"release", "6.8.0"}}}, {"thp", {{"enabled", "always [madvise] never"}}},
                                {"kvm", {{"params", {{"npt", "1"}}}}}}}};
  nlohmann::json b = a;
  b["start_time"] = "2026-02-02T00:00:00Z";
  b["end_time"] = "2026-02-02T00:01:00Z";
  b["host"]["kernel"]["release"] = "6.9.0-rc1";
  b["host"]["kvm"]["params"]["npt"] = "0";
  b["host"]["microcode"] = "0xa0011d1";
  auto d = meta_differences(a, b);
  ASSERT_EQ(d.size(), 3u);
  EXPECT_EQ(d[0].key, "host.kernel.release");
  EXPECT_EQ(d[0].base, "6.8.0");
  EXPECT_EQ(d[0].cand, "6.9.0-rc1");
  EXPECT_EQ(d[1].key, "host.kvm.params.npt");
  EXPECT_EQ(d[2].key, "host.microcode");
  EXPECT_EQ(d[2].base, "(absent)");
}

TEST(MetaDifferences, LongCmdlineShowsOnlyDifferingWords) {
  nlohmann::json a = {{"cmdline", "BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro quiet mitigations=off kvm_amd.sev=1"}};
  nlohmann::json b = {{"cmdline", "BOOT_IMAGE=/vmlinuz root=/dev/sda1 ro quiet mitigations=auto kvm_amd.sev=1"}};
  auto d = meta_differences(a, b);
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].base, "only here: mitigations=off");
  EXPECT_EQ(d[0].cand, "only here: mitigations=auto");
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
  EXPECT_EQ(t.key, "k/t");
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
  nlohmann::json ma = {{"host", {{"kernel_release", "6.8.0"}}}}, mb = {{"host", {{"kernel_release", "6.9.0"}}}};
  auto cmp = compare(side("base-run", b, ma), side("cand-run", c, mb, Source::replay));
  std::string text = render_comparison_text(cmp);
  EXPECT_LE(max_line_width(text), 80u) << text;
  EXPECT_NE(text.find("source: base hardware, cand replay"), std::string::npos) << text;
  EXPECT_NE(text.find("host.kernel_release: 6.8.0 -> 6.9.0"), std::string::npos) << text;
  EXPECT_NE(text.find("slower"), std::string::npos) << text;
  EXPECT_EQ(text.find('\t'), std::string::npos);
  auto j = comparison_to_json(cmp);
  EXPECT_EQ(j["metrics"][0]["verdict"], "slower");
  EXPECT_TRUE(j["metrics"][0]["change_pct"].is_number());
  EXPECT_EQ(j["metrics"][0]["base"]["values"].size(), 10u);
  std::string csv = render_comparison_csv(cmp);
  EXPECT_NE(csv.find("metric,unit,direction"), std::string::npos);
  std::string md = render_comparison_markdown(cmp);
  EXPECT_NE(md.find("| `host.kernel_release` | 6.8.0 | 6.9.0 |"), std::string::npos) << md;
}

TEST(CompareRender, NumberFormats) {
  EXPECT_EQ(format_number(1234567), "1234567");
  EXPECT_EQ(format_number(12.3456), "12.35");
  EXPECT_EQ(format_number(0.00043211), "0.0004321");
  EXPECT_EQ(format_number(0), "0");
  EXPECT_EQ(format_pct(5.034), "+5.03%");
  EXPECT_EQ(format_pct(NAN), "n/a");
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
