// `kvmbench ab` through the real binary on this host, where no kernel is
// ever booted: every bad input is exit 2 before the first kexec, nothing
// changed; --status and --abort on an experiment's state. The experiment
// itself runs end to end in the emulated lab (lab_ab_test.cpp).
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <thread>
#include <ctime>

#include <sys/stat.h>

#include <nlohmann/json.hpp>

#include "analysis/verdicts/ab_experiment.h"
#include "hostlib/state/run_lock.h"
#include "tests/support/run_command.h"

using kvmbench::test_support::private_state_dir_env;
using kvmbench::test_support::run_kvmbench;
using kvmbench::test_support::TempDir;
namespace fs = std::filesystem;

namespace {

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// A file with a bzImage's setup header, standing in for the running
// kernel's image (this host's may not be in /boot).
fs::path fake_bzimage(const fs::path& dir) {
  std::string bytes(0x400, '\0');
  bytes.replace(0x202, 4, "HdrS");
  std::ofstream(dir / "bzImage", std::ios::binary) << bytes;
  return dir / "bzImage";
}

// An experiment of two boots a side on the running kernel, none ended.
kvmbench::ab::Experiment two_boots_a_side(const std::vector<std::string>& command) {
  kvmbench::ab::Experiment e;
  e.id = "ab-20261203T100000Z-beef";
  e.command = command;
  e.base.spec = e.cand.spec = "running";
  e.n = 2;
  for (auto s : kvmbench::ab::invocation_order(2, "abba", 0)) {
    kvmbench::ab::Step step;
    step.side = s;
    e.steps.push_back(step);
  }
  return e;
}

}  // namespace

TEST(AbCli, BadInputIsRefusedBeforeAnyBoot) {
  TempDir tmp;
  const fs::path image = fake_bzimage(tmp.path);
  std::ofstream(tmp.path / "not-a-kernel") << "hello\n";
  std::ofstream(tmp.path / "broken.deb") << "not an ar archive\n";
  const std::vector<std::string> env = {private_state_dir_env(), "KVMBENCH_AB_RUNNING_IMAGE=" + image.string(),
                                        "KVMBENCH_AB_STATE=" + (tmp.path / "state").string()};
  const std::vector<std::string> cmd = {"--", "run", "rmpopt", "--preset", "host", "-r", "2"};
  struct Case {
    std::vector<std::string> args;
    std::string says;
  };
  const std::vector<Case> cases = {
      {{"-n", "1", "--cand", "running"}, "-n 1: at least 2"},
      {{"--cand", (tmp.path / "nonexistent").string()}, "no such file"},
      {{"--cand", (tmp.path / "not-a-kernel").string()}, "not a bzImage"},
      {{"--cand", (tmp.path / "broken.deb").string()}, "dpkg-deb -x failed"},
      {{"--cand", "0.0.0-no-such-release"}, "no /boot/vmlinuz-0.0.0-no-such-release"},
  };
  for (const auto& c : cases) {
    std::vector<std::string> args = {"ab"};
    args.insert(args.end(), c.args.begin(), c.args.end());
    args.insert(args.end(), cmd.begin(), cmd.end());
    auto r = run_kvmbench(args, 120, "", env);
    EXPECT_EQ(r.exit_code, 2) << c.says << "\n" << r.err;
    EXPECT_TRUE(has(r.err, c.says)) << r.err;
  }
  // Commands that store no run of one suite.
  for (const auto& [command, says] : std::vector<std::pair<std::vector<std::string>, std::string>>{
           {{"--", "probe"}, "must be a `run SUITE ...`"},
           {{"--", "run", "all"}, "not `run all`"},
           {{"--", "run", "rmpopt", "--out", "x"}, "may not have --out"},
           {{"--", "run", "nosuchsuite"}, "refused as a dry run"},
           {{}, "give the command to run on each boot"}}) {
    std::vector<std::string> args = {"ab", "--cand", "running"};
    args.insert(args.end(), command.begin(), command.end());
    auto r = run_kvmbench(args, 120, "", env);
    EXPECT_EQ(r.exit_code, 2) << says << "\n" << r.err;
    EXPECT_TRUE(has(r.err, says)) << r.err;
  }
  // Nothing was begun.
  EXPECT_FALSE(fs::exists(tmp.path / "state" / "state.json"));
  auto status = run_kvmbench({"ab", "--status"}, 60, "", env);
  EXPECT_EQ(status.exit_code, 2) << status.err;
  EXPECT_TRUE(has(status.err, "no experiment in")) << status.err;
}

// A state directory holds one experiment: another request is refused
// naming it, --status says where it stands, --abort marks it to stop.
TEST(AbCli, AStateDirectoryOfAnotherExperiment) {
  TempDir tmp;
  kvmbench::ab::Experiment e = two_boots_a_side({"run", "asid", "--preset", "lab"});
  e.cand.append = "kvm_amd.npt=0";
  e.steps[0].status = kvmbench::ab::StepStatus::done;
  e.steps[0].run_dir = "/runs/step1-base/asid-x";
  e.created_at = "2026-12-03T10:00:00Z";
  fs::create_directories(tmp.path / "state");
  std::ofstream(tmp.path / "state" / "state.json") << to_json(e).dump(2);
  const std::vector<std::string> env = {private_state_dir_env(), "KVMBENCH_AB_STATE=" + (tmp.path / "state").string()};

  auto other = run_kvmbench({"ab", "--cand", "running", "--", "run", "rmpopt", "--preset", "host"}, 60, "", env);
  EXPECT_EQ(other.exit_code, 2) << other.err;
  EXPECT_TRUE(has(other.err, "holds another experiment (ab-20261203T100000Z-beef")) << other.err;

  // A running experiment: 75, try again later (what a job engine polls).
  auto status = run_kvmbench({"ab", "--status"}, 60, "", env);
  ASSERT_EQ(status.exit_code, 75) << status.err;
  EXPECT_TRUE(has(status.out, "experiment ab-20261203T100000Z-beef (running)")) << status.out;
  EXPECT_TRUE(has(status.out, "cand: running + kvm_amd.npt=0")) << status.out;
  EXPECT_TRUE(has(status.out, "1. base done     /runs/step1-base/asid-x")) << status.out;

  auto abort = run_kvmbench({"ab", "--abort"}, 60, "", env);
  ASSERT_EQ(abort.exit_code, 0) << abort.err;
  auto after = run_kvmbench({"ab", "--status"}, 60, "", env);
  EXPECT_TRUE(has(after.out, "abort requested")) << after.out;

  // A decided one: the verdict's own code, the verdict printed.
  e.phase = kvmbench::ab::Phase::done;
  e.result_code = 1;
  e.verdict_line = "kvmbench ab: REGRESSION: mmap_churn bytes=4194304,rounds=8/npt=as-loaded/time_per_round";
  std::ofstream(tmp.path / "state" / "state.json", std::ios::trunc) << to_json(e).dump(2);
  auto done = run_kvmbench({"ab", "--status"}, 60, "", env);
  EXPECT_EQ(done.exit_code, 1) << done.err;
  EXPECT_TRUE(has(done.out, "kvmbench ab: REGRESSION: mmap_churn")) << done.out;

  // A malformed state file is bad input, named.
  std::ofstream(tmp.path / "state" / "state.json") << "{\"kvmbench_ab\": 1, \"id\": 5}";
  auto bad = run_kvmbench({"ab", "--status"}, 60, "", env);
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_TRUE(has(bad.err, "state.json")) << bad.err;
}

// The resume at boot reads whatever the state directory holds: a state
// whose kexec in flight names a step that does not exist (4 of 4 steps, or
// any step of none) crashed it (SIGSEGV) at every boot. It is bad input,
// named, exit 2, and the file is left as it was.
TEST(AbCli, ResumeRefusesAStateWhoseStepIsOutOfRange) {
  TempDir tmp;
  kvmbench::ab::Experiment e = two_boots_a_side({"run", "directmap", "--preset", "host"});
  e.kexec_from_boot_id = "a boot that is not this one";
  const std::vector<std::string> env = {private_state_dir_env(), "KVMBENCH_AB_STATE=" + (tmp.path / "state").string()};
  fs::create_directories(tmp.path / "state");
  struct Case {
    const char* what;
    std::function<void(nlohmann::json&)> change;
    std::string says;
  };
  for (const auto& c : std::vector<Case>{
           {"kexec_step 4 of 4 steps", [](auto& j) { j["kexec_step"] = 4; }, "kexec_step: expected -2 (none)"},
           {"n 0, no steps, a kexec in flight",
            [](auto& j) {
              j["n"] = 0;
              j["steps"] = nlohmann::json::array();
              j["kexec_step"] = 0;
            },
            "n: expected an integer from 2 to 1000"},
           {"an id with '/'", [](auto& j) { j["id"] = "../../etc/x"; }, "id: expected a word"}}) {
    nlohmann::json j = to_json(e);
    c.change(j);
    const std::string text = j.dump(2);
    kvmbench::test_support::write_text(tmp.path / "state" / "state.json", text);
    for (const char* how : {"--resume", "--status", "--abort"}) {
      auto r = run_kvmbench({"ab", how}, 60, "", env);
      EXPECT_EQ(r.exit_code, 2) << c.what << " " << how << " (signal " << r.signal << ")\n" << r.err;
      EXPECT_TRUE(has(r.err, "state.json: ab state: " + c.says)) << c.what << " " << how << "\n" << r.err;
    }
    EXPECT_EQ(kvmbench::test_support::read_text(tmp.path / "state" / "state.json"), text) << c.what;
  }
}

