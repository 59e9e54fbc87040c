// Ingest speed (the hot path of `kvmbench ingest`: a lab keeps months of
// kernel logs), on a synthetic dmesg capture, measured against the awk
// one-liner a kernel developer would write for the same fields
// (kernel_log_fields.awk) in the same run, so the ratio holds on a noisy
// machine:
//   BM_ParseKernelLog   the parser alone, in this process (by-record
//                       provenance, as ingest uses it)
//   BM_IngestCommand    `kvmbench ingest LOG --out TMP --format csv`, the
//                       whole command: read, parse, store the run (samples,
//                       raw copy), print its tables
//   BM_AwkOneLiner      `awk -f kernel_log_fields.awk LOG` (mawk: Debian's awk)
//   BM_IngestVsAwk      the two paired, run after one another in each
//                       iteration; its awk_over_ingest counter is the speed-up
//                       (the figure to quote: a shared machine's load moves
//                       the separate benchmarks by tens of percent)
// The budget of ingest (issue #17): at most 4x awk's time on a 200 MB log,
// awk_over_ingest >= 0.25, at KVMBENCH_BENCH_RECORD_EVERY=4 and =1000.
//
//   build/bench/kvmbench_ingest_bench                    # 200 MB
//   KVMBENCH_BENCH_MB=20 build/bench/kvmbench_ingest_bench
//   KVMBENCH_BENCH_RECORD_EVERY=1000 ...      # sparser records (default 50)
//   KVMBENCH_BENCH_PREFIX=journal ...         # `journalctl -k` lines (default dmesg)
//   KVMBENCH_BENCH_WRITE=/tmp/kernel.log ...  # where the log is written
//     (default: a file under $TMPDIR, removed at exit)
//   KVMBENCH_BENCH_BINARY=/tmp/kvmbench-main ...  # another build's kvmbench
//     for the commands (default: this build's), to compare two builds
//   KVMBENCH_BENCH_MB=2048 build/bench/kvmbench_ingest_bench --write-log=F
//     # only write the log to F (ingest_memory.sh)
//
// The log: "[ uptime] " (or journalctl's "Mon DD hh:mm:ss host kernel: ") prefixed lines, one in 50 (one in
// KVMBENCH_BENCH_RECORD_EVERY) a line of a record of the documents'
// instrumentation (to_shared, a quarter of them mail-wrapped over two lines
// as in the make_shared document; a group of the three RMPOPT cycle stats;
// RMPOPT sweep times), the rest ordinary dmesg noise of varied length.
// Generated deterministically.
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <stdlib.h>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "analysis/parse/kernel_log.h"

