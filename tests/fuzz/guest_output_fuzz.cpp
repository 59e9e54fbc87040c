// A kvmbench guest's console (analysis/parse/guest_output.h), as a run
// and its replay read it.
#include "analysis/parse/guest_output.h"
#include "tests/fuzz/fuzz_target.h"

namespace kvmbench::fuzz {
namespace {

void run(std::string_view data) {
  const parsers::GuestOutput g = parsers::parse_guest_output(data);
  fuzz_check(g.ok() == g.failure().empty(), "a guest console both ok and failed, or neither");
}

const RegisterFuzzTarget target({"guest_output",
                                 {"tests/data/replay/asid/cpuid_rate.npt-on.console.log",
                                  "tests/data/replay/asid/tcp_rr.it0.native.log",
                                  "tests/data/replay/directmap/faultin-unpinned.console.log",
                                  "tests/data/replay/rmpopt/snp-guest0.console.log"},
                                 run});

}  // namespace
}  // namespace kvmbench::fuzz
