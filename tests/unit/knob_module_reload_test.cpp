// The module-reload knob (kvm_amd npt=0 and back) against a fake sysfs tree
// and a fake modprobe: a shell script, written here, that edits the fake
// /sys/module/kvm_amd as the kernel would (unload removes the directory,
// load creates it with the parameters given, booleans shown as Y/N).
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "hostlib/state/knob_journal.h"
#include "hostlib/state/knobs.h"
#include "hostlib/state/module_reload.h"
#include "tests/support/fake_modprobe.h"
#include "tests/support/run_command.h"

using namespace kvmbench::host;
using kvmbench::test_support::read_text;
using kvmbench::test_support::write_fake_modprobe;
using kvmbench::test_support::write_text;
namespace fs = std::filesystem;

namespace {

struct ModuleReload : ::testing::Test {
  kvmbench::test_support::TempDir dir;
  fs::path root, state, script, module;
  std::map<std::string, std::string> saved;

  void save_env(const char* name, const std::string& value) {
    if (const char* s = std::getenv(name)) saved[name] = s;
    else saved[name] = "\x01";
    ::setenv(name, value.c_str(), 1);
  }
  void SetUp() override {
    root = dir.path / "root";
    state = dir.path / "state";
    script = dir.path / "fake-modprobe";
    module = root / "sys/module/kvm_amd";
    write_fake_modprobe(script);
    save_env("KVMBENCH_STATE_DIR", state.string());
    save_env("KVMBENCH_MODPROBE", script.string());  // what a restore from the journal uses
    save_env("FAKE_ROOT", root.string());
    write_text(module / "refcnt", "0\n");
    write_text(module / "parameters/npt", "Y\n");
    write_text(module / "parameters/nested", "1\n");
  }
  void TearDown() override {
    for (auto& [k, v] : saved)
      if (v == "\x01") ::unsetenv(k.c_str());
      else ::setenv(k.c_str(), v.c_str(), 1);
  }
  std::string npt() { return read_text(module / "parameters/npt"); }
  std::string log() { return read_text(root / "modprobe.log"); }
};

}  // namespace

TEST(ModuleParam, BooleansCompareByMeaning) {
  EXPECT_TRUE(module_param_equal("Y", "1"));
  EXPECT_TRUE(module_param_equal("N", "0"));
  EXPECT_FALSE(module_param_equal("Y", "0"));
  EXPECT_TRUE(module_param_equal("42", "42"));
  EXPECT_FALSE(module_param_equal("42", "Y"));
  EXPECT_EQ(format_module_params({{"npt", "Y"}, {"nested", "1"}}), "nested=1 npt=Y");
}

// rmmod(8) unloads one module; `modprobe -r` also unloads the dependencies
// nothing else uses (kmod's modprobe(8), --remove), which takes ccp (the
// PSP driver) along with kvm_amd on an SEV host. The fake modprobe refuses
// -r, so a reload through it fails the test above.
TEST(ModuleReloadTools, RmmodIsTheOneBesideModprobe) {
  EXPECT_EQ(rmmod_beside("/usr/sbin/modprobe"), "/usr/sbin/rmmod");
  EXPECT_EQ(rmmod_beside("/tmp/x/fake-modprobe"), "/tmp/x/rmmod");
  EXPECT_EQ(rmmod_beside("modprobe"), "rmmod");
}

TEST_F(ModuleReload, ReloadsJournalsAndPutsBackAtScopeExit) {
  {
    KnobSet k(root);
    auto got = k.reload_module("kvm_amd", {{"npt", "0"}});
    EXPECT_EQ(got["npt"], "N");
    EXPECT_EQ(npt(), "N\n");
    ASSERT_EQ(k.changes().size(), 1u);
    EXPECT_TRUE(k.changes()[0].module_reload);
    EXPECT_EQ(k.changes()[0].old_value, "npt=Y");
    // Journaled before the reload: every parameter for the record, the
    // changed one to load it with again.
    auto text = read_text(knob_journal_path());
    auto j = nlohmann::json::parse(text.substr(0, text.find('\n')));
    EXPECT_EQ(j["kind"], "module_reload");
    EXPECT_EQ(j["path"], module.string());
    EXPECT_EQ(j["params"], (nlohmann::json{{"npt", "Y"}}));
    EXPECT_EQ(j["all"], (nlohmann::json{{"nested", "1"}, {"npt", "Y"}}));
  }
  EXPECT_EQ(npt(), "Y\n");
  EXPECT_EQ(log(), "rmmod kvm_amd\nfake-modprobe kvm_amd npt=0\nrmmod kvm_amd\nfake-modprobe kvm_amd npt=Y\n");
  auto rep = restore_dead_knob_changes();
  EXPECT_TRUE(rep.restored.empty());
  EXPECT_EQ(read_text(knob_journal_path()), "");  // finished: compacted away
}

TEST_F(ModuleReload, NothingHappensWhenTheValueIsAlreadySet) {
  KnobSet k(root);
  EXPECT_EQ(k.reload_module("kvm_amd", {{"npt", "1"}})["npt"], "Y");
  EXPECT_TRUE(k.changes().empty());
  EXPECT_FALSE(fs::exists(root / "modprobe.log"));
}