namespace {

struct Lcg {
  std::uint64_t s = 0x9e3779b97f4a7c15ull;
  std::uint64_t next() {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    return s >> 33;
  }
  std::uint64_t below(std::uint64_t n) { return next() % n; }
};

constexpr const char* kNoise[] = {
    "usb 1-1: new high-speed USB device number {} using xhci_hcd",
    "EXT4-fs (nvme0n1p{}): mounted filesystem with ordered data mode. Quota mode: none.",
    "kvm_amd: SVM: kvm [{}]: vcpu0, guest rIP: 0xffffffff81c0e2d4 Unhandled WRMSR(0xc0010115) = 0x0",
    "audit: type=1400 audit({}.123:42): apparmor=\"STATUS\" operation=\"profile_load\" name=\"lsb_release\"",
    "SEV-SNP: RMP table physical range [0x00000000{:x} - 0x000000002dffffff]",
    "perf: interrupt took too long ({} > 2500), lowering kernel.perf_event_max_sample_rate to 79750",
    "tun: Universal TUN/TAP device driver, 1.6 (instance {})",
    "virbr0: port {}(vnet0) entered forwarding state",
    "guest_memfd: bound {} pages",
    "x86/split lock detection: #AC: crashing the kernel on kernel split_locks and warning on user-space",
};

// One line in N is a line of a record (KVMBENCH_BENCH_RECORD_EVERY,
// default 50).
std::uint64_t record_every() {
  const char* e = std::getenv("KVMBENCH_BENCH_RECORD_EVERY");
  const long n = e ? std::atol(e) : 50;
  return n >= 1 ? static_cast<std::uint64_t>(n) : 50;
}

// KVMBENCH_BENCH_PREFIX=journal: `journalctl -k` lines ("Nov 30 12:00:01
// lab1 kernel: ...") instead of dmesg's "[ uptime] ".
bool journal_prefix() {
  const char* e = std::getenv("KVMBENCH_BENCH_PREFIX");
  return e && std::string(e) == "journal";
}

// The log in pieces: `piece` gets each next part of about 1 MiB, of whole
// lines, until `bytes` are made.
template <typename Piece>
void make_log_pieces(std::size_t bytes, Piece piece) {
  std::string out;
  std::size_t made = 0;
  Lcg r;
  double uptime = 1.0;
  static const char* stats[] = {"largest", "smallest", "average"};
  static const std::uint64_t pages[] = {1, 262144, 1048576};
  const std::uint64_t every = record_every();
  const bool journal = journal_prefix();
  while (made + out.size() < bytes) {
    if (out.size() >= (std::size_t{1} << 20)) {
      made += out.size();
      piece(out);
      out.clear();
    }
    uptime += 1e-6 * static_cast<double>(r.below(5000000));
    const auto s = static_cast<std::uint64_t>(uptime);
    const std::string prefix = journal ? fmt::format("Nov {:02} {:02}:{:02}:{:02} lab1 kernel: ", 1 + s / 86400 % 30,
                                                     s / 3600 % 24, s / 60 % 60, s % 60)
                                       : fmt::format("[{:12.6f}] ", uptime);
    // Each print is a record with probability 4 / (7N - 3), of one of the
    // three kinds alike: a record is 1.75 lines on average (a to_shared
    // 1.25, the cycle stats 3, a sweep 1), so that one line in N is a
    // record's.
    const std::uint64_t pick = r.below(7 * every - 3) < 4 ? r.below(3) : 3;
    if (pick == 0) {
      const std::uint64_t np = pages[r.below(3)];
      const std::uint64_t total = np * 25000 + r.below(1000000) + 1000;
      const std::uint64_t ms = total / 400 + r.below(1000);
      if (r.below(4) == 0)  // mail-wrapped, as in the make_shared document
        out += fmt::format("{}guest_memfd to_shared: nr_pages={}, make_shared={}\ncycles, total={} cycles\n", prefix,
                           np, ms, total);
      else
        out += fmt::format("{}guest_memfd to_shared: nr_pages={}, make_shared={} cycles, total={} cycles\n", prefix,
                           np, ms, total);
    } else if (pick == 1) {
      for (const char* st : stats) out += fmt::format("{}SEV-SNP: RMPOPT {} cycles {}\n", prefix, st, 60 + r.below(2000000));
    } else if (pick == 2) {
      out += fmt::format(
          "{}SEV-SNP: RMPOPT execution time {} ns for physical address range 0x0000000000000000 - 0x0000020000000000 "
          "on all cpus\n",
          prefix, 300000000 + r.below(200000000));
    } else {
      out += prefix;
      out += fmt::format(fmt::runtime(kNoise[r.below(std::size(kNoise))]), r.below(100000));
      out += '\n';
    }
  }
  piece(out);
}

std::string make_log(std::size_t bytes) {
  std::string out;
  out.reserve(bytes + 256);
  make_log_pieces(bytes, [&](const std::string& piece) { out += piece; });
  return out;
}

std::size_t log_bytes() {
  const char* mb = std::getenv("KVMBENCH_BENCH_MB");
  const double m = mb ? std::atof(mb) : 200.0;
  return static_cast<std::size_t>((m > 0 ? m : 200.0) * 1024 * 1024);
}

const std::string& the_log() {
  static const std::string log = make_log(log_bytes());
  return log;
}

// A scratch directory for the log file and the runs, removed at exit.
struct Scratch {
  std::filesystem::path dir;
  Scratch() {
    std::string templ = (std::filesystem::temp_directory_path() / "kvmbench-bench-XXXXXX").string();
    if (!::mkdtemp(templ.data())) {
      std::perror("mkdtemp");
      std::exit(1);
    }
    dir = templ;
  }
  ~Scratch() {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
};

const Scratch& scratch() {
  static const Scratch s;
  return s;
}

// The log as a file, for the two commands.
const std::string& log_file() {
  static const std::string path = [] {
    const char* w = std::getenv("KVMBENCH_BENCH_WRITE");
    std::string p = w ? std::string(w) : (scratch().dir / "kernel.log").string();
    std::ofstream f(p, std::ios::binary);
    f << the_log();
    if (!f) {
      std::fprintf(stderr, "cannot write %s\n", p.c_str());
      std::exit(1);
    }
    return p;
  }();
  return path;
}

// The kvmbench binary the commands run.
std::string kvmbench_binary() {
  const char* e = std::getenv("KVMBENCH_BENCH_BINARY");
  return e ? std::string(e) : std::string(KVMBENCH_BINARY);
}

// Runs a shell command line; the benchmark fails on a non-zero exit.
bool run_quietly(benchmark::State& state, const std::string& cmd) {
  const int rc = std::system((cmd + " > /dev/null").c_str());
  if (rc != 0) state.SkipWithError(("command failed: " + cmd).c_str());
  return rc == 0;
}

void BM_ParseKernelLog(benchmark::State& state) {
  const std::string& log = the_log();
  std::size_t records = 0;
  for (auto _ : state) {
    auto res = kvmbench::parsers::parse_kernel_log_records(log, kvmbench::parsers::Provenance::by_record);
    records = res.records.size();
    benchmark::DoNotOptimize(res.result.samples.data());
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * log.size()));
  state.counters["MB"] = static_cast<double>(log.size()) / (1024.0 * 1024.0);
  state.counters["records"] = static_cast<double>(records);
}
BENCHMARK(BM_ParseKernelLog)->Unit(benchmark::kMillisecond)->MinTime(1.0)->UseRealTime();

void BM_IngestCommand(benchmark::State& state) {
  const std::string& log = log_file();
  const std::filesystem::path runs = scratch().dir / "runs";
  const std::string cmd = fmt::format("'{}' ingest '{}' --out '{}' --format csv 2> /dev/null", kvmbench_binary(), log,
                                      runs.string());
  for (auto _ : state) {
    if (!run_quietly(state, cmd)) break;
    state.PauseTiming();
    std::filesystem::remove_all(runs);
    state.ResumeTiming();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * the_log().size()));
}
BENCHMARK(BM_IngestCommand)->Unit(benchmark::kMillisecond)->MinTime(2.0)->UseRealTime();

