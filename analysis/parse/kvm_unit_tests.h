// The output of kvm-unit-tests' x86/vmexit.flat (as booted by run_tests.sh
// or QEMU by hand): after the test's setup lines, one "<name> <cycles>"
// line per test it ran ("cpuid 1234", "vmcall 1012", "ipi 3456"), the TSC
// cycles of one round, averaged over the last pass (printf("%s %d\n")).
// Samples: case "vmexit", metric the test's name, unit "cycles". One file is
// one boot of the test (an invocation): several files are several
// repetitions of it.
#pragma once

#include <string_view>

#include "analysis/model/metric_roles.h"
#include "analysis/parse/parse_result.h"

namespace kvmbench::parsers {

// True when a line is the "cpuid N", "vmcall N" or "vmmcall N" that vmexit
// prints first (its default tests start with cpuid and the hypercall).
bool looks_like_vmexit_output(std::string_view text);

// Throws ParseError when no "<name> <cycles>" line is there.
ParseResult parse_vmexit_output(std::string_view text);

}  // namespace kvmbench::parsers
