// An input read in pieces (parsers::InputReader, what ingest uses) gives
// what parse_any gives for the whole text, for every input the tests hold
// and for a long log cut anywhere (wrapped records across the cuts).
#include "analysis/parse/input_reader.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "analysis/store/run_store.h"
#include "tests/unit/test_rng.h"

using namespace kvmbench;
using namespace kvmbench::parsers;
namespace fs = std::filesystem;

namespace {

// Everything a parse gives, as one text to compare; an error as its line
// and reason.
std::string outcome(const ParsedInput& p) {
  std::string out = fmt::format("format {}\n", to_string(p.format));
  const ParseResult& r = p.result;
  out += fmt::format("{} lines, {} records, {} ignored\n", r.lines_read, r.records, r.lines_ignored);
  for (const auto& w : r.warnings) out += "warning " + w + "\n";
  for (const auto& n : r.notes) out += "note " + n + "\n";
  for (const Sample& s : r.samples)
    out += fmt::format("sample {}|{}|{}|{}|{}|{}|{}\n", s.case_name, s.variant, s.metric, s.unit, s.value,
                       s.iteration, s.extra.dump());
  for (const KernelRecord& k : p.kernel_records)
    out += fmt::format("record {}+{} g{} k{} {} [{}] {} {} {} {} {} {} {} {} {}\n", k.line, k.line_count, k.group,
                       static_cast<int>(k.kind), k.uptime_s.value_or(-1), k.wallclock, static_cast<int>(k.stat),
                       k.cycles, k.ns, k.range_start_text, k.range_end_text, k.cpus, k.nr_pages, k.make_shared,
                       k.total);
  for (auto i : p.kernel_sample_record) out += fmt::format("of {}\n", i);
  out += fmt::format("aggregates {} context {}\n", p.aggregates.size(), p.context.dump());
  return out;
}

template <typename F>
std::string outcome_of(F parse) {
  try {
    return outcome(parse());
  } catch (const ParseError& e) {
    return fmt::format("ParseError line {}: {}", e.line, e.what());
  }
}

std::string whole(std::string_view text) {
  return outcome_of([&] { return parse_any(text, Provenance::by_record); });
}

std::string in_pieces(std::string_view text, std::size_t piece) {
  return outcome_of([&] {
    InputReader r(Provenance::by_record, text.size());
    for (std::size_t at = 0; at < text.size(); at += piece) r.feed(text.substr(at, piece));
    EXPECT_EQ(r.bytes(), text.size());
    return r.finish();
  });
}

}  // namespace

TEST(InputReader, EveryTestInputReadsInPiecesAsWhole) {
  std::vector<fs::path> files;
  for (const char* root : {KVMBENCH_TEST_DATA, KVMBENCH_SOURCE_DIR "/results/reference"})
    for (const auto& e : fs::recursive_directory_iterator(root))
      if (e.is_regular_file() && e.file_size() < (std::size_t{4} << 20)) files.push_back(e.path());
  ASSERT_GT(files.size(), 50u);
  std::size_t kernel_logs = 0;
  for (const auto& f : files) {
    const std::string text = read_file(f);
    const std::string want = whole(text);
    kernel_logs += want.starts_with("format kernel-log");
    for (std::size_t piece : {std::size_t{1}, std::size_t{7}, std::size_t{64}, std::size_t{4096}, text.size() + 1})
      ASSERT_EQ(in_pieces(text, piece), want) << f << " in pieces of " << piece;
  }
  EXPECT_GE(kernel_logs, 8u);
}

