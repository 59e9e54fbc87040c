// The HTML report in a real browser: headless Chromium (1280 px wide, a
// laptop) loads the page that `kvmbench compare --format html` or a run's
// Document (run_view.h) in HTML wrote, the DOM must hold the charts, the console must
// stay silent (no errors, no blocked fetches), and screenshots are taken
// (kept in the build directory for people to look at).
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <fstream>
#include <regex>
#include <nlohmann/json.hpp>

#include "analysis/report/render/html_chart.h"
#include "analysis/report/render/renderer.h"
#include "analysis/report/numbers.h"
#include "analysis/store/run_store.h"
#include "analysis/views/run_view.h"
#include "tests/support/run_command.h"

using kvmbench::test_support::run_command;
using kvmbench::test_support::run_kvmbench;
using kvmbench::test_support::TempDir;
using kvmbench::test_support::occurrences;
namespace fs = std::filesystem;

namespace {

const char* chromium_path() {
  for (const char* p : {"/usr/bin/chromium", "/usr/bin/chromium-browser"})
    if (fs::exists(p)) return p;
  return nullptr;
}

// Chromium with everything that could reach the network switched off.
kvmbench::test_support::CommandResult chromium(const fs::path& profile, std::vector<std::string> extra,
                                               const fs::path& page) {
  std::vector<std::string> argv = {chromium_path(), "--headless", "--no-sandbox", "--disable-gpu",
                                   "--disable-quic", "--no-first-run", "--disable-background-networking",
                                   "--disable-component-update", "--disable-sync", "--disable-dev-shm-usage",
                                   "--user-data-dir=" + profile.string(), "--enable-logging=stderr", "--v=0",
                                   "--window-size=1280,900"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.push_back("file://" + page.string());
  return run_command(argv, 120, "", {"HOME=" + profile.string()});
}

// A run's page, as `kvmbench report DIR --format html` writes it.
std::string run_page(const kvmbench::Run& run, std::vector<kvmbench::Table> tables, std::string incomplete = "") {
  return kvmbench::render(kvmbench::run_document(run, {.dir = run.dir.string(),
                                                       .tables = std::move(tables),
                                                       .incomplete = std::move(incomplete),
                                                       .about = {},
                                                       .charts = {}}),
                          kvmbench::Format::html);
}

// Console messages: the page has no script, so any console line (an error,
// a blocked or failed resource load) is a defect.
std::vector<std::string> console_lines(const std::string& err) {
  std::vector<std::string> out;
  for (std::size_t p = 0, q; p < err.size(); p = q + 1) {
    q = err.find('\n', p);
    if (q == std::string::npos) q = err.size();
    std::string line = err.substr(p, q - p);
    if (line.find("CONSOLE") != std::string::npos || line.find("Uncaught") != std::string::npos ||
        line.find("net::ERR_") != std::string::npos)
      out.push_back(line);
  }
  return out;
}

fs::path make_run(const fs::path& dir, double factor, const std::string& kernel, const std::string& source = "hardware",
                  const std::string& status = "complete") {
  nlohmann::json meta = {{"suite", "directmap"}, {"source", source}, {"host", {{"kernel", {{"release", kernel}}}}}};
  auto w = kvmbench::RunWriter::create_at(dir, meta);
  const double z[] = {0.3, -1.1, 0.8, -0.2, 1.4, -0.7, 0.1, -1.5, 0.9, 0.0};
  for (int i = 0; i < 10; ++i) {
    w.append({"anon-4k", "", "fault_ns", "ns", 812 * factor * (1 + 0.01 * z[i]), i, false, nlohmann::json::object()});
    w.append({"anon-4k", "", "faultin_rate", "GB/s", 12.5 / factor * (1 + 0.012 * z[(i + 3) % 10]), i, false,
              nlohmann::json::object()});
    w.append({"nr_pages=262144", "all-cpus", "total_cycles", "cycles", 1234567 * (1 + 0.01 * z[(i + 5) % 10]), i,
              false, nlohmann::json::object()});
  }
  w.finish(status);
  return dir;
}

}  // namespace

TEST(HtmlReport, CompareRendersInChromium) {
  if (!chromium_path()) GTEST_SKIP() << "chromium is not installed (Debian package 'chromium'; scripts/bootstrap.sh --with-browser)";
  TempDir t;
  auto a = make_run(t.path / "a", 1.0, "6.8.0");
  auto b = make_run(t.path / "b", 1.05, "6.9.0");
  auto r = run_kvmbench({"compare", a, b, "--format", "html"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string& html = r.out;
  // Self-contained: nothing to fetch, no script.
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find(" src="), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  auto page = t.path / "compare.html";
  std::ofstream(page) << html;

  auto dom = chromium(t.path / "profile1", {"--dump-dom"}, page);
  ASSERT_EQ(dom.exit_code, 0) << dom.err;
  // Under the verdict, before the tables: every metric's change and its
  // CI in one overview (fault_ns +5 %, faultin_rate -4.8 %: both
  // regressions, significant; total_cycles the same).
  const auto overview = dom.out.find("<svg class=\"chart overview\"");
  ASSERT_NE(overview, std::string::npos);
  EXPECT_LT(overview, dom.out.find("<table"));
  EXPECT_LT(dom.out.find("verdict:"), overview);
  EXPECT_EQ(occurrences(dom.out, "class=\"pt\""), 3u) << "a change per metric";
  EXPECT_EQ(occurrences(dom.out, "<g class=\"change worse\">"), 2u);
  EXPECT_EQ(occurrences(dom.out, "<g class=\"change \">"), 1u);
  // Then a chart per metric: the means as marks on an axis that fits the
  // data, never bars from 0 (which hid a 5 % change).
  EXPECT_EQ(occurrences(dom.out, "<svg"), 4u) << "the overview and one chart per metric";
  EXPECT_EQ(occurrences(dom.out, "class=\"dot\""), 60u) << "3 metrics x 2 sides x 10 samples";
  EXPECT_EQ(occurrences(dom.out, "class=\"whisker\""), 6u);
  EXPECT_EQ(occurrences(dom.out, "class=\"mean\""), 6u);
  EXPECT_EQ(occurrences(dom.out, "class=\"bar\""), 0u);
  EXPECT_NE(dom.out.find("source: hardware"), std::string::npos);
  EXPECT_NE(dom.out.find("6.9.0"), std::string::npos);
  auto console = console_lines(dom.err);
  EXPECT_TRUE(console.empty()) << testing::PrintToString(console);

  auto png = fs::path(KVMBENCH_BINARY_DIR) / "html_report_test.png";
  fs::remove(png);
  auto shot = chromium(t.path / "profile2", {"--screenshot=" + png.string(), "--hide-scrollbars"}, page);
  ASSERT_EQ(shot.exit_code, 0) << shot.err;
  ASSERT_TRUE(fs::exists(png)) << shot.err;
  std::string bytes = kvmbench::read_file(png);
  ASSERT_GT(bytes.size(), 20000u) << "a blank page compresses to a few kB";
  EXPECT_EQ(bytes.substr(1, 3), "PNG");
  EXPECT_TRUE(console_lines(shot.err).empty()) << shot.err;
  std::ofstream(fs::path(KVMBENCH_BINARY_DIR) / "html_report_test.html") << html;
}

TEST(HtmlReport, SingleRunPageRendersInChromium) {
  if (!chromium_path()) GTEST_SKIP() << "chromium is not installed";
  TempDir t;
  auto run = kvmbench::load_run(make_run(t.path / "run", 1.0, "6.8.0"));
  kvmbench::Table table;
  table.title = "Fault-in <rate>";
  table.source = "hardware";
  table.columns = {{"case", kvmbench::Align::left}, {"GB/s"}};
  table.add_row({"anon-4k", "12.5"});
  std::string html = run_page(run, {table});
  EXPECT_NE(html.find("Fault-in &lt;rate&gt;"), std::string::npos);
  auto page = t.path / "run.html";
  std::ofstream(page) << html;
  auto dom = chromium(t.path / "profile", {"--dump-dom"}, page);
  ASSERT_EQ(dom.exit_code, 0) << dom.err;
  EXPECT_EQ(occurrences(dom.out, "<svg"), 3u);
  EXPECT_EQ(occurrences(dom.out, "class=\"dot\""), 30u);
  EXPECT_NE(dom.out.find("source: hardware"), std::string::npos);
  EXPECT_TRUE(console_lines(dom.err).empty()) << dom.err;
}

namespace {

// The page with a script at its end that writes layout figures into the
// body's attributes, for --dump-dom to show: the report itself has no
// script (asserted above), the copy measures it.
fs::path with_layout_probe(const fs::path& page, const std::string& html) {
  const std::string probe = R"(<script>
const b = document.body, r = e => e.getBoundingClientRect();
b.dataset.pageWidth = document.documentElement.scrollWidth;
let right = 0;
// The verdict: the last column of the change table, the first table.
const verdicts = document.querySelector('table').querySelectorAll('tbody td:last-child');
for (const td of verdicts) {
  const box = td.closest('.scroll');
  // Right edge of the cell, or more than the box when it scrolls out of it.
  right = Math.max(right, r(td).right, r(td).right > r(box).right ? 1e6 : 0);
}
b.dataset.verdictRight = right;
b.dataset.verdictCells = verdicts.length;
</script>)";
  fs::path out = page.parent_path() / ("probe-" + page.filename().string());
  std::string h = html;
  h.insert(h.rfind("</body>"), probe);
  std::ofstream(out) << h;
  return out;
}

double attribute(const std::string& dom, const std::string& name) {
  std::smatch m;
  if (!std::regex_search(dom, m, std::regex(name + "=\"([-0-9.e+]+)\""))) return NAN;
  return std::stod(m[1]);
}

// The numbers of attribute `attr` wherever it occurs in `svg`.
std::vector<double> coordinates(const std::string& svg, const std::string& attr) {
  std::vector<double> out;
  std::regex re(" " + attr + "=\"([-0-9.]+)\"");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), re); it != std::sregex_iterator(); ++it)
    out.push_back(std::stod((*it)[1]));
  return out;
}

