// `kvmbench ab`'s pure parts: the order of the boots, the record kept in the
// state directory, the marker on each boot's command line, and the command
// line a kexec'd kernel gets.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <limits>
#include <set>

#include "analysis/model/json_input.h"
#include "analysis/store/run_store.h"
#include "analysis/verdicts/ab_experiment.h"
#include "hostlib/state/kexec.h"
#include "tests/unit/test_rng.h"

using namespace kvmbench;
using ab::Side;

namespace {

std::string letters(const std::vector<Side>& v) {
  std::string s;
  for (Side x : v) s += x == Side::base ? 'A' : 'B';
  return s;
}

}  // namespace

// ABBA blocks cut at 2n: each side as often first as last in a block.
TEST(AbExperiment, AbbaOrderCountsEachSideN) {
  EXPECT_EQ(letters(ab::invocation_order(2, "abba", 0)), "ABBA");
  EXPECT_EQ(letters(ab::invocation_order(3, "abba", 0)), "ABBAAB");
  EXPECT_EQ(letters(ab::invocation_order(5, "abba", 0)), "ABBAABBAAB");
  EXPECT_THROW(ab::invocation_order(1, "abba", 0), std::invalid_argument);
  EXPECT_THROW(ab::invocation_order(3, "aabb", 0), std::invalid_argument);
}

// Random: n of each, the same order for a seed (SplitMix64, not the
// standard library's shuffle), and not always the same order.
TEST(AbExperiment, RandomOrderIsASeededPermutation) {
  const auto a = ab::invocation_order(5, "random", 42);
  EXPECT_EQ(a, ab::invocation_order(5, "random", 42));
  EXPECT_EQ(std::count(a.begin(), a.end(), Side::base), 5);
  std::set<std::string> seen;
  for (std::uint64_t seed = 0; seed < 50; ++seed) seen.insert(letters(ab::invocation_order(3, "random", seed)));
  EXPECT_GT(seen.size(), 5u);  // of the C(6,3) = 20 orders
}

TEST(AbExperiment, StateRoundTripsAndRefusesWhatIsNotOne) {
  ab::Experiment e;
  e.id = "ab-20261203T090000Z-1a2b";
  e.command = {"run", "asid", "--preset", "lab"};
  e.base = {"running", "", "/boot/vmlinuz-6.1.0-57-cloud-amd64", "/boot/initrd.img-6.1.0-57-cloud-amd64",
            "6.1.0-57-cloud-amd64", "root=/dev/vda1 ro"};
  e.cand = e.base;
  e.cand.append = "kvm_amd.npt=0";
  for (Side s : ab::invocation_order(2, "abba", 0)) {
    ab::Step step;
    step.side = s;
    e.steps.push_back(step);
  }
  e.n = 2;
  e.steps[0].status = ab::StepStatus::done;
  e.steps[0].run_dir = "/r/step1-base/asid-x";
  e.steps[1].status = ab::StepStatus::no_boot;
  e.steps[1].note = "its kernel did not come back";
  e.kexec_step = 2;
  const ab::Experiment back = ab::experiment_from_json(to_json(e));
  EXPECT_EQ(back.id, e.id);
  EXPECT_EQ(back.cand.append, "kvm_amd.npt=0");
  EXPECT_EQ(back.steps[1].status, ab::StepStatus::no_boot);
  EXPECT_EQ(back.request_key(), e.request_key());
  EXPECT_EQ(back.next_step(), 2u);
  EXPECT_EQ(back.count(Side::base, ab::StepStatus::done), 1u);
  // Another request is another experiment.
  ab::Experiment other = e;
  other.cand.append = "";
  EXPECT_NE(other.request_key(), e.request_key());
  // Not a state file; a state file with a key of the wrong type.
  EXPECT_THROW(ab::experiment_from_json({{"id", "x"}}), std::invalid_argument);
  nlohmann::json bad = to_json(e);
  bad["steps"][0]["status"] = "finished";
  EXPECT_THROW(ab::experiment_from_json(bad), std::invalid_argument);
  bad = to_json(e);
  bad["n"] = 3;  // 4 steps for n = 3
  EXPECT_THROW(ab::experiment_from_json(bad), std::invalid_argument);
}

