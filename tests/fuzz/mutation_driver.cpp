// The fuzz driver that needs no particular compiler (what ctest runs, label
// fuzz): each seed input of a target as it is, then inputs made from them
// by stacked random mutations (bits and bytes, ranges deleted or repeated,
// lines repeated or swapped, tokens of the formats, numbers at their
// limits, nesting thousands of levels deep, pieces of other seeds), from a
// fixed seed so that a run can be made again. No coverage feedback: that is
// libFuzzer's part, for the long runs (libfuzzer_main.cpp).
//
//   kvmbench_fuzz TARGET [--runs=N] [--max-seconds=S] [--seed=N]
//                 [--timeout=S] [--artifacts=DIR]   mutate, N inputs or S seconds
//   kvmbench_fuzz TARGET FILE...                    those inputs only
//   kvmbench_fuzz --list | --seeds TARGET
// A finding (fuzz_target.h) saves its input as DIR/crash-TARGET-PID (a hang:
// timeout-TARGET-PID) and ends with the signal or abort.
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "tests/fuzz/fuzz_target.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#endif

namespace {

using kvmbench::fuzz::FuzzTarget;

// The input being run and where it goes if it is a finding: read by the
// signal handlers.
const char* g_data = nullptr;
std::size_t g_size = 0;
char g_crash_path[4096];
char g_timeout_path[4096];
int g_report_fd = 2;

void write_all(int fd, const char* p, std::size_t n) {
  while (n > 0) {
    const ssize_t w = ::write(fd, p, n);
    if (w <= 0) return;
    p += w;
    n -= static_cast<std::size_t>(w);
  }
}

void say(const char* s) { write_all(g_report_fd, s, std::strlen(s)); }

// Async-signal-safe: open, write, close.
void save_input(const char* path) {
  const int fd = ::open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return;
  write_all(fd, g_data, g_size);
  ::close(fd);
  say("kvmbench fuzz: the input is saved as ");
  say(path);
  say("\n");
}

void on_fatal_signal(int sig) {
  if (sig == SIGALRM) {
    say("kvmbench fuzz: FINDING: a hang (the input ran past --timeout)\n");
    save_input(g_timeout_path);
    ::signal(SIGABRT, SIG_DFL);
    ::raise(SIGABRT);
    return;
  }
  say(sig == SIGABRT ? "kvmbench fuzz: stopped (abort: a finding above, or the code's own)\n"
                     : "kvmbench fuzz: FINDING: a crash (fatal signal)\n");
  save_input(g_crash_path);
  ::signal(sig, SIG_DFL);
  ::raise(sig);
}

#if defined(__SANITIZE_ADDRESS__)
void on_sanitizer_death() { save_input(g_crash_path); }
#endif

void install_handlers() {
  static std::vector<char> alt(1 << 16);  // a stack overflow runs its handler here
  stack_t ss{};
  ss.ss_sp = alt.data();
  ss.ss_size = alt.size();
  ::sigaltstack(&ss, nullptr);
  struct sigaction sa {};
  sa.sa_handler = on_fatal_signal;
  sa.sa_flags = SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGALRM}) ::sigaction(sig, &sa, nullptr);
#if defined(__SANITIZE_ADDRESS__)
  __sanitizer_set_death_callback(on_sanitizer_death);
#endif
}

