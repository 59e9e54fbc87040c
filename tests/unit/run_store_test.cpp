#include "analysis/run_store.h"

#include <gtest/gtest.h>

#include <fstream>

#include "tests/support/run_command.h"

using namespace kvmbench;
namespace fs = std::filesystem;

TEST(RunStore, WritesMetaAndSamplesAndReadsThemBack) {
  test_support::TempDir tmp;
  nlohmann::json meta = {{"suite", "make_shared"}, {"source", "replay"}, {"hostname", "lab 1"}};
  fs::path dir;
  {
    RunWriter w = RunWriter::create_in(tmp.path, meta);
    dir = w.dir();
    EXPECT_EQ(load_run(dir).status(), "running");
    Sample s{"nr_pages=1", "", "total", "cycles", 39278, 0, false, {{"line", 3}}};
    w.append(s);
    s.value = 28060.5;
    s.iteration = 1;
    w.append(s);
    w.write_raw("kernel.log", "hello\n");
    w.finish();
  }
  EXPECT_NE(dir.filename().string().find("make_shared-"), std::string::npos);
  EXPECT_NE(dir.filename().string().find("lab_1"), std::string::npos);
  kvmbench::Run r = load_run(dir);
  EXPECT_EQ(r.status(), "complete");
  EXPECT_EQ(r.source(), Source::replay);
  ASSERT_EQ(r.samples.size(), 2u);
  EXPECT_EQ(r.samples[1].value, 28060.5);
  EXPECT_EQ(r.samples[1].iteration, 1);
  EXPECT_EQ(r.samples[0].extra["line"], 3);
  EXPECT_EQ(read_file(dir / "raw" / "kernel.log"), "hello\n");
}

TEST(RunStore, RejectsTruncatedLastSampleLine) {
  test_support::TempDir tmp;
  fs::path dir = tmp.path / "run";
  {
    RunWriter w = RunWriter::create_at(dir, {{"suite", "x"}, {"source", "hardware"}});
    w.append(Sample{"c", "", "m", "ns", 1.0, 0, false, {}});
    w.finish();
  }
  std::ofstream(dir / "samples.jsonl", std::ios::app) << R"({"case":"c","metric":"m")";
  try {
    load_run(dir);
    FAIL() << "truncated line accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("samples.jsonl:2"), std::string::npos) << e.what();
  }
}

TEST(RunStore, RejectsMissingSourceAndExistingDir) {
  test_support::TempDir tmp;
  EXPECT_THROW(RunWriter::create_at(tmp.path / "a", {{"suite", "x"}}), std::invalid_argument);
  EXPECT_FALSE(fs::exists(tmp.path / "a"));
  EXPECT_THROW(RunWriter::create_at(tmp.path, {{"suite", "x"}, {"source", "model"}}), std::runtime_error);
}

TEST(ResultModel, DirectionFromUnit) {
  EXPECT_EQ(direction_for_unit("GB/s"), Direction::higher_is_better);
  EXPECT_EQ(direction_for_unit("transactions/s"), Direction::higher_is_better);
  EXPECT_EQ(direction_for_unit("cycles"), Direction::lower_is_better);
  EXPECT_EQ(direction_for_unit("ns"), Direction::lower_is_better);
  EXPECT_EQ(direction_for_unit("widgets"), Direction::unknown);
}
