// A mistyped suite, preset, parameter or command is a usage error (exit 2)
// that offers the closest valid name, through the real binary; a name
// close to nothing gets no guess. Nothing runs, so nothing is written.
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/support/run_command.h"

using kvmbench::test_support::private_state_dir_env;
using kvmbench::test_support::run_kvmbench;
using kvmbench::test_support::TempDir;
namespace fs = std::filesystem;

namespace {

struct Case {
  std::vector<std::string> args;
  std::string message;  // what stderr must say, whole
};

void expect_usage_error_saying(const std::vector<Case>& cases) {
  TempDir tmp;
  for (const auto& c : cases) {
    std::vector<std::string> args = c.args;
    if (args.front() == "run") args.insert(args.end(), {"--out", (tmp.path / "out").string()});
    auto r = run_kvmbench(args, 60, "", {private_state_dir_env()});
    EXPECT_EQ(r.exit_code, 2) << c.args.at(1) << ": " << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << "expected: " << c.message << "\ngot: " << r.err;
  }
  EXPECT_TRUE(fs::is_empty(tmp.path));
}

}  // namespace

TEST(DidYouMeanCli, UnknownSuiteOffersTheClosest) {
  expect_usage_error_saying({
      {{"run", "directmapp"},
       "kvmbench: unknown suite 'directmapp'; did you mean 'directmap'? (known: rmpopt, directmap, make_shared, "
       "asid, all)\n"},
      // A dry run checks names the same way.
      {{"run", "make-shared", "--dry-run"}, "unknown suite 'make-shared'; did you mean 'make_shared'?"},
      // Cut short.
      {{"run", "rmp"}, "unknown suite 'rmp'; did you mean 'rmpopt'?"},
      // Close to nothing: no guess, the list only.
      {{"run", "nosuch"}, "kvmbench: unknown suite 'nosuch' (known: rmpopt, directmap, make_shared, asid, all)\n"},
      // The other commands that take a suite name.
      {{"history", "dierctmap"}, "unknown suite 'dierctmap'; did you mean 'directmap'?"},
      {{"reproduce", "asdi"}, "unknown suite 'asdi'; did you mean 'asid'?"},
  });
}

TEST(DidYouMeanCli, UnknownPresetOffersTheClosest) {
  expect_usage_error_saying({
      {{"run", "directmap", "--preset", "hots"}, "kvmbench: no chosen suite has a preset 'hots'; did you mean 'host'? (presets: "},
      {{"run", "asid", "--preset", "smoek", "--dry-run"}, "no chosen suite has a preset 'smoek'; did you mean 'smoke'?"},
      {{"run", "directmap", "--preset", "zzz"}, "kvmbench: no chosen suite has a preset 'zzz' (presets: "},
  });
}

TEST(DidYouMeanCli, UnknownParameterOffersTheClosest) {
  expect_usage_error_saying({
      {{"run", "directmap", "--preset", "host", "--set", "byte=64M"},
       "kvmbench: 'byte' is not a parameter of the chosen preset(s); did you mean 'bytes'? (`kvmbench list "
       "--params` shows them all)\n"},
      {{"run", "directmap", "--preset", "host", "--set", "byte=64M", "--dry-run"},
       "'byte' is not a parameter of the chosen preset(s); did you mean 'bytes'?"},
      // Spelled right, but a parameter of other presets: those are named.
      {{"run", "directmap", "--preset", "host", "--set", "guest-mem=1G"},
       "'guest-mem' is not a parameter of the chosen preset(s); it is a parameter of presets document, lab, smoke"},
      {{"run", "directmap", "--preset", "host", "--set", "nosuchkey=1"},
       "kvmbench: 'nosuchkey' is not a parameter of the chosen preset(s) (`kvmbench list --params` shows them "
       "all)\n"},
  });
}

TEST(DidYouMeanCli, UnknownCommandOffersTheClosest) {
  expect_usage_error_saying({
      {{"rnu", "directmap"}, "kvmbench: unknown command 'rnu'; did you mean 'run'? (`kvmbench help` lists them)\n"},
      {{"comapre", "a", "b"}, "kvmbench: unknown command 'comapre'; did you mean 'compare'?"},
      // A command's own commands, offered as typed.
      {{"db", "imprt", "runs"},
       "kvmbench: unknown command 'db imprt'; did you mean 'db import'? (`kvmbench help db` lists them)\n"},
      {{"help", "gaet"}, "help: `kvmbench` has no command 'gaet'; did you mean 'gate'? (`kvmbench help` lists them)"},
      {{"frobnicate"}, "kvmbench: unknown command 'frobnicate' (`kvmbench help` lists them)\n"},
  });
  // Hidden commands are not offered, yet still run when typed in full.
  auto r = run_kvmbench({"test-hold-knbo"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err.find("test-hold-knob"), std::string::npos) << r.err;
}

// A mistyped option: CLI11's message, then the option it was likely meant
// to be, of the command typed (nested ones too); none when none is close.
TEST(DidYouMeanCli, UnknownOptionOffersTheClosestOfItsCommand) {
  expect_usage_error_saying({
      {{"compare", "--formt", "md", "a", "b"},
       "kvmbench: unknown option '--formt' of `kvmbench compare`; did you mean '--format'? (`kvmbench compare "
       "--help` lists them)\n"},
      {{"db", "import", "--dbb", "x", "runs"}, "unknown option '--dbb' of `kvmbench db import`; did you mean '--db'?"},
      {{"run", "directmap", "--repetition=3"}, "did you mean '--repetitions'?"},
  });
  auto r = run_kvmbench({"compare", "--frobnicate-everything", "a", "b"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err.find("did you mean"), std::string::npos) << r.err;
}
