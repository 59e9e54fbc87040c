// A hang that panic= cannot end (a hard lockup, a machine wedged with
// interrupts off) ends by the hardware watchdog, where the machine has one:
// for the length of a `kvmbench ab` experiment, systemd pets it
// (RuntimeWatchdogSec in a system.conf drop-in written by kvmbench, applied
// by daemon-reexec), so that a kernel that stops scheduling is reset into
// the default boot entry. Left as it is where systemd already pets a
// watchdog; removed at the experiment's end.
#pragma once

#include <string>

namespace kvmbench::host {

inline constexpr int kWatchdogSeconds = 60;

// Arms it: what was done ("the hardware watchdog (iTCO_wdt) is petted by
// systemd every ...") or why not ("no hardware watchdog here
// (/sys/class/watchdog is empty)"), for the experiment's start message.
std::string arm_hang_watchdog();
// Removes kvmbench's drop-in, where it wrote one.
void disarm_hang_watchdog();

}  // namespace kvmbench::host
