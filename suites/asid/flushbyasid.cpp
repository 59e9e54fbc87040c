#include "suites/asid/flushbyasid.h"

#include <fmt/format.h>

#include <stdexcept>

namespace kvmbench::suites::asid {

FlushByAsidCheck check_flushbyasid(const std::string& wanted, const std::string& state, bool clearcpuid,
                                   bool replay) {
  if (wanted != "as-booted" && wanted != "on" && wanted != "off")
    throw std::invalid_argument(fmt::format("'{}' is not as-booted, on or off", wanted));
  if (state != "yes" && state != "no" && state != "unknown")
    throw std::invalid_argument(fmt::format("FLUSHBYASID state '{}' is not yes, no or unknown", state));
  const std::string whose = replay ? "the captured host" : "this boot";
  FlushByAsidCheck c;
  if (state == "unknown") {
    if (wanted != "as-booted")
      c.refusal = fmt::format("flushbyasid={}: {} does not say whether the kernel had FLUSHBYASID{}", wanted, whose,
                              replay ? " (no flushbyasid.txt in the capture)" : " (no flags line in /proc/cpuinfo)");
    c.note_part = "flushbyasid=off";
    c.note = fmt::format("{} does not say whether the kernel had FLUSHBYASID{}; off is a two-boot comparison: {}",
                         whose, replay ? " (no flushbyasid.txt)" : "", kFlushByAsidTwoBoot);
    return c;
  }
  if (state == "yes") {
    if (wanted == "off")
      c.refusal = fmt::format("flushbyasid=off: {} has FLUSHBYASID (/proc/cpuinfo flags), and KVM uses it whenever "
                              "the kernel has it; {}",
                              whose, kFlushByAsidTwoBoot);
    c.note_part = "flushbyasid=off";
    c.note = fmt::format("{} has FLUSHBYASID (/proc/cpuinfo flags) and KVM uses it whenever the kernel has it "
                         "(there is no module parameter); the without case is a two-boot comparison: {}",
                         whose, kFlushByAsidTwoBoot);
    return c;
  }
  // state == "no"
  if (wanted == "on")
    c.refusal = fmt::format("flushbyasid=on: {} has no FLUSHBYASID (/proc/cpuinfo flags){}", whose,
                            clearcpuid ? ": the kernel command line hides it (clearcpuid=flushbyasid); boot without it"
                                       : ": the CPU lacks it, or the kernel was booted without it");
  c.note_part = "flushbyasid=on";
  c.note = clearcpuid
               ? fmt::format("{} hides FLUSHBYASID (clearcpuid=flushbyasid): every guest figure is the without "
                             "case; the with case is a run from a boot without clearcpuid=flushbyasid (compare them)",
                             whose)
               : fmt::format("{} has no FLUSHBYASID (/proc/cpuinfo flags): every guest figure is already the without "
                             "case; the with case needs a host whose kernel has it (compare the runs)",
                             whose);
  return c;
}

}  // namespace kvmbench::suites::asid
