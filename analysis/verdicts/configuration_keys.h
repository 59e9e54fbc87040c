// Which keys of a run's meta.json are configuration that can explain a
// difference between two runs (kernel, cmdline, microcode, firmware, KVM
// module parameters, THP, SMT, governor, QEMU, kvmbench version, the run's
// own parameters), and how far a measured one may move and still be the
// same (the TSC rate is calibrated: two runs of one machine differ by a
// few Hz). Everything else a run records (times, paths, counters, free
// memory, a probe's outcome and its reasons, stability warnings) differs
// between any two runs and is not listed by compare and gate.
#pragma once

#include <string>
#include <string_view>

namespace kvmbench {

struct ConfigurationKey {
  std::string_view pattern;        // a flattened key; '*' matches any run of characters
  double relative_tolerance = 0;   // > 0: numbers within it are the same
};

// The entry that makes `key` ("host.kernel.release", "host.hugepages[1].nr_hugepages")
// configuration, or nullptr.
const ConfigurationKey* configuration_key(std::string_view key);

// Whether two values of `key` say the same: equal text, or numbers within
// the key's tolerance.
bool same_configuration(const ConfigurationKey& key, const std::string& a, const std::string& b);

// '*' matches any run of characters (none included), everything else itself.
bool key_matches(std::string_view pattern, std::string_view key);

}  // namespace kvmbench