// -n auto: the budget, the time limit and every look are kept, NaN figures
// (too few units) as null, and read back to the byte; a fixed experiment's
// record has no "sequential" key at all.
TEST(AbExperiment, ASequentialStateKeepsItsLooks) {
  ab::Experiment e;
  e.id = "ab-20261207T090000Z-5eq0";
  e.command = {"run", "asid", "--preset", "lab"};
  e.base.spec = e.cand.spec = "running";
  e.n = 3;
  for (Side s : ab::invocation_order(3, "abba", 0)) {
    ab::Step step;
    step.side = s;
    e.steps.push_back(step);
  }
  EXPECT_FALSE(to_json(e).contains("sequential"));
  e.sequential = true;
  e.max_time_s = 3600;
  SequentialLook l;
  l.information = 2;
  SequentialMetric m;
  m.key = "mmap_churn ms";
  m.p_shown = 0.01;
  m.p_excluded = NAN;
  m.shown_boundary = 4e-5;
  l.metrics.push_back(m);
  e.looks.push_back(l);
  const nlohmann::json j = to_json(e);
  EXPECT_TRUE(j["sequential"]["looks"][0]["metrics"][0]["p_excluded"].is_null()) << j.dump(2);
  const ab::Experiment back = ab::experiment_from_json(j);
  EXPECT_TRUE(back.sequential);
  EXPECT_EQ(back.max_time_s, 3600);
  ASSERT_EQ(back.looks.size(), 1u);
  EXPECT_EQ(back.looks[0].metrics[0].key, "mmap_churn ms");
  EXPECT_TRUE(std::isnan(back.looks[0].metrics[0].p_excluded));
  EXPECT_EQ(to_json(back).dump(), j.dump());
  // -n auto is another request than -n 3.
  ab::Experiment fixed = e;
  fixed.sequential = false;
  fixed.looks.clear();
  EXPECT_NE(fixed.request_key(), e.request_key());
  // Looks that do not grow, or that follow one that ended the experiment.
  nlohmann::json bad = j;
  bad["sequential"]["looks"].push_back(bad["sequential"]["looks"][0]);
  EXPECT_THROW(ab::experiment_from_json(bad), std::invalid_argument);
  bad = j;
  bad["sequential"]["looks"][0]["verdict"] = "PASS";
  bad["sequential"]["looks"].push_back(j["sequential"]["looks"][0]);
  bad["sequential"]["looks"][1]["information"] = 3;
  EXPECT_THROW(ab::experiment_from_json(bad), std::invalid_argument);
  bad = j;
  bad["sequential"]["looks"][0]["information"] = 4;  // beyond the budget of 3
  EXPECT_THROW(ab::experiment_from_json(bad), std::invalid_argument);
  bad = j;
  bad["sequential"]["max_time_s"] = -1;
  EXPECT_THROW(ab::experiment_from_json(bad), std::invalid_argument);
}

TEST(AbExperiment, MarkerOnTheCommandLine) {
  ab::Experiment e;
  e.id = "ab-1";
  EXPECT_EQ(e.marker(3), "kvmbench.ab=ab-1:3");
  EXPECT_EQ(e.marker(-1), "kvmbench.ab=ab-1:base");
  EXPECT_EQ(ab::marked_step("console=ttyS0 kvmbench.ab=ab-1:3 quiet", "ab-1"), 3);
  EXPECT_EQ(ab::marked_step("console=ttyS0 kvmbench.ab=ab-1:base", "ab-1"), -1);
  EXPECT_FALSE(ab::marked_step("console=ttyS0 kvmbench.ab=ab-2:3", "ab-1"));  // another experiment's
  EXPECT_FALSE(ab::marked_step("console=ttyS0", "ab-1"));
  EXPECT_FALSE(ab::marked_step("kvmbench.ab=ab-1:x3", "ab-1"));
}

// As LKP's kexec builds it: the boot
// loader's words go, init's words stay after "--", an earlier marker is
// replaced.
TEST(AbExperiment, KexecCommandLine) {
  EXPECT_EQ(host::kexec_cmdline("BOOT_IMAGE=/vmlinuz-6.1 root=UUID=x ro initrd=/initrd.img quiet", "kvm_amd.npt=0",
                                "kvmbench.ab=ab-1:2"),
            "root=UUID=x ro quiet kvm_amd.npt=0 kvmbench.ab=ab-1:2");
  EXPECT_EQ(host::kexec_cmdline("root=/dev/sda1 kvmbench.ab=ab-1:1 -- single", "", "kvmbench.ab=ab-1:2"),
            "root=/dev/sda1 kvmbench.ab=ab-1:2 -- single");
  EXPECT_EQ(host::kexec_cmdline("console=ttyS0 panic=-1 quiet\n", "", ""), "console=ttyS0 panic=-1 quiet");
}