// Options a state could not keep (JSON holds no infinity or NaN, so it
// stored null and then --status, --resume and --abort all refused the file)
// and an -n whose 2n overflows are refused naming the option, before
// anything is written: no state directory, no state.
TEST(AbCli, OptionsTheStateCouldNotKeepAreRefusedBeforeAnythingIsWritten) {
  TempDir tmp;
  const fs::path image = fake_bzimage(tmp.path);
  const std::vector<std::string> env = {private_state_dir_env(), "KVMBENCH_AB_RUNNING_IMAGE=" + image.string(),
                                        "KVMBENCH_AB_STATE=" + (tmp.path / "state").string()};
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--max-regression", "inf"}, "--max-regression inf: a finite percentage >= 0"},
      {{"--max-regression", "1e400"}, "--max-regression inf: a finite percentage >= 0"},
      {{"--boot-timeout", "nan"}, "--boot-timeout nan: a finite number of seconds > 0"},
      {{"--boot-timeout", "-1"}, "--boot-timeout -1: a finite number of seconds > 0"},
      {{"-n", "1073741824"}, "-n 1073741824: at least 2 invocations a side (a CI needs two boots), at most 1000"},
      {{"-n", "1001"}, "at most 1000"},
      {{"--out", (tmp.path / "runs-\xff").string()}, "is not UTF-8"},
  };
  for (const auto& [opts, says] : cases) {
    std::vector<std::string> args = {"ab", "--cand", "running"};
    args.insert(args.end(), opts.begin(), opts.end());
    args.insert(args.end(), {"--", "run", "directmap", "--preset", "host"});
    auto r = run_kvmbench(args, 120, "", env);
    EXPECT_EQ(r.exit_code, 2) << says << "\n" << r.err;
    EXPECT_TRUE(has(r.err, says)) << r.err;
    EXPECT_FALSE(fs::exists(tmp.path / "state")) << says;
  }
}

namespace {

// A stub machine for ab's preflight and its jumps: /sys, /proc and /etc
// under a root of its own ($KVMBENCH_SYSFS_ROOT), a kexec on PATH that logs
// its arguments and refuses what the test says (files `refuse-load`,
// `refuse-exec` beside it), a systemctl that logs and succeeds. No kernel
// is ever loaded or booted.
struct StubMachine {
  TempDir tmp;
  fs::path root = tmp.path / "root", bin = tmp.path / "bin", log = tmp.path / "calls.log";
  fs::path state = tmp.path / "state", image;
  StubMachine() {
    using kvmbench::test_support::write_text;
    write_text(root / "sys/kernel/kexec_loaded", "0\n");
    write_text(root / "proc/sys/kernel/kexec_load_disabled", "0\n");
    write_text(root / "proc/cpuinfo", "processor\t: 0\nflags\t\t: fpu vme\nbugs\t\t: spectre_v1 spectre_v2\n\n");
    write_text(root / "proc/cmdline", "BOOT_IMAGE=/vmlinuz root=/dev/vda1 ro console=ttyS0\n");
    write_text(root / "proc/sys/kernel/random/boot_id", "11111111-2222-3333-4444-555555555555\n");
    write_text(bin / "kexec",
               "#!/bin/sh\necho \"kexec $*\" >> '" + log.string() + "'\n"
               "case \" $* \" in\n"
               "  *\" -l \"*) if [ -e '" + (tmp.path / "refuse-load").string() + "' ]; then\n"
               "    echo 'kexec_load failed: Operation not supported' >&2; exit 1; fi ;;\n"
               "  *\" -e \"*) if [ -e '" + (tmp.path / "refuse-exec").string() + "' ]; then\n"
               "    echo 'kexec_core: Starting new kernel failed: Operation not supported' >&2; exit 1; fi\n"
               "    if [ -e '" + (tmp.path / "hang-exec").string() + "' ]; then exec sleep 6; fi ;;\n"
               "esac\nexit 0\n");
    write_text(bin / "systemctl", "#!/bin/sh\necho \"systemctl $*\" >> '" + log.string() + "'\n"
               "[ \"$1\" = cat ] && exit 1\nexit 0\n");
    fs::permissions(bin / "kexec", fs::perms::owner_all, fs::perm_options::add);
    fs::permissions(bin / "systemctl", fs::perms::owner_all, fs::perm_options::add);
    image = fake_bzimage(tmp.path);
  }
  std::vector<std::string> env() const {
    return {private_state_dir_env(), "KVMBENCH_SYSFS_ROOT=" + root.string(),
            "PATH=" + bin.string() + ":/usr/sbin:/usr/bin:/sbin:/bin", "KVMBENCH_AB_STATE=" + state.string()};
  }
  // systemd as PID 1 of the stub machine: the resume unit goes under its /etc.
  void with_systemd() {
    fs::create_directories(root / "run/systemd/system");
    kvmbench::test_support::write_text(root / "proc/1/comm", "systemd\n");
  }
  // kexec -e does not return (a kernel that boots; here: a sleep).
  void hang_exec() { std::ofstream(tmp.path / "hang-exec") << ""; }
  fs::path unit() const { return root / "etc/systemd/system/kvmbench-ab.service"; }
  kvmbench::test_support::CommandResult ab(const std::vector<std::string>& more = {}) const {
    std::vector<std::string> args = {"ab", "--base", image.string(), "--cand", image.string(), "-n", "2"};
    args.insert(args.end(), more.begin(), more.end());
    args.insert(args.end(), {"--", "run", "directmap", "--preset", "host"});
    return run_kvmbench(args, 120, "", env());
  }
  std::string calls() const { return kvmbench::test_support::read_text(log); }
};

// A PE image (an EFI-stub bzImage) with a certificate table: signed.
fs::path fake_signed_bzimage(const fs::path& dir) {
  std::string b(0x400, '\0');
  auto put32 = [&](std::size_t at, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) b[at + i] = static_cast<char>((v >> (8 * i)) & 0xff);
  };
  b.replace(0, 2, "MZ");
  put32(0x3c, 0x80);
  b.replace(0x80, 4, std::string("PE\0\0", 4));
  const std::size_t opt = 0x80 + 24;
  b[opt] = 0x0b;  // PE32+ (0x20b)
  b[opt + 1] = 0x02;
  put32(opt + 108, 16);          // 16 data directories
  put32(opt + 112 + 32, 0x300);  // the certificate table's offset
  put32(opt + 112 + 36, 0x100);  // and size
  b.replace(0x202, 4, "HdrS");
  std::ofstream(dir / "signed-bzImage", std::ios::binary) << b;
  return dir / "signed-bzImage";
}

}  // namespace

// Everything that keeps kexec from booting the experiment is found before
// anything is written or arranged: exit 2 naming the cause and the way out,
// no state (so --status has no experiment to call running), no unit.
TEST(AbCli, PreflightRefusesBeforeAnythingIsWritten) {
  struct Case {
    const char* what;
    std::function<void(StubMachine&)> arrange;
    std::vector<std::string> says;
  };
  const std::vector<Case> cases = {
      {"no KEXEC_CORE", [](StubMachine& m) { fs::remove(m.root / "sys/kernel/kexec_loaded"); },
       {"CONFIG_KEXEC_CORE", "--boot-via reboot"}},
      {"kexec_load_disabled",
       [](StubMachine& m) { kvmbench::test_support::write_text(m.root / "proc/sys/kernel/kexec_load_disabled", "1\n"); },
       {"kexec_load_disabled is 1", "--boot-via reboot"}},
      {"the TDX partial-write erratum",
       [](StubMachine& m) {
         kvmbench::test_support::write_text(m.root / "proc/cpuinfo", "processor\t: 0\nbugs\t\t: spectre_v1 tdx_pw_mce\n");
       },
       {"tdx_pw_mce", "--boot-via reboot"}},
      {"TDX initialised",
       [](StubMachine& m) { kvmbench::test_support::write_text(m.root / "sys/module/kvm_intel/parameters/tdx", "Y\n"); },
       {"TDX is initialised", "--boot-via reboot"}},
      {"lockdown and an unsigned image",
       [](StubMachine& m) {
         kvmbench::test_support::write_text(m.root / "sys/kernel/security/lockdown", "none [integrity] confidentiality\n");
       },
       {"locked down ([integrity]", "is not signed", "--boot-via reboot"}},
      {"a refused trial load", [](StubMachine& m) { std::ofstream(m.tmp.path / "refuse-load") << ""; },
       {"kexec refuses to load the base kernel", "kexec_load failed: Operation not supported", "--boot-via reboot"}},
      {"root=UUID= and a bzImage without initrd",
       [](StubMachine& m) {
         kvmbench::test_support::write_text(m.root / "proc/cmdline", "BOOT_IMAGE=/vmlinuz root=UUID=5e1f-77 ro\n");
       },
       {"has no initrd (a bzImage gets none)", "root=UUID=5e1f-77", "--base-append root=PARTUUID="}},
  };
  for (const auto& c : cases) {
    StubMachine m;
    m.with_systemd();
    c.arrange(m);
    const auto r = m.ab();
    EXPECT_EQ(r.exit_code, 2) << c.what << "\n" << r.err;
    const std::string err = kvmbench::test_support::unwrapped(r.err);
    EXPECT_TRUE(has(err, "kexec cannot boot this experiment: ")) << c.what << "\n" << r.err;
    for (const auto& w : c.says) EXPECT_TRUE(has(err, w)) << c.what << ": " << w << "\n" << r.err;
    EXPECT_FALSE(fs::exists(m.state / "state.json")) << c.what;
    EXPECT_FALSE(fs::exists(m.unit())) << c.what;
    EXPECT_FALSE(has(m.calls(), "systemctl enable")) << c.what << "\n" << m.calls();
    EXPECT_FALSE(has(m.calls(), " -e")) << c.what << "\n" << m.calls();
    const auto status = run_kvmbench({"ab", "--status"}, 60, "", m.env());
    EXPECT_EQ(status.exit_code, 2) << c.what << "\n" << status.out << status.err;
    EXPECT_TRUE(has(status.err, "no experiment in")) << status.err;
  }
}

