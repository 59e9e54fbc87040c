// export_run / export_verdict (analysis/verdicts/run_export.h) and the four
// renderers (analysis/views/export_view.h) on hand-written runs
// (tests/support/export_runs.h). The formats' schemas are checked with
// their validators in tests/integration/export_cli_test.cpp.
#include <gtest/gtest.h>

#include "analysis/report/render/renderer.h"
#include "analysis/views/export_view.h"
#include "analysis/verdicts/run_export.h"
#include "tests/support/export_runs.h"

using namespace kvmbench;
using test_support::TempDir;
using test_support::write_export_run;

namespace {

ExportedRun exported(const std::string& status = "complete", int reps = 5) {
  TempDir t;
  return export_run(load_run(write_export_run(t.path, "rmpopt-x", status, reps)), "rmpopt-x");
}

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

}  // namespace

TEST(RunExport, PrimaryMetricsOnlyWithTheirStatistics) {
  const auto e = exported();
  ASSERT_EQ(e.metrics.size(), 1u);  // the derived rate and the calibration are not primary
  const auto& m = e.metrics[0];
  EXPECT_EQ(m.key.name(), "ram=64G/layout=last/emulated_sweep_wall");
  EXPECT_EQ(m.result, ExportResult::pass);
  EXPECT_EQ(m.units, 5u);
  EXPECT_DOUBLE_EQ(m.summary.mean, 10.2);
  EXPECT_LT(m.summary.ci95_low, 10.2);
  EXPECT_EQ(e.kernel, "6.18.0-rc3+");
  ASSERT_EQ(e.skipped.size(), 1u);
  EXPECT_EQ(e.skipped[0].part, "document");
  EXPECT_EQ(export_verdict({e}), ExportVerdict::ok);
}

// Three repetitions of 0.4, 1.6 and 2.3 ms: the t interval of the mean,
// 1.433 -+ 4.302653 * 0.9609 / sqrt(3) = [-0.954, 3.820] ms, reaches below
// zero, which a time cannot. The export gives the geometric one: logs
// -0.916291, 0.470004, 0.832909, mean 0.128874, sd 0.923148, se 0.532980,
// t(0.975, 2) = 4.302653: exp(0.128874 -+ 2.293227) = [0.114824, 11.2695] ms.
TEST(RunExport, APositiveQuantitysCiStaysAboveZero) {
  TempDir t;
  const auto dir = write_export_run(t.path, "rmpopt-x", "complete", 0);
  std::string lines;
  for (int i = 0; i < 3; ++i)
    lines += nlohmann::json{{"case", "ram=64G"}, {"variant", "layout=last"}, {"metric", "emulated_sweep_wall"},
                            {"unit", "ms"}, {"value", std::vector<double>{0.4, 1.6, 2.3}[i]}, {"iteration", i}}
                 .dump() +
             "\n";
  test_support::write_text(dir / "samples.jsonl", lines);
  const auto e = export_run(load_run(dir), "rmpopt-x");
  ASSERT_EQ(e.metrics.size(), 1u);
  EXPECT_NEAR(e.metrics[0].summary.ci95_low, 0.114824, 1e-6);
  EXPECT_NEAR(e.metrics[0].summary.ci95_high, 11.2695, 1e-4);
}

TEST(RunExport, Verdicts) {
  EXPECT_EQ(export_verdict({exported("failed")}), ExportVerdict::failed);
  EXPECT_EQ(export_verdict({exported("interrupted")}), ExportVerdict::inconclusive);
  // One repetition: no CI, so the metric is skipped and the export inconclusive.
  const auto one = exported("complete", 1);
  ASSERT_EQ(one.metrics.size(), 1u);
  EXPECT_EQ(one.metrics[0].result, ExportResult::skip);
  EXPECT_EQ(export_verdict({one}), ExportVerdict::inconclusive);
  // Nothing measured at all is no pass either.
  EXPECT_EQ(export_verdict({exported("complete", 0)}), ExportVerdict::inconclusive);
  // A failed run fails the set whatever the others say.
  EXPECT_EQ(export_verdict({exported(), exported("failed")}), ExportVerdict::failed);
}