void BM_AwkOneLiner(benchmark::State& state) {
  const std::string cmd = fmt::format("awk -f '{}' '{}'", KVMBENCH_AWK_SCRIPT, log_file());
  for (auto _ : state)
    if (!run_quietly(state, cmd)) break;
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * the_log().size()));
}
BENCHMARK(BM_AwkOneLiner)->Unit(benchmark::kMillisecond)->MinTime(2.0)->UseRealTime();

// The two commands paired: each iteration runs both, one right after the
// other (which goes first alternates), so that a busy machine slows both
// alike; awk_over_ingest is the ratio of their summed times.
void BM_IngestVsAwk(benchmark::State& state) {
  const std::filesystem::path runs = scratch().dir / "paired-runs";
  const std::string ingest = fmt::format("'{}' ingest '{}' --out '{}' --format csv 2> /dev/null", kvmbench_binary(),
                                         log_file(), runs.string());
  const std::string awk = fmt::format("awk -f '{}' '{}'", KVMBENCH_AWK_SCRIPT, log_file());
  double ingest_s = 0, awk_s = 0;
  bool ingest_first = true;
  auto timed = [&](const std::string& cmd, double& total) {
    const auto t0 = std::chrono::steady_clock::now();
    const bool ok = run_quietly(state, cmd);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    total += s;
    return ok ? s : -1;
  };
  for (auto _ : state) {
    double a, b;
    if (ingest_first) {
      a = timed(ingest, ingest_s);
      b = timed(awk, awk_s);
    } else {
      b = timed(awk, awk_s);
      a = timed(ingest, ingest_s);
    }
    ingest_first = !ingest_first;
    std::error_code ec;
    std::filesystem::remove_all(runs, ec);
    if (a < 0 || b < 0) break;
    state.SetIterationTime(a + b);
  }
  const auto n = static_cast<double>(state.iterations());
  state.counters["ingest_ms"] = n > 0 ? 1e3 * ingest_s / n : 0;
  state.counters["awk_ms"] = n > 0 ? 1e3 * awk_s / n : 0;
  state.counters["awk_over_ingest"] = ingest_s > 0 ? awk_s / ingest_s : 0;
}
BENCHMARK(BM_IngestVsAwk)->Unit(benchmark::kMillisecond)->MinTime(4.0)->UseManualTime();

}  // namespace

// --write-log=PATH: only write the log (KVMBENCH_BENCH_MB of it, made a
// piece at a time: a log larger than memory too) and exit; what
// ingest_memory.sh measures ingest's memory on.
int main(int argc, char** argv) {
  constexpr std::string_view kWrite = "--write-log=";
  if (argc == 2 && std::string_view(argv[1]).starts_with(kWrite)) {
    const std::string path(std::string_view(argv[1]).substr(kWrite.size()));
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    make_log_pieces(log_bytes(), [&](const std::string& piece) { f << piece; });
    if (!f.flush()) {
      std::fprintf(stderr, "cannot write %s\n", path.c_str());
      return 1;
    }
    return 0;
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
