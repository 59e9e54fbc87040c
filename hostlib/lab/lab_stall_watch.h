// Whether the emulated lab machine still makes progress, judged from what
// the host sees of it: the command's output, lab-init's heartbeat on the
// console (KVMBENCH-LAB-ALIVE, guests/image/lab-init) and the stalls the
// lab kernel reports itself (analysis/parse/kernel_console_trouble.h). Pure: the
// host's loop feeds it the time, the console so far and whether the command
// wrote anything; tests feed it a made-up console.
//
// A machine with no sign of life (no heartbeat, no command output) for
// silence_s is stalled: its vCPUs loop in the kernel, or QEMU makes no
// progress. A stall the kernel reports (soft lockup, RCU stall, hung task)
// is said at once but ends the run only when no sign of life follows it
// within stall_grace_s: on a starved host the lab's clock jumps and the
// kernel reports lockups of a machine that then carries on.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace kvmbench::host {

struct LabWatchLimits {
  double silence_s = 300;
  double stall_grace_s = 60;
  double progress_note_s = 60;  // a note after this much of the command's silence, and again every as long
};

struct LabWatchVerdict {
  std::vector<std::string> notes;  // for the user, as they happen
  std::string stalled;             // non-empty: end the run, this is why
};

class LabStallWatch {
 public:
  explicit LabStallWatch(LabWatchLimits limits);
  // At t seconds after QEMU started, with the whole console so far.
  LabWatchVerdict observe(double t, std::string_view console, bool command_wrote);

 private:
  LabWatchLimits limits_;
  double last_life_ = 0, last_output_ = 0, last_note_ = 0;
  std::size_t alive_seen_ = 0, markers_seen_ = 0, scanned_ = 0;
  std::string uptime_;
  std::string stall_line_;
  double stall_at_ = -1;
};

}  // namespace kvmbench::host