// Under lockdown a signed image is loaded with kexec_file_load (`kexec
// -s`), and unloaded again the same way; an unlocked machine loads with
// kexec_load as before.
TEST(AbCli, PreflightLoadsASignedImageWithKexecFileLoadUnderLockdown) {
  StubMachine m;
  kvmbench::test_support::write_text(m.root / "sys/kernel/security/lockdown", "none [integrity] confidentiality\n");
  m.image = fake_signed_bzimage(m.tmp.path);
  std::ofstream(m.tmp.path / "refuse-load") << "";  // stop after the trial
  const auto r = m.ab();
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(has(kvmbench::test_support::unwrapped(r.err), "a trial `kexec -s -l " + m.image.string())) << r.err;
  EXPECT_TRUE(has(m.calls(), "kexec -s -l " + m.image.string())) << m.calls();
  EXPECT_FALSE(fs::exists(m.state / "state.json"));
}

// The first jump refused by kexec (a TDX host, a kernel that says no only
// at kexec -e): the experiment is taken back whole, its resume unit and its
// state removed, exit 2 naming the refusal; --status has no experiment.
TEST(AbCli, AFirstJumpRefusedTakesTheStartBack) {
  StubMachine m;
  m.with_systemd();
  std::ofstream(m.tmp.path / "refuse-exec") << "";
  // systemd's `systemctl kexec` is the stub's: the jump is kexec -e's here.
  fs::remove_all(m.root / "run/systemd/system");
  kvmbench::test_support::write_text(m.root / "proc/1/comm", "init\n");
  const auto r = m.ab();
  EXPECT_EQ(r.exit_code, 2) << r.err;
  const std::string err = kvmbench::test_support::unwrapped(r.err);
  EXPECT_TRUE(has(err, "the first kexec failed, so the experiment is not started")) << r.err;
  EXPECT_TRUE(has(err, "Starting new kernel failed: Operation not supported")) << r.err;
  EXPECT_TRUE(has(err, "--boot-via reboot")) << r.err;
  EXPECT_TRUE(has(m.calls(), "kexec -e")) << m.calls();
  EXPECT_TRUE(has(m.calls(), "kexec -u")) << m.calls();  // the loaded image unloaded again
  EXPECT_FALSE(fs::exists(m.state / "state.json"));
  const auto status = run_kvmbench({"ab", "--status"}, 60, "", m.env());
  EXPECT_EQ(status.exit_code, 2) << status.out << status.err;
  EXPECT_TRUE(has(status.err, "no experiment in")) << status.err;
}

// The same with systemd: the unit written for the experiment is removed.
TEST(AbCli, AFirstJumpRefusedUndoesTheResumeUnit) {
  StubMachine m;
  m.with_systemd();
  // systemctl kexec refused.
  kvmbench::test_support::write_text(m.bin / "systemctl",
                                     "#!/bin/sh\necho \"systemctl $*\" >> '" + m.log.string() + "'\n"
                                     "[ \"$1\" = cat ] && exit 1\n"
                                     "[ \"$1\" = kexec ] && { echo 'Cannot kexec: no kernel loaded' >&2; exit 1; }\nexit 0\n");
  const auto r = m.ab();
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(has(kvmbench::test_support::unwrapped(r.err), "systemctl kexec failed")) << r.err;
  const std::string calls = m.calls();
  EXPECT_TRUE(has(calls, "systemctl enable kvmbench-ab.service")) << calls;
  EXPECT_TRUE(has(calls, "systemctl disable kvmbench-ab.service")) << calls;
  EXPECT_LT(calls.find("systemctl enable"), calls.find("systemctl disable")) << calls;
  EXPECT_FALSE(fs::exists(m.unit()));
  EXPECT_FALSE(fs::exists(m.state / "state.json"));
  EXPECT_NE(run_kvmbench({"ab", "--status"}, 60, "", m.env()).exit_code, 75);
}

namespace {

// An experiment of two boots a side on the stub machine's bzImage, as
// `ab` would have stored it, with a jump in flight to `step` made at `at`
// from another boot.
kvmbench::ab::Experiment in_flight(const StubMachine& m, int step, const std::string& at) {
  kvmbench::ab::Experiment e = two_boots_a_side({"run", "directmap", "--preset", "host"});
  e.base.spec = e.cand.spec = e.base.image = e.cand.image = m.image.string();
  e.base.cmdline = e.cand.cmdline = "root=/dev/vda1 ro";
  e.out_dir = (m.tmp.path / "runs").string();
  e.created_at = "2026-12-06T10:00:00Z";
  e.kexec_step = step;
  e.kexec_from_boot_id = "a boot before this one";
  e.kexec_at = at;
  for (int i = 0; i < step; ++i) {
    e.steps[i].status = kvmbench::ab::StepStatus::done;
    e.steps[i].run_dir = (m.tmp.path / "runs" / ("step" + std::to_string(i + 1))).string();
  }
  e.steps[step].status = kvmbench::ab::StepStatus::booting;
  kvmbench::test_support::write_text(m.state / "state.json", to_json(e).dump(2));
  return e;
}

nlohmann::json state_of(const StubMachine& m) {
  return nlohmann::json::parse(kvmbench::test_support::read_text(m.state / "state.json"));
}

}  // namespace

// Power lost (or a crash) while a step's command ran: the machine comes
// back in its default boot, with the step still "running" in the state and
// its partial run on disk. The resume moves the partial run aside, names
// it, and tries the step again on a fresh boot of its side (the partial run
// no longer makes it "stored no run"); down a second time, the step fails.
TEST(AbCli, APowerLossDuringAStepTriesItAgainOnAFreshBootOnce) {
  StubMachine m;
  m.with_systemd();
  kvmbench::ab::Experiment e = two_boots_a_side({"run", "directmap", "--preset", "host"});
  e.base.spec = e.cand.spec = e.base.image = e.cand.image = m.image.string();
  e.base.cmdline = e.cand.cmdline = "root=/dev/vda1 ro";
  e.out_dir = (m.tmp.path / "runs").string();
  e.created_at = "2026-12-06T10:00:00Z";
  e.steps[0].status = kvmbench::ab::StepStatus::running;
  e.steps[0].boot_id = "the boot the power went out in";
  const fs::path step_dir = m.tmp.path / "runs" / ("step1-" + std::string(to_string(e.steps[0].side)));
  kvmbench::test_support::write_text(step_dir / "directmap-partial" / "meta.json", R"({"status": "running"})");
  kvmbench::test_support::write_text(m.state / "state.json", to_json(e).dump(2));
  kvmbench::test_support::write_text(m.root / "proc/cmdline", "root=/dev/vda1 ro\n");

  const auto r = run_kvmbench({"ab", "--resume"}, 120, "", m.env());
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  auto j = state_of(m);
  EXPECT_EQ(j["steps"][0]["status"], "booting") << j.dump(2);  // on its way to a fresh boot
  const std::string aside = j["steps"][0]["interrupted_run"];
  EXPECT_TRUE(has(aside, "step1-" + std::string(to_string(e.steps[0].side)) + "-interrupted/directmap-partial")) << aside;
  EXPECT_TRUE(fs::exists(fs::path(aside) / "meta.json"));
  EXPECT_FALSE(fs::exists(step_dir / "directmap-partial"));
  EXPECT_TRUE(has(j["steps"][0]["note"], "interrupted: the machine went down while its command ran")) << j.dump(2);
  EXPECT_TRUE(has(m.calls(), "kvmbench.ab=" + e.id + ":0")) << m.calls();

  // Down again during its second try: failed, both partial runs named.
  e = kvmbench::ab::experiment_from_json(j);
  e.steps[0].status = kvmbench::ab::StepStatus::running;
  e.kexec_step = -2;
  e.kexec_from_boot_id.clear();
  kvmbench::test_support::write_text(step_dir / "directmap-second" / "meta.json", R"({"status": "running"})");
  kvmbench::test_support::write_text(m.state / "state.json", to_json(e).dump(2));
  const auto again = run_kvmbench({"ab", "--resume"}, 120, "", m.env());
  EXPECT_EQ(again.exit_code, 0) << again.out << again.err;
  j = state_of(m);
  EXPECT_EQ(j["steps"][0]["status"], "failed") << j.dump(2);
  EXPECT_TRUE(has(j["steps"][0]["note"], "the machine went down twice while its command ran")) << j.dump(2);
}

