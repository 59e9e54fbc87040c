#include "analysis/store/run_store.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <csignal>

#include <fstream>
#include <regex>
#include <set>

#include "analysis/model/sample_jsonl.h"
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

// Reading a run for its tables leaves the provenance members out (also
// from a line only nlohmann reads, here one with a nested member) and keeps
// every other member.
TEST(RunStore, DropsProvenanceWhenAskedTo) {
  test_support::TempDir tmp;
  const fs::path dir = tmp.path / "run";
  {
    RunWriter w = RunWriter::create_at(dir, {{"suite", "rmpopt"}, {"source", "replay"}});
    w.append(Sample{"range=2T", "", "sweep_time", "ns", 5, 0, false,
                    {{"line", 3}, {"group", 1}, {"uptime_s", 1.5}, {"file", "k.log"}, {"range_start", "0x0"}}});
    w.append(Sample{"c", "", "m", "ns", 6, 0, false, {{"wallclock", "Mar 05"}, {"nested", {{"a", 1}}}}});
    w.finish();
  }
  const kvmbench::Run kept = load_run(dir);
  EXPECT_EQ(kept.samples[0].extra.size(), 5u);
  const kvmbench::Run dropped = load_run(dir, SampleProvenance::drop);
  ASSERT_EQ(dropped.samples.size(), 2u);
  EXPECT_EQ(dropped.samples[0].extra, (nlohmann::json{{"range_start", "0x0"}}));
  EXPECT_EQ(dropped.samples[1].extra, (nlohmann::json{{"nested", {{"a", 1}}}}));
  EXPECT_EQ(dropped.samples[1].value, 6);
}

// A long run (18 MB of lines): the samples in file order, and a bad line
// far into the file reported with its number.
TEST(RunStore, ReadsALongRun) {
  test_support::TempDir tmp;
  const fs::path dir = tmp.path / "run";
  constexpr int kLines = 120000;  // ~18 MB
  {
    RunWriter w = RunWriter::create_at(dir, {{"suite", "x"}, {"source", "replay"}});
    std::string chunk;
    for (int i = 0; i < kLines; ++i)
      chunk += fmt::format(R"({{"case":"c{}","variant":"","metric":"m","unit":"ns","value":{}.0,"iteration":{},)"
                           R"("line":{},"file":"a-rather-long-file-name-to-make-the-lines-long-{}.log"}})"
                           "\n",
                           i % 7, i, i, i + 1, std::string(40, 'x'));
    w.append_lines(chunk, kLines);
    w.finish();
  }
  ASSERT_GT(fs::file_size(dir / "samples.jsonl"), 16u << 20);
  const kvmbench::Run r = load_run(dir);
  ASSERT_EQ(r.samples.size(), static_cast<std::size_t>(kLines));
  for (int i = 0; i < kLines; i += 997) {
    EXPECT_EQ(r.samples[i].value, i);
    EXPECT_EQ(r.samples[i].extra["line"], i + 1);
  }
  EXPECT_EQ(r.samples.back().iteration, kLines - 1);
  // A bad line far into the file: numbered in the whole file.
  std::string text = read_file(dir / "samples.jsonl");
  std::size_t at = 0;
  for (int i = 0; i < 100000; ++i) at = text.find('\n', at) + 1;
  text.insert(at, "{\"case\":1}\n");
  write_file_atomic(dir / "samples.jsonl", text);
  try {
    load_run(dir);
    FAIL() << "bad line accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("samples.jsonl:100001:"), std::string::npos) << e.what();
  }
}