struct Rng {
  std::uint64_t s;
  std::uint64_t next() {  // splitmix64
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  std::size_t below(std::size_t n) { return n ? static_cast<std::size_t>(next() % n) : 0; }
};

// Pieces of the formats the readers read, and values at their limits.
const std::vector<std::string>& dictionary() {
  static const std::vector<std::string> d = {
      "SEV-SNP: RMPOPT ", "largest cycles ", "smallest cycles ", "average cycles ", "execution time ",
      " ns for physical address range 0x0000000000000000 - 0x0000020000000000", " on all cpus",
      "guest_memfd to_shared: nr_pages=", ", make_shared=", " cycles, total=", " cycles", "RMPOPT optimizations",
      "KVMBENCH-RESULT ", "KVMBENCH-BEGIN workload=", "KVMBENCH-END workload=x status=", "KVMBENCH-ERROR ",
      "Kernel panic - not syncing", "\"benchmarks\"", "\"run_type\":\"aggregate\"", "\"run_type\":\"iteration\"",
      "\"aggregate_name\":\"mean\"", "\"repetition_index\":", "\"real_time\":", "\"cpu_time\":",
      "\"time_unit\":\"ns\"", "\"time_unit\":\"s\"", "\"name\":", "\"context\":", "\"error_occurred\":true",
      "\"suite\":", "\"source\":\"replay\"", "\"status\":", "\"case\":", "\"metric\":", "\"unit\":", "\"value\":",
      "\"value_text\":\"Infinity\"", "\"iteration\":", "\"warmup\":", "\"variant\":", "\"keys\":", "\"n_samples\":",
      "\"format\":\"kvmbench-results-db\"", "\"version\":1", "\"samples\":[", "\"run_key\":", "\"meta\":",
      "\"content_sha256\":", "\"imported_at\":", "\"cpu\":", "\"kvm\":", "\"features\":[", "\"hostname\":",
      "TAP version 13", "1..1", "ok 1 selftests: kvm: ", "not ok 1 selftests: kvm: memslot_perf_test # TIMEOUT",
      "==== Test Assertion Failure ====", "Testing guest mode: PA-bits:ANY, VA-bits:48,  4K pages",
      "Iteration 1 dirty memory time: ", "Populate memory time: ", "Get dirty log over ", "cpuid ", "vmcall ",
      "ipi ", "MemTotal:", " kB", "DirectMap4k:", "DirectMap2M:", "DirectMap1G:", "> ", ">> ", "> > ",
      "[    1.000000] ", "[Thu Mar  5 11:22:33 2026] ", "Mar 05 11:22:33 lab1 kernel: ", "6,1234,49913402,-;",
      "nan", "-nan", "inf", "-inf", "1e309", "-1e309", "1e-320", "-1", "-0", "0", "4294967296",
      "18446744073709551615", "18446744073709551616", "9223372036854775807", "-9223372036854775808", "0x", "0X",
      "%lu", "%llu", "\xef\xbf\xbd", "\xff", "\xc3", "\\u0000", "\\ud800", "\\\"", "null", "true", "false", "[]",
      "{}", "\"\"", ",", ":", "=", "\n", "\r\n", "\r", "\t", " ", "\x1e", "\0"};
  return d;
}

class Mutator {
 public:
  Mutator(const std::vector<std::string>& seeds, std::uint64_t seed) : seeds_(seeds), rng_{seed} {}

  std::string next() {
    std::string s = seeds_.empty() ? std::string() : seeds_[rng_.below(seeds_.size())];
    const std::size_t n = 1 + rng_.below(6);
    for (std::size_t i = 0; i < n; ++i) mutate(s);
    if (s.size() > kMaxSize) s.resize(kMaxSize);
    return s;
  }

 private:
  static constexpr std::size_t kMaxSize = std::size_t{1} << 20;

  std::size_t pos(const std::string& s) { return rng_.below(s.size() + 1); }
  // A span of up to `most` bytes.
  std::pair<std::size_t, std::size_t> range(const std::string& s, std::size_t most = 64) {
    const std::size_t at = pos(s);
    return {at, std::min(s.size() - at, 1 + rng_.below(most))};
  }
  // The line around a position: [begin, end) with its '\n' (rfind's npos
  // + 1 is 0: the first line).
  std::pair<std::size_t, std::size_t> line_at(const std::string& s, std::size_t at) {
    const std::size_t b = at == 0 ? 0 : s.rfind('\n', at - 1) + 1;
    const std::size_t nl = s.find('\n', at);
    return {b, nl == std::string::npos ? s.size() : nl + 1};
  }