namespace {

// A consistent experiment of n boots a side, some steps ended, a kexec in
// flight to step 2.
ab::Experiment experiment_in_flight(int n) {
  ab::Experiment e;
  e.id = "ab-20261203T090000Z-1a2b";
  e.command = {"run", "directmap", "--preset", "host"};
  e.base.spec = e.cand.spec = "running";
  e.n = n;
  for (Side s : ab::invocation_order(n, "abba", 0)) {
    ab::Step step;
    step.side = s;
    e.steps.push_back(step);
  }
  e.steps[0].status = ab::StepStatus::done;
  e.steps[1].status = ab::StepStatus::done;
  e.steps[2].status = ab::StepStatus::booting;
  e.kexec_step = 2;
  e.kexec_from_boot_id = "0b5e7f4e-7a2c-4f3c-9d41-7a1c0c2b9e11";
  return e;
}

std::string refusal(const nlohmann::json& j) {
  try {
    ab::experiment_from_json(j);
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(read)";
}

}  // namespace

// A state the resume at boot would index out of range with, or that the
// driver could not have written, is refused naming the key (a damaged file
// crashed every boot: arrive() wrote steps[kexec_step]).
TEST(AbExperiment, AStateThatIsNotConsistentIsRefusedNamingTheKey) {
  const nlohmann::json good = to_json(experiment_in_flight(2));
  EXPECT_EQ(refusal(good), "(read)");
  struct Case {
    const char* what;
    std::function<void(nlohmann::json&)> change;
    std::string says;
  };
  const std::vector<Case> cases = {
      {"kexec to step 4 of 4", [](auto& j) { j["kexec_step"] = 4; }, "kexec_step: expected -2 (none), -1"},
      {"kexec to step -3", [](auto& j) { j["kexec_step"] = -3; }, "kexec_step:"},
      {"kexec in flight to no step", [](auto& j) { j["kexec_step"] = -2; }, "kexec_step: expected the step of"},
      {"no steps, n 0", [](auto& j) { j["n"] = 0, j["steps"] = nlohmann::json::array(); }, "n: expected an integer from 2"},
      {"n beyond the bound", [](auto& j) { j["n"] = 1u << 30; }, "n: expected an integer from 2 to 1000"},
      {"n beyond an int", [](auto& j) { j["n"] = 1ull << 40; }, "n: expected an integer"},
      {"n a fraction", [](auto& j) { j["n"] = 2.5; }, "n: expected an integer"},
      {"3 steps for n 2", [](auto& j) { j["steps"].erase(3); }, "steps: expected 4 steps (2n), got 3"},
      {"3 base steps of 4", [](auto& j) { j["steps"][1]["side"] = "base"; }, "steps: expected 2 boots of each side"},
      {"an unknown side", [](auto& j) { j["steps"][3]["side"] = "both"; }, "steps[3].side: expected \"base\" or"},
      {"an unknown status", [](auto& j) { j["steps"][2]["status"] = "finished"; }, "steps[2].status"},
      {"an id with '/'", [](auto& j) { j["id"] = "ab-1/../x"; }, "id: expected a word"},
      {"an empty id", [](auto& j) { j["id"] = ""; }, "id: expected a word"},
      {"no command", [](auto& j) { j["command"] = nlohmann::json::array(); }, "command: expected the command"},
      {"a negative seed", [](auto& j) { j["seed"] = -1; }, "seed: expected a non-negative integer"},
      {"alpha 1", [](auto& j) { j["alpha"] = 1.0; }, "alpha: expected a level between 0 and 1"},
      {"max regression null", [](auto& j) { j["max_regression_pct"] = nullptr; }, "max_regression_pct: expected"},
      {"a negative max regression", [](auto& j) { j["max_regression_pct"] = -1; }, "max_regression_pct: expected"},
      {"a boot timeout of 0", [](auto& j) { j["boot_timeout_s"] = 0; }, "boot_timeout_s: expected a finite"},
      {"an unknown order", [](auto& j) { j["order"] = "aabb"; }, "order: expected abba or random"},
      {"a verdict code of 70", [](auto& j) { j["result_code"] = 70; }, "result_code: expected -1"},
      {"done without a verdict", [](auto& j) { j["phase"] = "done"; }, "result_code: expected the verdict's code"},
      {"an exit code beyond an int", [](auto& j) { j["steps"][0]["exit_code"] = 1ull << 33; },
       "steps[0].exit_code: expected an integer"},
  };
  for (const auto& c : cases) {
    nlohmann::json j = good;
    c.change(j);
    const std::string said = refusal(j);
    EXPECT_NE(said.find(c.says), std::string::npos) << c.what << ": " << said;
    EXPECT_EQ(said.rfind("ab state: ", 0), 0u) << c.what << ": " << said;
  }
}

// The options an experiment is started with: what its state could not keep
// (JSON has no infinity or NaN; nlohmann writes null) or 2n could not count
// is refused, naming the option.
TEST(AbExperiment, SettingsTheStateCouldNotKeepAreRefusedNamingTheOption) {
  const auto refused = [](ab::Settings s) -> std::string {
    try {
      ab::check_settings(s);
    } catch (const std::invalid_argument& e) {
      return e.what();
    }
    return "(accepted)";
  };
  const ab::Settings good{3, "abba", 1, 0.05, 600, {"run", "directmap", "/srv/runs"}};
  EXPECT_EQ(refused(good), "(accepted)");
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  auto s = good;
  s.max_regression_pct = inf;
  EXPECT_EQ(refused(s), "--max-regression inf: a finite percentage >= 0");
  s.max_regression_pct = -1;
  EXPECT_EQ(refused(s), "--max-regression -1: a finite percentage >= 0");
  s = good;
  s.boot_timeout_s = nan;
  EXPECT_EQ(refused(s), "--boot-timeout nan: a finite number of seconds > 0");
  s.boot_timeout_s = -1;
  EXPECT_EQ(refused(s), "--boot-timeout -1: a finite number of seconds > 0");
  s.boot_timeout_s = inf;
  EXPECT_NE(refused(s).find("--boot-timeout inf"), std::string::npos);
  s = good;
  s.alpha = nan;
  EXPECT_NE(refused(s).find("--alpha nan"), std::string::npos);
  s = good;
  s.n = ab::kMaxBootsASide + 1;
  EXPECT_NE(refused(s).find("-n 1001: at least 2 invocations a side (a CI needs two boots), at most 1000"),
            std::string::npos);
  s.n = 1;
  EXPECT_NE(refused(s).find("-n 1: at least 2"), std::string::npos);
  s = good;
  s.sequential = true;
  s.n = 1;
  EXPECT_EQ(refused(s), "--max-boots 1: the most boots a side -n auto may make: at least 2, at most 1000");
  s.n = 6;
  s.max_time_s = nan;
  EXPECT_EQ(refused(s), "--max-time nan: a finite number of seconds >= 0");
  s.sequential = false;
  s.max_time_s = 60;
  EXPECT_EQ(refused(s), "--max-time 60: a budget of -n auto (a fixed -n runs all its boots)");
  s = good;
  s.texts.push_back("/srv/runs-\xff");
  EXPECT_NE(refused(s).find("'/srv/runs-\\xff' is not UTF-8 (byte 10)"), std::string::npos) << refused(s);
}

namespace {

// Text of every kind a state holds: empty, ASCII, quotes and backslashes,
// control characters, multi-byte UTF-8, and (now and then) a byte that is
// not UTF-8.
std::string random_text(kvmbench::testing::TestRng& rng) {
  static const std::vector<std::string> pieces = {"", "run", "--set", "bytes=64M", " ", "\"", "\\", "\n", "\t",
                                                   "\x01", "±", "µs", "日本", "/srv/runs", "'", "%", "@", "\x7f"};
  std::string s;
  for (std::uint64_t k = rng.below(5); k > 0; --k) s += pieces[rng.below(pieces.size())];
  if (rng.below(400) == 0) s.insert(rng.below(s.size() + 1), 1, static_cast<char>(0x80 + rng.below(0x80)));
  return s;
}

double random_number(kvmbench::testing::TestRng& rng) {
  switch (rng.below(12)) {
    case 0: return std::numeric_limits<double>::infinity();
    case 1: return std::numeric_limits<double>::quiet_NaN();
    case 2: return -1;
    case 3: return std::numeric_limits<double>::denorm_min();
    case 4: return 1e300;
    case 5: return 0;
    default: return static_cast<double>(rng.next()) / static_cast<double>(1ull << 31) * 7.3;
  }
}

// An experiment as the driver could hold one, now and then with a value
// that no state may hold.
ab::Experiment random_experiment(kvmbench::testing::TestRng& rng) {
  ab::Experiment e;
  e.id = rng.below(30) ? fmt::format("ab-20261203T{:06}Z-{:04x}", rng.below(240000), rng.below(65536))
                       : random_text(rng);
  for (std::uint64_t k = rng.below(30) ? 2 + rng.below(6) : 0; k > 0; --k) e.command.push_back(random_text(rng));
  for (ab::KernelChoice* k : {&e.base, &e.cand})
    *k = {random_text(rng), random_text(rng), random_text(rng), random_text(rng), random_text(rng), random_text(rng)};
  e.order = rng.below(2) ? "abba" : "random";
  if (rng.below(40) == 0) e.order = random_text(rng);
  e.seed = rng.next() << 31 ^ rng.next();
  static constexpr int kEdges[] = {-1, 0, 1, 2, ab::kMaxBootsASide, ab::kMaxBootsASide + 1,
                                   std::numeric_limits<int>::max()};
  e.n = rng.below(20) ? 2 + static_cast<int>(rng.below(12)) : kEdges[rng.below(std::size(kEdges))];
  e.max_regression_pct = rng.below(10) ? rng.below(1000) / 10.0 : random_number(rng);
  e.alpha = rng.below(10) ? 0.001 + rng.below(500) / 1000.0 : random_number(rng);
  e.boot_timeout_s = rng.below(10) ? 1 + rng.below(3600) : random_number(rng);
  e.out_dir = random_text(rng);
  e.junit = random_text(rng);
  e.markdown = random_text(rng);
  e.db = random_text(rng);
  const int n = e.n >= 2 && e.n <= ab::kMaxBootsASide ? e.n : 2;
  for (Side s : ab::invocation_order(n, e.order == "random" ? "random" : "abba", e.seed)) {
    ab::Step st;
    st.side = s;
    st.status = static_cast<ab::StepStatus>(rng.below(7));
    st.run_dir = random_text(rng);
    st.exit_code = static_cast<int>(rng.below(300)) - 1;
    st.note = random_text(rng);
    st.boot_id = random_text(rng);
    st.release = random_text(rng);
    st.started_at = random_text(rng);
    st.ended_at = random_text(rng);
    e.steps.push_back(st);
  }
  if (rng.below(20) == 0) e.steps.pop_back();
  e.phase = static_cast<ab::Phase>(rng.below(3));
  e.abort_requested = rng.below(2);
  e.kexec_step = static_cast<int>(rng.below(e.steps.size() + 2)) - 2;
  if (rng.below(20) == 0) e.kexec_step = static_cast<int>(e.steps.size());
  e.kexec_from_boot_id = e.kexec_step == -2 && rng.below(10) ? "" : random_text(rng);
  e.kexec_at = random_text(rng);
  static constexpr int kCodes[] = {0, 1, 3};
  e.result_code = e.phase == ab::Phase::running && rng.below(2) ? -1 : kCodes[rng.below(3)];
  if (rng.below(30) == 0) e.result_code = 70;
  e.verdict_line = random_text(rng);
  e.created_at = random_text(rng);
  return e;
}

}  // namespace

// A state ab wrote is always one it can read back, and the same: over
// random experiments, check_experiment accepts exactly those that the
// driver's write (to_json, dumped as save_state does) and read
// (experiment_from_json of the parsed text) take back to the byte.
TEST(AbExperiment, WhatCheckExperimentAcceptsRoundTripsAndNothingElseDoes) {
  kvmbench::testing::TestRng rng(46);
  int accepted = 0, refused = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    const ab::Experiment e = random_experiment(rng);
    bool valid = true;
    try {
      ab::check_experiment(e);
    } catch (const std::invalid_argument&) {
      valid = false;
    }
    std::string written, again;
    bool read_back = false;
    try {
      written = to_json(e).dump(2);
      const ab::Experiment back = ab::experiment_from_json(parse_json_input(written));
      again = to_json(back).dump(2);
      read_back = true;
    } catch (const std::exception&) {
    }
    ASSERT_EQ(valid, read_back) << "trial " << trial << ": " << (written.empty() ? "(not written)" : written);
    if (read_back) {
      EXPECT_EQ(again, written) << "trial " << trial;
    }
    (valid ? accepted : refused)++;
  }
  // Both kinds were tried, many times.
  EXPECT_GT(accepted, 300);
  EXPECT_GT(refused, 300) << accepted;
}

// The ab_state fuzz target's seeds (tests/data/ab/) are states as ab
// writes them: each reads back and is written again to the byte.
TEST(AbExperiment, SeedStatesAreWhatTheApiWrites) {
  int seen = 0;
  for (const auto& f : std::filesystem::directory_iterator(std::filesystem::path(KVMBENCH_TEST_DATA) / "ab")) {
    if (f.path().extension() != ".json") continue;
    const std::string text = read_file(f.path());
    EXPECT_EQ(to_json(ab::experiment_from_json(parse_json_input(text))).dump(2) + "\n", text) << f.path();
    ++seen;
  }
  EXPECT_GE(seen, 4);
}
