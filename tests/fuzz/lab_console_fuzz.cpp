// The lab machine's console as the host reads it for lab-init's markers and
// GRUB's entries (hostlib/lab/lab_machine.h: parse_lab_console).
#include "hostlib/lab/lab_machine.h"
#include "tests/fuzz/fuzz_target.h"

namespace kvmbench::fuzz {
namespace {

std::size_t occurrences(std::string_view text, std::string_view what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string_view::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

void run(std::string_view data) {
  const host::LabConsole c = host::parse_lab_console(data);
  fuzz_check(c.booted == (c.boots > 0), "booted without a boot counted, or the reverse");
  fuzz_check(static_cast<std::size_t>(c.boots) <= occurrences(data, "KVMBENCH-LAB-BOOTED"),
             "more boots than BOOTED markers");
  fuzz_check(c.grub_entries.size() <= occurrences(data, "KVMBENCH-LAB-GRUB entry="),
             "more GRUB entries than GRUB lines");
  fuzz_check(!c.ready || !c.ready_line.empty() || data.find("KVMBENCH-LAB-READY") != std::string_view::npos,
             "ready without a READY marker");
}

// A real console of `lab ab --boot-via reboot` whose candidate panicked at
// boot (GRUB's escape codes, CRLF, a panic, four boots).
const RegisterFuzzTarget target({"lab_console", {"tests/data/lab/grub-candidate-panics.console.log"}, run});

}  // namespace
}  // namespace kvmbench::fuzz
