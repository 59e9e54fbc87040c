// compare's one Document (analysis/views/compare_view.h) in every format:
// text, mail, Markdown, HTML and CSV hold the same rows under the same
// verdict line, and mail keeps to 80 columns when series names are long.
#include "analysis/views/compare_view.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>

#include "analysis/model/text_wrap.h"
#include "analysis/report/render/renderer.h"
#include "analysis/views/comparison_lead.h"

using namespace kvmbench;

namespace {

nlohmann::json meta(const std::string& kernel, const std::string& cpu = "AMD EPYC 9654") {
  return {{"suite", "rmpopt"},
          {"preset", "host"},
          {"hostname", "lab7"},
          {"host",
           {{"kernel", {{"release", kernel}}},
            {"cpu", {{"vendor_id", "AuthenticAMD"}, {"model_name", cpu}, {"family", 25}, {"model", 17}}},
            {"topology", {{"threads", 192}}}}}};
}

// Three series with names long enough that one row of LKP columns beside
// them would pass 80 columns: the first 10% slower in cand, the others the
// same but for noise.
const std::vector<std::string> kCases = {
    "layout=random:4/ram=16G/leader-primary",
    "layout=contiguous/ram=2T/leader-secondary",
    "layout=last/ram=64G/leader-primary",
};

ComparisonSide side(const std::string& label, const nlohmann::json& m, double slower) {
  std::vector<Sample> samples;
  const double z[] = {0.012, -0.02, 0.004, 0.017, -0.013};
  for (std::size_t c = 0; c < kCases.size(); ++c)
    for (int i = 0; i < 5; ++i)
      samples.push_back({kCases[c], "per-page", "emulated_sweep_wall_time", "ns",
                         1.84e6 * (c + 1) * (c == 0 ? slower : 1) * (1 + z[(i + c) % 5]), i, false, {}});
  ComparisonSide s;
  s.label = label;
  s.source = Source::hardware;
  s.meta = m;
  s.series = group_series(samples);
  return s;
}

Comparison two_kernels() {
  return compare(side("/runs/rmpopt-20261201T131037Z-lab7", meta("6.12.0"), 1.0),
                 side("/runs/rmpopt-20261201T140212Z-lab7", meta("6.13.0-rc2"), 1.1));
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST(CompareView, EveryFormatShowsTheSameRowsUnderTheSameVerdictLine) {
  const Comparison c = two_kernels();
  ASSERT_EQ(c.metrics.size(), 3u);
  ASSERT_EQ(c.metrics[0].verdict, stats::Verdict::slower);
  const Document d = comparison_document(c);
  const std::string verdict = verdict_line(c);
  ASSERT_EQ(verdict.rfind("verdict: WORSE in 1 of 3 tested metrics", 0), 0u) << verdict;

  const std::string text = render(d, Format::text), mail = render(d, Format::mail), md = render(d, Format::md),
                    html = render(d, Format::html), csv = render(d, Format::csv);
  // Mail is the text layout of the same Document.
  EXPECT_EQ(mail, text);
  // The verdict first: text's and Markdown's first line, the first line of
  // the page's lead, above every table.
  EXPECT_EQ(lines_of(text).front(), verdict);
  EXPECT_EQ(lines_of(md).front(), verdict + "  ");
  const auto lead = html.find("<pre class=\"lead\">" + verdict + "\n");
  ASSERT_NE(lead, std::string::npos) << html.substr(0, 4000);
  EXPECT_LT(lead, html.find("<table"));
  // The same rows, in the same order, with the same figures.
  // (HTML's rows after its overview of the changes, which names them too.)
  std::size_t at_text = 0, at_md = 0, at_html = html.find("<table"), at_csv = 0;
  for (std::size_t i = 0; i < c.metrics.size(); ++i) {
    const std::string name = c.metrics[i].key.name();
    const std::string change = d.tables[0].rows[i][8].text;  // %change, as printed
    for (auto [out, at] : {std::pair{&text, &at_text}, std::pair{&md, &at_md}, std::pair{&html, &at_html},
                           std::pair{&csv, &at_csv}}) {
      const auto found = out->find(name, *at);
      ASSERT_NE(found, std::string::npos) << name << " after offset " << *at << " in\n" << *out;
      *at = found + name.size();
    }
    // The row's figures follow its name: on the next line in text (a long
    // name above its row), in the same row in Markdown and HTML.
    auto line_after = [](const std::string& out, std::size_t at) {
      const std::size_t end = out.find('\n', at);
      return out.substr(at, end == std::string::npos ? std::string::npos : end - at);
    };
    EXPECT_NE(line_after(text, text.find('\n', at_text) + 1).find("  " + change + "  "), std::string::npos)
        << change << "\n" << text;
    EXPECT_NE(line_after(md, at_md).find("| " + change + " |"), std::string::npos) << change << "\n" << md;
    EXPECT_NE(line_after(html, at_html).find(">" + change + "<"), std::string::npos) << change;
  }
  // The slower row's verdict in every reading format; red on the page.
  EXPECT_NE(text.find("slower"), std::string::npos);
  EXPECT_NE(md.find("| slower |"), std::string::npos) << md;
  EXPECT_NE(html.find("<td class=\"l worse\">slower</td>"), std::string::npos);
  // CSV: a row per series, the figures the people's layout leaves out (each
  // side's n, Welch's p) as numbers.
  EXPECT_NE(csv.find("\nmetric,unit,direction,base_mean,base_sd_pct,base_n,change_pct,"), std::string::npos) << csv;
  EXPECT_EQ(count(csv, "\nlayout="), 3u) << csv;
  EXPECT_NE(csv.find(",5,"), std::string::npos) << "base_n as a number";
  // JSON: the comparison's data, with both sides' records.
  const auto j = nlohmann::json::parse(render(d, Format::json));
  EXPECT_EQ(j["verdict"], verdict);
  EXPECT_EQ(j["cand"]["kernel"], "6.13.0-rc2");
  EXPECT_EQ(j["base"]["machine"], "lab7, AMD EPYC 9654, 192 CPUs");
  EXPECT_EQ(j["metrics"].size(), 3u);
}

TEST(CompareView, MailFitsEightyColumnsWithLongSeriesNames) {
  const Document d = comparison_document(two_kernels());
  const std::string mail = render(d, Format::mail);
  const auto lines = lines_of(mail);
  for (const auto& l : lines) EXPECT_LE(display_width(l), 80u) << l << "\n" << mail;
  // Each name on a line of its own, its row under it: "1" first, then the
  // figures.
  for (std::size_t i = 0; i < kCases.size(); ++i) {
    const std::string name = kCases[i] + "/per-page/emulated_sweep_wall_time (ms)";
    const auto at = std::find(lines.begin(), lines.end(), name);
    ASSERT_NE(at, lines.end()) << name << "\n" << mail;
    ASSERT_NE(at + 1, lines.end());
    EXPECT_EQ((at + 1)->find_first_not_of(' '), (at + 1)->find(std::to_string(i + 1))) << *(at + 1);
  }
  // The header the rows read under: LKP's columns, no series column.
  EXPECT_NE(mail.find("  base  %stddev  %change  cand  %stddev"), std::string::npos) << mail;
  // Markdown keeps the name a column.
  EXPECT_NE(render(d, Format::md).find("| 1 | " + kCases[0] + "/per-page/emulated_sweep_wall_time (ms) |"),
            std::string::npos);
}

TEST(CompareView, TheLeadNamesTheMachinesAndTheKernels) {
  const Comparison c = two_kernels();
  EXPECT_TRUE(c.one_machine());
  EXPECT_EQ(c.base.kernel, "6.12.0");
  EXPECT_EQ(c.base.suite, "rmpopt");
  EXPECT_EQ(c.base.preset, "host");
  EXPECT_EQ(c.base.machine_line, "lab7, AMD EPYC 9654, 192 CPUs");
  ASSERT_TRUE(c.base.machine.known());
  const auto lead = comparison_context(c);
  ASSERT_GE(lead.size(), 5u);
  EXPECT_EQ(lead[0], "suite: rmpopt --preset host");
  EXPECT_EQ(lead[1], "machine: lab7, AMD EPYC 9654, 192 CPUs [" + c.base.machine.fingerprint + "]");
  // The runs by their names; JSON has the paths.
  EXPECT_EQ(lead[2], "base: rmpopt-20261201T131037Z-lab7 (kernel 6.12.0)");
  EXPECT_EQ(lead[3], "cand: rmpopt-20261201T140212Z-lab7 (kernel 6.13.0-rc2)");
  EXPECT_EQ(lead[4], "configuration that differs (base -> cand):");
  // Two machines: each named, and the change said not to be the patch's
  // alone.
  const Comparison two = compare(side("a", meta("6.12.0"), 1.0), side("b", meta("6.12.0", "AMD EPYC 9755"), 1.0));
  EXPECT_FALSE(two.one_machine());
  const auto lines = comparison_context(two);
  EXPECT_EQ(lines[1].rfind("base machine: lab7, AMD EPYC 9654, 192 CPUs [", 0), 0u) << lines[1];
  EXPECT_EQ(lines[2].rfind("cand machine: lab7, AMD EPYC 9755, 192 CPUs [", 0), 0u) << lines[2];
  EXPECT_EQ(lines[3], "  (two machines: a change below is not the patch's alone)");
}

TEST(CompareView, AllAddsTheDerivedRowsInEveryFormat) {
  std::vector<Sample> a, b;
  for (int i = 0; i < 4; ++i) {
    a.push_back({"anon-4k", "", "faultin_rate", "GB/s", 10.0 + 0.1 * i, i, false, {}});
    a.push_back({"anon-4k", "", "faultin_time", "ns", 100.0 + i, i, false, {}});
    b.push_back({"anon-4k", "", "faultin_rate", "GB/s", 10.0 + 0.1 * i, i, false, {}});
    b.push_back({"anon-4k", "", "faultin_time", "ns", 100.0 + i, i, false, {}});
  }
  ComparisonSide base, cand;
  base.series = group_series(a);
  cand.series = group_series(b);
  base.roles.derived = {{"faultin_time", "faultin_rate"}};
  cand.roles = base.roles;
  const Comparison c = compare(base, cand);
  for (Format f : {Format::text, Format::md, Format::csv, Format::html}) {
    EXPECT_EQ(render(comparison_document(c), f).find("anon-4k/faultin_time"), std::string::npos) << to_string(f);
    EXPECT_NE(render(comparison_document(c, {.all = true}), f).find("anon-4k/faultin_time"), std::string::npos)
        << to_string(f);
  }
  EXPECT_NE(render(comparison_document(c), Format::text).find("1 derived metric not shown"), std::string::npos);
  // JSON always has every row.
  EXPECT_EQ(nlohmann::json::parse(render(comparison_document(c), Format::json))["metrics"].size(), 2u);
}

// Published output whose host kvmbench never saw: its configuration is
// unknown, never "the same"; what its files carry (Google Benchmark's
// context) is said alike or different.
TEST(CompareView, PublishedOutputsConfigurationIsWhatItsFilesSay) {
  auto lead_of = [](const nlohmann::json& b, const nlohmann::json& c) {
    return comparison_context(compare(side("base.txt", b, 1.0), side("cand.txt", c, 1.0)));
  };
  auto has = [](const std::vector<std::string>& lines, const std::string& line) {
    return std::find(lines.begin(), lines.end(), line) != lines.end();
  };
  auto joined = [](const std::vector<std::string>& lines) {
    std::string s;
    for (auto& l : lines) s += l + "\n";
    return s;
  };
  // The lines as one text, each wrap's line break and indent one space.
  auto flat = [](const std::vector<std::string>& lines) {
    std::string s;
    for (auto& l : lines) s += (s.empty() ? "" : " ") + l.substr(l.find_first_not_of(' '));
    return s;
  };
  // Two selftest outputs (no metadata at all).
  auto lead = lead_of(nlohmann::json::object(), nlohmann::json::object());
  EXPECT_EQ(joined(lead).find("configuration: the same"), std::string::npos) << joined(lead);
  EXPECT_NE(flat(lead).find("configuration unknown: base's and cand's kernel, firmware, KVM, THP, SMT, QEMU "
                             "(published output: kvmbench never saw its host); nothing is known to differ or to be "
                             "alike"),
            std::string::npos)
      << joined(lead);
  for (auto& l : lead) EXPECT_LE(display_width(l), 80u) << l;

  // Two Google Benchmark files: a debug build on 64 CPUs is not "the same".
  const nlohmann::json release = {{"context",
                                   {{"host_name", "perf-lab-07"},
                                    {"num_cpus", 2},
                                    {"library_build_type", "release"},
                                    {"executable", "./bench_a"},
                                    {"load_avg", {0.3, 0.4, 0.4}}}}};
  nlohmann::json debug = release;
  debug["context"]["num_cpus"] = 64;
  debug["context"]["library_build_type"] = "debug";
  debug["context"]["executable"] = "./bench_b";
  debug["context"]["load_avg"] = {5.0, 4.0, 3.0};
  lead = lead_of(release, debug);
  EXPECT_TRUE(has(lead, "configuration that differs (base -> cand):")) << joined(lead);
  EXPECT_TRUE(has(lead, "  context.library_build_type: release -> debug")) << joined(lead);
  EXPECT_TRUE(has(lead, "  context.num_cpus: 2 -> 64")) << joined(lead);
  EXPECT_TRUE(has(lead, "configuration alike as both sides also say: host_name perf-lab-07")) << joined(lead);
  EXPECT_EQ(joined(lead).find("load_avg"), std::string::npos) << joined(lead);  // a measurement, not configuration
  EXPECT_EQ(joined(lead).find("executable"), std::string::npos) << joined(lead);
  EXPECT_NE(flat(lead).find("configuration unknown: base's and cand's kernel, firmware, KVM, THP, SMT, QEMU "
                             "(published output: kvmbench never saw its host)"),
            std::string::npos)
      << joined(lead);
  // The same context on both sides: alike, and the host still unknown.
  lead = lead_of(release, release);
  EXPECT_FALSE(has(lead, "configuration that differs (base -> cand):")) << joined(lead);
  EXPECT_NE(flat(lead).find("configuration alike as both sides say: host_name perf-lab-07, library_build_type "
                              "release, num_cpus 2"),
            std::string::npos)
      << joined(lead);

  // A run against published output: the run's host is not "different"
  // from one nobody recorded; the other side's is unknown.
  const Comparison c = compare(side("run", meta("6.12.0"), 1.0), side("cand.txt", nlohmann::json::object(), 1.0));
  EXPECT_TRUE(c.base_host_recorded);
  EXPECT_FALSE(c.cand_host_recorded);
  EXPECT_TRUE(c.meta_differences.empty()) << c.meta_differences[0].key;
  lead = comparison_context(c);
  EXPECT_NE(flat(lead).find("configuration unknown: cand's kernel, firmware, KVM, THP, SMT, QEMU (published output:"),
            std::string::npos)
      << joined(lead);
  // Two runs of kvmbench's own: as before.
  EXPECT_TRUE(has(comparison_context(compare(side("a", meta("6.12.0"), 1.0), side("b", meta("6.12.0"), 1.0))),
                  "configuration: the same (kernel, firmware, KVM, THP, SMT, QEMU, parameters)"));
}