// The step's kernel came back, with its marker, but later than
// --boot-timeout: the step is recorded as no boot, with how long it took.
// (The next jump is refused by the stub, which ends the experiment: not
// "running" for ever.)
TEST(AbCli, ABootLaterThanTheTimeoutIsNoBootOfTheStep) {
  StubMachine m;
  std::ofstream(m.tmp.path / "refuse-exec") << "";
  const auto e = in_flight(m, 0, "2026-01-01T00:00:00Z");
  kvmbench::test_support::write_text(m.root / "proc/cmdline", "root=/dev/vda1 ro " + e.marker(0) + "\n");
  const auto r = run_kvmbench({"ab", "--resume"}, 120, "", m.env());
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  const auto j = state_of(m);
  EXPECT_EQ(j["steps"][0]["status"], "no_boot") << j.dump(2);
  const std::string note = j["steps"][0]["note"];
  EXPECT_TRUE(has(note, "its kernel came back after ")) << note;
  EXPECT_TRUE(has(note, "beyond --boot-timeout 600 s")) << note;
  // Every jump carries the words that end a hang.
  EXPECT_TRUE(has(m.calls(), "panic=10 softlockup_panic=1 hung_task_panic=1 kvmbench.ab=" + e.id + ":1")) << m.calls();
  EXPECT_EQ(j["phase"], "done");
  EXPECT_EQ(run_kvmbench({"ab", "--status"}, 60, "", m.env()).exit_code, 3);
}

// The candidate's first boot did not come back (the machine is in a boot
// without the step's marker: a panic reset it into its default entry): it
// is not tried again, and the verdict fails saying why.
TEST(AbCli, ACandidateThatNeverBootsFailsTheVerdict) {
  StubMachine m;
  in_flight(m, 1, "2026-12-06T10:05:00Z");
  const auto r = run_kvmbench({"ab", "--resume"}, 120, "", m.env());
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_TRUE(has(r.out, "kvmbench ab: FAIL: the candidate kernel did not come back (step 2: its kernel did not "
                         "come back: this boot is"))
      << r.out;
  const auto j = state_of(m);
  EXPECT_EQ(j["steps"][1]["status"], "no_boot");
  EXPECT_EQ(j["steps"][2]["status"], "skipped");
  EXPECT_EQ(j["steps"][3]["status"], "skipped");
  EXPECT_EQ(j["phase"], "done");
  EXPECT_FALSE(has(m.calls(), "kexec -e")) << m.calls();  // no boot tried after it
  const auto status = run_kvmbench({"ab", "--status"}, 60, "", m.env());
  EXPECT_EQ(status.exit_code, 1) << status.out;
  EXPECT_TRUE(has(status.out, "FAIL: the candidate kernel did not come back")) << status.out;
}

