// What a test of kvmbench's LAVA job needs on the worker, shared by the
// dispatcher's test (lava-run alone) and the server's (lava-server with a
// worker): the .deb of this build, lava-server's device-type templates,
// the device's root file system (tests/support/lava/rootfs.sh), the guest
// kernel, an HTTP server for the .deb, and the QEMU job template pointed at
// them.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "tests/support/run_command.h"
#include "tests/support/static_http_server.h"

namespace kvmbench::test_support {

namespace fs = std::filesystem;

const std::string kSource = KVMBENCH_SOURCE_DIR;
const std::string kPython = "/usr/bin/python3";  // Debian's, where lava-dispatcher's modules are

inline std::string lava_support(const std::string& file) { return kSource + "/tests/support/lava/" + file; }
inline std::string lab_job(const std::string& file) { return kSource + "/lab-jobs/lava/" + file; }

// The placeholders of the job template and what the test puts there.
const std::string kKernelUrl = "https://ci.example.org/candidate/bzImage";
const std::string kRootfsUrl = "https://ci.example.org/rootfs/kvmbench-bookworm-amd64.cpio";
const std::string kRepositoryUrl = "https://git.example.org/kvmbench.git";
const std::string kDebUrl = "https://ci.example.org/kvmbench/kvmbench_0.1.0_amd64.deb";

// `text` with `from` replaced by `to`; the test fails when `from` is not there
// (the template changed under it).
inline std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "'" << from << "' is not in the template";
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

// Everything the jobs share: the .deb, lava-server's templates, the root
// file system, the guest kernel, the HTTP server. Made once for the suite.
struct LavaKit {
  std::string skip;     // why the jobs cannot run here, or ""
  std::string failure;  // what went wrong making the kit, or ""
  TempDir dir;
  fs::path deb, device_types, rootfs, kernel;
  std::unique_ptr<HttpServer> http;
};

inline std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

// `tools`: the programs the test needs besides cpack, git, busybox and QEMU
// (lava-run for the dispatcher's test; the server's own are its script's).
inline void make_lava_kit(LavaKit& k, const std::vector<std::string>& tools) {
  if (::geteuid() != 0) {
    k.skip = "LAVA's dispatcher runs as root only";
    return;
  }
  std::vector<std::string> all = {"/usr/bin/mmdebstrap", "/usr/bin/cpack", "/usr/bin/git", "/bin/busybox",
                                  "/usr/bin/qemu-system-x86_64"};
  all.insert(all.end(), tools.begin(), tools.end());
  for (const std::string& tool : all)
    if (::access(tool.c_str(), X_OK) != 0) {
      k.skip = tool + " missing (scripts/bootstrap.sh installs it)";
      return;
    }
  const fs::path kernels = kSource + "/.cache/guest-kernel";
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(kernels, ec))
    if (e.path().filename().string().rfind("vmlinuz-", 0) == 0) k.kernel = e.path();
  if (k.kernel.empty()) {
    k.skip = "no guest kernel in " + kernels.string() + " (scripts/fetch-guest-kernel.sh)";
    return;
  }
  const fs::path modules = kernels / "modules" / k.kernel.filename().string().substr(8);

  // The .deb of this build, as the package test makes it.
  auto c = run_command({"/usr/bin/cpack", "--config", std::string(KVMBENCH_BINARY_DIR) + "/CPackConfig.cmake", "-B",
                        (k.dir.path / "www").string()},
                       300);
  if (c.exit_code != 0) {
    k.failure = "cpack failed: " + c.out + c.err;
    return;
  }
  for (const auto& e : fs::directory_iterator(k.dir.path / "www"))
    if (e.path().extension() == ".deb") k.deb = e.path();
  fs::remove_all(k.dir.path / "www/_CPack_Packages", ec);

  const std::string cache = kSource + "/.cache/lava";
  // Exit 77 from the kit's scripts: not here (no archive, not root).
  auto t = run_command({"/bin/sh", lava_support("device-types.sh"), cache}, 120);
  if (t.exit_code != 0) {
    (t.exit_code == 77 ? k.skip : k.failure) = "lava-server's device-type templates: " + t.err;
    return;
  }
  k.device_types = first_line(t.out);
  auto r = run_command({"/bin/sh", lava_support("rootfs.sh"), cache, k.deb.string(), modules.string()}, 600);
  if (r.exit_code != 0) {
    (r.exit_code == 77 ? k.skip : k.failure) = "the device's root file system: " + r.err;
    return;
  }
  k.rootfs = first_line(r.out);
  k.http = std::make_unique<HttpServer>(k.dir.path / "www");
  if (!k.http->up()) k.failure = "busybox httpd did not start";
}

// A git repository at `repo` holding `testdef` where the job template
// looks for the test definition, and the QEMU job template with its URLs
// pointing at the kit (the kernel and root file system as files, the .deb
// on the kit's HTTP server as the device sees it, the repository).
inline std::string kit_job(const LavaKit& k, const fs::path& repo, const std::string& testdef, const std::string& name) {
  write_text(repo / "lab-jobs/lava/kvmbench-testdef.yaml", testdef);
  const std::vector<std::string> git_id = {"-c", "user.name=kvmbench", "-c", "user.email=kvmbench@localhost"};
  for (std::vector<std::string> cmd : {std::vector<std::string>{"init", "-q"}, {"add", "-A"}, {"commit", "-q", "-m", name}}) {
    cmd.insert(cmd.begin(), git_id.begin(), git_id.end());
    cmd.insert(cmd.begin(), {"/usr/bin/git", "-C", repo.string()});
    auto g = run_command(cmd);
    EXPECT_EQ(g.exit_code, 0) << g.out << g.err;
  }
  std::string job = read_text(lab_job("kvmbench-qemu-job.yaml"));
  job = replaced(job, kKernelUrl, "file://" + k.kernel.string());
  job = replaced(job, kRootfsUrl, "file://" + k.rootfs.string());
  job = replaced(job, kRepositoryUrl, repo.string());
  job = replaced(job, kDebUrl, "http://10.0.2.2:" + std::to_string(k.http->port()) + "/" + k.deb.filename().string());
  return job;
}

}  // namespace kvmbench::test_support