TEST(RunExportRender, Lava) {
  const std::string l = render_export_lava({exported()});
  EXPECT_TRUE(has(l, "lava-test-case 'rmpopt.run-status' --result pass\n")) << l;
  EXPECT_TRUE(has(l, "lava-test-case 'rmpopt.ram_64G.layout_last.emulated_sweep_wall' --result pass "
                     "--measurement 10.2 --units 'ms'\n"))
      << l;
  EXPECT_TRUE(has(l, "lava-test-set start 'rmpopt.ram_64G.layout_last.emulated_sweep_wall'\n")) << l;
  EXPECT_TRUE(has(l, "lava-test-case 'n' --result pass --measurement 5 --units 'units'\n")) << l;
  EXPECT_TRUE(has(l, "lava-test-set stop\n")) << l;
  EXPECT_TRUE(has(l, "lava-test-case 'rmpopt.skipped.document' --result skip\n")) << l;
  EXPECT_FALSE(has(l, "sweep_rate")) << l;
  EXPECT_TRUE(has(render_export_lava({exported("failed")}), "'rmpopt.run-status' --result fail"));
}

// LAVA records a case's name, result, measurement and units, nothing
// else: a run that is not measured on hardware (emulated under TCG, a
// replay, a model) says so in every case's name, so that LAVA and the
// dashboards fed from it never file its figures beside a hardware one's.
TEST(RunExportRender, LavaNamesASourceOtherThanHardware) {
  auto e = exported();
  e.source = "emulated";
  const std::string l = render_export_lava({e});
  EXPECT_TRUE(has(l, "lava-test-case 'rmpopt.emulated.run-status' --result pass\n")) << l;
  EXPECT_TRUE(has(l, "lava-test-case 'rmpopt.emulated.ram_64G.layout_last.emulated_sweep_wall' --result pass "
                     "--measurement 10.2 --units 'ms'\n"))
      << l;
  EXPECT_TRUE(has(l, "lava-test-set start 'rmpopt.emulated.ram_64G.layout_last.emulated_sweep_wall'\n")) << l;
  EXPECT_TRUE(has(l, "lava-test-case 'rmpopt.emulated.skipped.document' --result skip\n")) << l;
  EXPECT_FALSE(has(l, "'rmpopt.ram_64G")) << l;
  e.source = "replay";
  EXPECT_TRUE(has(render_export_lava({e}), "'rmpopt.replay.ram_64G.layout_last.emulated_sweep_wall'"));
}

TEST(RunExportRender, JunitCountsAndEscapes) {
  const std::string x = render(export_document({exported("failed")}), Format::junit);
  EXPECT_TRUE(has(x, "<testsuites name=\"kvmbench export\" tests=\"3\" failures=\"1\" errors=\"0\">")) << x;
  EXPECT_TRUE(has(x, "skipped=\"1\"")) << x;
  EXPECT_TRUE(has(x, "<property name=\"ram=64G/layout=last/emulated_sweep_wall.mean\" value=\"10.2\"/>")) << x;
  EXPECT_TRUE(has(x, "message=\"run failed: the sweep thread died\"")) << x;
  EXPECT_TRUE(has(x, "no SEV-SNP &lt;here&gt; &amp; &quot;no&quot; RMPOPT")) << x;
}

TEST(RunExportRender, KcidbStructure) {
  const auto j = nlohmann::json::parse(render_export_kcidb({exported(), exported("complete", 1)}, "lab"));
  EXPECT_EQ(j["version"]["major"], 5);
  ASSERT_EQ(j["checkouts"].size(), 1u);  // one kernel, one checkout and build
  ASSERT_EQ(j["builds"].size(), 1u);
  EXPECT_EQ(j["builds"][0]["id"], "lab:6.18.0-rc3+");
  const auto& tests = j["tests"];
  ASSERT_EQ(tests.size(), 6u);  // per run: status, one metric, one skipped part
  const auto& metric = tests[1];
  EXPECT_EQ(metric["status"], "DONE");
  EXPECT_EQ(metric["path"], "kvmbench.rmpopt.ram_64G.layout_last.emulated_sweep_wall");
  EXPECT_DOUBLE_EQ(metric["number"]["value"].get<double>(), 10.2);
  EXPECT_EQ(metric["number"]["unit"], "ms");
  EXPECT_EQ(metric["misc"]["n"], 5);
  EXPECT_EQ(tests[4]["status"], "SKIP");  // one repetition: no CI
  EXPECT_FALSE(tests[4]["misc"].contains("stddev"));  // NaN is left out: KCIDB has no null
}