// Paths given relative to where `ab` was typed stay there on every later
// boot (whose resume runs from /); a database password is kept out of
// state.json, in a file of its own that only root reads.
TEST(AbCli, RelativePathsAndTheDatabasePasswordAreSettledAtTheStart) {
  StubMachine m;
  const fs::path cwd = m.tmp.path / "typed-here";
  fs::create_directories(cwd);
  std::string cmd = "cd '" + cwd.string() + "' && exec " + KVMBENCH_BINARY + " ab --base " + m.image.string() +
                    " --cand " + m.image.string() + " -n 2 --state st --junit out/ab.xml --markdown ab.md --out runs" +
                    " --db 'postgresql://lab:s3cr3t-pw@db.example/kvmbench' -- run directmap --preset host";
  auto env = m.env();
  env.erase(std::remove_if(env.begin(), env.end(), [](const std::string& v) { return v.starts_with("KVMBENCH_AB_STATE="); }),
            env.end());
  // The stub's kexec -e hangs (as one that boots never returns); ab is
  // killed there, with its state written.
  m.hang_exec();
  const auto r = kvmbench::test_support::run_command({"/bin/sh", "-c", cmd}, 120, "", env, SIGKILL, 4.0);
  ASSERT_EQ(r.signal, SIGKILL) << r.out << r.err;
  const fs::path state = cwd / "st";
  const std::string text = kvmbench::test_support::read_text(state / "state.json");
  const auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["junit"], (cwd / "out/ab.xml").string());
  EXPECT_EQ(j["markdown"], (cwd / "ab.md").string());
  EXPECT_EQ(j["out_dir"], (cwd / "runs").string());
  EXPECT_FALSE(has(text, "s3cr3t-pw")) << text;
  EXPECT_FALSE(has(r.out + r.err, "s3cr3t-pw")) << r.err;
  EXPECT_TRUE(has(j["db"].get<std::string>(), "password=***")) << text;
  const fs::path secret = state / "db-location.secret";
  EXPECT_EQ(kvmbench::test_support::read_text(secret), "postgresql://lab:s3cr3t-pw@db.example/kvmbench");
  struct stat st {};
  ASSERT_EQ(::stat(secret.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  // A SQLite file is kept as an absolute path.
  StubMachine m2;
  cmd = "cd '" + cwd.string() + "' && exec " + KVMBENCH_BINARY + " ab --base " + m2.image.string() + " --cand " +
        m2.image.string() + " -n 2 --db results/k.db -- run directmap --preset host";
  m2.hang_exec();
  ASSERT_EQ(kvmbench::test_support::run_command({"/bin/sh", "-c", cmd}, 120, "", m2.env(), SIGKILL, 4.0).signal,
            SIGKILL);
  EXPECT_EQ(state_of(m2)["db"], (cwd / "results/k.db").string());
}

// An output that cannot be written is found before the first boot, not
// at the verdict: exit 2, nothing started.
TEST(AbCli, AnUnwritableOutputIsRefusedBeforeAnythingIsWritten) {
  StubMachine m;
  kvmbench::test_support::write_text(m.tmp.path / "a-file", "x\n");
  for (const std::string opt : {"--junit", "--markdown", "--db", "--out"}) {
    const auto r = m.ab({opt, (m.tmp.path / "a-file" / "ab.out").string()});
    EXPECT_EQ(r.exit_code, 2) << opt << r.err;
    EXPECT_TRUE(has(kvmbench::test_support::unwrapped(r.err), opt + " " + (m.tmp.path / "a-file/ab.out").string() +
                                                                  ": cannot be written"))
        << r.err;
    EXPECT_FALSE(fs::exists(m.state / "state.json")) << opt;
    EXPECT_FALSE(has(m.calls(), "kexec -e")) << m.calls();
  }
}

// A kernel package that is refused leaves nothing unpacked behind.
TEST(AbCli, ARefusedKernelPackageIsNotLeftUnpacked) {
  StubMachine m;
  const fs::path pkg = m.tmp.path / "pkg";
  kvmbench::test_support::write_text(pkg / "DEBIAN/control",
                                     "Package: linux-image-9.9.9-kvmbench-test\nVersion: 1\nArchitecture: all\n"
                                     "Maintainer: t <t@example.org>\nDescription: t\n");
  fs::create_directories(pkg / "boot");
  fs::copy_file(m.image, pkg / "boot/vmlinuz-9.9.9-kvmbench-test");
  const fs::path deb = m.tmp.path / "linux-image-9.9.9-kvmbench-test.deb";
  ASSERT_EQ(kvmbench::test_support::run_command({"/usr/bin/dpkg-deb", "-b", pkg.string(), deb.string()}, 60).exit_code, 0);
  const auto r = run_kvmbench({"ab", "--base", m.image.string(), "--cand", deb.string(), "-n", "2", "--", "run",
                               "directmap", "--preset", "host"},
                              120, "", m.env());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(has(kvmbench::test_support::unwrapped(r.err), "release 9.9.9-kvmbench-test is not installed here"))
      << r.err;
  EXPECT_FALSE(fs::exists(m.state / "kernels")) << "the package stays unpacked";
  EXPECT_FALSE(fs::exists(m.state / "state.json"));
}

namespace {

// Processes whose command line names `what`.
int processes_naming(const std::string& what) {
  int found = 0;
  for (const auto& p : fs::directory_iterator("/proc")) {
    const std::string name = p.path().filename();
    if (name.find_first_not_of("0123456789") != std::string::npos || name == std::to_string(::getpid())) continue;
    std::string cmdline = kvmbench::test_support::read_text(p.path() / "cmdline");
    std::replace(cmdline.begin(), cmdline.end(), '\0', ' ');
    found += has(cmdline, what);
  }
  return found;
}

// The run lock of the tests' private state directory (private_state_dir_env),
// held: a step's `kvmbench run` (--wait-lock=3600) waits for it, so the step
// lasts until it is let go, however fast the host.
std::unique_ptr<kvmbench::host::RunLock> hold_run_lock() {
  const std::string env = kvmbench::test_support::private_state_dir_env();
  const fs::path dir = env.substr(env.find('=') + 1);
  fs::create_directories(dir);
  return std::make_unique<kvmbench::host::RunLock>(std::chrono::milliseconds(0), "ab_cli_test", dir / "run.lock");
}

// The stub machine came back into step 1 (its marker on the command line),
// whose command is a short live run of `reps` repetitions.
kvmbench::ab::Experiment back_in_step_one(StubMachine& m, int reps) {
  char now[32];
  const std::time_t t = std::time(nullptr);
  std::strftime(now, sizeof now, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  auto e = in_flight(m, 0, now);
  e.command = {"run", "rmpopt", "--preset", "host", "-r", std::to_string(reps), "--set", "ram=1G", "--set",
               "layouts=none", "--set", "strategies=one-cpu"};
  kvmbench::test_support::write_text(m.state / "state.json", to_json(e).dump(2));
  kvmbench::test_support::write_text(m.root / "proc/cmdline", "root=/dev/vda1 ro " + e.marker(0) + "\n");
  return e;
}

}  // namespace

// `ab` killed (SIGKILL) while a step's command runs: the command ends with
// it, it does not run on as an orphan beside a lock no one holds.
TEST(AbCli, AKilledAbLeavesNoCommandRunning) {
  StubMachine m;
  back_in_step_one(m, 1);
  const auto lock = hold_run_lock();
  const auto started = std::chrono::steady_clock::now();
  const auto r = run_kvmbench({"ab", "--resume"}, 120, "", m.env(), SIGKILL, 6.0);
  EXPECT_EQ(r.signal, SIGKILL) << r.err;
  EXPECT_TRUE(has(kvmbench::test_support::unwrapped(r.err), "kvmbench run rmpopt")) << r.err;  // it had started
  // run_command returns once the pipes close: the command had them too.
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(), 60) << r.err;
  for (int i = 0; i < 50 && processes_naming((m.tmp.path / "runs").string()) > 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(processes_naming((m.tmp.path / "runs").string()), 0);
}

// `ab --abort` while a step's command runs answers at once; the running
// experiment stops after that step.
TEST(AbCli, AbortDuringAStepAnswersAtOnceAndTheStepIsTheLast) {
  StubMachine m;
  const auto e = back_in_step_one(m, 1);
  auto lock = hold_run_lock();
  kvmbench::test_support::CommandResult resumed;
  std::thread resume([&] { resumed = run_kvmbench({"ab", "--resume"}, 300, "", m.env()); });
  for (int i = 0; i < 300 && !fs::exists(m.tmp.path / "runs/step1-base"); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const auto started = std::chrono::steady_clock::now();
  const auto abort = run_kvmbench({"ab", "--abort"}, 60, "", m.env());
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  // --status says so while the step runs.
  const auto status = run_kvmbench({"ab", "--status"}, 60, "", m.env());
  EXPECT_EQ(status.exit_code, 75) << status.out << status.err;
  EXPECT_TRUE(has(status.out, "abort requested: stops after the current step")) << status.out;
  lock.reset();  // the step's command runs now, and ends
  resume.join();
  EXPECT_EQ(abort.exit_code, 0) << abort.err;
  EXPECT_LT(took, 10) << abort.err;
  EXPECT_TRUE(has(kvmbench::test_support::unwrapped(abort.err), "stops after its current step")) << abort.err;
  const auto j = state_of(m);
  for (int i : {1, 2, 3}) EXPECT_EQ(j["steps"][i]["status"], "skipped") << j.dump(2);
  EXPECT_EQ(j["steps"][0]["status"], "done") << j.dump(2);
  // No later step is booted (the jump back into base is the only one).
  EXPECT_FALSE(has(m.calls(), e.marker(1))) << m.calls();
  EXPECT_FALSE(fs::exists(m.state / "abort-requested"));
  (void)resumed;
}

// --step-timeout: a boot's command still running then (here: waiting for
// a run lock that is never let go) is stopped, and its boot fails with the
// reason. With 2 boots a side, a failed base boot leaves too few to judge,
// so the experiment ends there, INCONCLUSIVE, instead of hanging.
TEST(AbCli, AStepPastItsTimeoutIsStoppedAndItsBootFails) {
  StubMachine m;
  auto e = back_in_step_one(m, 1);
  e.step_timeout_s = 2;
  kvmbench::test_support::write_text(m.state / "state.json", to_json(e).dump(2));
  const auto lock = hold_run_lock();
  const auto started = std::chrono::steady_clock::now();
  const auto r = run_kvmbench({"ab", "--resume"}, 120, "", m.env());
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_LT(took, 60) << r.err;
  EXPECT_TRUE(has(kvmbench::test_support::unwrapped(r.err),
                  "step 1 of 4 (base): the command ran past --step-timeout 2 s and was stopped"))
      << r.err;
  const auto j = state_of(m);
  EXPECT_EQ(j["steps"][0]["status"], "failed") << j.dump(2);
  EXPECT_TRUE(has(j["steps"][0].value("note", ""), "ran past --step-timeout 2 s and was stopped")) << j.dump(2);
  EXPECT_EQ(j["step_timeout_s"], 2) << j.dump(2);
  EXPECT_EQ(processes_naming((m.tmp.path / "runs").string()), 0);
}

namespace {

// Boots the stub machine the way kexec would: into the step state.json's
// jump in flight names (its marker on the command line, a new boot id),
// or, for the way back, the base kernel as it boots without a marker.
void boot_as_asked(const StubMachine& m, int boot) {
  const auto j = state_of(m);
  const int step = j["kexec_step"];
  const std::string id = j["id"];
  const std::string marker =
      step >= 0 ? fmt::format(" kvmbench.ab={}:{}", id, step) : std::string(step == -1 ? " kvmbench.ab=" + id + ":base" : "");
  kvmbench::test_support::write_text(m.root / "proc/cmdline", "root=/dev/vda1 ro" + marker + "\n");
  kvmbench::test_support::write_text(m.root / "proc/sys/kernel/random/boot_id",
                                     fmt::format("00000000-0000-0000-0000-{:012d}\n", boot));
}

// `ab` as it goes on after each boot until the experiment is done: the
// last command's result.
kvmbench::test_support::CommandResult resume_until_done(const StubMachine& m, int most_boots) {
  kvmbench::test_support::CommandResult r;
  for (int boot = 1; boot <= most_boots; ++boot) {
    boot_as_asked(m, boot);
    r = run_kvmbench({"ab", "--resume"}, 300, "", m.env());
    if (state_of(m)["phase"] == "done" || (r.exit_code != 0)) return r;
  }
  ADD_FAILURE() << "not done after " << most_boots << " boots";
  return r;
}

// The same to the experiment's end whatever each boot's exit: a verdict
// other than PASS is the exit of the step's own boot too, before the way
// back to base (where resume_until_done stops).
kvmbench::test_support::CommandResult resume_to_the_end(const StubMachine& m, int most_boots) {
  kvmbench::test_support::CommandResult r;
  for (int boot = 1; boot <= most_boots; ++boot) {
    boot_as_asked(m, 100 + boot);
    r = run_kvmbench({"ab", "--resume"}, 300, "", m.env());
    if (state_of(m)["phase"] == "done" || r.exit_code == 2) return r;
  }
  ADD_FAILURE() << "not done after " << most_boots << " boots";
  return r;
}

}  // namespace

// --boot-via reboot on a GRUB machine (stubs of grub-reboot, systemctl and
// bootctl on PATH): refused without GRUB_DEFAULT=saved, before anything is
// written; else each step's kernel is kvmbench's entry in custom.cfg with
// the step's command line, chosen once by grub-reboot, and a reboot; every
// run says it came by reboot; at the end the entry is gone and the
// machine's own custom.cfg lines stay.
TEST(AbCli, BootViaRebootChoosesAOneShotGrubEntryForEachStep) {
  using kvmbench::test_support::write_text;
  StubMachine m;
  m.with_systemd();
  write_text(m.root / "boot/grub/grub.cfg",
             "### BEGIN /etc/grub.d/41_custom ###\nif [ -f  ${config_directory}/custom.cfg ]; then\n"
             "  source ${config_directory}/custom.cfg\nfi\n");
  write_text(m.root / "boot/grub/custom.cfg", "menuentry 'the lab's own' {\n}\n");
  write_text(m.root / "etc/default/grub", "GRUB_DEFAULT=0\nGRUB_TIMEOUT=5\n");
  write_text(m.bin / "grub-reboot", "#!/bin/sh\necho \"grub-reboot $*\" >> '" + m.log.string() + "'\nexit 0\n");
  write_text(m.bin / "bootctl", "#!/bin/sh\nexit 1\n");  // not systemd-boot
  for (const char* p : {"grub-reboot", "bootctl"})
    fs::permissions(m.bin / p, fs::perms::owner_all, fs::perm_options::add);
  std::vector<std::string> args = {"ab", "--boot-via", "reboot", "--base", m.image.string(), "--cand",
                                   m.image.string(), "-n", "2", "--out", (m.tmp.path / "runs").string(), "--",
                                   "run", "rmpopt", "--preset", "host", "-r", "2", "--set", "ram=1G", "--set",
                                   "layouts=none", "--set", "strategies=one-cpu"};
  const auto refused = run_kvmbench(args, 120, "", m.env());
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_TRUE(has(kvmbench::test_support::unwrapped(refused.err), "GRUB_DEFAULT=saved")) << refused.err;
  EXPECT_FALSE(fs::exists(m.state / "state.json"));

  write_text(m.root / "etc/default/grub", "GRUB_DEFAULT=saved\nGRUB_TIMEOUT=5\n");
  const auto started = run_kvmbench(args, 120, "", m.env());
  ASSERT_EQ(started.exit_code, 0) << started.err;
  const std::string id = state_of(m)["id"];
  EXPECT_EQ(state_of(m)["boot_via"], "reboot");
  const std::string custom = kvmbench::test_support::read_text(m.root / "boot/grub/custom.cfg");
  EXPECT_TRUE(has(custom, "menuentry 'the lab's own'")) << custom;
  EXPECT_TRUE(has(custom, "menuentry 'kvmbench ab' --id kvmbench-ab {\n\tlinux '" + m.image.string() + "' ")) << custom;
  EXPECT_TRUE(has(custom, "panic=10 softlockup_panic=1 hung_task_panic=1 kvmbench.ab=" + id + ":0\n")) << custom;
  const std::string calls = m.calls();
  EXPECT_TRUE(has(calls, "grub-reboot kvmbench-ab\nsystemctl reboot")) << calls;
  EXPECT_FALSE(has(calls, "kexec -l")) << calls;

  // A verdict (an A/A pair of two boots a side may decide either way): the
  // boot path is what is tested.
  const auto r = resume_to_the_end(m, 8);
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1 || r.exit_code == 3) << r.out << r.err;
  std::size_t runs = 0;
  const auto done = state_of(m);
  for (const auto& step : done["steps"]) {
    if (step["status"] != "done") continue;
    ++runs;
    const auto meta =
        nlohmann::json::parse(kvmbench::test_support::read_text(fs::path(step["run_dir"].get<std::string>()) / "meta.json"));
    EXPECT_EQ(meta["ab"]["boot"], "reboot") << meta["ab"].dump();
  }
  EXPECT_EQ(runs, 4u) << done.dump(2);
  const std::string after = kvmbench::test_support::read_text(m.root / "boot/grub/custom.cfg");
  EXPECT_EQ(after, "menuentry 'the lab's own' {\n}\n");
}

// --boot-via reboot on an EFI machine booted by neither GRUB nor
// systemd-boot (stubs of efibootmgr, bootctl, systemctl): the kernel is
// copied to the ESP, a firmware entry kvmbench-ab made without a place in
// BootOrder carries the step's command line and is chosen once as
// BootNext; a kernel that is no EFI application is refused before
// anything is written; at the end the entry and the copies are gone.
TEST(AbCli, BootViaRebootOnUefiAloneChoosesBootNext) {
  using kvmbench::test_support::write_text;
  StubMachine m;
  m.with_systemd();
  fs::create_directories(m.root / "sys/firmware/efi");
  fs::create_directories(m.root / "boot/efi");
  write_text(m.root / "proc/self/mountinfo",
             "26 1 259:2 / / rw,relatime shared:1 - ext4 /dev/nvme0n1p2 rw\n"
             "31 26 259:1 / /boot/efi rw,relatime shared:5 - vfat /dev/nvme0n1p1 rw,fmask=0077\n");
  const fs::path entry = m.tmp.path / "efi-entry";
  write_text(m.bin / "efibootmgr",
             "#!/bin/sh\necho \"efibootmgr $*\" >> '" + m.log.string() + "'\n"
             "case \"$*\" in\n"
             "  *--create-only*) touch '" + entry.string() + "' ;;\n"
             "  *--delete-bootnum*) rm -f '" + entry.string() + "' ;;\n"
             "  '') echo 'BootCurrent: 0001'; echo 'Boot0001* debian\tHD(1,GPT)/File(\\EFI\\debian\\shimx64.efi)';\n"
             "      [ -e '" + entry.string() + "' ] && printf 'Boot0007  kvmbench-ab\\tHD(1,GPT)/File(\\\\kvmbench-ab\\\\linux.efi)\\n' ;;\n"
             "esac\nexit 0\n");
  write_text(m.bin / "bootctl", "#!/bin/sh\nexit 1\n");  // not systemd-boot
  for (const char* p : {"efibootmgr", "bootctl"})
    fs::permissions(m.bin / p, fs::perms::owner_all, fs::perm_options::add);
  // An EFI-stub bzImage: "MZ", the PE header where 0x3c points, and the
  // boot protocol's "HdrS".
  std::string bytes(0x400, '\0');
  bytes.replace(0, 2, "MZ");
  bytes[0x3c] = static_cast<char>(0x80);
  bytes.replace(0x80, 4, std::string("PE\0\0", 4));
  bytes.replace(0x202, 4, "HdrS");
  const fs::path efi_image = m.tmp.path / "vmlinuz-efi";
  write_text(efi_image, bytes);
  const auto args = [&](const fs::path& image) {
    return std::vector<std::string>{"ab", "--boot-via", "reboot", "--base", image.string(), "--cand", image.string(),
                                    "-n", "2", "--out", (m.tmp.path / "runs").string(), "--", "run", "rmpopt",
                                    "--preset", "host", "-r", "2", "--set", "ram=1G", "--set", "layouts=none",
                                    "--set", "strategies=one-cpu"};
  };
  const auto refused = run_kvmbench(args(m.image), 120, "", m.env());
  EXPECT_EQ(refused.exit_code, 2) << refused.err;
  EXPECT_TRUE(has(kvmbench::test_support::unwrapped(refused.err), "a kernel built without EFI_STUB")) << refused.err;
  EXPECT_FALSE(fs::exists(m.state / "state.json"));
  EXPECT_FALSE(has(m.calls(), "--create-only")) << m.calls();

  const auto started = run_kvmbench(args(efi_image), 120, "", m.env());
  ASSERT_EQ(started.exit_code, 0) << started.err;
  const std::string id = state_of(m)["id"];
  const std::string calls = m.calls();
  EXPECT_TRUE(has(calls, "efibootmgr --quiet --create-only --disk /dev/nvme0n1 --part 1 --label kvmbench-ab --loader "
                         "\\kvmbench-ab\\linux.efi --unicode "))
      << calls;
  EXPECT_TRUE(has(calls, "panic=10 softlockup_panic=1 hung_task_panic=1 kvmbench.ab=" + id + ":0\n")) << calls;
  EXPECT_TRUE(has(calls, "efibootmgr --quiet --bootnext 0007\nsystemctl reboot")) << calls;
  EXPECT_FALSE(has(calls, "kexec -l")) << calls;
  EXPECT_TRUE(fs::exists(m.root / "boot/efi/kvmbench-ab/linux.efi"));

  const auto r = resume_to_the_end(m, 8);
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1 || r.exit_code == 3) << r.out << r.err;
  const auto done = state_of(m);
  std::size_t runs = 0;
  for (const auto& step : done["steps"]) runs += step["status"] == "done";
  EXPECT_EQ(runs, 4u) << done.dump(2) << r.err;
  EXPECT_FALSE(fs::exists(entry)) << "the firmware entry is deleted at the end: " << m.calls();
  EXPECT_FALSE(fs::exists(m.root / "boot/efi/kvmbench-ab"));
}

// A machine with a hardware watchdog: systemd pets it for the experiment
// (a drop-in of kvmbench's, daemon-reexec), so that a hard hang resets the
// machine; at the end the drop-in is gone again.
TEST(AbCli, AHardwareWatchdogIsPettedForTheExperimentAndLetGoAtItsEnd) {
  using kvmbench::test_support::write_text;
  StubMachine m;
  m.with_systemd();
  write_text(m.root / "sys/class/watchdog/watchdog0/identity", "iTCO_wdt\n");
  std::vector<std::string> args = {"ab", "--base", m.image.string(), "--cand", m.image.string(), "-n", "2",
                                   "--max-regression", "400", "--out", (m.tmp.path / "runs").string(), "--",
                                   "run", "rmpopt", "--preset", "host", "-r", "2", "--set", "ram=1G", "--set",
                                   "layouts=none", "--set", "strategies=one-cpu"};
  const auto started = run_kvmbench(args, 120, "", m.env());
  ASSERT_EQ(started.exit_code, 0) << started.err;
  EXPECT_TRUE(has(kvmbench::test_support::unwrapped(started.err),
                  "the hardware watchdog (iTCO_wdt) is petted by systemd for the experiment (RuntimeWatchdogSec=60s)"))
      << started.err;
  const fs::path drop_in = m.root / "etc/systemd/system.conf.d/kvmbench-ab-watchdog.conf";
  EXPECT_TRUE(has(kvmbench::test_support::read_text(drop_in), "[Manager]\nRuntimeWatchdogSec=60s\n"));
  EXPECT_TRUE(has(m.calls(), "systemctl daemon-reexec")) << m.calls();
  const auto r = resume_to_the_end(m, 8);
  EXPECT_NE(r.exit_code, 2) << r.err;
  EXPECT_FALSE(fs::exists(drop_in));
}

// A step's run deleted before the verdict: named as missing in the verdict
// line, not counted (3 boots a side, one gone: 2 and 3 judged).
TEST(AbCli, ARunDeletedBeforeTheVerdictIsNamedMissing) {
  StubMachine m;
  m.with_systemd();
  std::vector<std::string> args = {"ab", "--base", m.image.string(), "--cand", m.image.string(), "-n", "3",
                                   "--max-regression", "400", "--out", (m.tmp.path / "runs").string(), "--",
                                   "run", "rmpopt", "--preset", "host", "-r", "2", "--set", "ram=1G", "--set",
                                   "layouts=none", "--set", "strategies=one-cpu"};
  ASSERT_EQ(run_kvmbench(args, 120, "", m.env()).exit_code, 0);
  // Five boots: five steps done, the sixth's jump made.
  for (int boot = 1; boot <= 5; ++boot) {
    boot_as_asked(m, boot);
    ASSERT_EQ(run_kvmbench({"ab", "--resume"}, 300, "", m.env()).exit_code, 0);
  }
  const std::string gone = state_of(m)["steps"][0]["run_dir"];
  ASSERT_FALSE(gone.empty());
  fs::remove_all(gone);
  const auto r = resume_to_the_end(m, 3);
  EXPECT_NE(r.exit_code, 2) << r.err;
  // The verdict (PASS, or on a busy host INCONCLUSIVE or REGRESSION) says it.
  const std::string line = state_of(m)["verdict_line"];
  EXPECT_TRUE(has(line, "the run of step 1 (base): " + gone + " is missing (deleted before the verdict: not counted)"))
      << line;
  EXPECT_TRUE(has(line, "(2 base and 3 candidate boots")) << line;
}

// -n auto on A/A with a margin that a few boots exclude: pairs of boots
// until decided, the rest of the budget left unrun, and a PASS that says
// what it excludes and after how many boots. Each boot's command is a real
// short run on this host (the process stands in for the boot).
TEST(AbCli, NAutoStopsOnceDecided) {
  StubMachine m;
  m.with_systemd();  // each jump is `systemctl kexec`, which returns
  const std::vector<std::string> command = {"--", "run", "rmpopt", "--preset", "host", "-r", "2", "--set", "ram=1G",
                                            "--set", "layouts=none", "--set", "strategies=one-cpu"};
  std::vector<std::string> args = {"ab", "--base", m.image.string(), "--cand", m.image.string(), "-n", "auto",
                                   "--max-boots", "8", "--max-regression", "400", "--out",
                                   (m.tmp.path / "runs").string(), "--markdown", (m.tmp.path / "ab.md").string()};
  args.insert(args.end(), command.begin(), command.end());
  const auto started = run_kvmbench(args, 120, "", m.env());
  ASSERT_EQ(started.exit_code, 0) << started.err;
  EXPECT_TRUE(has(kvmbench::test_support::unwrapped(started.err), "16 boots (ABBAABBAABBAABBA)")) << started.err;
  const auto r = resume_until_done(m, 20);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto j = state_of(m);
  ASSERT_TRUE(j.contains("sequential")) << j.dump(2);
  const auto& looks = j["sequential"]["looks"];
  ASSERT_FALSE(looks.empty());
  EXPECT_EQ(looks.back()["verdict"], "PASS") << looks.dump(2);
  const double decided_at = looks.back()["information"];
  EXPECT_LT(decided_at, 8) << "the budget spent on A/A at a margin of 400 %: " << looks.dump(2);
  // The steps after the deciding look are not run, and say why.
  std::size_t done = 0, skipped = 0;
  for (const auto& s : j["steps"]) {
    done += s["status"] == "done";
    if (s["status"] == "skipped") {
      ++skipped;
      EXPECT_TRUE(has(s["note"], "not run: decided after")) << s.dump();
    }
  }
  EXPECT_EQ(done, static_cast<std::size_t>(2 * decided_at));
  EXPECT_EQ(done + skipped, 16u);
  const std::string out = kvmbench::test_support::unwrapped(r.out);
  EXPECT_TRUE(has(out, "kvmbench ab: PASS: a regression of 400 % or more is excluded for every metric (95 %, after"))
      << r.out;
  EXPECT_TRUE(has(out, "-n auto, at most 8 a side, group-sequential (O'Brien-Fleming type spending)")) << r.out;
  EXPECT_TRUE(has(out, "look 1, 2 boots a side")) << r.out;
  // The gate's file says what the looks decided, not one fixed look.
  const std::string md = kvmbench::test_support::read_text(m.tmp.path / "ab.md");
  EXPECT_TRUE(has(md, "kvmbench ab: PASS: a regression of 400 % or more is excluded for every metric")) << md;
  EXPECT_TRUE(has(md, "-> PASS")) << md;
  // One line for the boots left unrun, not one a step.
  EXPECT_TRUE(has(kvmbench::test_support::unwrapped(r.err), " of 16: not run: decided after")) << r.err;
  const auto status = run_kvmbench({"ab", "--status"}, 60, "", m.env());
  EXPECT_EQ(status.exit_code, 0) << status.out;
  EXPECT_TRUE(has(status.out, "-n auto: at most 8 boots a side")) << status.out;
}

// --max-time: no boot begins once it is spent; the verdict is given on the
// boots made (here too few: inconclusive, saying so).
TEST(AbCli, NAutoMaxTimeEndsTheExperiment) {
  StubMachine m;
  m.with_systemd();
  std::vector<std::string> args = {"ab", "--base", m.image.string(), "--cand", m.image.string(), "-n", "auto",
                                   "--max-boots", "4", "--max-time", "2", "--max-regression", "50", "--out",
                                   (m.tmp.path / "runs").string(), "--", "run", "rmpopt", "--preset", "host", "-r",
                                   "1", "--set", "ram=1G", "--set", "layouts=none", "--set", "strategies=one-cpu"};
  ASSERT_EQ(run_kvmbench(args, 120, "", m.env()).exit_code, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  const auto r = resume_until_done(m, 10);
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  const std::string err = kvmbench::test_support::unwrapped(r.err);
  EXPECT_TRUE(has(err, "--max-time 2 s reached: no boot after step 1")) << r.err;
  const auto j = state_of(m);
  EXPECT_EQ(j["steps"][0]["status"], "done") << j.dump(2);
  EXPECT_EQ(j["steps"][1]["status"], "skipped") << j.dump(2);
  EXPECT_TRUE(has(j["steps"][1]["note"], "not run: --max-time 2 s reached")) << j.dump(2);
  EXPECT_TRUE(has(err, "INCONCLUSIVE: 1 base and 0 candidate boots stored a run; a verdict needs at least 2 of each"))
      << r.err;
}

// -n auto is refused without a budget, and its budget without it: exit 2,
// nothing written.
TEST(AbCli, NAutoWithoutABudgetIsRefused) {
  StubMachine m;
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"-n", "auto"}, "-n auto needs a budget: --max-boots K"},
      {{"-n", "auto", "--max-boots", "1"}, "--max-boots 1: the most boots a side -n auto may make: at least 2"},
      {{"-n", "3", "--max-boots", "6"}, "--max-boots is the budget of -n auto"},
      {{"-n", "3", "--max-time", "600"}, "--max-time 600: a budget of -n auto"},
      {{"-n", "auto", "--max-boots", "6", "--order", "random"}, "-n auto adds pairs of the ABBA order"},
      {{"-n", "three"}, "-n three: a number of boots a side, or auto"},
  };
  for (const auto& [opts, says] : cases) {
    std::vector<std::string> args = {"ab", "--base", m.image.string(), "--cand", m.image.string()};
    args.insert(args.end(), opts.begin(), opts.end());
    args.insert(args.end(), {"--", "run", "directmap", "--preset", "host"});
    const auto r = run_kvmbench(args, 120, "", m.env());
    EXPECT_EQ(r.exit_code, 2) << says << "\n" << r.err;
    EXPECT_TRUE(has(kvmbench::test_support::unwrapped(r.err), says)) << r.err;
    // Not even the state directory and its lock file.
    EXPECT_FALSE(fs::exists(m.state)) << says;
  }
}

