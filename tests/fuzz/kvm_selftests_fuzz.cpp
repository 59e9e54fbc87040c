// KVM selftests' output (analysis/parse/kvm_selftests.h): plain, TAP,
// quoted in a mail.
#include "analysis/parse/kvm_selftests.h"
#include "tests/fuzz/fuzz_target.h"

namespace kvmbench::fuzz {
namespace {

void run(std::string_view data) {
  if (parsers::looks_like_kvm_selftest(data)) parsers::parse_kvm_selftest(data);
}

const RegisterFuzzTarget target({"kvm_selftests", {"tests/data/kvm"}, run});

}  // namespace
}  // namespace kvmbench::fuzz
