// What `kvmbench run SUITE --dry-run` prints: a preset's plan for one host
// (this one, or another one's `kvmbench probe --json`), made by the preset
// from the same parameters, host capabilities and spec builders its run
// uses, and touching nothing. A plan is a list of sections in the order the
// run would do them:
//   check    whether the preset would run here, and why not
//   guest    one QEMU guest: its whole argument vector, one argument a line
//   ioctls   a KVM ioctl sequence, one ioctl a line
//   boot     the kernel command line it needs, where the boot decides
//   knob     a host setting it would change (and how it is put back)
//   capture  what it would read while measuring, and where the figure comes from
//   skip     a part it would skip, with the reason
//   note     anything else a lab engineer should know first
#pragma once

#include <string>
#include <vector>

#include "hostlib/qemu/qemu_launcher.h"
#include "suites/framework/run_context.h"
#include "suites/framework/suite.h"

namespace kvmbench::suites {

struct PlanSection {
  std::string kind;   // check, guest, ioctls, knob, capture, skip, note
  std::string title;  // "snp-guest0", "per VM build (nr_pages=1)", ...
  std::vector<std::string> lines;
};

class Plan {
 public:
  void check(const std::string& reason_or_empty);
  void guest(const std::string& label, const std::vector<std::string>& argv);
  void ioctls(const std::string& title, std::vector<std::string> sequence);
  // Where the boot decides what can run (suites/framework/boot.h): which boot, and
  // whether it is the one planned for.
  void boot(const BootNeed& need);
  void knob(const std::string& what);
  void capture(const std::string& what);
  void skip(const std::string& part, const std::string& reason);
  void note(const std::string& text);
  // The run would stop before measuring (exit 77) for this reason.
  void cannot_run(const std::string& reason);

  const std::vector<PlanSection>& sections() const { return sections_; }
  bool would_run() const { return would_run_; }

 private:
  std::vector<PlanSection> sections_;
  bool would_run_ = true;
};

// The QEMU argument vector a guest of `spec` would get on the context's
// host, built by build_qemu_argv as the launcher does, with what only the
// run can know written as placeholders in capitals: RUN_DIR (the run
// directory, not made), QMP_DIR (a private temporary directory), PORT (a
// free loopback port), FIRMWARE (a firmware not given). Adds the guest and,
// when the launcher would refuse the guest on that host, a skip saying why.
void plan_guest(Plan& plan, const RunContext& ctx, host::GuestSpec spec, const std::string& label);

// Text for a terminal or a mail: sections in order, long lines wrapped at 80
// columns under their indent (argument vectors one argument a line);
// `repetitions` < 0 is -r auto.
std::string render_plan(const std::string& suite, const Preset& preset, const Plan& plan,
                        const std::map<std::string, std::string>& params, int repetitions);

}  // namespace kvmbench::suites
