// The systemd units that resume a `kvmbench ab` experiment after each kexec
// boot, read by systemd's own parser: `systemd-analyze verify` (syntax, the
// ExecStart binary, ordering cycles in multi-user.target) and
// `systemd-analyze condition --unit` (whether the unit would run at boot),
// both without systemd as PID 1. The package's unit is the file the package
// installs (scripts/kvmbench-ab.service), with the drop-in `ab` writes over
// it; paths with a space, '%' and '$' stand for what users give.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "hostlib/state/kexec.h"
#include "tests/support/run_command.h"

namespace fs = std::filesystem;
using kvmbench::test_support::run_command;
using kvmbench::test_support::TempDir;
using kvmbench::test_support::write_text;

namespace {

const char* kAnalyze = "/usr/bin/systemd-analyze";

struct UnitTree {
  TempDir tmp;
  fs::path units = tmp.path / "units";
  fs::path self = tmp.path / "opt kvm%bench$X" / "kvmbench";  // a real executable
  fs::path state = tmp.path / "ab state$Y" / "exp 1";

  UnitTree() {
    fs::create_directories(units);
    fs::create_directories(self.parent_path());
    fs::create_directories(state);
    fs::copy_file("/bin/true", self);
  }
  // SYSTEMD_UNIT_PATH: ours first, then the system's (the trailing ':').
  kvmbench::test_support::CommandResult analyze(std::vector<std::string> args) const {
    args.insert(args.begin(), kAnalyze);
    return run_command(args, 60, "", {"SYSTEMD_UNIT_PATH=" + units.string() + ":", "SYSTEMD_LOG_COLOR=0"});
  }
  void enable() const {
    fs::create_directories(units / "multi-user.target.wants");
    fs::create_symlink("../kvmbench-ab.service", units / "multi-user.target.wants" / "kvmbench-ab.service");
  }
};

bool have_systemd_analyze() { return ::access(kAnalyze, X_OK) == 0; }

}  // namespace

TEST(AbResumeUnit, ThePackagesUnitWithTheDropInRunsWhenTheExperimentsStateExists) {
  if (!have_systemd_analyze()) GTEST_SKIP() << kAnalyze << " is missing (Debian's systemd package)";
  UnitTree t;
  fs::copy_file(fs::path(KVMBENCH_SOURCE_DIR) / "scripts" / "kvmbench-ab.service", t.units / "kvmbench-ab.service");
  fs::create_directories(t.units / "kvmbench-ab.service.d");
  write_text(t.units / "kvmbench-ab.service.d" / "kvmbench-ab.conf", kvmbench::host::resume_drop_in(t.self, t.state));
  t.enable();

  // No experiment in the state directory: the unit does nothing at boot.
  auto before = t.analyze({"condition", "--unit", "kvmbench-ab.service"});
  EXPECT_NE(before.exit_code, 0) << before.out << before.err;
  EXPECT_NE((before.out + before.err).find((t.state / "state.json").string()), std::string::npos)
      << before.out << before.err;
  // An experiment there (not in the package's /var/lib/kvmbench/ab): it runs.
  write_text(t.state / "state.json", "{}");
  auto after = t.analyze({"condition", "--unit", "kvmbench-ab.service"});
  EXPECT_EQ(after.exit_code, 0) << after.out << after.err;

  // The drop-in's ExecStart names an executable (the quoted path with its
  // space and '%'), and multi-user.target starts the unit without a cycle.
  auto verify = t.analyze({"verify", "kvmbench-ab.service", "multi-user.target"});
  const std::string said = verify.out + verify.err;
  EXPECT_EQ(said.find("kvmbench-ab"), std::string::npos) << said;
  EXPECT_EQ(said.find("ordering cycle"), std::string::npos) << said;
}

TEST(AbResumeUnit, TheUnitWrittenWhereNoPackageInstalledOneVerifiesAndRunsOnlyForAnExperiment) {
  if (!have_systemd_analyze()) GTEST_SKIP() << kAnalyze << " is missing (Debian's systemd package)";
  UnitTree t;
  write_text(t.units / "kvmbench-ab.service", kvmbench::host::resume_unit(t.self, t.state));
  t.enable();
  auto verify = t.analyze({"verify", "kvmbench-ab.service", "multi-user.target"});
  const std::string said = verify.out + verify.err;
  EXPECT_EQ(said.find("kvmbench-ab"), std::string::npos) << said;
  EXPECT_EQ(said.find("ordering cycle"), std::string::npos) << said;
  EXPECT_NE(t.analyze({"condition", "--unit", "kvmbench-ab.service"}).exit_code, 0);
  write_text(t.state / "state.json", "{}");
  auto after = t.analyze({"condition", "--unit", "kvmbench-ab.service"});
  EXPECT_EQ(after.exit_code, 0) << after.out << after.err;
}

TEST(AbResumeUnit, CommandLineWordsAreQuotedAndEscapedAsSystemdReadsThem) {
  // systemd.service: in an argument "$$" is a literal '$' (else a
  // variable; the executable's path is taken as it is, which verify above
  // checks), "%%" a '%' (else a specifier), and inside double quotes '\\'
  // and '"' are escaped.
  const std::string unit = kvmbench::host::resume_unit("/opt/k$HOME%n/kvmbench", "/srv/a\"b\\c$d");
  EXPECT_NE(unit.find("ExecStart=\"/opt/k$HOME%%n/kvmbench\" ab --resume --state \"/srv/a\\\"b\\\\c$$d\"\n"),
            std::string::npos)
      << unit;
  EXPECT_NE(unit.find("ConditionPathExists=/srv/a\"b\\c$d/state.json\n"), std::string::npos) << unit;
}

TEST(AbResumeUnit, AnExecStartOfAMissingBinaryIsWhatVerifyCatches) {
  // The check above can fail: a unit whose ExecStart names no executable is
  // reported by name.
  if (!have_systemd_analyze()) GTEST_SKIP() << kAnalyze << " is missing (Debian's systemd package)";
  UnitTree t;
  write_text(t.units / "kvmbench-ab.service", kvmbench::host::resume_unit(t.tmp.path / "no such" / "kvmbench", t.state));
  auto verify = t.analyze({"verify", "kvmbench-ab.service"});
  EXPECT_NE((verify.out + verify.err).find("no such"), std::string::npos) << verify.out << verify.err;
}
