// The HTML report in a real browser: headless Chromium loads the page that
// `kvmbench compare --format html` wrote, the DOM must hold the charts, the
// console must stay silent (no errors, no blocked fetches), and a
// screenshot is taken (kept in the build directory for people to look at).
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "analysis/html_report.h"
#include "analysis/run_store.h"
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
                                   "--window-size=1200,900"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  argv.push_back("file://" + page.string());
  return run_command(argv, 120, "", {"HOME=" + profile.string()});
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

fs::path make_run(const fs::path& dir, double factor, const std::string& kernel) {
  nlohmann::json meta = {{"suite", "directmap"}, {"source", "hardware"}, {"host", {{"kernel", {{"release", kernel}}}}}};
  auto w = kvmbench::RunWriter::create_at(dir, meta);
  const double z[] = {0.3, -1.1, 0.8, -0.2, 1.4, -0.7, 0.1, -1.5, 0.9, 0.0};
  for (int i = 0; i < 10; ++i) {
    w.append({"anon-4k", "", "fault_ns", "ns", 812 * factor * (1 + 0.01 * z[i]), i, false, nlohmann::json::object()});
    w.append({"anon-4k", "", "faultin_rate", "GB/s", 12.5 / factor * (1 + 0.012 * z[(i + 3) % 10]), i, false,
              nlohmann::json::object()});
    w.append({"nr_pages=262144", "all-cpus", "total_cycles", "cycles", 1234567 * (1 + 0.01 * z[(i + 5) % 10]), i,
              false, nlohmann::json::object()});
  }
  w.finish();
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
  EXPECT_EQ(occurrences(dom.out, "<svg"), 3u) << "one chart per metric";
  EXPECT_EQ(occurrences(dom.out, "class=\"dot\""), 60u) << "3 metrics x 2 sides x 10 samples";
  EXPECT_EQ(occurrences(dom.out, "class=\"whisker\""), 6u);
  EXPECT_EQ(occurrences(dom.out, "class=\"bar\""), 6u);
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
  std::string html = kvmbench::render_run_html(run, {table});
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
