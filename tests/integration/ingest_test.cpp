#include <fmt/format.h>
#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "analysis/store/run_store.h"
#include "tests/support/run_command.h"

using kvmbench::test_support::run_kvmbench;
using kvmbench::test_support::TempDir;
using kvmbench::Sample;
namespace fs = std::filesystem;

static const std::string kData = std::string(KVMBENCH_TEST_DATA) + "/ingest/";
static const std::string kReference = std::string(KVMBENCH_SOURCE_DIR) + "/results/reference/";

static std::vector<fs::path> entries(const fs::path& dir) {
  std::vector<fs::path> out;
  if (fs::exists(dir))
    for (auto& e : fs::directory_iterator(dir)) out.push_back(e.path());
  return out;
}

TEST(IngestCommand, KernelLogBecomesAReplayRunWithRawText) {
  TempDir tmp;
  auto r = run_kvmbench({"ingest", kReference + "make_shared_to_shared.log", "--out", tmp.path.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("2.3677%"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("source: replay"), std::string::npos);
  auto dirs = entries(tmp.path);
  ASSERT_EQ(dirs.size(), 1u);
  auto run = kvmbench::load_run(dirs[0]);
  EXPECT_EQ(run.suite(), "make_shared");
  EXPECT_EQ(run.status(), "complete");
  EXPECT_EQ(run.source(), kvmbench::Source::replay);
  EXPECT_EQ(run.samples.size(), 60u);
  EXPECT_EQ(kvmbench::read_file(dirs[0] / "raw" / "make_shared_to_shared.log"),
            kvmbench::read_file(kReference + "make_shared_to_shared.log"));
  EXPECT_EQ(run.meta["inputs"][0]["format"], "kernel-log");
  EXPECT_EQ(run.meta["inputs"][0]["records"], 20);
}

// One log with two suites' lines (make_shared's conversions, then an RMPOPT
// sweep): a run per suite, each with its own samples and the log's raw copy,
// each sample's provenance still its line in the log.
TEST(IngestCommand, ALogOfTwoSuitesBecomesARunPerSuite) {
  TempDir tmp;
  const fs::path log = tmp.path / "two-suites.log";
  const std::string make_shared = kvmbench::read_file(kReference + "make_shared_to_shared.log");
  const std::string rmpopt = kvmbench::read_file(kData + "rmpopt_two_loops.log");
  {
    std::ofstream out(log);
    out << make_shared << rmpopt;
  }
  const fs::path runs = tmp.path / "runs";
  auto r = run_kvmbench({"ingest", log.string(), "--out", runs.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto dirs = entries(runs);
  ASSERT_EQ(dirs.size(), 2u) << r.out;
  std::map<std::string, kvmbench::Run> by_suite;
  for (const auto& d : dirs) {
    auto run = kvmbench::load_run(d);
    EXPECT_EQ(run.status(), "complete");
    EXPECT_EQ(kvmbench::read_file(d / "raw" / "two-suites.log"), make_shared + rmpopt);
    by_suite[run.suite()] = std::move(run);
  }
  ASSERT_EQ(by_suite.count("make_shared"), 1u);
  ASSERT_EQ(by_suite.count("rmpopt"), 1u);
  EXPECT_EQ(by_suite["make_shared"].samples.size(), 60u);  // as the log alone gives
  for (const auto& s : by_suite["make_shared"].samples) EXPECT_NE(s.metric, "sweep_time");
  const auto& sweeps = by_suite["rmpopt"].samples;
  ASSERT_FALSE(sweeps.empty());
  for (const auto& s : sweeps) EXPECT_EQ(s.metric, "sweep_time");
  // The first sweep line is the log's line after make_shared's.
  const long first_line = std::count(make_shared.begin(), make_shared.end(), '\n') + 1;
  EXPECT_EQ(sweeps.front().extra.value("line", 0L), first_line) << sweeps.front().extra.dump();
  EXPECT_NE(r.out.find("suite: make_shared"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("suite: rmpopt"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("make_shared: sweep_time"), std::string::npos) << r.out;
  // --suite keeps it one run.
  auto one = run_kvmbench({"ingest", log.string(), "--suite", "rmpopt", "--out", (tmp.path / "one").string()});
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(entries(tmp.path / "one").size(), 1u);
}

TEST(IngestCommand, GbenchRepetitionsAreSamplesAggregatesInMeta) {
  TempDir tmp;
  auto r = run_kvmbench({"ingest", kData + "gbench_repetitions.json", "--out", tmp.path.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto dirs = entries(tmp.path);
  ASSERT_EQ(dirs.size(), 1u);
  auto run = kvmbench::load_run(dirs[0]);
  EXPECT_EQ(run.samples.size(), 13u);
  EXPECT_EQ(run.meta["gbench_aggregates"].size(), 12u);
  EXPECT_NE(r.out.find("BM_FaultIn/4096/repeats:3"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("real_time"), std::string::npos);
}

TEST(IngestCommand, JournalctlRmpoptInfersTheSuite) {
  TempDir tmp;
  auto r = run_kvmbench({"ingest", kData + "journalctl_rmpopt.log", "--out", tmp.path.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("suite: rmpopt"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("424.8"), std::string::npos) << r.out;
}

TEST(IngestCommand, TwoFilesOfOneSeriesKeepDistinctIterations) {
  TempDir tmp;
  auto r = run_kvmbench({"ingest", kReference + "rmpopt_sweep_all_cpus.log",
                         kReference + "rmpopt_sweep_leader_primary.log", "--variant-per-file", "--out",
                         tmp.path.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("rmpopt_sweep_leader_primary vs rmpopt_sweep_all_cpus"), std::string::npos) << r.out;
  TempDir tmp2;
  r = run_kvmbench({"ingest", kReference + "rmpopt_sweep_all_cpus.log", kReference + "rmpopt_sweep_all_cpus.log",
                    "--out", tmp2.path.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto run = kvmbench::load_run(entries(tmp2.path).at(0));
  ASSERT_EQ(run.samples.size(), 4u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(run.samples[i].iteration, i);
  EXPECT_EQ(run.samples[3].extra["file"], "2-rmpopt_sweep_all_cpus.log");
}

struct Rejected {
  std::vector<std::string> files;
  std::string message;
};

TEST(IngestCommand, BadInputIsRejectedBeforeAnyDirectoryExists) {
  TempDir tmp;
  const fs::path out = tmp.path / "runs";
  for (const Rejected& c : std::vector<Rejected>{
           {{kData + "empty.txt"}, "empty.txt:1: empty file"},
           {{kData + "unrelated.txt"}, "unrelated.txt:1: unrecognised content"},
           {{kData + "gbench_truncated.json"}, "gbench_truncated.json:"},
           {{kData + "no-such-file.log"}, "no-such-file.log: no such file"},
           {{kReference + "make_shared_to_shared.log", kData + "empty.txt"}, "empty.txt:1:"},
       }) {
    std::vector<std::string> args = {"ingest"};
    args.insert(args.end(), c.files.begin(), c.files.end());
    args.insert(args.end(), {"--out", out.string()});
    auto r = run_kvmbench(args);
    EXPECT_EQ(r.exit_code, 2) << c.files.back() << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << r.err;
    EXPECT_TRUE(entries(out).empty()) << c.files.back();
  }
  auto r = run_kvmbench({"ingest", kData + "gbench_truncated.json", "--out", out.string()});
  EXPECT_NE(r.err.find("truncated"), std::string::npos) << r.err;
}

// Inconsistent kernel log records: exit 2, "FILE:LINE: reason" on stderr,
// no run directory. The bad record is on line 3 of each file, after a
// good one, so a partial run would be possible if ingest did not reject it.
TEST(IngestCommand, InconsistentKernelRecordsAreRejectedWithFileAndLine) {
  TempDir tmp;
  const fs::path out = tmp.path / "runs";
  const std::string good = "[ 1.0] guest_memfd to_shared: nr_pages=1, make_shared=5 cycles, total=100 cycles\n";
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"guest_memfd to_shared: nr_pages=1, make_shared=-5 cycles, total=100 cycles", "make_shared is negative"},
      {"guest_memfd to_shared: nr_pages=1, make_shared=five cycles, total=100 cycles", "make_shared is not a count"},
      {"guest_memfd to_shared: nr_pages=1, make_shared=200 cycles, total=100 cycles", "is larger than its total"},
      {"guest_memfd to_shared: nr_pages=1, make_shared=0 cycles, total=0 cycles", "total is 0 cycles"},
      {"guest_memfd to_shared: nr_pages=1, make_shared=5 cycles, total=nan cycles", "total is nan, not a count"},
      {"SEV-SNP: RMPOPT largest cycles inf", "RMPOPT largest cycles is inf, not a count"},
      {"SEV-SNP: RMPOPT execution time -1 ns for physical address range 0x0 - 0x10 on all cpus",
       "RMPOPT execution time is negative"},
  };
  int n = 0;
  for (const auto& [record, reason] : cases) {
    const fs::path file = tmp.path / fmt::format("bad{}.log", n++);
    std::ofstream(file) << good << "[ 1.5] unrelated\n[ 2.0] " << record << "\n" << good;
    auto r = run_kvmbench({"ingest", file.string(), "--out", out.string()});
    EXPECT_EQ(r.exit_code, 2) << record << "\n" << r.out << r.err;
    EXPECT_NE(r.err.find(file.filename().string() + ":3: "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find(reason), std::string::npos) << r.err;
    EXPECT_TRUE(entries(out).empty()) << record;
  }
}

// A long capture: ingest prints its tables from the samples in memory and
// stores them without a JSON document per sample; `report` recomputes the
// same tables from disk, and every stored line keeps its provenance.
TEST(IngestCommand, ReportFromDiskMatchesIngestAndLinesKeepProvenance) {
  TempDir tmp;
  const fs::path log = tmp.path / "long.log";
  {
    std::ofstream f(log);
    for (int i = 0; i < 300; ++i) {  // 300 conversions, 100 groups of cycle stats
      f << fmt::format("[{:12.6f}] guest_memfd to_shared: nr_pages={}, make_shared={}\n", 10.0 + i,
                       i % 2 ? 1 : 262144, 900 + i);
      f << fmt::format("cycles, total={} cycles\n", 40000 + 7 * i);  // mail-wrapped
      f << fmt::format("[{:12.6f}] usb 1-1: new device\n", 10.5 + i);
      if (i % 3 == 0) f << fmt::format("[{:12.6f}] SEV-SNP: RMPOPT largest cycles {}\n", 10.7 + i, 100 + i);
    }
  }
  const fs::path out = tmp.path / "runs";
  // Two suites' lines (make_shared's conversions, RMPOPT's cycle stats):
  // --suite keeps them one run (without it, a run per suite: below).
  auto ingest = run_kvmbench({"ingest", log.string(), "--suite", "make_shared", "--out", out.string(), "--format", "csv"});
  ASSERT_EQ(ingest.exit_code, 0) << ingest.err;
  auto dirs = entries(out);
  ASSERT_EQ(dirs.size(), 1u);
  auto report = run_kvmbench({"report", dirs[0].string(), "--format", "csv"});
  ASSERT_EQ(report.exit_code, 0) << report.err;
  EXPECT_EQ(ingest.out, report.out);
  EXPECT_EQ(report.err, "");

  // Text: the 300-row listing is cut to 40 rows; the 100 cycle groups are
  // pooled into one table.
  auto text = run_kvmbench({"report", dirs[0].string()});
  EXPECT_NE(text.out.find("... 260 more rows"), std::string::npos) << text.out;
  // (groups count every run of records: the conversions between make the
  // cycle stats groups 2, 6, ..., 398)
  EXPECT_NE(text.out.find("all 100 group=* cases pooled (from group=2 to group=398)"), std::string::npos)
      << text.out;

  auto run = kvmbench::load_run(dirs[0]);
  ASSERT_EQ(run.samples.size(), 300u * 3 + 100);
  const Sample& first = run.samples[0];  // make_shared_cycles of the first conversion
  EXPECT_EQ(first.metric, "make_shared_cycles");
  EXPECT_EQ(first.value, 900);
  EXPECT_EQ(first.extra["line"], 1);
  EXPECT_EQ(first.extra["lines"], 2);
  EXPECT_EQ(first.extra["group"], 1);
  EXPECT_EQ(first.extra["uptime_s"], 10.0);
  EXPECT_EQ(first.extra["file"], "long.log");
  EXPECT_EQ(run.meta["inputs"][0]["raw_bytes"], fs::file_size(log));

  // A raw copy cut short (a crash before it reached the disk) is reported,
  // and the tables still print: they come from samples.jsonl.
  fs::resize_file(dirs[0] / "raw" / "long.log", 100);
  auto cut = run_kvmbench({"report", dirs[0].string(), "--format", "csv"});
  EXPECT_EQ(cut.exit_code, 0);
  EXPECT_EQ(cut.out, report.out);
  EXPECT_NE(cut.err.find("raw/long.log: 100 bytes, "), std::string::npos) << cut.err;

  // samples.jsonl emptied or cut at a line's end (no torn last line to
  // refuse): the report says so instead of showing fewer samples quietly.
  fs::resize_file(dirs[0] / "samples.jsonl", 0);
  auto emptied = run_kvmbench({"report", dirs[0].string(), "--format", "csv"});
  EXPECT_EQ(emptied.exit_code, 0);
  EXPECT_NE(emptied.err.find("samples.jsonl: 0 samples, meta.json says 1000 were stored"), std::string::npos)
      << emptied.err;
}

// `kvmbench ingest <(journalctl -k)`: the file is a pipe, read once.
TEST(IngestCommand, ReadsAPipe) {
  TempDir tmp;
  const fs::path fifo = tmp.path / "kmsg.pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string text = kvmbench::read_file(kReference + "make_shared_to_shared.log");
  std::thread writer([&] { std::ofstream(fifo, std::ios::binary) << text; });
  auto r = run_kvmbench({"ingest", fifo.string(), "--out", (tmp.path / "runs").string()}, 30);
  writer.join();
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("2.3677%"), std::string::npos) << r.out;
  auto dirs = entries(tmp.path / "runs");
  ASSERT_EQ(dirs.size(), 1u);
  EXPECT_EQ(kvmbench::read_file(dirs[0] / "raw" / "kmsg.pipe"), text);
}

// Ctrl-C while the input is still being read (a pipe whose writer is slow):
// nothing is stored, exit 130. The Ctrl-C comes once kvmbench has the pipe
// open (its writer's open succeeds then), not after a guessed delay: under
// ASan on a busy machine kvmbench takes over a second to get there, and a
// signal before its handler would kill it instead.
TEST(IngestCommand, CtrlCBeforeTheRunIsStoredLeavesNothing) {
  TempDir tmp;
  const fs::path fifo = tmp.path / "kmsg.pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const std::string text = kvmbench::read_file(kReference + "make_shared_to_shared.log");
  const fs::path out = tmp.path / "runs";
  const fs::path err_file = tmp.path / "stderr.txt";
  const std::string script = fmt::format("exec '{}' ingest '{}' --out '{}' 2>'{}' >/dev/null", KVMBENCH_BINARY,
                                         fifo.string(), out.string(), err_file.string());
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) kvmbench::test_support::exec_or_exit({"/bin/sh", "-c", script});

  // The writer: non-blocking, so that a kvmbench that never opens the pipe
  // fails the test instead of hanging it.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  int fd;
  while ((fd = ::open(fifo.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC)) < 0 && errno == ENXIO &&
         std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_GE(fd, 0) << "kvmbench never opened " << fifo;
  ::kill(pid, SIGINT);
  if (fd >= 0) {
    // The slow writer's data comes after the Ctrl-C; kvmbench must not store it.
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    ::signal(SIGPIPE, SIG_IGN);  // kvmbench may be gone: EPIPE, not a dead test
    const ssize_t ignored = ::write(fd, text.data(), text.size());
    (void)ignored;
    ::close(fd);
  }
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  const std::string err = kvmbench::test_support::read_text(err_file);
  ASSERT_TRUE(WIFEXITED(status)) << "kvmbench ended by a signal or the deadline; stderr:\n" << err;
  EXPECT_EQ(WEXITSTATUS(status), 130) << err;
  EXPECT_NE(err.find("interrupted; nothing stored"), std::string::npos) << err;
  EXPECT_TRUE(entries(out).empty());
}

// A disk that fills while the run is stored (a 1 MB tmpfs, mounted in a
// mount namespace of the command's own so that nothing outlives it): a
// clear message, exit 2, and no half-written run left "running".
TEST(IngestCommand, AFullDiskWhileStoringLeavesNoRunBehind) {
  if (::geteuid() != 0) GTEST_SKIP() << "mounting a small tmpfs needs root";
  const auto ns = kvmbench::test_support::run_command({"/usr/bin/unshare", "--mount", "/bin/true"});
  if (ns.exit_code != 0) GTEST_SKIP() << "no mount namespace here: " << ns.err;
  TempDir tmp;
  std::string log;
  for (int i = 0; log.size() < (std::size_t{3} << 20); ++i)
    log += fmt::format("[{:12.6f}] guest_memfd to_shared: nr_pages=1, make_shared={} cycles, total={} cycles\n",
                       1.0 + i, 100 + i % 7, 9000 + i % 13);
  const fs::path input = tmp.path / "kernel.log";
  kvmbench::test_support::write_text(input, log);
  const fs::path disk = tmp.path / "disk";
  fs::create_directory(disk);
  const std::string script = fmt::format(
      "mount -t tmpfs -o size=1m tmpfs '{0}' || exit 99; '{1}' ingest '{2}' --out '{0}/runs'; rc=$?; "
      "echo \"left:[$(ls -A '{0}/runs')]\" >&2; exit $rc",
      disk.string(), KVMBENCH_BINARY, input.string());
  auto r = kvmbench::test_support::run_command({"/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh", "-c", script});
  if (r.exit_code == 99) GTEST_SKIP() << "cannot mount a tmpfs here: " << r.err;
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("cannot store the run under"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("No space left on device; nothing stored"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("left:[]"), std::string::npos) << r.err;  // runs/ is empty
}

// Ctrl-C once the run directory exists (while the raw copy of a long log,
// mostly lines of no record, is still being written): the run is kept with
// its whole samples, marked interrupted, exit 130.
TEST(IngestCommand, CtrlCWhileStoringMarksTheRunInterrupted) {
  TempDir tmp;
  std::string log;
  const std::string filler(120, 'x');
  for (int i = 0; log.size() < (std::size_t{96} << 20); ++i) {
    if (i % 1000 == 0)
      log += fmt::format("[{:12.6f}] guest_memfd to_shared: nr_pages=1, make_shared={} cycles, total={} cycles\n",
                         1.0 + i, 100 + i % 7, 9000 + i % 13);
    else
      log += fmt::format("[{:12.6f}] usb 1-1: {}\n", 1.0 + i, filler);
  }
  const fs::path input = tmp.path / "kernel.log";
  kvmbench::test_support::write_text(input, log);
  const fs::path out = tmp.path / "runs";
  // The signal goes as soon as the run directory appears: in the store phase.
  const std::string script = fmt::format(
      "'{0}' ingest '{1}' --out '{2}' --format csv >/dev/null & pid=$!; "
      "while [ -z \"$(ls -A '{2}' 2>/dev/null)\" ]; do kill -0 $pid 2>/dev/null || break; done; "
      "kill -INT $pid; wait $pid",
      KVMBENCH_BINARY, input.string(), out.string());
  auto r = kvmbench::test_support::run_command({"/bin/sh", "-c", script}, 120);
  EXPECT_EQ(r.exit_code, 130) << r.err;
  EXPECT_NE(r.err.find("(status: interrupted)"), std::string::npos) << r.err;
  auto dirs = entries(out);
  ASSERT_EQ(dirs.size(), 1u);
  auto run = kvmbench::load_run(dirs[0]);  // every line whole
  EXPECT_EQ(run.status(), "interrupted");
  EXPECT_EQ(run.meta["n_samples"], run.samples.size());
}

// Refusals found in the tables (one metric in two time units) leave no run
// and no --out folder made for it, and a guest console with bytes that are not UTF-8 is stored (U+FFFD in
// meta.json; the raw copy keeps the bytes), not refused with a JSON
// library's message and an empty directory.
TEST(IngestCommand, MixedUnitsLeaveNothingAndInvalidUtf8IsStored) {
  TempDir tmp;
  nlohmann::json doc = nlohmann::json::parse(kvmbench::read_file(kData + "gbench_repetitions.json"));
  nlohmann::json rows = nlohmann::json::array();
  for (auto& b : doc["benchmarks"])
    if (b.value("run_type", "") == "iteration") rows.push_back(b);
  rows[1]["time_unit"] = "us";
  rows[1]["real_time"] = 0.13;
  doc["benchmarks"] = rows;
  const fs::path mixed = tmp.path / "mixed.json";
  kvmbench::test_support::write_text(mixed, doc.dump());
  const fs::path out = tmp.path / "runs";
  auto r = run_kvmbench({"ingest", mixed.string(), "--out", out.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("mixes units 'ns' and 'us'; nothing stored"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(out)) << "the --out folder made for the run stays too (empty)";
  // One that was there before stays, as it was.
  fs::create_directories(out);
  r = run_kvmbench({"ingest", mixed.string(), "--out", out.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(fs::exists(out));
  EXPECT_TRUE(entries(out).empty());

  const std::string console =
      "KVMBENCH-BEGIN workload=w\n"
      "KVMBENCH-RESULT {\"case\":\"c\",\"metric\":\"t\",\"unit\":\"ns\",\"value\":1,\"iteration\":0}\n"
      "KVMBENCH-ERROR bad \xff\xfe here\nKVMBENCH-END workload=w status=1\n";
  const fs::path guest = tmp.path / "console.txt";
  kvmbench::test_support::write_text(guest, console);
  r = run_kvmbench({"ingest", guest.string(), "--out", out.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err.find("json.exception"), std::string::npos) << r.err;
  auto dirs = entries(out);
  ASSERT_EQ(dirs.size(), 1u);
  auto run = kvmbench::load_run(dirs[0]);
  EXPECT_EQ(run.samples.size(), 1u);
  EXPECT_NE(run.meta.dump().find("bad \xEF\xBF\xBD\xEF\xBF\xBD here"), std::string::npos);
  EXPECT_EQ(kvmbench::read_file(dirs[0] / "raw" / "console.txt"), console);
}