TEST(RunExportRender, Markdown) {
  const std::string md = render(export_document({exported(), exported("interrupted")}), Format::md);
  EXPECT_TRUE(has(md, "kvmbench export: 2 runs, inconclusive")) << md;
  EXPECT_TRUE(has(md, "| pass | ram=64G/layout=last/emulated_sweep_wall |")) << md;
  EXPECT_TRUE(has(md, "run interrupted: not complete")) << md;
  EXPECT_TRUE(has(md, "skipped document: no SEV-SNP <here>")) << md;
}

// A run with monitors (metric_roles.h): each format carries them marked as
// monitors, apart from the results, and they never change the verdict.
TEST(RunExportRender, MonitorsAreCarriedMarkedAndNeverAResult) {
  TempDir t;
  const auto dir = write_export_run(t.path, "rmpopt-x", "complete", 2);
  nlohmann::json meta = nlohmann::json::parse(test_support::read_text(dir / "meta.json"));
  meta["metric_roles"]["monitor"] = {"vmstat", "kvm"};
  test_support::write_text(dir / "meta.json", meta.dump(2));
  std::string lines = test_support::read_text(dir / "samples.jsonl");
  // pgfault 100 and 300 (mean 200); kvm exits in one repetition only.
  for (int i = 0; i < 2; ++i)
    lines += nlohmann::json{{"case", "repetition"}, {"metric", "vmstat.pgfault"}, {"unit", "count"},
                            {"value", 100 + 200 * i}, {"iteration", i}}
                 .dump() +
             "\n";
  lines += nlohmann::json{{"case", "repetition"}, {"metric", "kvm.exits"}, {"unit", "count"}, {"value", 7},
                          {"iteration", 0}}
               .dump() +
           "\n";
  test_support::write_text(dir / "samples.jsonl", lines);
  const auto e = export_run(load_run(dir), "rmpopt-x");
  ASSERT_EQ(e.metrics.size(), 1u);  // the monitors are not results
  ASSERT_EQ(e.monitors.size(), 2u);
  const auto pgfault = std::find_if(e.monitors.begin(), e.monitors.end(),
                                    [](const ExportedMetric& m) { return m.key.metric == "vmstat.pgfault"; });
  ASSERT_NE(pgfault, e.monitors.end());
  EXPECT_DOUBLE_EQ(pgfault->summary.mean, 200);
  EXPECT_EQ(pgfault->units, 2u);
  EXPECT_EQ(export_verdict({e}), ExportVerdict::ok);  // one unit of kvm.exits makes nothing inconclusive

  const std::string l = render_export_lava({e});
  EXPECT_TRUE(has(l, "lava-test-set start 'rmpopt.monitors'\n")) << l;
  EXPECT_TRUE(has(l, "lava-test-case 'repetition.kvm_exits' --result pass --measurement 7 --units 'count'\n")) << l;
  EXPECT_TRUE(has(l, "lava-test-case 'repetition.vmstat_pgfault' --result pass --measurement 200 --units 'count'\n"))
      << l;
  const auto k = nlohmann::json::parse(render_export_kcidb({e}, "lab"));
  std::size_t monitors = 0;
  for (const auto& test : k["tests"]) {
    if (!test.contains("misc") || !test["misc"].contains("role")) continue;
    if (test["misc"]["role"] == "monitor") {
      ++monitors;
      EXPECT_EQ(test["path"].get<std::string>().rfind("kvmbench.rmpopt.monitors.", 0), 0u) << test.dump();
      EXPECT_EQ(test["status"], "DONE");
    } else {
      EXPECT_EQ(test["misc"]["role"], "primary");
    }
  }
  EXPECT_EQ(monitors, 2u);
  const std::string x = render(export_document({e}), Format::junit);
  EXPECT_TRUE(has(x, "<property name=\"monitor.repetition/vmstat.pgfault.mean\" value=\"200\"/>")) << x;
  EXPECT_TRUE(has(x, "tests=\"3\"")) << x;  // status, the metric, the skipped part: no monitor case
  const std::string md = render(export_document({e}), Format::md);
  EXPECT_TRUE(has(md, "monitors of rmpopt/host (rmpopt-x) (what the kernel counted; not results)")) << md;
}