// --steady is each boot's `run --steady`: written into the command the
// experiment keeps (so every boot's meta.json says what it held still),
// and refused for a command that is not a `run`.
TEST(AbCli, SteadyIsEachBootsRunSteady) {
  StubMachine m;
  m.with_systemd();  // the first jump returns: the experiment is started
  const auto not_run = run_kvmbench({"ab", "--base", m.image.string(), "--cand", m.image.string(), "--steady", "--",
                                     "report", "x"},
                                    60, "", m.env());
  EXPECT_EQ(not_run.exit_code, 2) << not_run.err;
  EXPECT_TRUE(has(kvmbench::test_support::unwrapped(not_run.err), "the command after -- is not a `run`"))
      << not_run.err;
  EXPECT_FALSE(fs::exists(m.state / "state.json"));
  const auto started = m.ab({"--steady"});
  ASSERT_EQ(started.exit_code, 0) << started.err;
  const auto command = state_of(m)["command"];
  ASSERT_TRUE(command.is_array() && command.size() >= 2) << command.dump();
  EXPECT_EQ(command[0], "run");
  EXPECT_EQ(command[1], "--steady") << command.dump();
}

// The suite's boot need goes onto both kernels' command lines (shown, kept
// in the state, in every trial load); a command that could not run here for
// another reason than the boot, and a --*-append that contradicts the need,
// are refused before anything is written. The machine is described from
// made-up probes (tests/data/hosts): an SNP host booted with the series'
// default, where make_shared's document needs kvm.vm_memory_attributes=0,
// and a plain host without SEV-SNP.
TEST(AbCli, TheSuitesBootNeedGoesOnBothKernelsAndACommandThatCannotRunHereIsRefused) {
  const std::string hosts = std::string(KVMBENCH_TEST_DATA) + "/hosts/";
  auto ab = [](const StubMachine& m, const std::string& host, std::vector<std::string> opts,
               std::vector<std::string> command) {
    std::vector<std::string> args = {"ab", "--base", m.image.string(), "--cand", m.image.string(), "-n", "2"};
    args.insert(args.end(), opts.begin(), opts.end());
    args.push_back("--");
    args.insert(args.end(), command.begin(), command.end());
    std::vector<std::string> env = m.env();
    env.push_back("KVMBENCH_AB_DRY_RUN_HOST=" + host);
    return run_kvmbench(args, 120, "", env);
  };
  {
    StubMachine m;
    m.with_systemd();
    // Exit 2 saying why, with nothing written.
    auto refused = [&](const kvmbench::test_support::CommandResult& r, const std::string& says) {
      EXPECT_EQ(r.exit_code, 2) << r.err;
      EXPECT_TRUE(has(kvmbench::test_support::unwrapped(r.err), says)) << r.err;
      EXPECT_FALSE(fs::exists(m.state)) << "the state directory and its lock file";
    };
    refused(ab(m, hosts + "plain.json", {}, {"run", "rmpopt", "--preset", "document"}),
            "cannot run on this machine, whatever the boot (rmpopt / document: CPU lacks sev_snp");
    refused(ab(m, hosts + "snp.json", {"--cand-append", "kvm.vm_memory_attributes=1"},
               {"run", "make_shared", "--preset", "document"}),
            "--cand-append kvm.vm_memory_attributes=1 contradicts what make_shared / document needs");
  }
  StubMachine m;
  m.with_systemd();
  const auto started = ab(m, hosts + "snp.json", {"--cand-append", "mitigations=off"},
                          {"run", "make_shared", "--preset", "document"});
  ASSERT_EQ(started.exit_code, 0) << started.err;
  EXPECT_TRUE(has(kvmbench::test_support::unwrapped(started.err),
                  "both kernels boot with kvm.vm_memory_attributes=0: make_shared / document needs it"))
      << started.err;
  const auto j = state_of(m);
  EXPECT_TRUE(has(j["base"]["cmdline"], "kvm.vm_memory_attributes=0")) << j["base"].dump();
  EXPECT_TRUE(has(j["cand"]["cmdline"], "kvm.vm_memory_attributes=0 mitigations=off")) << j["cand"].dump();
  // The kernels were loaded on trial, and the first jump made, with it.
  EXPECT_TRUE(has(m.calls(), "kvm.vm_memory_attributes=0")) << m.calls();
}

