// The gate on real data (issue #15), run by hand, never by ctest: it runs
// the real `kvmbench run` and `kvmbench gate` on this host, and changes THP.
//
//  1. A/A: N consecutive invocations of
//       kvmbench run directmap --preset host --set backings=anon-4k,thp,memfd -r 5
//     and the same with threads=2 and bytes=16M; every ordered pair of one
//     configuration gated with --max-regression 1. Identical invocations:
//     every failure is a false one, and a rate of alpha must explain their
//     count (binomial upper tail >= 0.05). Then the same invocations as
//     several a side (the first half against the second, both ways: A,B,C
//     vs D,E,F), where the invocations are the units.
//  2. Detection: the first configuration under THP enabled=always and
//     never, alternated (a KnobSet: put back after, also on Ctrl-C or a crash);
//     every (always, never) pair gated: a real, large regression of the thp
//     backing, which the gate must fail every time, on a thp metric; and
//     the halves as several invocations a side.
//
//   build/bench/kvmbench_gate_real_data                  # N = 6 each
//   build/bench/kvmbench_gate_real_data --invocations 4 --thp-invocations 4
//   build/bench/kvmbench_gate_real_data --no-thp          # A/A only (no root needed)
// Exit 0 when the figures hold, 1 when one does not, 2 on a run that failed.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <filesystem>
#include <string>
#include <vector>

#include "hostlib/os/interrupt.h"
#include "hostlib/state/knobs.h"
#include "hostlib/os/child_process.h"

namespace fs = std::filesystem;
using kvmbench::host::run_program;

namespace {

struct Config {
  std::string name;
  std::vector<std::string> sets;
};

const std::vector<Config> kConfigs = {
    {"backings=anon-4k,thp,memfd", {"--set", "backings=anon-4k,thp,memfd"}},
    {"the same, threads=2, bytes=16M",
     {"--set", "backings=anon-4k,thp,memfd", "--set", "threads=2", "--set", "bytes=16M"}},
};

// A run that failed: thrown, so that the THP knob is put back on the way out.
struct Failed : std::runtime_error {
  using std::runtime_error::runtime_error;
};
[[noreturn]] void fail(const std::string& why) { throw Failed(why); }

// P(X >= k) for X ~ Binomial(n, p). Checked by hand: n=30, p=0.05, k=3:
// 1 - (0.95^30 + 30 x 0.05 x 0.95^29 + 435 x 0.05^2 x 0.95^28) = 0.188.
double binomial_upper_tail(int k, int n, double p) {
  double below = 0;
  for (int i = 0; i < k; ++i)
    below += std::exp(std::lgamma(n + 1.0) - std::lgamma(i + 1.0) - std::lgamma(n - i + 1.0) + i * std::log(p) +
                      (n - i) * std::log1p(-p));
  return std::max(0.0, 1 - below);
}

// One `kvmbench run` into its own directory under `root`; its run directory.
fs::path run_once(const fs::path& root, const Config& c, int repetitions) {
  std::error_code ec;
  fs::create_directories(root, ec);
  std::vector<std::string> before;
  for (auto& e : fs::directory_iterator(root)) before.push_back(e.path().string());
  std::vector<std::string> argv = {KVMBENCH_BINARY, "run", "directmap", "--preset", "host", "-r",
                                   std::to_string(repetitions), "--out", root.string()};
  argv.insert(argv.end(), c.sets.begin(), c.sets.end());
  auto r = run_program(argv, 900);
  if (!r.ok()) fail(fmt::format("kvmbench run failed: {}", r.failure()));
  for (auto& e : fs::directory_iterator(root))
    if (std::find(before.begin(), before.end(), e.path().string()) == before.end()) return e.path();
  fail("kvmbench run left no run directory under " + root.string());
}

// `kvmbench gate BASE CAND --max-regression PCT [more]`: its exit code and output.
kvmbench::host::ProgramRun gate(const std::string& base, const std::string& cand, double max_regression,
                                const std::vector<std::string>& more = {}) {
  std::vector<std::string> argv = {KVMBENCH_BINARY, "gate", base, cand, "--max-regression",
                                   fmt::format("{}", max_regression)};
  argv.insert(argv.end(), more.begin(), more.end());
  auto r = run_program(argv, 120);
  if (r.exit_code != 0 && r.exit_code != 1) fail(fmt::format("gate {} {}: {}", base, cand, r.failure()));
  return r;
}

std::string joined(const std::vector<fs::path>& runs, std::size_t from, std::size_t to) {
  std::string s;
  for (std::size_t i = from; i < to; ++i) s += (s.empty() ? "" : ",") + runs[i].string();
  return s;
}

struct Options {
  int invocations = 6, thp_invocations = 6, repetitions = 5;
  double alpha = 0.05, max_regression = 1;
  bool thp = true;
  fs::path out;
};

Options parse(int argc, char** argv) {
  Options o;
  o.out = fs::temp_directory_path() / fmt::format("kvmbench-gate-real-data-{}", ::getpid());
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) fail(a + " needs a value");
      return argv[++i];
    };
    if (a == "--invocations") o.invocations = std::stoi(value());
    else if (a == "--thp-invocations") o.thp_invocations = std::stoi(value());
    else if (a == "--repetitions") o.repetitions = std::stoi(value());
    else if (a == "--out") o.out = value();
    else if (a == "--no-thp") o.thp = false;
    else fail("unknown option " + a);
  }
  if (o.invocations < 2 || o.thp_invocations < 1 || o.repetitions < 3) fail("too few invocations or repetitions");
  return o;
}

}  // namespace

