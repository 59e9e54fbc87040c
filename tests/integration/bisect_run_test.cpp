// kvmbench bisect-run under a real `git bisect run`, on a fake history: a
// repository of 16 commits whose file `level` is the fault-in rate a
// measurement of that commit sees (a shell script stands for building and
// measuring: 5 repetitions, 1 % noise, 0.5 % between runs). With a 6 % drop
// at commit 9 the bisection must name commit 9; with the same level
// everywhere it must end in skips, never naming a culprit.
#include <gtest/gtest.h>

#include <fstream>

#include "tests/support/run_command.h"

using kvmbench::test_support::run_command;
using kvmbench::test_support::run_kvmbench;
using kvmbench::test_support::TempDir;
namespace fs = std::filesystem;

namespace {

// What a lab's "build, boot, kvmbench run" does, in miniature: one run
// directory under $KVMBENCH_BISECT_OUT at the level of ./level. The noise
// is seeded by $SEED, else by the commit, so a rerun is the same run.
const char* kMeasure = R"sh(#!/bin/sh
set -e
level=$(cat level)
seed=${SEED:-$(git rev-parse HEAD | cut -c1-6)}
dir="$KVMBENCH_BISECT_OUT/directmap-20260101T000000Z-s$seed"
mkdir -p "$dir"
awk -v level="$level" -v seed="$((0x$seed))" '
  function gauss() { return sqrt(-2 * log(1 - rand())) * cos(6.283185307179586 * rand()) }
  BEGIN {
    srand(seed); run = 1 + 0.005 * gauss()
    for (i = 0; i < 5; i++)
      printf "{\"case\":\"thp\",\"variant\":\"\",\"metric\":\"faultin_rate\",\"unit\":\"GB/s\",\"value\":%.9f,\"iteration\":%d,\"warmup\":false}\n", level * run * (1 + 0.01 * gauss()), i
  }' > "$dir/samples.jsonl"
printf '{"suite":"directmap","preset":"host","source":"hardware","status":"complete","n_samples":5}\n' > "$dir/meta.json"
)sh";

struct FakeHistory {
  TempDir t;
  fs::path repo, measure;
  std::vector<std::string> commits;
  std::string good_refs, bad_refs;

  std::string git(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {"/usr/bin/git", "-C", repo.string(), "-c", "user.name=kvmbench test", "-c",
                                     "user.email=test@kvmbench.invalid"};
    argv.insert(argv.end(), args.begin(), args.end());
    // Fixed dates: the same commits, hence the same noise, on every run.
    auto r = run_command(argv, 60, "", {"GIT_AUTHOR_DATE=2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2026-01-01T00:00:00Z"});
    if (r.exit_code != 0) throw std::runtime_error("git " + args.at(0) + ": " + r.out + r.err);
    return r.out;
  }

  // Commits 0..15 with level 100, or `after` from commit `step` on.
  FakeHistory(int step, double after) {
    repo = t.path / "repo";
    fs::create_directories(repo);
    measure = t.path / "measure.sh";
    std::ofstream(measure) << kMeasure;
    fs::permissions(measure, fs::perms::owner_all);
    git({"init", "-q", "-b", "main"});
    for (int c = 0; c < 16; ++c) {
      std::ofstream(repo / "level") << (c >= step ? after : 100.0) << "\n";
      git({"add", "level"});
      git({"commit", "-q", "--allow-empty", "-m", "commit " + std::to_string(c)});  // most change nothing
      commits.push_back(git({"rev-parse", "HEAD"}).substr(0, 40));
    }
    // Ten runs of each end as the references (df 9 for their spread).
    good_refs = references(commits.front(), "good");
    bad_refs = references(commits.back(), "bad");
    git({"checkout", "-q", "main"});
  }

  std::string references(const std::string& commit, const std::string& name) {
    git({"checkout", "-q", commit});
    const fs::path out = t.path / name;
    fs::create_directories(out);
    std::string list;
    for (int i = 1; i <= 10; ++i) {
      auto r = run_command({"/bin/sh", "-c", "cd " + repo.string() + " && " + measure.string()}, 60, "",
                           {"KVMBENCH_BISECT_OUT=" + out.string(), "SEED=" + std::to_string(100 * i + name.size())});
      if (r.exit_code != 0) throw std::runtime_error("measure.sh: " + r.err);
    }
    for (auto& d : fs::directory_iterator(out)) list += (list.empty() ? "" : ",") + d.path().string();
    return list;
  }