// A table of one metric over cases, as the report tables that chart
// themselves make it: mean (a number in ns), sd, n, 95% CI (an interval).
kvmbench::Table metric_table(const std::string& title, const std::vector<std::array<double, 4>>& rows,
                             const std::vector<std::string>& cases) {
  using kvmbench::Cell;
  kvmbench::Table t;
  t.title = "# " + title;
  t.source = "emulated";
  t.columns = {{"case", kvmbench::Align::left}, {"mean"}, {"sd"}, {"n"}, {"95% CI of the mean"}};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    auto [mean, sd, lo, hi] = rows[i];
    const auto rs = kvmbench::reading_scale(mean, "ns");
    auto text = [&](double v) { return kvmbench::format_reading(v * rs.factor) + " " + rs.unit; };
    t.add_row({cases[i], Cell::number(mean, "ns", text(mean)), Cell::number(sd, "ns", text(sd)),
               Cell::number(5, "", "5"),
               Cell::interval(lo, hi, "ns", "[" + text(lo) + ", " + text(hi) + "]")});
  }
  t.chart = kvmbench::TableChart{0, 1, 4, "95% CI of the mean"};
  return t;
}

}  // namespace

TEST(HtmlReport, TableChartsInChromium) {
  if (!chromium_path()) GTEST_SKIP() << "chromium is not installed";
  TempDir t;
  auto run = kvmbench::load_run(make_run(t.path / "run", 1.0, "6.8.0", "emulated"));
  // Milliseconds; the last case's CI reaches below zero (n=2-like noise).
  auto fault = metric_table("Fault-in time per 2 MiB page", {{{1.84e6, 0.05e6, 1.78e6, 1.90e6}},
                                                               {{2.61e6, 0.20e6, 2.36e6, 2.86e6}},
                                                               {{0.41e6, 0.60e6, -0.33e6, 1.15e6}}},
                            {"anon-4k", "anon-2m-thp", "shmem-hugetlb"});
  auto rmp = metric_table("RMPOPT sweep, strategy x layout",
                          {{{812e3, 9e3, 801e3, 823e3}}, {{655e3, 12e3, 640e3, 670e3}},
                           {{1.32e6, 30e3, 1.28e6, 1.36e6}}, {{990e3, 25e3, 959e3, 1021e3}}},
                          {"per-page / contiguous", "per-page / scattered", "full-sweep / contiguous",
                           "full-sweep / scattered"});
  kvmbench::Table plain;
  plain.title = "# Host";
  plain.columns = {{"key", kvmbench::Align::left}, {"value", kvmbench::Align::left}};
  plain.add_row({"kernel", "6.8.0"});
  std::string html = run_page(run, {fault, rmp, plain}, "INTERRUPTED: 3 of 5 repetitions measured");
  // Headings without the text layout's "# ".
  EXPECT_NE(html.find("<h3>Fault-in time per 2 MiB page</h3>"), std::string::npos);
  EXPECT_EQ(html.find("# Fault-in"), std::string::npos);
  auto page = t.path / "run.html";
  std::ofstream(page) << html;
  auto dom = chromium(t.path / "profile", {"--dump-dom"}, page);
  ASSERT_EQ(dom.exit_code, 0) << dom.err;
  EXPECT_TRUE(console_lines(dom.err).empty()) << dom.err;
  // One chart per charted table, none for the plain one, and no per-series
  // sample charts (the tables chart themselves).
  EXPECT_EQ(occurrences(dom.out, "<svg"), 2u);
  EXPECT_EQ(occurrences(dom.out, "class=\"dot\""), 0u);
  EXPECT_EQ(occurrences(dom.out, "<rect class=\"bar\" x="), 7u) << "one bar per row, 3 + 4";
  // Whiskers name what they are; the axis is in ms, not raw ns.
  EXPECT_EQ(occurrences(dom.out, "<g class=\"whisker\"><title>95% CI of the mean: "), 7u);
  EXPECT_NE(dom.out.find("whiskers: 95% CI of the mean"), std::string::npos);
  // No whisker drawn left of the zero line (a fault-in time is not negative;
  // the first chart's last CI reaches below 0).
  const std::string svg1 = dom.out.substr(dom.out.find("<svg"), dom.out.find("</svg>") - dom.out.find("<svg"));
  EXPECT_NE(svg1.find("mean (ms)"), std::string::npos);
  EXPECT_NE(svg1.find("1.84 ms"), std::string::npos);
  EXPECT_EQ(svg1.find("1840000"), std::string::npos);
  std::smatch zero;
  ASSERT_TRUE(std::regex_search(svg1, zero, std::regex("class=\"zero\" x1=\"([0-9.]+)\"")));
  const double x0 = std::stod(zero[1]);
  std::string whiskers;
  const std::regex whisker_re("<g class=\"whisker\">.*?</g>");
  for (auto it = std::sregex_iterator(svg1.begin(), svg1.end(), whisker_re);
       it != std::sregex_iterator(); ++it)
    whiskers += it->str();
  auto xs = coordinates(whiskers, "x1"), xs2 = coordinates(whiskers, "x2");
  xs.insert(xs.end(), xs2.begin(), xs2.end());
  ASSERT_FALSE(xs.empty());
  EXPECT_GE(*std::min_element(xs.begin(), xs.end()), x0 - 0.05);
  EXPECT_NE(dom.out.find("the interval crosses 0"), std::string::npos) << "the cut whisker says so";
  // Banners: emulated and interrupted, at the top, before the first table.
  const auto caveat = dom.out.find("class=\"banner caveat\""), incomplete = dom.out.find("class=\"banner incomplete\"");
  ASSERT_NE(caveat, std::string::npos);
  ASSERT_NE(incomplete, std::string::npos);
  EXPECT_LT(std::max(caveat, incomplete), dom.out.find("<table"));
  EXPECT_NE(dom.out.find("not performance measurements"), std::string::npos);
  EXPECT_NE(dom.out.find("INTERRUPTED: 3 of 5 repetitions measured"), std::string::npos);

  auto png = fs::path(KVMBENCH_BINARY_DIR) / "html_report_run_test.png";
  fs::remove(png);
  auto shot = chromium(t.path / "profile2", {"--screenshot=" + png.string(), "--hide-scrollbars",
                                              "--window-size=1280,1400"}, page);
  ASSERT_EQ(shot.exit_code, 0) << shot.err;
  ASSERT_TRUE(fs::exists(png)) << shot.err;
  EXPECT_GT(fs::file_size(png), 20000u) << "a blank page compresses to a few kB";
  std::ofstream(fs::path(KVMBENCH_BINARY_DIR) / "html_report_run_test.html") << html;
}

