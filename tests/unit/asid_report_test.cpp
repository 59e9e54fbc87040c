// The asid layout: guest figures beside native ones, ratio guest/native
// with a 95% CI, on synthetic samples whose ratios are computed by hand.
#include "analysis/report/render/text_table.h"
#include "suites/asid/report.h"

#include <gtest/gtest.h>

#include <optional>

#include <cmath>

#include "analysis/report/table.h"
#include "suites/engine/run_report.h"
#include "tests/support/run_command.h"

using namespace kvmbench;
using namespace kvmbench::suites;
using kvmbench::engine::suite_layout_tables;

namespace {

Sample sample(const std::string& c, const std::string& variant, const std::string& metric, const std::string& unit,
              double v, int it) {
  Sample s;
  s.case_name = c;
  s.variant = variant;
  s.metric = metric;
  s.unit = unit;
  s.value = v;
  s.iteration = it;
  return s;
}

void add(std::vector<Sample>& out, const std::string& c, const std::string& variant, const std::string& metric,
         const std::string& unit, std::vector<double> values) {
  for (std::size_t i = 0; i < values.size(); ++i)
    out.push_back(sample(c, variant, metric, unit, values[i], static_cast<int>(i)));
}

// The texts of the row whose first cell is `first` (none: empty).
std::optional<std::vector<std::string>> row(const Table& t, const std::string& first) {
  for (auto& r : t.rows)
    if (!r.empty() && r[0] == first) {
      std::vector<std::string> texts;
      for (auto& c : r) texts.push_back(c.text);
      return texts;
    }
  return std::nullopt;
}

}  // namespace

TEST(AsidReport, WorkloadOfMetric) {
  EXPECT_EQ(asid::workload_of("transaction_rate"), "tcp_rr");
  EXPECT_EQ(asid::workload_of("throughput"), "tcp_stream");
  EXPECT_EQ(asid::workload_of("cpuid_rate"), "cpuid_rate");
  EXPECT_EQ(asid::workload_of("time_per_round"), "mmap_churn");
  EXPECT_EQ(asid::workload_of("faultin_rate"), "");
}

TEST(AsidReport, RatioWithExactNativeIsTheGuestCiOverTheNativeMean) {
  // native 20, 20, 20 (no spread) and guest 9, 10, 11: mean 10, sd 1,
  // se 1/sqrt(3) = 0.577350; with no spread in the denominator Fieller's
  // interval is the guest's t interval divided by 20, df = 2,
  // t(0.975, 2) = 4.302653: 10 +- 2.484138 -> [7.515862, 12.484138] / 20
  // = [0.375793, 0.624207]; ratio 10 / 20 = 0.5.
  auto r = asid::guest_to_native(stats::summarize(std::vector<double>{9, 10, 11}),
                                 stats::summarize(std::vector<double>{20, 20, 20}));
  EXPECT_NEAR(r.ratio, 0.5, 1e-12);
  EXPECT_NEAR(r.ci95_low, 0.375793, 1e-6);
  EXPECT_NEAR(r.ci95_high, 0.624207, 1e-6);
}

