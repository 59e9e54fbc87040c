#include "hostlib/facts/kmsg_reader.h"

#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>

#include "tests/support/run_command.h"

using namespace kvmbench;
using namespace kvmbench::host;

TEST(KmsgRecord, ParsesHeaderMessageAndDictionary) {
  auto r = parse_kmsg_record(
      "6,1234,5678901,-,caller=T1;SEV-SNP: RMPOPT largest/smallest/average cycles 100\\x0a\n"
      " SUBSYSTEM=cpu\n DEVICE=+cpu:0\n");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->seq, 1234u);
  EXPECT_EQ(r->timestamp_us, 5678901u);
  EXPECT_EQ(r->priority, 6);
  EXPECT_EQ(r->facility, 0);
  EXPECT_EQ(r->flags, '-');
  EXPECT_EQ(r->message, "SEV-SNP: RMPOPT largest/smallest/average cycles 100\n");
  ASSERT_EQ(r->dict.size(), 2u);
  EXPECT_EQ(r->dict[0].first, "SUBSYSTEM");
  EXPECT_EQ(r->dict[1].second, "+cpu:0");
  // Facility from the prefix (user-space message: facility 1).
  auto u = parse_kmsg_record("14,7,8,c;hello");
  ASSERT_TRUE(u);
  EXPECT_EQ(u->facility, 1);
  EXPECT_EQ(u->priority, 6);
  EXPECT_EQ(u->flags, 'c');
}

TEST(KmsgRecord, RejectsMalformedHeaders) {
  EXPECT_FALSE(parse_kmsg_record("no semicolon here"));
  EXPECT_FALSE(parse_kmsg_record("6,x,1,-;msg"));
  EXPECT_FALSE(parse_kmsg_record("6,1;msg"));
  EXPECT_FALSE(parse_kmsg_record("-6,1,2,-;msg"));
}

TEST(KmsgRecord, FormatRoundTrips) {
  KmsgRecord r;
  r.seq = 42;
  r.timestamp_us = 99;
  r.priority = 4;
  r.facility = 0;
  r.message = "tab\there back\\slash";
  r.dict = {{"K", "v"}};
  auto text = format_kmsg_record(r);
  EXPECT_EQ(text, "4,42,99,-;tab\\x09here back\\x5cslash\n K=v\n");
  auto back = parse_kmsg_record(text);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->message, r.message);
  EXPECT_EQ(back->seq, 42u);
  EXPECT_EQ(back->dict, r.dict);
}

TEST(KmsgReader, ReplayDeliversRecordsInOrderAndReportsGaps) {
  auto reader = KmsgReader::from_text(
      "6,10,100,-;first\n"
      " SUBSYSTEM=x\n"
      "6,11,200,-;second\n"
      "garbage line\n"
      "\n"
      "6,15,300,-;after a gap of three\n"
      "6,16,400,-;last\n");
  std::vector<std::uint64_t> seqs;
  std::vector<std::string> msgs;
  std::atomic<bool> stop{false};
  auto n = reader.run([&](const KmsgRecord& r) { seqs.push_back(r.seq); msgs.push_back(r.message); }, stop);
  EXPECT_EQ(n, 4u);
  EXPECT_EQ(seqs, (std::vector<std::uint64_t>{10, 11, 15, 16}));
  EXPECT_EQ(msgs[2], "after a gap of three");
  EXPECT_EQ(reader.malformed(), 1u);
  ASSERT_EQ(reader.losses().size(), 1u);
  EXPECT_EQ(reader.losses()[0].after_seq, 11u);
  EXPECT_EQ(reader.losses()[0].count, 3u);
  EXPECT_EQ(reader.lost_records(), 3u);
  EXPECT_FALSE(reader.lost_unknown());
  EXPECT_TRUE(reader.at_end());
  EXPECT_FALSE(reader.next(0));
}

TEST(KmsgReader, ReplayFromFile) {
  test_support::TempDir dir;
  auto path = dir.path / "capture.kmsg";
  std::ofstream(path) << "6,1,1,-;a\n6,2,2,-;b\n";
  auto reader = KmsgReader::open_replay(path.string());
  EXPECT_FALSE(reader.live());
  ASSERT_TRUE(reader.next());
  ASSERT_TRUE(reader.next());
  EXPECT_FALSE(reader.next());
  EXPECT_EQ(reader.lost_records(), 0u);
  EXPECT_EQ(reader.last_seq(), 2u);
  EXPECT_THROW(KmsgReader::open_replay((dir.path / "missing").string()), std::runtime_error);
}

