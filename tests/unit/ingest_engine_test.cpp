// `kvmbench ingest` through its engine (suites/engine/ingest.h), without the
// binary: how the samples of several files are labelled as one run's
// (ingest_labels.h), and what a request stores or refuses.
#include "suites/engine/ingest.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <vector>

#include "analysis/store/run_store.h"
#include "suites/engine/ingest_labels.h"
#include "suites/framework/errors.h"
#include "tests/support/exit_error_of.h"
#include "tests/support/run_command.h"

namespace kvmbench::engine {
namespace {

namespace fs = std::filesystem;
using test_support::TempDir;

Sample sample(const std::string& metric, double value, int iteration, nlohmann::json extra = nullptr) {
  Sample s;
  s.case_name = "case";
  s.metric = metric;
  s.unit = "ns";
  s.value = value;
  s.iteration = iteration;
  s.extra = std::move(extra);
  return s;
}

// Inputs as read_ingest_input leaves them, of `format`, at `paths`.
std::vector<IngestInput> inputs_of(parsers::InputFormat format, const std::vector<std::string>& paths) {
  std::vector<IngestInput> inputs(paths.size());
  for (std::size_t k = 0; k < paths.size(); ++k) {
    inputs[k].path = paths[k];
    inputs[k].raw_name = fs::path(paths[k]).filename().string() + std::to_string(k);
    inputs[k].parsed.format = format;
  }
  return inputs;
}

std::vector<int> iterations(const std::vector<Sample>& samples) {
  std::vector<int> out;
  for (const auto& s : samples) out.push_back(s.iteration);
  return out;
}

TEST(IngestLabels, ASeriesThatGoesOnInALaterFileGoesOnWithItsIterations) {
  // Plain numbers take the file's stem as their case: two files named
  // values.txt hold one series, its iterations 0-2, then 0-1 again.
  auto inputs = inputs_of(parsers::InputFormat::plain_numbers, {"monday/values.txt", "tuesday/values.txt"});
  for (int i = 0; i < 3; ++i) inputs[0].parsed.result.samples.push_back(sample("value", 10 + i, i));
  for (int i = 0; i < 2; ++i) inputs[1].parsed.result.samples.push_back(sample("value", 20 + i, i));
  const IngestMeta meta = label_inputs(inputs, {});
  EXPECT_EQ(inputs[0].parsed.result.samples[0].case_name, "values");
  EXPECT_EQ(iterations(inputs[0].parsed.result.samples), (std::vector<int>{0, 1, 2}));
  // The second file's go on after the first's three: 3 and 4.
  EXPECT_EQ(iterations(inputs[1].parsed.result.samples), (std::vector<int>{3, 4}));
  ASSERT_EQ(meta.inputs.size(), 2u);
  EXPECT_EQ(meta.inputs[1]["raw"], "raw/values.txt1");
  EXPECT_EQ(meta.inputs[1]["samples"], 2);
  // Plain numbers are no program's invocations.
  EXPECT_FALSE(inputs[1].parsed.result.samples[0].extra.contains("invocation"));

  const std::vector<Sample> all = pool_samples(inputs);
  EXPECT_EQ(iterations(all), (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(inputs[1].first_sample, 3u);
}

TEST(IngestLabels, EachFileOfAProgramIsAnInvocationNumberedAcrossFiles) {
  // The first file one run of the benchmark; the second two (its parser
  // numbered them 0 and 1): invocations 0, then 1 and 2.
  auto inputs = inputs_of(parsers::InputFormat::gbench_json, {"a.json", "b.json"});
  inputs[0].parsed.result.samples.push_back(sample("real_time", 5, 0));
  inputs[1].parsed.result.samples.push_back(sample("real_time", 6, 0, {{"invocation", 0}}));
  inputs[1].parsed.result.samples.push_back(sample("real_time", 7, 0, {{"invocation", 1}}));
  IngestLabelRules rules;
  rules.variant_per_file = true;
  label_inputs(inputs, rules);
  EXPECT_EQ(inputs[0].parsed.result.samples[0].extra["invocation"], 0);
  EXPECT_EQ(inputs[1].parsed.result.samples[0].extra["invocation"], 1);
  EXPECT_EQ(inputs[1].parsed.result.samples[1].extra["invocation"], 2);
  EXPECT_EQ(inputs[0].parsed.result.samples[0].variant, "a");
  EXPECT_EQ(inputs[1].parsed.result.samples[1].variant, "b");
}

TEST(IngestLabels, OneFileOfOneRunIsNoInvocation) {
  auto inputs = inputs_of(parsers::InputFormat::gbench_json, {"a.json"});
  inputs[0].parsed.result.samples.push_back(sample("real_time", 5, 0, {{"file", "stale"}}));
  label_inputs(inputs, {});
  // And the parser's "file" goes: the stored line names the raw copy.
  EXPECT_EQ(inputs[0].parsed.result.samples[0].extra, nlohmann::json::object());
}

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

// The ExitError a request ends with (code -1: none).
ExitError outcome_of(const IngestRequest& req) {
  return test_support::exit_error_of([&] { ingest(req); });
}

TEST(Ingest, TwoFilesBecomeOneStoredRun) {
  TempDir tmp;
  write(tmp.path / "monday/values.txt", "1.5\n2.5\n3.5\n");
  write(tmp.path / "tuesday/values.txt", "4.5\n5.5\n");
  IngestRequest req;
  req.files = {(tmp.path / "monday/values.txt").string(), (tmp.path / "tuesday/values.txt").string()};
  req.out_root = (tmp.path / "runs").string();
  req.format = "csv";
  ingest(req);
  std::vector<fs::path> runs;
  for (const auto& e : fs::directory_iterator(tmp.path / "runs")) runs.push_back(e.path());
  ASSERT_EQ(runs.size(), 1u);
  const kvmbench::Run run = load_run(runs[0], SampleProvenance::drop);
  EXPECT_EQ(run.status(), "complete");
  EXPECT_EQ(run.source(), Source::replay);
  EXPECT_EQ(run.suite(), "ingest");  // no suite owns "value"
  ASSERT_EQ(run.samples.size(), 5u);
  EXPECT_EQ(run.samples[3].value, 4.5);
  EXPECT_EQ(run.samples[3].iteration, 3);
  // Two raw copies of one name: the second numbered.
  EXPECT_EQ(read_file(runs[0] / "raw" / "values.txt"), "1.5\n2.5\n3.5\n");
  EXPECT_EQ(read_file(runs[0] / "raw" / "2-values.txt"), "4.5\n5.5\n");
}

TEST(Ingest, AMalformedFileIsBadInputNamedAndNothingIsStored) {
  TempDir tmp;
  IngestRequest req;
  const std::string truncated = std::string(KVMBENCH_TEST_DATA) + "/ingest/gbench_truncated.json";
  req.files = {truncated};
  req.out_root = (tmp.path / "runs").string();
  const ExitError e = outcome_of(req);
  EXPECT_EQ(e.code, kExitUsage) << e.what();
  EXPECT_NE(std::string(e.what()).find(truncated), std::string::npos) << e.what();
  EXPECT_FALSE(fs::exists(tmp.path / "runs"));
}

TEST(Ingest, OptionsAreCheckedBeforeAnyFileIsRead) {
  IngestRequest req;
  req.files = {"/nonexistent/kvmbench/log"};
  req.split_by = "weekly";
  ExitError e = outcome_of(req);
  EXPECT_EQ(e.code, kExitUsage);
  EXPECT_NE(std::string(e.what()).find("--split-by weekly"), std::string::npos) << e.what();
  req.split_by = "";
  req.format = "html";
  e = outcome_of(req);
  EXPECT_EQ(e.code, kExitUsage);
  EXPECT_EQ(std::string(e.what()).find("/nonexistent"), std::string::npos) << e.what();
  req.format = "text";
  e = outcome_of(req);
  EXPECT_EQ(e.code, kExitUsage);
  EXPECT_NE(std::string(e.what()).find("/nonexistent/kvmbench/log: no such file"), std::string::npos) << e.what();
}

}  // namespace
}  // namespace kvmbench::engine