  kvmbench::test_support::CommandResult bisect() {
    git({"bisect", "start", commits.back(), commits.front()});
    return run_command({"/usr/bin/git", "-C", repo.string(), "bisect", "run", KVMBENCH_BINARY, "bisect-run", "--good",
                        good_refs, "--bad", bad_refs, "--", measure.string()},
                       300);
  }
};

bool have_git() { return fs::exists("/usr/bin/git"); }

}  // namespace

TEST(BisectRun, FindsTheCommitOfAStep) {
  if (!have_git()) GTEST_SKIP() << "no /usr/bin/git (Debian's git package; scripts/bootstrap.sh installs it)";
  FakeHistory h(9, 94.0);
  const auto r = h.bisect();
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find(h.commits[9] + " is the first bad commit"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.out.find("bisect-run: bad: in all 1 metric(s) bisected"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("bisect-run: good: in all 1 metric(s) bisected"), std::string::npos) << r.out;
}

TEST(BisectRun, NoiseAloneEndsInSkipsNeverACulprit) {
  if (!have_git()) GTEST_SKIP() << "no /usr/bin/git (Debian's git package; scripts/bootstrap.sh installs it)";
  FakeHistory h(99, 100.0);  // no step
  const auto r = h.bisect();
  EXPECT_EQ(r.out.find("is the first bad commit"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("only 'skip'ped commits left to test"), std::string::npos) << r.out << r.err;
  EXPECT_NE(r.out.find("nothing to bisect, so no commit is called bad"), std::string::npos) << r.out;
}

TEST(BisectRun, ItsOwnErrorsStopTheBisectionNotMarkACommitBad) {
  TempDir t;
  // A typo'd option and a missing reference: 128 (git bisect run aborts),
  // not 2 (which git would read as "bad").
  auto r = run_kvmbench({"bisect-run", "--godo", "x", "--", "/bin/true"});
  EXPECT_EQ(r.exit_code, 128) << r.err;
  // Checked before the measurement: no commit is built and measured for a
  // reference that cannot be read.
  const fs::path measured = t.path / "measured";
  r = run_kvmbench({"bisect-run", "--good", (t.path / "none").string(), "--bad", (t.path / "none").string(), "--",
                    "/bin/sh", "-c", "touch " + measured.string()});
  EXPECT_EQ(r.exit_code, 128) << r.err;
  EXPECT_NE(r.err.find("--good"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(measured)) << "measured before its references were read";
  // A reference that reads: one run of one sample.
  const fs::path ref = t.path / "directmap-20260101T000000Z-ref";
  fs::create_directories(ref);
  std::ofstream(ref / "samples.jsonl") << "{\"case\":\"thp\",\"variant\":\"\",\"metric\":\"faultin_rate\",\"unit\":"
                                          "\"GB/s\",\"value\":1.5,\"iteration\":0,\"warmup\":false}\n";
  std::ofstream(ref / "meta.json")
      << "{\"suite\":\"directmap\",\"preset\":\"host\",\"source\":\"hardware\",\"status\":\"complete\",\"n_samples\":1}\n";
  // The measurement failing (a commit that does not build): skip.
  r = run_kvmbench({"bisect-run", "--good", ref.string(), "--bad", ref.string(), "--", "/bin/false"});
  EXPECT_EQ(r.exit_code, 125) << r.err;
  EXPECT_NE(r.err.find("could not be measured"), std::string::npos) << r.err;
  // Its kvmbench run found the run lock held (75): nothing is known of
  // this commit, and a skip would drop it unseen; stop instead.
  r = run_kvmbench({"bisect-run", "--good", ref.string(), "--bad", ref.string(), "--", "/bin/sh", "-c", "exit 75"});
  EXPECT_EQ(r.exit_code, 128) << r.err;
  EXPECT_NE(r.err.find("held the run lock"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--wait-lock"), std::string::npos) << r.err;
}