// ab --monitors L is each boot's `run --monitors L`, written into the
// stored command; given twice, or for a command that is not a `run`, it is
// refused before anything is written.
TEST(AbCli, MonitorsIsEachBootsRunMonitors) {
  StubMachine m;
  m.with_systemd();
  auto ab = [&](std::vector<std::string> command) {
    std::vector<std::string> args = {"ab", "--base", m.image.string(), "--cand", m.image.string(), "-n", "2",
                                     "--monitors", "all", "--"};
    args.insert(args.end(), command.begin(), command.end());
    return run_kvmbench(args, 60, "", m.env());
  };
  const auto not_run = ab({"report", "x"});
  EXPECT_EQ(not_run.exit_code, 2) << not_run.err;
  EXPECT_TRUE(has(kvmbench::test_support::unwrapped(not_run.err), "the command after -- is not a `run`"))
      << not_run.err;
  const auto twice = ab({"run", "directmap", "--monitors=off"});
  EXPECT_EQ(twice.exit_code, 2) << twice.err;
  EXPECT_TRUE(has(kvmbench::test_support::unwrapped(twice.err), "give it once")) << twice.err;
  const auto bad = m.ab({"--monitors", "some"});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_FALSE(fs::exists(m.state / "state.json"));
  const auto started = m.ab({"--monitors", "all"});
  ASSERT_EQ(started.exit_code, 0) << started.err;
  const auto command = state_of(m)["command"];
  ASSERT_TRUE(command.is_array() && command.size() >= 3) << command.dump();
  EXPECT_EQ(command[0], "run");
  EXPECT_EQ(command[1], "--monitors") << command.dump();
  EXPECT_EQ(command[2], "all") << command.dump();
}