int run(int argc, char** argv) {
  const Options o = parse(argc, argv);
  kvmbench::host::install_interrupt_handlers();
  bool holds = true;
  fmt::print("gate on real data: kvmbench run directmap --preset host -r {}, gate --max-regression {} (alpha {})\n"
             "runs under {}\n\n",
             o.repetitions, o.max_regression, o.alpha, o.out.string());

  // 1. A/A.
  for (std::size_t k = 0; k < kConfigs.size(); ++k) {
    const Config& c = kConfigs[k];
    std::vector<fs::path> runs;
    for (int i = 0; i < o.invocations && !kvmbench::host::interrupted(); ++i) {
      fmt::print(stderr, "A/A {}: invocation {} of {}\n", c.name, i + 1, o.invocations);
      runs.push_back(run_once(o.out / fmt::format("aa{}", k), c, o.repetitions));
    }
    if (kvmbench::host::interrupted()) fail("interrupted");
    int pairs = 0, failures = 0;
    for (std::size_t i = 0; i < runs.size(); ++i)
      for (std::size_t j = 0; j < runs.size(); ++j) {
        if (i == j) continue;
        ++pairs;
        failures += gate(runs[i], runs[j], o.max_regression).exit_code == 1;
      }
    // A gate whose false-failure rate is alpha fails about alpha x pairs of
    // them, and more than that about half the time: the count says 'too
    // many' only when a rate of alpha makes it unlikely (binomial upper tail
    // below 0.05). The pairs share invocations, so the tail is a guide, not
    // an exact p-value.
    const double tail = binomial_upper_tail(failures, pairs, o.alpha);
    const bool ok = tail >= 0.05;
    holds = holds && ok;
    fmt::print("A/A, {}: {} invocations, {} ordered pairs, one invocation a side: {} false failures (alpha x "
               "pairs = {:.1f}; P(>= {}) at a rate of alpha: {:.2f}) {}\n",
               c.name, runs.size(), pairs, failures, o.alpha * pairs, failures, tail, ok ? "ok" : "TOO MANY");
    const std::size_t half = runs.size() / 2;
    if (half >= 2) {
      const std::string a = joined(runs, 0, half), b = joined(runs, half, 2 * half);
      const int ab = gate(a, b, o.max_regression).exit_code, ba = gate(b, a, o.max_regression).exit_code;
      fmt::print("  {} invocations a side (the halves, both ways): {} of 2 gates failed\n", half, (ab == 1) + (ba == 1));
    }
  }

  // 2. Detection: THP always, then never.
  if (o.thp) {
    std::vector<fs::path> always, never;
    {
      kvmbench::host::KnobSet knobs;
      try {
        // Alternated, so that a drift of the machine over the minutes this
        // takes falls on both settings alike (all of one, then all of the
        // other, showed memfd and anon-4k 'regressions' of 20-30 % that THP
        // cannot cause).
        for (int i = 0; i < o.thp_invocations && !kvmbench::host::interrupted(); ++i) {
          fmt::print(stderr, "THP always and never: invocation {} of {}\n", i + 1, o.thp_invocations);
          knobs.set_thp_enabled("always");
          always.push_back(run_once(o.out / "thp-always", kConfigs[0], o.repetitions));
          if (kvmbench::host::interrupted()) break;
          knobs.set_thp_enabled("never");
          never.push_back(run_once(o.out / "thp-never", kConfigs[0], o.repetitions));
        }
      } catch (const Failed&) {
        throw;
      } catch (const std::exception& e) {
        fail(std::string("cannot switch THP: ") + e.what());
      }
      for (auto& e : knobs.restore()) fmt::print(stderr, "gate_real_data: restoring THP: {}\n", e);
    }
    if (kvmbench::host::interrupted()) fail("interrupted (THP put back)");
    int pairs = 0, failed = 0, on_thp = 0;
    for (auto& a : always)
      for (auto& n : never) {
        ++pairs;
        failed += gate(a, n, o.max_regression).exit_code == 1;
        on_thp += gate(a, n, o.max_regression, {"--metrics", "thp/*"}).exit_code == 1;
      }
    const bool ok = failed == pairs && on_thp == pairs;
    holds = holds && ok;
    fmt::print("Detection, THP enabled=always (base) against never (cand), {}: {} pairs, one invocation a side: "
               "the gate failed {}; gating the thp metrics only (--metrics 'thp/*') {} {}\n",
               kConfigs[0].name, pairs, failed, on_thp, ok ? "ok" : "MISSED");
    const std::size_t half = std::min(always.size(), never.size()) / 2;
    if (half >= 2) {
      int failed_halves = 0;
      for (std::size_t h = 0; h < 2; ++h)
        failed_halves += gate(joined(always, h * half, (h + 1) * half), joined(never, h * half, (h + 1) * half),
                              o.max_regression)
                             .exit_code == 1;
      fmt::print("  {} invocations a side (always and never in halves): {} of 2 gates failed\n", half, failed_halves);
    }
  }
  fmt::print("\n{}\n", holds ? "the figures hold" : "a figure does not hold");
  return holds ? 0 : 1;
}

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    fmt::print(stderr, "gate_real_data: {}\n", e.what());
    return 2;
  }
}