  void mutate(std::string& s) {
    static const char kInteresting[] = {'\0', '\n', '\r', ' ', '{', '}', '[', ']', '"', ',', ':', '-', '.',
                                        '0',  '9',  'e',  'x', '%', '>', '\\', '\x7f', '\x80', '\xff'};
    switch (rng_.below(14)) {
      case 0:
        if (!s.empty()) s[rng_.below(s.size())] ^= static_cast<char>(1u << rng_.below(8));
        break;
      case 1:
        if (!s.empty()) s[rng_.below(s.size())] = static_cast<char>(rng_.next());
        break;
      case 2:
        if (!s.empty()) s[rng_.below(s.size())] = kInteresting[rng_.below(sizeof kInteresting)];
        break;
      case 3: {
        const auto [at, n] = range(s);
        s.erase(at, n);
        break;
      }
      case 4: {
        const auto [at, n] = range(s, 256);
        const std::string piece = s.substr(at, n);
        s.insert(pos(s), piece);
        break;
      }
      case 5: {
        const auto& d = dictionary();
        s.insert(pos(s), d[rng_.below(d.size())]);
        break;
      }
      case 6:
        if (!seeds_.empty()) {
          const std::string& other = seeds_[rng_.below(seeds_.size())];
          const auto [at, n] = range(other, 512);
          s.insert(pos(s), other.substr(at, n));
        }
        break;
      case 7: {
        // Nesting at and beyond the readers' limit, and far beyond.
        static const std::size_t depths[] = {99, 100, 101, 1000, 100000};
        const std::size_t k = depths[rng_.below(std::size(depths))];
        const bool object = rng_.below(2);
        std::string open, close;
        for (std::size_t i = 0; i < k; ++i) open += object ? "{\"a\":" : "[";
        if (rng_.below(2))
          for (std::size_t i = 0; i < k; ++i) close += object ? "}" : "]";
        const std::size_t at = pos(s);
        s.insert(at, open + (object ? "1" : "") + close);
        break;
      }
      case 8: {
        const auto [b, e] = line_at(s, pos(s));
        s.insert(e, s.substr(b, e - b));
        break;
      }
      case 9: {
        const auto [b, e] = line_at(s, pos(s));
        s.erase(b, e - b);
        break;
      }
      case 10: {
        const auto [b1, e1] = line_at(s, pos(s));
        const std::string first = s.substr(b1, e1 - b1);
        s.erase(b1, e1 - b1);
        s.insert(line_at(s, pos(s)).first, first);
        break;
      }
      case 11:
        s.resize(pos(s));
        break;
      case 12: {
        // A number replaced by one at a limit.
        static const char* numbers[] = {"0", "-1", "1e309", "nan", "18446744073709551616", "9223372036854775808",
                                        "4294967295", "0.0000001", "-0", "1e-400", "99999999999999999999999"};
        const std::size_t from = pos(s);
        const std::size_t at = s.find_first_of("0123456789", from);
        if (at == std::string::npos) break;
        std::size_t end = s.find_first_not_of("0123456789.eE+-", at);
        if (end == std::string::npos) end = s.size();
        s.replace(at, end - at, numbers[rng_.below(std::size(numbers))]);
        break;
      }
      default: {
        const std::size_t n = 1 + rng_.below(16);
        std::string bytes;
        for (std::size_t i = 0; i < n; ++i) bytes += static_cast<char>(rng_.next());
        s.insert(pos(s), bytes);
      }
    }
  }