// Large appends and raw copies go mostly past the page cache, in whole
// blocks after a head that reaches the next block boundary: single lines
// and bulks of sizes that fit no block, in any order, leave exactly their
// bytes in order (on a file system without direct I/O, the plain writes).
TEST(RunStore, LargeAndSmallWritesKeepEveryByteInOrder) {
  test_support::TempDir tmp;
  const fs::path dir = tmp.path / "run";
  std::string want;
  std::size_t lines = 0;
  auto bulk = [&](std::size_t bytes, int tag) {
    std::string chunk;
    while (chunk.size() < bytes) {
      chunk += fmt::format(R"({{"case":"c{}","variant":"","metric":"m","unit":"ns","value":{}.0,"iteration":0}})"
                           "\n",
                           tag, lines);
      ++lines;
    }
    return chunk;
  };
  std::string raw;
  {
    RunWriter w = RunWriter::create_at(dir, {{"suite", "x"}, {"source", "replay"}});
    for (const std::size_t bytes : {std::size_t{1}, std::size_t{3} << 20, std::size_t{1}, std::size_t{5000},
                                    (std::size_t{1} << 20) + 4097, std::size_t{2} << 20, std::size_t{1}}) {
      const std::size_t before = lines;
      const std::string chunk = bulk(bytes, static_cast<int>(bytes % 97));
      w.append_lines(chunk, lines - before);
      want += chunk;
    }
    for (std::size_t i = 0; raw.size() < (std::size_t{17} << 20) + 123; ++i) raw += fmt::format("line {}\n", i);
    w.write_raw("big.log", raw, /*durable=*/false);
    w.finish();
  }
  EXPECT_EQ(read_file(dir / "samples.jsonl"), want);
  EXPECT_EQ(read_file(dir / "raw" / "big.log"), raw);
  EXPECT_EQ(load_run(dir).samples.size(), lines);
}

// A binary samples.jsonl: the reason names the line, and the bytes it
// quotes reach the terminal as \xNN, not raw.
TEST(RunStore, BinarySampleLineIsReportedPrintably) {
  test_support::TempDir tmp;
  const fs::path dir = tmp.path / "run";
  RunWriter::create_at(dir, {{"suite", "x"}, {"source", "replay"}}).finish();
  write_file_atomic(dir / "samples.jsonl", std::string("\xa5\x01\xff garbage\n"));
  try {
    load_run(dir);
    FAIL() << "binary line accepted";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("samples.jsonl:1:"), std::string::npos) << what;
    EXPECT_NE(what.find("\\xa5"), std::string::npos) << what;
    for (unsigned char c : what) EXPECT_TRUE(c >= 0x20 && c < 0x7f) << what;
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

// A write of samples that fails part of the way (here at the file size
// limit, RLIMIT_FSIZE: EFBIG where a full disk gives ENOSPC) leaves
// samples.jsonl with its whole lines only, and the run can still end,
// failed, with the reason: the room kept for meta.json takes its last
// writes.
TEST(RunStore, AFailedSampleWriteKeepsEveryWholeLineAndTheRunEnds) {
  test_support::TempDir tmp;
  RunWriter w = RunWriter::create_in(tmp.path, {{"suite", "x"}, {"source", "replay"}});
  const fs::path dir = w.dir();
  EXPECT_TRUE(fs::exists(dir / ".meta.json.reserve"));
  Sample s{"case", "", "metric", "ns", 1.5, 0, false, {{"note", std::string(100, 'x')}}};
  std::string bulk;
  for (int i = 0; i < 50; ++i) append_sample_line(bulk, s);
  struct rlimit was {};
  ::getrlimit(RLIMIT_FSIZE, &was);
  const auto old_handler = ::signal(SIGXFSZ, SIG_IGN);
  struct rlimit limit = was;
  limit.rlim_cur = 20000;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &limit), 0);
  std::string error;
  std::size_t written = 0;
  try {
    for (;; ++written) w.append(s);
  } catch (const std::runtime_error& e) {
    error = e.what();
  }
  try {
    w.append_lines(bulk, 50);  // a bulk that does not fit either
  } catch (const std::runtime_error&) {
  }
  ::setrlimit(RLIMIT_FSIZE, &was);
  ::signal(SIGXFSZ, old_handler);
  EXPECT_TRUE(error.ends_with("samples.jsonl: File too large")) << error;
  w.update_meta({{"error", error}});
  w.finish("failed");
  const kvmbench::Run run = load_run(dir);  // throws on a line cut short
  EXPECT_EQ(run.samples.size(), written);
  EXPECT_EQ(run.meta["n_samples"], written);
  EXPECT_EQ(run.status(), "failed");
  EXPECT_FALSE(fs::exists(dir / ".meta.json.reserve"));
}

