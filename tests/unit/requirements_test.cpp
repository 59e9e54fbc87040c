// The reasons a preset cannot run, as `list` and `run` print them.
#include "suites/framework/requirements.h"

#include <gtest/gtest.h>

#include "suites/framework/suite.h"

using namespace kvmbench::suites;

namespace {

// A host whose probe asked QEMU as `kvmbench probe --json` records it.
HostCaps host_with_qemu(nlohmann::json qemu) {
  return host_caps_from_probe_json({{"cpu", {{"features", {"svm", "npt"}}}}, {"kvm", {{"present", true}, {"runs_guests", true}}},
                                    {"qemu", std::move(qemu)}});
}

}  // namespace

TEST(Requirements, QemuWithoutTheAcceleratorLacksIt) {
  auto caps = host_with_qemu({{"found", true}, {"path", "/usr/bin/qemu-system-x86_64"}, {"accels", {"tcg"}}});
  EXPECT_EQ(require_qemu(caps, "tcg"), "");
  EXPECT_EQ(require_qemu(caps, "kvm"), "QEMU at /usr/bin/qemu-system-x86_64 lacks the kvm accelerator");
}

// In the emulated lab on a loaded host `-accel help` once outran its time:
// the run was skipped as if QEMU had no KVM. What went wrong is the reason.
TEST(Requirements, QemuThatCouldNotBeAskedIsSaidSoNotCalledLacking) {
  auto caps = host_with_qemu({{"found", true},
                              {"path", "/usr/bin/qemu-system-x86_64"},
                              {"version", "7.2.15"},
                              {"accels", nlohmann::json::array()},
                              {"error", "-accel help: did not finish in time"}});
  EXPECT_EQ(require_qemu(caps, "kvm"),
            "QEMU at /usr/bin/qemu-system-x86_64 could not be asked for its accelerators: -accel help: did not "
            "finish in time");
}