// Records wrapped over two to four lines, quoted, blank lines and
// unrelated lines between them, cut at every place by pieces of many sizes.
TEST(InputReader, WrappedRecordsAcrossEveryCut) {
  kvmbench::testing::TestRng rng(28);
  std::string log;
  for (int i = 0; i < 300; ++i) {
    const std::string q = rng.below(4) == 0 ? "> " : "";
    switch (rng.below(6)) {
      case 0:
        log += fmt::format("{}[{:10.6f}] guest_memfd to_shared: nr_pages={}, make_shared={}\n{}cycles, total={} "
                           "cycles\n",
                           q, i * 0.5, 1 + rng.below(3), 100 + i, q, 10000 + i);
        break;
      case 1:
        log += fmt::format("{}[{:10.6f}] SEV-SNP: RMPOPT execution time {} ns for physical\n{}address range "
                           "0x0000000000000000 -\n{}0x0000010000000000 on\n{}all cpus\n",
                           q, i * 0.5, 3000 + i, q, q, q);
        break;
      case 2:
        log += fmt::format("Mar 05 11:22:{:02} lab1 kernel: SEV-SNP: RMPOPT {} cycles {}\n", i % 60,
                           rng.below(2) ? "largest" : "smallest", 50 + i);
        break;
      case 3: log += "\n"; break;
      case 4: log += fmt::format("[{:10.6f}] SEV-SNP: RMPOPT bogus {}\n", i * 0.5, i); break;
      default: log += fmt::format("[{:10.6f}] usb 1-1: noise {}\n", i * 0.5, std::string(rng.below(90), 'x'));
    }
  }
  const std::string want = whole(log);
  ASSERT_TRUE(want.starts_with("format kernel-log")) << want.substr(0, 300);
  ASSERT_NE(want.find("record "), std::string::npos);
  for (std::size_t piece = 1; piece <= 200; ++piece) ASSERT_EQ(in_pieces(log, piece), want) << "pieces of " << piece;
  // Pieces of varying sizes, as a pipe gives them.
  for (int round = 0; round < 50; ++round) {
    const std::string got = outcome_of([&] {
      InputReader r(Provenance::by_record);
      for (std::size_t at = 0; at < log.size();) {
        const std::size_t n = 1 + rng.below(300);
        r.feed(std::string_view(log).substr(at, n));
        at += n;
      }
      return r.finish();
    });
    ASSERT_EQ(got, want) << "round " << round;
  }
}

// The first bad record of a log read in pieces is the one parse_any names.
TEST(InputReader, BadRecordNamedAsWhole) {
  std::string log;
  for (int i = 0; i < 2000; ++i) log += fmt::format("[{:10.6f}] usb noise {}\n", i * 0.1, i);
  log += "guest_memfd to_shared: nr_pages=4, make_shared=930\n> cycles, total=0 cycles\n";
  const std::string want = whole(log);
  ASSERT_EQ(want, "ParseError line 2001: to_shared total is 0 cycles (a conversion cannot take no time)");
  for (std::size_t piece : {1, 5, 333, 65536}) EXPECT_EQ(in_pieces(log, piece), want) << piece;
}

// A kernel log is not held: its first record may come after more than the
// limit of a format read whole (kWholeInputLimit; 1 MiB here). Text of any
// other format is refused beyond that limit, saying why.
TEST(InputReader, OnlyKernelLogsGoBeyondTheWholeInputLimit) {
  constexpr std::size_t kLimit = std::size_t{1} << 20;
  std::string noise;
  while (noise.size() < kLimit / 16) noise += "usb 1-1: " + std::string(120, 'x') + "\n";
  constexpr int kPieces = 17;
  {
    InputReader r(Provenance::by_record, 0, kLimit);
    for (int i = 0; i < kPieces; ++i) r.feed(noise);
    r.feed("[ 1.0] guest_memfd to_shared: nr_pages=1, make_shared=9 cycles, total=100 cycles\n");
    const ParsedInput p = r.finish();
    EXPECT_EQ(p.format, InputFormat::kernel_log);
    ASSERT_EQ(p.kernel_records.size(), 1u);
    EXPECT_EQ(p.kernel_records[0].line, p.result.lines_read);
  }
  {
    InputReader r(Provenance::by_record, 0, kLimit);
    for (int i = 0; i < kPieces; ++i) r.feed(noise);
    try {
      r.finish();
      FAIL() << "a text without records beyond the limit was read";
    } catch (const ParseError& e) {
      EXPECT_EQ(e.line, 0u);
      EXPECT_NE(std::string(e.what()).find("larger than 1 MiB: only kernel logs are read as a stream"),
                std::string::npos)
          << e.what();
    }
  }
  {
    InputReader r(Provenance::by_record, 0, kLimit);
    r.feed("{\"benchmarks\": [");
    try {
      for (int i = 0; i < kPieces; ++i) r.feed(noise);
      FAIL() << "JSON beyond the limit was held";
    } catch (const ParseError& e) {
      EXPECT_NE(std::string(e.what()).find("JSON larger than 1 MiB"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(kWholeInputLimit, std::size_t{64} << 20);  // what docs/formats.md says
}
