#include "suites/asid/flushbyasid.h"

#include <fmt/format.h>

#include <stdexcept>

namespace kvmbench::suites::asid {

namespace {

std::string_view to_string(FlushByAsidWanted wanted) {
  switch (wanted) {
    case FlushByAsidWanted::as_booted: return "as-booted";
    case FlushByAsidWanted::on: return "on";
    case FlushByAsidWanted::off: return "off";
  }
  return "";
}

}  // namespace

FlushByAsidWanted parse_flushbyasid_wanted(const std::string& text) {
  for (auto w : {FlushByAsidWanted::as_booted, FlushByAsidWanted::on, FlushByAsidWanted::off})
    if (text == to_string(w)) return w;
  throw std::invalid_argument(fmt::format("'{}' is not as-booted, on or off", text));
}

std::string_view to_string(FlushByAsidState state) {
  switch (state) {
    case FlushByAsidState::yes: return "yes";
    case FlushByAsidState::no: return "no";
    case FlushByAsidState::unknown: return "unknown";
  }
  return "";
}

FlushByAsidBoot this_boot(const host::ConfidentialHost& c) {
  FlushByAsidBoot b{.clearcpuid = c.clearcpuid_flushbyasid,
                    .whose = "this boot",
                    .unread = " (no flags line in /proc/cpuinfo)",
                    .unread_note = ""};
  for (auto s : {FlushByAsidState::yes, FlushByAsidState::no})
    if (c.flushbyasid == to_string(s)) b.state = s;
  return b;
}

FlushByAsidBoot captured_boot(FlushByAsidState state) {
  return {.state = state,
          .clearcpuid = false,
          .whose = "the captured host",
          .unread = " (no flushbyasid.txt in the capture)",
          .unread_note = " (no flushbyasid.txt)"};
}

FlushByAsidCheck check_flushbyasid(FlushByAsidWanted wanted, const FlushByAsidBoot& boot) {
  const std::string& whose = boot.whose;
  FlushByAsidCheck c;
  switch (boot.state) {
    case FlushByAsidState::unknown:
      if (wanted != FlushByAsidWanted::as_booted)
        c.refusal = fmt::format("flushbyasid={}: {} does not say whether the kernel had FLUSHBYASID{}",
                                to_string(wanted), whose, boot.unread);
      c.note_part = "flushbyasid=off";
      c.note = fmt::format("{} does not say whether the kernel had FLUSHBYASID{}; off is a two-boot comparison: {}",
                           whose, boot.unread_note, kFlushByAsidTwoBoot);
      return c;
    case FlushByAsidState::yes:
      if (wanted == FlushByAsidWanted::off)
        c.refusal = fmt::format("flushbyasid=off: {} has FLUSHBYASID (/proc/cpuinfo flags), and KVM uses it "
                                "whenever the kernel has it; {}",
                                whose, kFlushByAsidTwoBoot);
      c.note_part = "flushbyasid=off";
      c.note = fmt::format("{} has FLUSHBYASID (/proc/cpuinfo flags) and KVM uses it whenever the kernel has it "
                           "(there is no module parameter); the without case is a two-boot comparison: {}",
                           whose, kFlushByAsidTwoBoot);
      return c;
    case FlushByAsidState::no:
      if (wanted == FlushByAsidWanted::on)
        c.refusal = fmt::format("flushbyasid=on: {} has no FLUSHBYASID (/proc/cpuinfo flags){}", whose,
                                boot.clearcpuid
                                    ? ": the kernel command line hides it (clearcpuid=flushbyasid); boot without it"
                                    : ": the CPU lacks it, or the kernel was booted without it");
      c.note_part = "flushbyasid=on";
      c.note_not_offered = !boot.clearcpuid;
      c.note = boot.clearcpuid
                   ? fmt::format("{} hides FLUSHBYASID (clearcpuid=flushbyasid): every guest figure is the without "
                                 "case; the with case is a run from a boot without clearcpuid=flushbyasid (compare "
                                 "them)",
                                 whose)
                   : fmt::format("{} has no FLUSHBYASID (/proc/cpuinfo flags): every guest figure is already the "
                                 "without case; the with case needs a host whose kernel has it (compare the runs)",
                                 whose);
      return c;
  }
  return c;
}

}  // namespace kvmbench::suites::asid