TEST_F(ModuleReload, RefusesInUseNotLoadedBuiltInAndUnknownParameter) {
  KnobSet k(root);
  auto message = [&](const std::map<std::string, std::string>& p) {
    try {
      k.reload_module("kvm_amd", p);
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no exception");
  };
  write_text(module / "refcnt", "3\n");  // VMs running
  const std::string in_use = message({{"npt", "0"}});  // after a second's wait for refcnt to drop
  EXPECT_NE(in_use.find("in use (refcnt 3"), std::string::npos) << in_use;
  write_text(module / "refcnt", "0\n");
  EXPECT_NE(message({{"nope", "0"}}).find("no parameter nope"), std::string::npos);
  fs::remove(module / "refcnt");
  EXPECT_NE(message({{"npt", "0"}}).find("built into the kernel"), std::string::npos);
  fs::remove_all(module);
  EXPECT_NE(message({{"npt", "0"}}).find("kvm_amd is not loaded"), std::string::npos);
  EXPECT_TRUE(k.changes().empty());
  EXPECT_FALSE(fs::exists(root / "modprobe.log"));
  EXPECT_FALSE(fs::exists(knob_journal_path()));  // refused before journaling
}

TEST_F(ModuleReload, FailedLoadPutsTheModuleBackAndSaysSo) {
  write_text(root / "modprobe-fails-load-once", "");
  KnobSet k(root);
  try {
    k.reload_module("kvm_amd", {{"npt", "0"}});
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    std::string m = e.what();
    EXPECT_NE(m.find("kvm_amd npt=0` failed (exit 1): modprobe: ERROR: once"), std::string::npos) << m;
    EXPECT_NE(m.find("loaded again with npt=Y"), std::string::npos) << m;
  }
  EXPECT_EQ(npt(), "Y\n");
  EXPECT_TRUE(k.changes().empty());
  EXPECT_TRUE(restore_dead_knob_changes().restored.empty());  // marked done
}

TEST_F(ModuleReload, CrashedRunIsReloadedFromTheJournal) {
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    KnobSet* k = new KnobSet(root);  // never destroyed: the process "crashes"
    k->reload_module("kvm_amd", {{"npt", "N"}});
    _exit(0);  // no destructor, no atexit: like SIGKILL
  }
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_EQ(npt(), "N\n");
  auto rep = restore_dead_knob_changes();
  ASSERT_EQ(rep.restored.size(), 1u);
  EXPECT_TRUE(rep.restored[0].ok) << rep.restored[0].error;
  EXPECT_EQ(rep.restored[0].path, module.string());
  EXPECT_EQ(rep.restored[0].value, "npt=Y");
  EXPECT_EQ(rep.restored[0].pid, child);
  EXPECT_EQ(npt(), "Y\n");
  EXPECT_EQ(read_text(knob_journal_path()), "");
}

TEST_F(ModuleReload, CrashBetweenUnloadAndLoadLoadsItAgain) {
  write_text(root / "modprobe-fails-load", "");  // the load fails, and so does loading it back
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    KnobSet* k = new KnobSet(root);
    try {
      k->reload_module("kvm_amd", {{"npt", "0"}});
    } catch (...) {
      _exit(3);
    }
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 3);
  EXPECT_FALSE(fs::exists(module));  // unloaded, never loaded again
  fs::remove(root / "modprobe-fails-load");
  auto rep = restore_dead_knob_changes();
  ASSERT_EQ(rep.restored.size(), 1u);
  EXPECT_TRUE(rep.restored[0].ok) << rep.restored[0].error;
  EXPECT_EQ(npt(), "Y\n");
}

TEST_F(ModuleReload, JournalRestoreWaitsWhileTheModuleIsInUse) {
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    (new KnobSet(root))->reload_module("kvm_amd", {{"npt", "0"}});
    _exit(0);
  }
  waitpid(child, nullptr, 0);
  write_text(module / "refcnt", "1\n");  // a VM started since
  auto rep = restore_dead_knob_changes();
  ASSERT_EQ(rep.restored.size(), 1u);
  EXPECT_FALSE(rep.restored[0].ok);
  EXPECT_NE(rep.restored[0].error.find("in use"), std::string::npos) << rep.restored[0].error;
  EXPECT_EQ(npt(), "N\n");
  write_text(module / "refcnt", "0\n");
  rep = restore_dead_knob_changes();  // kept in the journal: tried again
  ASSERT_EQ(rep.restored.size(), 1u);
  EXPECT_TRUE(rep.restored[0].ok) << rep.restored[0].error;
  EXPECT_EQ(npt(), "Y\n");
}

TEST_F(ModuleReload, EmergencyRestoreLeavesTheReloadToTheJournal) {
  KnobSet k(root);
  k.reload_module("kvm_amd", {{"npt", "0"}});
  emergency_restore_knobs();  // the second SIGINT: no fork there
  EXPECT_EQ(npt(), "N\n");
  EXPECT_TRUE(k.restore().empty());
  EXPECT_EQ(npt(), "Y\n");
}