TEST(KmsgReader, StopFlagEndsLiveReadWithinPollTime) {
  test_support::TempDir dir;
  auto path = dir.path / "fake-kmsg";
  std::ofstream(path) << "6,1,1,-;old record before now\n";
  // A regular file stands in for the device: from_now skips what is there.
  auto reader = KmsgReader::open_live(true, path.string());
  std::atomic<bool> stop{true};
  auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(reader.run([](const KmsgRecord&) {}, stop, 50), 0u);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
  EXPECT_FALSE(reader.next(0));
}

// Live: write a marker into the kernel log and read it back from "now".
// Needs read access to /dev/kmsg (root when dmesg_restrict=1) and write
// access (root); skipped otherwise.
TEST(KmsgReader, LiveReadsAMarkerWrittenAfterOpening) {
  std::optional<KmsgReader> reader;
  try {
    reader.emplace(KmsgReader::open_live(true));
  } catch (const std::exception& e) {
    GTEST_SKIP() << "cannot open /dev/kmsg: " << e.what();
  }
  int w = ::open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
  if (w < 0) GTEST_SKIP() << "cannot write /dev/kmsg (needs root)";
  std::string marker = "kvmbench-test marker " + std::to_string(::getpid());
  // The trailing newline finalises the record: without it the kernel keeps
  // it open for a continuation and readers do not see it yet.
  std::string line = marker + "\n";
  ASSERT_EQ(::write(w, line.data(), line.size()), static_cast<ssize_t>(line.size()));
  ::close(w);
  bool seen = false;
  for (int i = 0; i < 50 && !seen; ++i) {
    auto r = reader->next(100);
    if (r && r->message.find(marker) != std::string::npos) seen = true;
  }
  EXPECT_TRUE(seen);
  EXPECT_TRUE(reader->last_seq().has_value());
}

TEST(KmsgCapture, CapturesMarkerWithFilter) {
  int w = ::open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
  if (w < 0) GTEST_SKIP() << "cannot write /dev/kmsg (needs root)";
  std::string marker = "kvmbench-capture-test " + std::to_string(::getpid());
  KmsgCapture cap([&](const KmsgRecord& r) { return r.message.find(marker) != std::string::npos; });
  try {
    cap.start();
  } catch (const std::exception& e) {
    ::close(w);
    GTEST_SKIP() << e.what();
  }
  for (int i = 0; i < 3; ++i) {
    std::string m = marker + " " + std::to_string(i) + "\n";
    ASSERT_GT(::write(w, m.data(), m.size()), 0);
  }
  ::close(w);
  auto recs = cap.stop();
  ASSERT_EQ(recs.size(), 3u);
  EXPECT_GT(recs[1].seq, recs[0].seq);  // other messages may interleave
  EXPECT_EQ(recs[2].message, marker + " 2");
}

// The reader's records, saved as text, go through the kernel log parser of
// analysis/parse/ (the path a live run takes to its samples).
#include "analysis/parse/kernel_log.h"

TEST(KmsgReader, ReplayedRecordsFeedTheKernelLogParser) {
  auto reader = KmsgReader::from_text(
      "6,100,1000,-;SEV-SNP: RMPOPT largest cycles 1200\n"
      "6,101,1001,-;SEV-SNP: RMPOPT smallest cycles 800\n"
      "6,102,1002,-;SEV-SNP: RMPOPT average cycles 1000\n"
      "6,103,2000,-;unrelated line\n");
  std::vector<KmsgRecord> recs;
  while (auto r = reader.next(0)) recs.push_back(*r);
  ASSERT_EQ(recs.size(), 4u);
  auto parsed = kvmbench::parsers::parse_kernel_log_records(to_kmsg_text(recs));
  ASSERT_EQ(parsed.records.size(), 3u);
  EXPECT_EQ(parsers::name_of(parsed.records[0].stat), "largest");
  EXPECT_DOUBLE_EQ(parsed.records[0].cycles, 1200);
  EXPECT_DOUBLE_EQ(parsed.records[2].cycles, 1000);
}

// A mark is one write of "<5>message\n" (the kernel makes it one record of
// level notice); a device that cannot be opened says why.
TEST(KmsgMark, OneWriteOfOneNoticeRecordOrTheReason) {
  test_support::TempDir t;
  const auto device = t.path / "kmsg";
  test_support::write_text(device, "");
  EXPECT_EQ(mark_kernel_log("kvmbench: rmpopt: snp-guest0 exited", device.string()), "");
  EXPECT_EQ(test_support::read_text(device), "<5>kvmbench: rmpopt: snp-guest0 exited\n");
  const std::string why = mark_kernel_log("x", (t.path / "no" / "kmsg").string());
  EXPECT_NE(why.find("cannot open"), std::string::npos) << why;
}