// A meta.json member of another type than kvmbench writes is refused when
// the run is read, naming it; it failed later, in a reader, with the JSON
// library's own message ("type must be string, but is number", found by
// fuzzing: tests/data/fuzz/run_files/).
TEST(RunStore, AMetaMemberOfAnotherTypeIsRefusedByName) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"source": "replay", "suite": 5})", "\"suite\" is number where a string belongs"},
      {R"({"source": "replay", "skipped_parts": [{"part": "a", "reason": 7}]})",
       "\"skipped_parts\"[0].\"reason\" is number where a string belongs"},
      {R"({"source": "replay", "gbench_aggregates": [{"case": 1, "value": 2}]})",
       "\"gbench_aggregates\"[0].\"case\" is number where a string belongs"},
      {R"({"source": "replay", "stability_warnings": "x"})", "\"stability_warnings\" is string where an array belongs"},
      {R"({"source": "replay", "measured_repetitions": 1.5})",
       "\"measured_repetitions\" is number where a whole number belongs"},
  };
  for (const auto& [meta, why] : cases) {
    try {
      run_from_text("runs/x", meta, std::nullopt);
      ADD_FAILURE() << "read " << meta;
    } catch (const std::runtime_error& e) {
      EXPECT_EQ(std::string(e.what()), "runs/x/meta.json: " + why);
    }
  }
  // A null where the readers take a member with a typed default ("status",
  // "suite"): a raw "type must be string, but is null" reached the user.
  for (const char* member : {"status", "suite", "measured_repetitions"}) {
    nlohmann::json meta = {{"source", "replay"}, {"suite", "x"}, {"status", "complete"}};
    meta[member] = nullptr;
    try {
      run_from_text("runs/x", meta.dump(), std::nullopt);
      ADD_FAILURE() << member << " null was read";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(fmt::format("\"{}\" is null where", member)), std::string::npos)
          << e.what();
    }
  }
  // A host of another type than the probe writes (host_meta_types.h).
  EXPECT_THROW(run_from_text("runs/x", R"({"source": "replay", "suite": "x", "host": {"hostname": 5}})", std::nullopt),
               std::runtime_error);
  // What kvmbench writes reads, null members included.
  EXPECT_NO_THROW(run_from_text("runs/x", R"({"source": "replay", "suite": "x", "error": null, "skipped_parts": []})",
                                std::nullopt));
}

// A run's directory name is its identity in the results database: two runs
// of one machine begun in the same second, written under other roots (two
// ingests with their own --out), got one name, and the database kept only
// the first. Named to the microsecond, each has its own; in one root a
// suffix keeps even the same microsecond apart.
TEST(RunStore, RunsOfOneSecondHaveNamesOfTheirOwn) {
  test_support::TempDir tmp;
  const nlohmann::json meta = {{"suite", "make_shared"}, {"source", "replay"}, {"hostname", "lab-1"}};
  std::set<std::string> names;
  for (int i = 0; i < 20; ++i) {
    RunWriter w = RunWriter::create_in(tmp.path / std::to_string(i), meta);
    names.insert(w.dir().filename().string());
    w.finish();
  }
  EXPECT_EQ(names.size(), 20u);
  const std::regex format(R"(make_shared-\d{8}T\d{6}\.\d{6}Z-lab-1)");
  for (const auto& n : names) EXPECT_TRUE(std::regex_match(n, format)) << n;
}
