// A LAVA job's log as the server's API gives it, and the runs kvmbench's
// test definition publishes in it (analysis/parse/lava_job_log.h).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "analysis/model/sha256.h"
#include "analysis/parse/lava_job_log.h"

namespace kvmbench {
namespace {

// A log record line as LAVA 2023.01 writes it (lava_common/log.py: a YAML
// flow mapping in a one-item sequence).
std::string record(const std::string& level, const std::string& msg) {
  std::string quoted;
  for (char c : msg) {
    if (c == '"' || c == '\\') quoted += '\\';
    quoted += c;
  }
  return "- {\"dt\": \"2026-12-07T18:50:01.123456\", \"lvl\": \"" + level + "\", \"msg\": \"" + quoted + "\"}\n";
}

// base64 of `bytes` in lines of 76, as coreutils' base64 -w 76 writes it.
std::string published(const std::string& bytes, const std::string& sha, std::size_t size,
                      const std::string& step = "") {
  static const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string b64;
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    unsigned v = static_cast<unsigned char>(bytes[i]) << 16;
    if (i + 1 < bytes.size()) v |= static_cast<unsigned char>(bytes[i + 1]) << 8;
    if (i + 2 < bytes.size()) v |= static_cast<unsigned char>(bytes[i + 2]);
    b64 += alphabet[(v >> 18) & 63];
    b64 += alphabet[(v >> 12) & 63];
    b64 += i + 1 < bytes.size() ? alphabet[(v >> 6) & 63] : '=';
    b64 += i + 2 < bytes.size() ? alphabet[v & 63] : '=';
  }
  std::string log = record("target", "+ tar -C /var/tmp/kvmbench-runs -czf kvmbench-runs.tar.gz .");
  log += record("target", std::string("KVMBENCH-RUNS-BEGIN ") + sha + " " + std::to_string(size) + " " + step);
  for (std::size_t i = 0; i < b64.size(); i += 76) log += record("target", b64.substr(i, 76));
  log += record("target", "KVMBENCH-RUNS-END");
  return log;
}

TEST(LavaJobLog, Base64DecodesRfc4648TestVectors) {
  // RFC 4648, section 10.
  EXPECT_EQ(*base64_decoded(""), "");
  EXPECT_EQ(*base64_decoded("Zg=="), "f");
  EXPECT_EQ(*base64_decoded("Zm8="), "fo");
  EXPECT_EQ(*base64_decoded("Zm9v"), "foo");
  EXPECT_EQ(*base64_decoded("Zm9vYg=="), "foob");
  EXPECT_EQ(*base64_decoded("Zm9vYmE="), "fooba");
  EXPECT_EQ(*base64_decoded("Zm9vYmFy"), "foobar");
  EXPECT_FALSE(base64_decoded("Zm9vYmF"));    // cut
  EXPECT_FALSE(base64_decoded("Zm9v!mFy"));   // outside the alphabet
  EXPECT_FALSE(base64_decoded("Zg==Zm9v"));   // padding inside
  EXPECT_FALSE(base64_decoded("Z==="));       // three pads
}

TEST(LavaJobLog, ReadsRecordsAndSkipsWhatIsNotOne) {
  const std::string text = "---\n" + record("info", "start: 0 validate") + record("target", "root@kvmbench-qemu:~#") +
                           "- {\"dt\": \"2026-12-07T18:50:01\", \"lvl\": \"resu\n" +  // a cut last line
                           "- {dt: '2026-12-07T18:50:02', lvl: results, msg: {definition: kvmbench, case: labels, result: pass}}\n" +
                           record("error", "kvmbench probe: the labels kvm-runs-guests are missing");
  const LavaLog log = parse_lava_log(text);
  ASSERT_EQ(log.records.size(), 4u);
  EXPECT_EQ(log.unreadable_lines, 1u);
  EXPECT_EQ(log.records[1].level, "target");
  EXPECT_EQ(log.records[1].text, "root@kvmbench-qemu:~#");
  EXPECT_EQ(log.records[2].level, "results");
  EXPECT_NE(log.records[2].text.find("case: labels"), std::string::npos) << log.records[2].text;
  ASSERT_EQ(error_messages(log).size(), 1u);
  EXPECT_EQ(error_messages(log)[0], "kvmbench probe: the labels kvm-runs-guests are missing");
}

// A line nested a hundred thousand deep (a damaged log) is not a record,
// and reading it does not overflow the stack (yaml-cpp recurses per level).
TEST(LavaJobLog, ALineNestedTooDeepIsNotARecord) {
  const std::string deep = "- {\"lvl\": \"target\", \"msg\": " + std::string(100000, '[') + "}\n";
  const LavaLog log = parse_lava_log(record("info", "before") + deep + record("target", "[ \"not\" [ nested ] ]"));
  EXPECT_EQ(log.records.size(), 2u);
  EXPECT_EQ(log.unreadable_lines, 1u);
}

TEST(LavaJobLog, PublishedRunsComeBackAsSent) {
  std::string bytes;
  for (int i = 0; i < 1000; ++i) bytes += static_cast<char>((i * 37) & 0xff);
  const std::string text = record("target", "kvmbench run rmpopt") + published(bytes, sha256_hex(bytes), bytes.size()) +
                           record("info", "end: 3.1 lava-test-shell");
  std::string why;
  const auto runs = published_runs(parse_lava_log(text), why);
  ASSERT_TRUE(runs) << why;
  EXPECT_EQ(runs->tarball, bytes);
  EXPECT_EQ(runs->sha256, sha256_hex(bytes));
}

TEST(LavaJobLog, ConsoleCarriageReturnsAndKernelLinesAreNotData) {
  const std::string bytes = "a run directory's tarball, more or less";
  std::string text = published(bytes, sha256_hex(bytes), bytes.size());
  // A kernel message between two data lines, and a data line with the
  // console's \r at its end: both as a serial console gives them.
  const auto second = text.find("\n- ", text.find("RUNS-BEGIN")) + 1;
  text.insert(second, record("target", "[   12.345678] random: crng init done"));
  const std::string end = record("target", "KVMBENCH-RUNS-END");
  text.replace(text.find(end), end.size(), record("target", "KVMBENCH-RUNS-END\r"));
  std::string why;
  const auto runs = published_runs(parse_lava_log(text), why);
  ASSERT_TRUE(runs) << why;
  EXPECT_EQ(runs->tarball, bytes);
}

TEST(LavaJobLog, ADamagedOrCutPublicationIsNeverReturned) {
  std::string bytes(300, 'x');
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>(i * 7);
  const std::string good = published(bytes, sha256_hex(bytes), bytes.size());
  std::string why;

  // A data line lost on the console.
  std::string lost = good;
  const auto first_data = lost.find("\n", lost.find("RUNS-BEGIN")) + 1;
  lost.erase(first_data, lost.find("\n", first_data) + 1 - first_data);
  EXPECT_FALSE(published_runs(parse_lava_log(lost), why));
  EXPECT_NE(why.find("damaged"), std::string::npos) << why;

  // The size announced is not what came.
  const std::string wrong_size = published(bytes, sha256_hex(bytes), bytes.size() + 1);
  EXPECT_FALSE(published_runs(parse_lava_log(wrong_size), why));
  EXPECT_NE(why.find("damaged"), std::string::npos) << why;

  // The log ends before the end marker (a job cut by its timeout).
  const std::string cut = good.substr(0, good.find("KVMBENCH-RUNS-END") - 60);
  EXPECT_FALSE(published_runs(parse_lava_log(cut.substr(0, cut.rfind('\n') + 1)), why));
  EXPECT_NE(why.find("cut"), std::string::npos) << why;

  // Nothing published at all.
  EXPECT_FALSE(published_runs(parse_lava_log(record("target", "login:")), why));
  EXPECT_NE(why.find("no published runs"), std::string::npos) << why;
}

TEST(LavaJobLog, TheLastCompletePublicationWins) {
  const std::string a = "first", b = "second, after a retry";
  const std::string text = published(a, sha256_hex(a), a.size()) + published(b, sha256_hex(b), b.size());
  std::string why;
  const auto runs = published_runs(parse_lava_log(text), why);
  ASSERT_TRUE(runs) << why;
  EXPECT_EQ(runs->tarball, b);
}

// A whole log as LAVA 2023.01's server gave it (GET /api/v0.2/jobs/1/logs/
// of kvmbench's QEMU job on the test's server): every line a record;
// U+0080..U+00FF written as YAML's \xNN ("\xB1" for the tables' ±);
// results with YAML's non-specific tag (! "606"); the shell's trace of each
// step ("+ echo 'KVMBENCH-RUNS-BEGIN ...'") before what it prints.
TEST(LavaJobLog, ReadsALogAsALavaServerGivesIt) {
  std::ifstream in(std::string(KVMBENCH_TEST_DATA) + "/lava/job-log.yaml");
  std::ostringstream text;
  text << in.rdbuf();
  const LavaLog log = parse_lava_log(text.str());
  EXPECT_EQ(log.records.size(), 986u);
  EXPECT_EQ(log.unreadable_lines, 0u);
  bool plus_minus = false, tagged = false;
  for (const auto& r : log.records) {
    plus_minus = plus_minus || (r.level == "target" && r.text.find("1.42 \u00b10.57") != std::string::npos);
    tagged = tagged || (r.level == "results" && r.text.find("case: labels") != std::string::npos &&
                        r.text.find("606") != std::string::npos);
  }
  EXPECT_TRUE(plus_minus) << "\\xB1 did not read as the UTF-8 of U+00B1";
  EXPECT_TRUE(tagged);
  std::string why;
  const auto runs = published_runs(log, why);
  ASSERT_TRUE(runs) << why;
  EXPECT_EQ(runs->tarball.size(), 5096u);
  EXPECT_EQ(runs->sha256, "7e2afa558200bf17b204944a08f3af058b32bb9807ed49008d4006f2287963a7");
  // gzip's magic, then the tar inside names the run directory.
  ASSERT_GE(runs->tarball.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(runs->tarball[0]), 0x1fu);
  EXPECT_EQ(static_cast<unsigned char>(runs->tarball[1]), 0x8bu);
}

// A job that boots several times (fleet -- ab) publishes once a boot, each
// with its step; a damaged one is left out and said, the others kept.
TEST(LavaJobLog, EveryBootsPublicationWithItsStep) {
  const std::string a = "boot one", b = "boot two", c = "boot three";
  std::string damaged_b = published(b, sha256_hex(b), b.size() + 5, "2 cand");
  const std::string text = published(a, sha256_hex(a), a.size(), "1 base") + damaged_b +
                           published(c, sha256_hex(c), c.size(), "3 cand");
  std::vector<std::string> damaged;
  const auto all = all_published_runs(parse_lava_log(text), damaged);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].tarball, a);
  EXPECT_EQ(all[0].step, "1 base");
  EXPECT_EQ(all[1].tarball, c);
  EXPECT_EQ(all[1].step, "3 cand");
  ASSERT_EQ(damaged.size(), 1u);
  EXPECT_NE(damaged[0].find("of step 2 cand are damaged"), std::string::npos) << damaged[0];
}