// -n auto --plan PILOT: the pilot's plan for a regression of
// --max-regression % sets each boot's `run -r` and the budget; a pilot of
// another machine or suite, a command with its own -r, no margin or no -n
// auto are refused before anything is written.
TEST(AbCli, APlanGivesEachBootItsRepetitionsAndTheBudget) {
  StubMachine m;
  m.with_systemd();
  // The pilot: three processes of this machine, as three boots.
  const fs::path pilot = m.tmp.path / "pilot";
  const std::vector<std::string> run = {"run", "directmap", "--preset", "host", "--set", "backings=anon-4k",
                                        "--set", "threads=1", "--set", "bytes=8M", "--set", "write-bandwidth=0"};
  for (int i = 0; i < 3; ++i) {
    std::vector<std::string> args = run;
    args.insert(args.end(), {"-r", "3", "--out", pilot.string()});
    const auto r = run_kvmbench(args, 120, "", {kvmbench::test_support::private_state_dir_env()});
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  auto ab = [&](std::vector<std::string> opts, std::vector<std::string> command) {
    std::vector<std::string> args = {"ab", "--base", m.image.string(), "--cand", m.image.string()};
    args.insert(args.end(), opts.begin(), opts.end());
    args.push_back("--");
    args.insert(args.end(), command.begin(), command.end());
    return run_kvmbench(args, 120, "", m.env());
  };
  // Another machine's pilot: the same runs as another host (its CPU
  // model) would write them.
  const fs::path other = m.tmp.path / "other";
  fs::create_directories(other);
  for (const auto& dir : fs::directory_iterator(pilot)) {
    fs::copy(dir.path(), other / dir.path().filename(), fs::copy_options::recursive);
    const fs::path meta_file = other / dir.path().filename() / "meta.json";
    auto meta = nlohmann::json::parse(kvmbench::test_support::read_text(meta_file));
    meta["host"]["cpu"]["model_name"] = "AMD EPYC 9999 Made-Up 64-Core Processor";
    std::ofstream(meta_file) << meta.dump();
  }
  const std::vector<std::tuple<std::vector<std::string>, std::vector<std::string>, std::string>> refused = {
      {{"-n", "3", "--plan", pilot.string(), "--max-regression", "50"}, run, "--plan gives -n auto"},
      {{"-n", "auto", "--plan", pilot.string()}, run, "--plan needs --max-regression M above 0"},
      {{"-n", "auto", "--plan", pilot.string(), "--max-regression", "50"},
       {"run", "directmap", "--preset", "host", "-r", "5"}, "the command has its own -r"},
      {{"-n", "auto", "--plan", pilot.string(), "--max-regression", "50"}, {"run", "rmpopt", "--preset", "host"},
       "the pilot's runs are of directmap"},
      {{"-n", "auto", "--plan", other.string(), "--max-regression", "50"}, run, "plan from runs of this machine"},
      {{"-n", "auto", "--plan", (m.tmp.path / "nowhere").string(), "--max-regression", "50"}, run,
       "not a directory"},
  };
  for (const auto& [opts, command, says] : refused) {
    const auto r = ab(opts, command);
    EXPECT_EQ(r.exit_code, 2) << says << "\n" << r.err;
    EXPECT_TRUE(has(kvmbench::test_support::unwrapped(r.err), says)) << says << "\n" << r.err;
    EXPECT_FALSE(fs::exists(m.state / "state.json")) << says;
  }
  const auto started = ab({"-n", "auto", "--plan", pilot.string(), "--max-regression", "50"}, run);
  ASSERT_EQ(started.exit_code, 0) << started.err;
  const std::string err = kvmbench::test_support::unwrapped(started.err);
  EXPECT_TRUE(has(err, "kvmbench ab: the plan from 3 boots of directmap:")) << started.err;
  const auto j = state_of(m);
  const auto& command = j["command"];
  ASSERT_GE(command.size(), 3u) << command.dump();
  EXPECT_EQ(command[1], "-r") << command.dump();
  const int reps = std::stoi(command[2].get<std::string>());
  EXPECT_GE(reps, 1);
  EXPECT_TRUE(has(err, fmt::format("each boot runs `run -r {}`", reps))) << started.err;
  ASSERT_TRUE(j.contains("sequential")) << j.dump(2);
}

// An -n auto experiment whose budget ends undecided says what a new one
// would need: the fixed design's boots a side at the spread measured.
TEST(AbCli, NAutoInconclusiveSaysTheBootsThatWouldDecide) {
  StubMachine m;
  m.with_systemd();
  std::vector<std::string> args = {"ab", "--base", m.image.string(), "--cand", m.image.string(), "-n", "auto",
                                   "--max-boots", "2", "--max-regression", "0.5", "--out",
                                   (m.tmp.path / "runs").string(), "--", "run", "directmap", "--preset", "host", "-r",
                                   "2", "--set", "backings=anon-4k", "--set", "threads=1", "--set", "bytes=8M",
                                   "--set", "write-bandwidth=0"};
  ASSERT_EQ(run_kvmbench(args, 120, "", m.env()).exit_code, 0);
  const auto r = resume_until_done(m, 10);
  ASSERT_EQ(r.exit_code, 3) << r.out << r.err;
  const std::string out = kvmbench::test_support::unwrapped(r.out + r.err);
  EXPECT_TRUE(has(out, "neither shown nor excluded after 2 boots a side (the budget, --max-boots 2, is spent; "))
      << r.out << r.err;
  // A/A at a margin of 0.5 %: more boots decide it unless the estimate sits
  // on the margin itself.
  const auto at = out.find("; a new experiment of ");
  if (at == std::string::npos) {
    EXPECT_TRUE(has(out, "; at this estimate no number of boots would decide it") ||
                has(out, "; at these estimates no number of boots would decide them"))
        << r.out << r.err;
  } else {
    const int n = std::stoi(out.substr(at + std::string("; a new experiment of ").size()));
    EXPECT_GE(n, 2) << r.out << r.err;
    // "it ... the change and spread" for one open metric, "them ... the
    // changes and spreads" for more.
    EXPECT_TRUE(has(out, fmt::format("boots a side (-n {}) would decide it if the change and spread stay as measured",
                                     n)) ||
                has(out, fmt::format("boots a side (-n {}) would decide them if the changes and spreads stay as "
                                     "measured",
                                     n)))
        << r.out << r.err;
  }
}
