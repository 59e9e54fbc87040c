// The Debian package, end to end: CPack builds kvmbench_<version>_amd64.deb
// from this build tree, dpkg-deb unpacks it into a throwaway root, and the
// unpacked copy runs `probe`, `reproduce all` and `run rmpopt --preset
// host` from another working directory, finding its data beside itself
// (../share/kvmbench). Nothing in the installed programs may name the
// source or build tree (they would then read it, and break on a lab
// machine that has neither).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <iterator>

#include "tests/support/run_command.h"

using kvmbench::test_support::run_command;
using kvmbench::test_support::TempDir;
namespace fs = std::filesystem;

namespace {

std::string file_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// `cmd` in /bin/sh with `dir` as the working directory.
kvmbench::test_support::CommandResult run_in(const fs::path& dir, const std::string& cmd, double timeout_s = 120) {
  return run_command({"/bin/sh", "-c", "cd '" + dir.string() + "' && " + cmd}, timeout_s, "",
                     {kvmbench::test_support::private_state_dir_env()});
}

}  // namespace

TEST(PackageInstall, DebianPackageRunsFromAThrowawayRoot) {
  for (const char* tool : {"/usr/bin/cpack", "/usr/bin/dpkg-deb", "/usr/bin/dpkg-shlibdeps"})
    if (::access(tool, X_OK) != 0) GTEST_SKIP() << tool << " missing (cmake, dpkg, dpkg-dev; scripts/bootstrap.sh)";
  TempDir t;
  const fs::path pkg = t.path / "pkg";
  auto c = run_command({"/usr/bin/cpack", "--config", std::string(KVMBENCH_BINARY_DIR) + "/CPackConfig.cmake", "-B",
                        pkg.string()},
                       300);
  ASSERT_EQ(c.exit_code, 0) << c.out << c.err;
  fs::path deb;
  for (const auto& e : fs::directory_iterator(pkg))
    if (e.path().extension() == ".deb") deb = e.path();
  ASSERT_FALSE(deb.empty()) << c.out;
  EXPECT_EQ(deb.filename().string().rfind("kvmbench_", 0), 0u) << deb;
  EXPECT_NE(deb.filename().string().find("_amd64.deb"), std::string::npos) << deb;

  // Depends from the libraries it links (dpkg-shlibdeps).
  auto f = run_command({"/usr/bin/dpkg-deb", "-f", deb.string(), "Depends"});
  ASSERT_EQ(f.exit_code, 0) << f.err;
  for (const char* lib : {"libc6", "libstdc++6", "libfmt", "libhwloc", "libnuma1"})
    EXPECT_NE(f.out.find(lib), std::string::npos) << lib << " not in Depends: " << f.out;
  // The docs name the same packages (docs/lab-engines.md: "dpkg-shlibdeps,
  // on Debian 12: libc6, ...)"), no more, no fewer.
  {
    std::set<std::string> in_deb, in_docs;
    std::istringstream deps(f.out);
    for (std::string d; std::getline(deps, d, ',');) {
      d.erase(0, d.find_first_not_of(" \n"));
      in_deb.insert(d.substr(0, d.find_first_of(" (\n")));
    }
    std::string page = file_bytes(fs::path(KVMBENCH_SOURCE_DIR) / "docs/lab-engines.md");
    std::replace(page.begin(), page.end(), '\n', ' ');
    const auto from = page.find("on Debian 12: ");
    ASSERT_NE(from, std::string::npos) << "docs/lab-engines.md lists no Depends";
    std::istringstream listed(page.substr(from + 14, page.find(')', from) - from - 14));
    for (std::string d; std::getline(listed, d, ',');) {
      d.erase(0, d.find_first_not_of(' '));
      in_docs.insert(d.substr(0, d.find(' ')));
    }
    EXPECT_EQ(in_docs, in_deb) << "docs/lab-engines.md's Depends against the package's: " << f.out;
  }
  std::cout << "package " << deb.filename().string() << ", " << fs::file_size(deb) << " bytes\nDepends: " << f.out;

  const fs::path root = t.path / "root";
  auto x = run_command({"/usr/bin/dpkg-deb", "-x", deb.string(), root.string()});
  ASSERT_EQ(x.exit_code, 0) << x.err;
  const fs::path exe = root / "usr/bin/kvmbench";
  ASSERT_TRUE(fs::is_regular_file(exe));
  for (const char* p : {"usr/share/kvmbench/reference", "usr/libexec/kvmbench/kvmbench-faultin",
                        "usr/libexec/kvmbench/fetch-guest-kernel.sh", "usr/share/man/man1/kvmbench.1",
                        "usr/share/man/man1/kvmbench-gate.1", "usr/share/doc/kvmbench/ab.md",
                        "usr/share/bash-completion/completions/kvmbench"})
    EXPECT_TRUE(fs::exists(root / p)) << p;

  // No path into the source tree (the build tree is below it) in any program.
  // Not in a sanitizer build: AddressSanitizer keeps each global's source
  // file for its reports, and a Debug build each assert()'s: names for
  // diagnostics, not lookups, and no such build is shipped. The runs below
  // still show that the unpacked copy finds everything from its own place.
  const std::string tree = KVMBENCH_SOURCE_DIR;
#ifndef KVMBENCH_SANITIZED_BUILD
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    const bool program = e.is_regular_file() && (e.path().parent_path().filename() == "bin" ||
                                                 e.path().parent_path().filename() == "kvmbench");
    if (program && e.path().extension() != ".cpio") {
      EXPECT_EQ(file_bytes(e.path()).find(tree), std::string::npos) << e.path() << " names " << tree;
    }
  }
#endif

  // Run from elsewhere: the working directory is the throwaway root's parent.
  const std::string bin = "'" + exe.string() + "'";
  auto probe = run_in(t.path, bin + " probe");
  EXPECT_EQ(probe.exit_code, 0) << probe.err;
  EXPECT_NE(probe.out.find("kvmbench probe:"), std::string::npos) << probe.out;
  auto labels = run_in(t.path, bin + " probe --labels");
  EXPECT_EQ(labels.exit_code, 0) << labels.err;
  auto repro = run_in(t.path, bin + " reproduce all");
  EXPECT_EQ(repro.exit_code, 0) << repro.err;
  EXPECT_NE(repro.out.find("rmpopt"), std::string::npos) << repro.out;
  EXPECT_EQ(repro.err.find(tree), std::string::npos) << repro.err;
  auto run = run_in(t.path, bin + " run rmpopt --preset host -r 2 --out runs", 240);
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  bool stored = false;
  if (fs::is_directory(t.path / "runs"))
    for (const auto& e : fs::directory_iterator(t.path / "runs")) stored |= fs::exists(e.path() / "meta.json");
  EXPECT_TRUE(stored) << run.out;
}