TEST(HtmlReport, TableChartOfMixedUnitsIsRefused) {
  auto t = metric_table("x", {{{1e6, 1, 0, 2e6}}, {{2e6, 1, 1e6, 3e6}}}, {"a", "b"});
  t.rows[1][1].unit = "cycles";
  EXPECT_EQ(kvmbench::table_chart_svg(t).find("<svg"), std::string::npos);
  EXPECT_NE(kvmbench::table_chart_svg(t).find("not in one unit"), std::string::npos);
  t.chart.reset();
  EXPECT_EQ(kvmbench::table_chart_svg(t), "");
}

TEST(HtmlReport, CompareVerdictInViewAt1280) {
  if (!chromium_path()) GTEST_SKIP() << "chromium is not installed";
  TempDir t;
  auto a = make_run(t.path / "a", 1.0, "6.8.0", "emulated");
  auto b = make_run(t.path / "b", 1.05, "6.9.0", "emulated");
  auto r = run_kvmbench({"compare", a, b, "--format", "html"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find("# A/B"), std::string::npos);
  // Emulated figures: a banner above the results.
  const auto banner = r.out.find("<div class=\"banner caveat\"");
  ASSERT_NE(banner, std::string::npos);
  EXPECT_LT(banner, r.out.find("<table"));
  EXPECT_NE(r.out.find("not performance measurements", banner), std::string::npos);
  auto page = t.path / "compare.html";
  std::ofstream(page) << r.out;
  auto dom = chromium(t.path / "profile", {"--dump-dom", "--allow-file-access-from-files"},
                      with_layout_probe(page, r.out));
  ASSERT_EQ(dom.exit_code, 0) << dom.err;
  EXPECT_EQ(attribute(dom.out, "data-verdict-cells"), 3) << dom.out.substr(0, 2000);
  EXPECT_LE(attribute(dom.out, "data-page-width"), 1280) << "no horizontal scrolling of the page";
  const double right = attribute(dom.out, "data-verdict-right");
  EXPECT_GT(right, 0);
  EXPECT_LE(right, 1280) << "the verdict is cut off or scrolled out of its table";
  auto png = fs::path(KVMBENCH_BINARY_DIR) / "html_report_compare_emulated_test.png";
  fs::remove(png);
  auto shot = chromium(t.path / "profile2", {"--screenshot=" + png.string(), "--hide-scrollbars"}, page);
  ASSERT_EQ(shot.exit_code, 0) << shot.err;
  EXPECT_GT(fs::file_size(png), 20000u);
}

TEST(HtmlReport, SampleChartsPutCasesSideBySide) {
  if (!chromium_path()) GTEST_SKIP() << "chromium is not installed";
  TempDir t;
  // 12 cases x 2 metrics, no table with a chart: 2 charts of 12 groups.
  auto w = kvmbench::RunWriter::create_at(t.path / "run", {{"suite", "directmap"}, {"source", "hardware"}});
  const double z[] = {0.3, -1.1, 0.8, -0.2, 1.4};
  for (int c = 0; c < 12; ++c)
    for (int i = 0; i < 5; ++i) {
      const std::string name = "nr_pages=" + std::to_string(4096 << c);
      w.append({name, "", "total_cycles", "cycles", 5.2e6 * (c + 1) * (1 + 0.03 * z[i]), i, false,
                nlohmann::json::object()});
      // Skewed and noisy (all positive): the lower ends of the CIs reach below 0.
      w.append({name, "", "per_page_ns", "ns", 400 * std::exp(1.5 * z[(i + c) % 5]), i, false,
                nlohmann::json::object()});
    }
  w.finish();
  auto run = kvmbench::load_run(t.path / "run");
  std::string html = run_page(run, {});
  auto page = t.path / "run.html";
  std::ofstream(page) << html;
  auto dom = chromium(t.path / "profile", {"--dump-dom"}, page);
  ASSERT_EQ(dom.exit_code, 0) << dom.err;
  EXPECT_EQ(occurrences(dom.out, "<svg"), 2u);
  EXPECT_EQ(occurrences(dom.out, "class=\"group\""), 24u);
  EXPECT_EQ(occurrences(dom.out, "class=\"dot\""), 120u);
  EXPECT_NE(dom.out.find(">M cycles"), std::string::npos) << "the axis in reading units";
  EXPECT_NE(dom.out.find("the interval crosses 0"), std::string::npos);
  // The per_page_ns chart: no whisker below its axis (y of 0, the frame).
  const std::string svg2 = dom.out.substr(dom.out.rfind("<svg"));
  std::smatch frame;
  // (the horizontal frame line: y1 == y2)
  const std::regex frame_re("<line x1=\"64\" y1=\"([0-9.]+)\" x2=\"[0-9.]+\" y2=\"\\1\" class=\"frame\">");
  ASSERT_TRUE(std::regex_search(svg2, frame, frame_re)) << svg2.substr(0, 3000);
  std::string whiskers;
  const std::regex whisker_re("<g class=\"whisker\">.*?</g>");
  for (auto it = std::sregex_iterator(svg2.begin(), svg2.end(), whisker_re); it != std::sregex_iterator(); ++it)
    whiskers += it->str();
  auto ys = coordinates(whiskers, "y1"), ys2 = coordinates(whiskers, "y2");
  ys.insert(ys.end(), ys2.begin(), ys2.end());
  ASSERT_EQ(ys.size() % 2, 0u);
  ASSERT_FALSE(ys.empty());
  EXPECT_LE(*std::max_element(ys.begin(), ys.end()), std::stod(frame[1]) + 0.05);
  EXPECT_TRUE(console_lines(dom.err).empty()) << dom.err;
  auto png = fs::path(KVMBENCH_BINARY_DIR) / "html_report_cases_test.png";
  fs::remove(png);
  auto shot = chromium(t.path / "profile2", {"--screenshot=" + png.string(), "--hide-scrollbars"}, page);
  ASSERT_EQ(shot.exit_code, 0) << shot.err;
  EXPECT_GT(fs::file_size(png), 20000u);
}

TEST(HtmlReport, ReportOfAnInterruptedRunHasABanner) {
  TempDir t;
  auto dir = make_run(t.path / "run", 1.0, "6.8.0", "hardware", "interrupted");
  auto r = run_kvmbench({"report", dir, "--format", "html"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto banner = r.out.find("<div class=\"banner incomplete\"");
  ASSERT_NE(banner, std::string::npos) << r.out.substr(0, 3000);
  EXPECT_NE(r.out.find("INTERRUPTED", banner), std::string::npos);
  EXPECT_LT(banner, r.out.find("<table"));
  // The same Document as the text's: each table's heading says it too, so
  // that a table taken alone does.
  EXPECT_NE(r.out.find("<h3>[INTERRUPTED"), std::string::npos);
  EXPECT_EQ(r.out.find("banner caveat"), std::string::npos) << "hardware: no source caveat";
  // A complete run: no banner at all.
  auto ok = run_kvmbench({"report", make_run(t.path / "ok", 1.0, "6.8.0"), "--format", "html"});
  ASSERT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(ok.out.find("class=\"banner"), std::string::npos);
}

// directmap's HTML report draws each ramp its host allocation rate was
// fitted over: the saved meminfo points and the fitted line, first among
// the charts.
TEST(HtmlReport, DirectmapReportDrawsTheRampAndItsFit) {
  TempDir t;
  auto w = kvmbench::RunWriter::create_at(t.path / "run", {{"suite", "directmap"}, {"source", "emulated"}});
  w.append({"vcpus=1/bytes=32M", "unpinned", "host_alloc_rate", "GB/s", 4, 0, false,
            nlohmann::json{{"meminfo_field", "Shmem"}, {"ramp_t_begin", 0.5}, {"ramp_t_end", 1.5},
                           {"fit_intercept_bytes", -2e9}}});
  w.finish("complete");
  fs::create_directories(t.path / "run" / "raw");
  std::ofstream(t.path / "run" / "raw" / "meminfo-unpinned.it0.csv") << "t_s,Shmem_bytes\n0,0\n0.5,0\n1,2e9\n1.5,4e9\n2,4e9\n";
  auto r = run_kvmbench({"report", (t.path / "run").string(), "--format", "html"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto ramp = r.out.find("Shmem while the guest faulted in");
  ASSERT_NE(ramp, std::string::npos) << r.out;
  EXPECT_EQ(occurrences(r.out, "<line class=\"fit\""), 1u);
  EXPECT_LT(ramp, r.out.find("<svg", r.out.find("</svg>", ramp))) << "the ramp first among the charts";
  EXPECT_NE(r.out.find("fitted 4 GB/s over 0.50-1.50 s"), std::string::npos);
  EXPECT_NE(r.out.find("Ramps: the host"), std::string::npos) << "the legend says what it is";
}