// A size of more digits than any file has is a damaged line, not a crash.
TEST(LavaJobLog, AnAbsurdSizeIsADamagedLine) {
  const std::string line = std::string("KVMBENCH-RUNS-BEGIN ") + std::string(64, 'a') + " 99999999999999999999999999";
  std::string why;
  EXPECT_FALSE(published_runs(parse_lava_log(record("target", line) + record("target", "KVMBENCH-RUNS-END")), why));
  EXPECT_NE(why.find("damaged"), std::string::npos) << why;
}

// Where LAVA puts why it refused a job: the error_msg of its `job` result
// (as LAVA 2023.01 wrote it for a job whose test definition names repeat).
TEST(LavaJobLog, AResultsErrorMessageIsWhatTheJobSaysOfItself) {
  const std::string text =
      record("error", "JobError: Your job cannot terminate cleanly.") +
      "- {\"dt\": \"2026-12-07T20:11:21.239634\", \"lvl\": \"results\", \"msg\": {\"case\": \"job\", "
      "\"definition\": \"lava\", \"error_msg\": \"Invalid job data: ['Test definition names need to be unique.']\", "
      "\"error_type\": \"Job\", \"result\": \"fail\"}}\n";
  const auto said = error_messages(parse_lava_log(text));
  ASSERT_EQ(said.size(), 2u);
  EXPECT_EQ(said[1], "Invalid job data: ['Test definition names need to be unique.']");
}

}  // namespace
}  // namespace kvmbench
