// kvm-unit-tests' vmexit output (analysis/parse/kvm_unit_tests.h).
#include "analysis/parse/kvm_unit_tests.h"
#include "tests/fuzz/fuzz_target.h"

namespace kvmbench::fuzz {
namespace {

void run(std::string_view data) {
  parsers::looks_like_vmexit_output(data);
  parsers::parse_vmexit_output(data);
}

const RegisterFuzzTarget target({"kvm_unit_tests", {"tests/data/kvm/vmexit.log"}, run});

}  // namespace
}  // namespace kvmbench::fuzz
