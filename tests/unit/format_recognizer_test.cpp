#include "analysis/parse/format_recognizer.h"

#include <gtest/gtest.h>

#include "analysis/store/run_store.h"

using namespace kvmbench;
using namespace kvmbench::parsers;

static const std::string kData = std::string(KVMBENCH_TEST_DATA) + "/ingest/";
static const std::string kReference = std::string(KVMBENCH_SOURCE_DIR) + "/results/reference/";

TEST(FormatRecognizer, RecognisesEachFormat) {
  EXPECT_EQ(recognise_format(read_file(kData + "gbench_repetitions.json")).format, InputFormat::gbench_json);
  EXPECT_EQ(recognise_format(read_file(kData + "gbench_truncated.json")).format, InputFormat::gbench_json);
  EXPECT_EQ(recognise_format(read_file(kReference + "make_shared_to_shared.log")).format, InputFormat::kernel_log);
  EXPECT_EQ(recognise_format(read_file(kData + "journalctl_rmpopt.log")).format, InputFormat::kernel_log);
  EXPECT_EQ(recognise_format("# numbers\n1.5\n2\n\n3e3\n").format, InputFormat::plain_numbers);
  EXPECT_EQ(recognise_format("[   49.913402] SEV-SNP: RMPOPT smallest cycles 60\n").format, InputFormat::kernel_log);
  EXPECT_EQ(recognise_format("").format, InputFormat::empty);
  EXPECT_EQ(recognise_format(" \n\n").format, InputFormat::empty);
  auto r = recognise_format("hello world\n");
  EXPECT_EQ(r.format, InputFormat::unrecognised);
  EXPECT_FALSE(r.reason.empty());
  EXPECT_EQ(recognise_format("{\"a\": 1}").format, InputFormat::unrecognised);
}

TEST(FormatRecognizer, ParseAnyGivesLinesInErrors) {
  try {
    parse_any("\n\nhello\n");
    FAIL();
  } catch (const ParseError& e) {
    EXPECT_EQ(e.line, 3u);
    EXPECT_NE(std::string(e.what()).find("unrecognised"), std::string::npos);
  }
  try {
    parse_any("");
    FAIL();
  } catch (const ParseError& e) {
    EXPECT_NE(std::string(e.what()).find("empty"), std::string::npos);
  }
  try {
    parse_any("x\n[ 1.0] guest_memfd to_shared: nr_pages=1, make_shared=9\n");
    FAIL() << "an incomplete record alone must not give an empty run";
  } catch (const ParseError& e) {
    EXPECT_EQ(e.line, 2u) << e.what();
  }
}

TEST(FormatRecognizer, PlainNumbersBecomeSamples) {
  auto p = parse_any("# x\n1\n2.5\n");
  EXPECT_EQ(p.format, InputFormat::plain_numbers);
  ASSERT_EQ(p.result.samples.size(), 2u);
  EXPECT_EQ(p.result.samples[1].value, 2.5);
  EXPECT_EQ(p.result.samples[1].iteration, 1);
  EXPECT_EQ(p.result.samples[1].extra["line"], 3);
}

TEST(FormatRecognizer, GuestConsoleOutput) {
  const std::string console =
      "[    0.5] random kernel noise\n"
      "KVMBENCH-BEGIN workload=faultin\n"
      "KVMBENCH-RESULT {\"case\":\"anon-4k\",\"metric\":\"faultin_rate\",\"unit\":\"GB/s\",\"value\":1.5}\n"
      "KVMBENCH-END workload=faultin status=0\n";
  EXPECT_EQ(recognise_format(console).format, InputFormat::guest_output);
  auto p = parse_any(console);
  ASSERT_EQ(p.result.samples.size(), 1u);
  EXPECT_EQ(p.result.samples[0].value, 1.5);
  EXPECT_THROW(parse_any("KVMBENCH-BEGIN workload=x\nKVMBENCH-END workload=x status=1\n"), ParseError);
}

// A workload run natively prints its results without the guest's BEGIN and
// END: read with a note, no warning of a result "before BEGIN" nor of a
// guest run that was not clean. A guest's console that lost its END still
// says so.
TEST(FormatRecognizer, AWorkloadsOwnOutputIsNoUncleanGuestRun) {
  const std::string native =
      "KVMBENCH-RESULT {\"case\":\"threads=2\",\"metric\":\"faultin_rate\",\"unit\":\"GB/s\",\"value\":2.1}\n"
      "KVMBENCH-RESULT {\"case\":\"threads=2\",\"metric\":\"faultin_time\",\"unit\":\"ms\",\"value\":63.5}\n";
  auto p = parse_any(native);
  ASSERT_EQ(p.result.samples.size(), 2u);
  EXPECT_TRUE(p.result.warnings.empty()) << p.result.warnings.front();
  ASSERT_EQ(p.result.notes.size(), 1u);
  EXPECT_NE(p.result.notes[0].find("a workload's own output"), std::string::npos) << p.result.notes[0];

  auto unfinished = parse_any(
      "KVMBENCH-BEGIN workload=faultin\n"
      "KVMBENCH-RESULT {\"case\":\"a\",\"metric\":\"faultin_rate\",\"unit\":\"GB/s\",\"value\":1}\n");
  ASSERT_FALSE(unfinished.result.warnings.empty());
  EXPECT_NE(unfinished.result.warnings.back().find("guest run not clean"), std::string::npos);
}