  const std::vector<std::string>& seeds_;
  Rng rng_;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

void run_one(const FuzzTarget& t, const std::string& data, unsigned timeout_s) {
  g_data = data.data();
  g_size = data.size();
  ::alarm(timeout_s);
  kvmbench::fuzz::run_fuzz_input(t, data);
  ::alarm(0);
}

int usage() {
  std::fprintf(stderr,
               "usage: kvmbench_fuzz TARGET [--runs=N] [--max-seconds=S] [--seed=N] [--timeout=S] "
               "[--artifacts=DIR] [FILE...]\n       kvmbench_fuzz --list | --seeds TARGET\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace kvmbench::fuzz;
  if (argc < 2) return usage();
  const std::string first = argv[1];
  if (first == "--list") {
    for (const auto& t : fuzz_targets()) std::printf("%s\n", t.name.c_str());
    return 0;
  }
  if (first == "--seeds") {
    const FuzzTarget* t = argc > 2 ? find_fuzz_target(argv[2]) : nullptr;
    if (!t) return usage();
    for (const auto& f : seed_files(*t)) std::printf("%s\n", f.c_str());
    return 0;
  }
  const FuzzTarget* target = find_fuzz_target(first);
  if (!target) {
    std::fprintf(stderr, "kvmbench_fuzz: no target '%s' (--list names them)\n", first.c_str());
    return 2;
  }
  std::uint64_t runs = 100000, seed = 1;
  double max_seconds = 0;
  unsigned timeout_s = 10;
  std::string artifacts = ".";
  std::vector<std::string> files;
  for (int i = 2; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&](const char* name) -> const char* {
      return a.rfind(name, 0) == 0 ? a.c_str() + std::strlen(name) : nullptr;
    };
    if (const char* v = value("--runs=")) runs = std::strtoull(v, nullptr, 10);
    else if (const char* v = value("--max-seconds=")) max_seconds = std::strtod(v, nullptr);
    else if (const char* v = value("--seed=")) seed = std::strtoull(v, nullptr, 10);
    else if (const char* v = value("--timeout=")) timeout_s = static_cast<unsigned>(std::strtoul(v, nullptr, 10));
    else if (const char* v = value("--artifacts=")) artifacts = v;
    else if (a.rfind("--", 0) == 0) return usage();
    else files.push_back(a);
  }
  std::snprintf(g_crash_path, sizeof g_crash_path, "%s/crash-%s-%d", artifacts.c_str(), target->name.c_str(),
                static_cast<int>(::getpid()));
  std::snprintf(g_timeout_path, sizeof g_timeout_path, "%s/timeout-%s-%d", artifacts.c_str(), target->name.c_str(),
                static_cast<int>(::getpid()));
  // What the readers print goes nowhere; the driver speaks on a copy of
  // stderr.
  g_report_fd = ::dup(2);
  set_report_fd(g_report_fd);
  const int null_fd = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  std::fflush(stdout);
  std::fflush(stderr);
  ::dup2(null_fd, 1);
  ::dup2(null_fd, 2);
  install_handlers();

  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(); };
  std::ostringstream summary;
  if (!files.empty()) {
    for (const auto& f : files) run_one(*target, slurp(f), timeout_s);
    summary << "kvmbench fuzz " << target->name << ": " << files.size() << " given inputs in " << elapsed()
            << " s: no crash, hang or exit 70\n";
    const std::string text = summary.str();
    write_all(g_report_fd, text.data(), text.size());
    return 0;
  }
  std::vector<std::string> seeds;
  for (const auto& f : seed_files(*target)) seeds.push_back(slurp(f));
  for (const auto& s : seeds) run_one(*target, s, timeout_s);
  Mutator mutator(seeds, seed);
  std::uint64_t done = 0;
  while (done < runs) {
    run_one(*target, mutator.next(), timeout_s);
    ++done;
    if (max_seconds > 0 && done % 16 == 0 && elapsed() > max_seconds) break;
  }
  summary << "kvmbench fuzz " << target->name << ": " << seeds.size() << " seeds and " << done
          << " mutated inputs (--seed=" << seed << ") in " << elapsed() << " s: no crash, hang or exit 70\n";
  const std::string text = summary.str();
  write_all(g_report_fd, text.data(), text.size());
  return 0;
}