TEST(AsidReport, OneTableARowPerMetricAndVariantWithGuestNativeAndRatio) {
  std::vector<Sample> s;
  const std::string rr = "request=1,response=1";
  add(s, rr, "native", "transaction_rate", "transactions/s", {20, 20, 20});
  add(s, rr, "npt=on", "transaction_rate", "transactions/s", {9, 10, 11});
  add(s, rr, "npt=off", "transaction_rate", "transactions/s", {8, 8, 8});  // 8 / 20 = 0.4, exact: CI [0.4, 0.4]
  add(s, "leaf=0", "npt=on", "cpuid_rate", "ops/s", {1e6, 1e6});  // no native: no ratio
  for (auto& x : s)
    if (x.variant != "native") x.extra["flushbyasid"] = "yes";
  Sample warm = sample(rr, "npt=on", "transaction_rate", "transactions/s", 1000, 0);
  warm.warmup = true;  // not counted
  s.push_back(warm);

  auto tables = asid::report_tables(s, "replay");
  ASSERT_EQ(tables.size(), 1u);
  const Table& t = tables[0];
  EXPECT_EQ(t.title, "# asid: guest vs native");
  EXPECT_EQ(t.source, "replay");
  ASSERT_EQ(t.rows.size(), 3u);
  auto texts = [&](std::size_t i) {
    std::vector<std::string> out;
    for (auto& c : t.rows[i]) out.push_back(c.text);
    return out;
  };
  // Means to three significant digits, more only where the CI is narrower
  // (case_table.h's decimals_for): {9, 10, 11} is 10 with a CI of +-2.48
  // (t 4.303 * 1 / sqrt(3)): "10.0"; {20, 20, 20}: "20.0"; {8, 8, 8}: "8.00".
  EXPECT_EQ(texts(0), (std::vector<std::string>{"transaction_rate", "npt=on", "3/3", "10.0", "20.0", "transactions/s",
                                                "0.500", "[0.376, 0.624]"}));
  EXPECT_EQ(texts(1), (std::vector<std::string>{"transaction_rate", "npt=off", "3/3", "8.00", "20.0", "transactions/s",
                                                "0.400", "[0.400, 0.400]"}));
  // No native: no ratio (1e6 ops/s, a count past 10^4, with its prefix).
  // Native is a column, never a row.
  EXPECT_EQ(texts(2), (std::vector<std::string>{"cpuid_rate", "npt=on", "2/0", "1.00 M", "-", "ops/s", "n/a", "n/a"}));
  // Each workload's one case, in a note.
  EXPECT_EQ(t.notes.at(0), "cases: tcp_rr request=1,response=1; cpuid_rate leaf=0");

  const std::string text = render_text(t);
  EXPECT_NE(text.find("source: replay"), std::string::npos) << text;
  EXPECT_NE(kvmbench::test_support::unwrapped(text).find("FLUSHBYASID in the measured boot (/proc/cpuinfo flags): yes"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("QEMU TCG"), std::string::npos);
  std::size_t start = 0;
  for (std::size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1)
    EXPECT_LE(nl - start, 80u) << text.substr(start, nl - start);
  // The registry finds the layout by suite name.
  EXPECT_EQ(suite_layout_tables("asid", s, "replay").size(), 1u);
}

// A metric measured in several cases names its case in the label.
TEST(AsidReport, AMetricOfSeveralCasesNamesItsCase) {
  std::vector<Sample> s;
  add(s, "message_size=1024", "native", "throughput", "Gbit/s", {10, 10});
  add(s, "message_size=1024", "tcg", "throughput", "Gbit/s", {1, 1});
  add(s, "message_size=65536", "native", "throughput", "Gbit/s", {20, 20});
  add(s, "message_size=65536", "tcg", "throughput", "Gbit/s", {2, 2});
  auto tables = asid::report_tables(s, "emulated");
  ASSERT_EQ(tables.size(), 1u);
  ASSERT_EQ(tables[0].rows.size(), 2u);
  EXPECT_EQ(tables[0].rows[0][0].text, "throughput message_size=1024");
  EXPECT_EQ(tables[0].rows[1][0].text, "throughput message_size=65536");
  for (auto& n : tables[0].notes) EXPECT_FALSE(n.starts_with("cases:")) << n;
}

TEST(AsidReport, SmallSamplesAndEmulatedAreLabelled) {
  std::vector<Sample> s;
  add(s, "leaf=0", "native", "cpuid_rate", "ops/s", {4e6});
  add(s, "leaf=0", "tcg", "cpuid_rate", "ops/s", {1e5});  // 1e5 / 4e6 = 0.025
  auto tables = asid::report_tables(s, "emulated");
  ASSERT_EQ(tables.size(), 1u);
  auto r = row(tables[0], "cpuid_rate");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ((*r)[1], "tcg");
  EXPECT_EQ((*r)[6], "0.025");
  EXPECT_EQ((*r)[7], "n/a (n < 2)");
  // The source line says what emulated means (analysis/report/table.h).
  const std::string text = render_text(tables[0]);
  EXPECT_NE(text.find("source: emulated (QEMU TCG: a functional check, not a performance figure)"), std::string::npos)
      << text;
}

TEST(AsidReport, RatioFarBelowOneKeepsItsDigits) {
  // cpuid in a guest of the emulated lab: every cpuid exits to a KVM that is
  // itself emulated, thousands of times slower than native. 1230 / 5e6 =
  // 0.000246, which three decimals would print as 0.000.
  std::vector<Sample> s;
  add(s, "leaf=0", "native", "cpuid_rate", "ops/s", {5e6});
  add(s, "leaf=0", "npt=on", "cpuid_rate", "ops/s", {1230});
  auto tables = asid::report_tables(s, "emulated");
  ASSERT_EQ(tables.size(), 1u);
  auto r = row(tables[0], "cpuid_rate");
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ((*r)[6], "0.000246");
}

// The host preset's native figures alone: one table, a row per metric,
// the spread and CI in the mean's scale. {50000, 52000, 54000}: mean 52000,
// sd 2000, t(0.975, 2) = 4.302653 * 2000 / sqrt(3) = 4968.2 -> [47031.8,
// 56968.2], in k: 52.0, 2.0, [47.0, 57.0] (one decimal: the CI's
// half-width is 5.0 k).
TEST(AsidReport, NativeFiguresAloneAreOneTable) {
  std::vector<Sample> s;
  add(s, "request=1,response=1", "native", "transaction_rate", "transactions/s", {50000, 52000, 54000});
  add(s, "leaf=0", "native", "cpuid_rate", "ops/s", {700, 700});
  auto tables = asid::report_tables(s, "hardware");
  ASSERT_EQ(tables.size(), 1u);
  EXPECT_EQ(tables[0].title, "# asid: native, on this host");
  auto rr = row(tables[0], "transaction_rate");
  ASSERT_TRUE(rr.has_value());
  EXPECT_EQ(*rr, (std::vector<std::string>{"transaction_rate", "3", "52.0", "2.0", "k transactions/s", "[47.0, 57.0]"}));
  auto cpuid = row(tables[0], "cpuid_rate");
  ASSERT_TRUE(cpuid.has_value());
  EXPECT_EQ((*cpuid)[4], "ops/s");
  EXPECT_EQ(tables[0].notes.at(0), "cases: tcp_rr request=1,response=1; cpuid_rate leaf=0");
}

TEST(AsidReport, NoNativeNoLayout) {
  std::vector<Sample> s;
  add(s, "leaf=0", "npt=on", "cpuid_rate", "ops/s", {1e6, 1e6});
  EXPECT_TRUE(asid::report_tables(s, "hardware").empty());
  add(s, "x", "native", "faultin_rate", "GB/s", {1, 2});  // no asid workload's metric
  EXPECT_TRUE(asid::report_tables(s, "hardware").empty());
}
